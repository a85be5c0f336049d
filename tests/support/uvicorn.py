"""A real uvicorn process serving config.asgi on a local port: the SSE tests' server (tests/api), and
bench/handoff's and bench/api's. Its settings come from the environment it is given."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from typing import IO

from tests.support.processes import wait_for


def uvicorn_argv(*, port: int) -> list[str]:
    """uvicorn serving config.asgi on 127.0.0.1:``port``, quiet but for warnings, without lifespan
    events (Django has none)."""
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--lifespan",
        "off",
    ]


def uvicorn_start(
    *, port: int, env: dict[str, str], stdout: int | IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``uvicorn_argv`` in a session of its own (``process_group_stop`` ends it)."""
    return subprocess.Popen(uvicorn_argv(port=port), env=env, start_new_session=True, stdout=stdout)


def uvicorn_wait(process: subprocess.Popen[bytes], *, base_url: str, timeout: float = 60) -> None:
    """Until Django answers at ``base_url`` (any HTTP status: /api/v1/me says 401 without a key)."""

    def answering() -> bool:
        assert process.poll() is None, f"uvicorn exited with {process.returncode}"
        try:
            urllib.request.urlopen(f"{base_url}/api/v1/me", timeout=1)  # noqa: S310 (local server)
        except urllib.error.HTTPError:
            return True  # a JSON error: Django answers
        except OSError:
            return False
        return True

    wait_for(answering, timeout=timeout, interval=0.2, what="the uvicorn server")

"""The launcher's one error and its voice: a problem the user can fix, said in one line."""

from __future__ import annotations

from core.errors import ParleyError


class LaunchError(ParleyError):
    """A problem the user can fix; printed without a traceback."""

    code = "launch_failed"


def say(message: str) -> None:
    print(f"parley: {message}", flush=True)

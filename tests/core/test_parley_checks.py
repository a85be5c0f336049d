"""`./parley test` runs pip-audit and mypy beside pytest: each still runs, its report follows pytest's,
and any of the three failing fails the command (pytest's own status first).

As in test_parley_audit.py, stand-in executables in a copy of the project answer as the real tools do
(the real ones ask PyPI, type-check the whole project and run the whole suite), so what is tested is the
command's own logic. Chromium and the system packages are the machine's, as the browser tests need."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Each tool exits with the status named in the environment (default 0) and says what it did.
TOOL = """#!/usr/bin/env bash
name=$(basename "$0")
[ "$name" = "python" ] && [ "${1:-}" = "-m" ] && name="$2"
echo "$name ran" >> "$(dirname "$0")/../../ran.txt"
case "$name" in
  pip-audit) echo "No known vulnerabilities found"; exit "${AUDIT_STATUS:-0}" ;;
  mypy)
    [ "${MYPY_STATUS:-0}" = "0" ] && echo "Success: no issues found" || echo "app.py:1: error: no"
    exit "${MYPY_STATUS:-0}" ;;
  pytest)  # waits (5 s at most) for mypy, which runs beside it
    for _ in $(seq 50); do grep -q "mypy ran" "$(dirname "$0")/../../ran.txt" && break; sleep 0.1; done
    grep -q "mypy ran" "$(dirname "$0")/../../ran.txt" && echo "mypy ran beside pytest"
    echo "pytest report"; exit "${PYTEST_STATUS:-0}" ;;
  *) exit 0 ;;
esac
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "parley", tmp_path / "parley")
    requirements = b"django==5.2\n"
    (tmp_path / "requirements.txt").write_bytes(requirements)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "ruff", "pip-audit", "mypy"):
        (bin_dir / name).write_text(TOOL)
        (bin_dir / name).chmod(0o755)
    # The install step is skipped when the requirements' hash is the one installed.
    (tmp_path / ".venv" / ".requirements.sha256").write_text(
        hashlib.sha256(requirements).hexdigest() + "\n"
    )
    return tmp_path


def _test(project: Path, **statuses: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(project / "parley"), "test"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **statuses},
    )


def test_every_check_runs_and_the_reports_follow_pytests(project: Path) -> None:
    result = _test(project)
    assert result.returncode == 0, result.stdout + result.stderr
    ran = (project / "ran.txt").read_text().split("\n")
    assert {"ruff ran", "pip-audit ran", "mypy ran", "pytest ran"} <= set(ran)
    out = result.stdout
    assert "mypy ran beside pytest" in out
    assert out.index("pytest report") < out.index("No known vulnerabilities found")
    assert out.index("No known vulnerabilities found") < out.index("Success: no issues found")


def test_mypy_failing_fails_the_command_after_the_suite(project: Path) -> None:
    result = _test(project, MYPY_STATUS="1")
    assert result.returncode == 1
    assert "pytest report" in result.stdout and "app.py:1: error" in result.stdout
    assert "pip-audit or mypy failed" in result.stderr


def test_pip_audit_failing_still_runs_mypy_and_fails_the_command(project: Path) -> None:
    result = _test(project, AUDIT_STATUS="1")
    assert result.returncode == 1
    assert "mypy ran" in (project / "ran.txt").read_text()


def test_pytests_status_comes_first(project: Path) -> None:
    result = _test(project, PYTEST_STATUS="2", MYPY_STATUS="1")
    assert result.returncode == 2
    assert "app.py:1: error" in result.stdout

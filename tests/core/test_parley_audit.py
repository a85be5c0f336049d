"""The pip-audit step of `./parley test` (run alone as `./parley audit`): the allow-list's ids reach pip-audit
as --ignore-vuln, an entry without a reason stops the step, and pip-audit's failure fails it.

pip-audit itself asks PyPI over the network, which a test must not; here a stand-in executable in a copy of
the project answers as pip-audit does (exit 1 and its report for a vulnerability not ignored), so what is
tested is the step's own logic. The real step runs in every `./parley test`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STAND_IN = """#!/usr/bin/env bash
echo "$@" > "$(dirname "$0")/../../args.txt"
for arg in "$@"; do [ "$arg" = "GHSA-aaaa-bbbb-cccc" ] && ignored=1; done
if [ -z "${ignored:-}" ]; then
  echo "Found 1 known vulnerability in 1 package"
  echo "django 3.2.0 GHSA-aaaa-bbbb-cccc 3.2.1"
  exit 1
fi
echo "No known vulnerabilities found"
echo "torch  Dependency not found on PyPI and could not be audited: torch (2.13.0)"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "parley", tmp_path / "parley")
    (tmp_path / "requirements.txt").write_text("django==3.2.0\ntorch==2.13.0\n")
    stand_in = tmp_path / ".venv" / "bin" / "pip-audit"
    stand_in.parent.mkdir(parents=True)
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    return tmp_path


def _audit(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(project / "parley"), "audit"], capture_output=True, text=True, timeout=30
    )


def test_a_known_vulnerability_fails_the_step_with_pip_audits_report(project: Path) -> None:
    result = _audit(project)
    assert result.returncode == 1
    assert "GHSA-aaaa-bbbb-cccc" in result.stderr and ".pip-audit-allow.txt" in result.stderr
    args = (project / "args.txt").read_text().split()
    assert args[:5] == [
        "--requirement",
        "requirements.txt",
        "--no-deps",
        "--disable-pip",
        "--progress-spinner",
    ]


def test_an_allowed_vulnerability_passes_and_unaudited_pins_are_counted(project: Path) -> None:
    (project / ".pip-audit-allow.txt").write_text(
        "# accepted advisories\n\nGHSA-aaaa-bbbb-cccc  only the admin's password reset uses it; off here\n"
    )
    result = _audit(project)
    assert result.returncode == 0, result.stderr
    assert "No known vulnerabilities found (1 pins without PyPI data, not audited)" in result.stdout
    assert "--ignore-vuln GHSA-aaaa-bbbb-cccc" in (project / "args.txt").read_text()


def test_an_allow_list_entry_without_a_reason_stops_the_step(project: Path) -> None:
    (project / ".pip-audit-allow.txt").write_text("GHSA-aaaa-bbbb-cccc\n")
    result = _audit(project)
    assert result.returncode == 1
    assert "GHSA-aaaa-bbbb-cccc has no reason" in result.stderr
    assert not (project / "args.txt").exists()  # pip-audit never ran

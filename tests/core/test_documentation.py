"""The documents stay readable: README and ARCHITECTURE.md within their lengths (the detail lives in
docs/), and every relative link of README, ARCHITECTURE.md and docs/ leads to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_readme_and_architecture_stay_short() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 300
    assert len((ROOT / "ARCHITECTURE.md").read_text().splitlines()) <= 250


def test_every_relative_link_leads_to_a_file() -> None:
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)} → {target}"
        for page in pages
        for target in _LINK.findall(page.read_text())
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert broken == []

"""The widget script itself: complete locale tables, no emoji, and its size budget (≤ 30 KB gzipped)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "widget/static/widget/widget.js"
EMOJI_RE = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")


def _locale_tables(source: str) -> dict[str, set[str]]:
    block = source[source.index("const STRINGS = {") : source.index("const PHASES")]
    tables = re.split(r"^\s{4}(\w\w): \{", block, flags=re.M)[1:]
    return {
        locale: set(re.findall(r"(\w+): \"", body))
        for locale, body in zip(tables[::2], tables[1::2], strict=True)
    }


def test_every_text_exists_in_every_language() -> None:
    tables = _locale_tables(SCRIPT.read_text())
    assert set(tables) == {"en", "fr", "de", "es", "it", "pt"}
    for locale, keys in tables.items():
        assert keys == tables["en"], locale
    # The texts of the handoff states and the labels this widget's buttons need.
    assert {"open", "hide", "close", "closePreview", "waiting", "noAgent", "left"} <= tables["en"]


def test_the_script_draws_icons_as_svg_and_holds_no_emoji() -> None:
    source = SCRIPT.read_text()
    assert not EMOJI_RE.search(source)
    assert 'createElementNS(NS, "svg")' in source


def test_the_script_stays_within_its_size_budget() -> None:
    size = len(gzip.compress(SCRIPT.read_bytes(), compresslevel=9))
    assert size <= 30 * 1024, f"widget.js is {size} bytes gzipped"

"""Language detection: how short a text may be in each script, and Chinese told as one written language."""

from __future__ import annotations

import pytest

from rag.language import language_detect


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # Seven Chinese or Japanese characters carry a question: the minimum counts the bytes the
        # identifier reads (20), not characters.
        ("退货政策是什么？", "zh"),
        ("电池的保修期是多久？", "zh"),
        ("配送にはどのくらいかかりますか？", "ja"),
        ("배송은 얼마나 걸리나요?", "ko"),
        ("Как вернуть товар?", "ru"),
        ("ما هي سياسة الإرجاع؟", "ar"),
        ("How long does the delivery of a bike take?", "en"),
        # Mandarin the identifier splits between Wu, Mandarin and Cantonese is Chinese.
        ("1466年巴黎有多少人死于瘟疫？", "zh"),
        ("哪两个管理机构拥有立法否决权？", "zh"),
    ],
)
def test_short_questions_in_every_script_get_their_language(text: str, language: str) -> None:
    assert language_detect(text) == language


@pytest.mark.parametrize(
    "text", ["Danke!", "Merci !", "Hi there", "Гарантия?", "保修期多长？", "   "]
)
def test_texts_under_twenty_bytes_get_no_guess(text: str) -> None:
    assert language_detect(text) == ""

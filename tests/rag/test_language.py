"""Language detection: how short a text may be in each script, languages read by how they are written,
and text with no language in it."""

from __future__ import annotations

import json
from importlib import import_module

import pytest
from django.db import connection

from core.models import Workspace
from rag.models import Document
from tests.support.knowledge import document_ingested
from textmodels.language import language_detect


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # Outside Latin script the minimum counts the UTF-8 bytes the identifier reads (20): seven
        # Chinese or Japanese characters carry a whole question.
        ("退货政策是什么？", "zh"),
        ("电池的保修期是多久？", "zh"),
        ("配送にはどのくらいかかりますか？", "ja"),
        ("東京都の人口は何人ですか", "ja"),  # kanji-heavy Japanese is not counted as Chinese
        ("배송은 얼마나 걸리나요?", "ko"),
        ("Как вернуть товар?", "ru"),
        ("ما هي سياسة الإرجاع؟", "ar"),
        ("How long does the delivery of a bike take?", "en"),
        # Mandarin the identifier splits between Wu, Mandarin and Cantonese is Chinese; Egyptian
        # Arabic is Arabic.
        ("1466年巴黎有多少人死于瘟疫？", "zh"),
        ("哪两个管理机构拥有立法否决权？", "zh"),
        ("إزيك يا معلم، الدنيا عاملة إيه معاك النهارده؟", "ar"),
    ],
)
def test_short_questions_in_every_script_get_their_language(text: str, language: str) -> None:
    assert language_detect(text) == language


@pytest.mark.parametrize(
    "text",
    [
        "Danke!",
        "Merci, à bientôt !",  # Latin script counts characters (18), not bytes (20)
        "a" * 19,
        "Гарантия?",  # 17 bytes
        "保修期多长？",  # 18 bytes
        "   ",
        "\ud800 lone surrogate",  # as a connector's JSON may carry it: no error
    ],
)
def test_texts_under_twenty_get_no_guess(text: str) -> None:
    assert language_detect(text) == ""


def test_text_with_no_language_in_it_gets_none() -> None:
    # The identifier's "zxx" class (markup, codes, numbers) is sure of itself here (0.68), yet it is
    # no language: a chunk of it must not count as a foreign language of the workspace.
    assert language_detect("<div><br/></div> SKU-4411-B x2 " * 3) == ""


@pytest.mark.django_db
def test_the_migration_reads_stored_chinese_variants_as_chinese_and_zxx_as_none() -> None:
    migration = import_module("rag.migrations.0016_written_languages")
    workspace = Workspace.objects.create(name="ws-langs", slug="ws-langs")
    documents = {
        code: document_ingested(workspace=workspace, text=f"Text {code}.", filename=f"{code}.txt")
        for code in ("wuu", "yue", "zxx", "arz", "en")
    }
    for code, document in documents.items():
        Document.objects.filter(pk=document.pk).update(language=code)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE rag_chunk SET metadata = jsonb_set(rag_chunk.metadata, '{languages}', to_jsonb(ARRAY[d.language]))"
            " FROM rag_document AS d WHERE d.id = rag_chunk.document_id AND d.workspace_id = %s",
            [str(workspace.pk)],
        )
        cursor.execute(migration._FORWARD)
        cursor.execute(
            "SELECT d.filename, d.language, c.metadata -> 'languages' FROM rag_document AS d"
            " JOIN rag_chunk AS c ON c.document_id = d.id WHERE d.workspace_id = %s",
            [str(workspace.pk)],
        )
        found = {name: (language, json.loads(codes)) for name, language, codes in cursor}
    assert found == {
        "wuu.txt": ("zh", ["zho"]),
        "yue.txt": ("zh", ["zho"]),
        "zxx.txt": ("", []),
        "arz.txt": ("arz", ["arz"]),  # its chunks are analysed as 'simple': left as it is
        "en.txt": ("en", ["en"]),
    }

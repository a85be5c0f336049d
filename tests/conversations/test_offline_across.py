"""The offline answer to a question in another language than the documents: the passage is found with the
multilingual model, quoted in English, and framed in the question's language."""

from __future__ import annotations

import pytest

from conversations.llm.across import CROSS_LANGUAGE_FRAMES, cross_language_frame, language_name
from conversations.llm.offline import offline_answer
from conversations.types import BotRules
from rag.retrieval import RetrievedChunk
from textmodels.embeddings import LOCAL_MODEL_ID, embed_texts

WARRANTY = (
    "The battery is covered by a warranty of two years from the day of delivery. "
    "Our workshop in Lyon repairs frames and wheels. "
    "Gift cards can be used in every partner shop."
)
DELIVERY = (
    "Bikes in stock are delivered within three to five working days. "
    "The showroom is closed on Mondays. Helmets are sold separately."
)


def _embed(texts):  # type: ignore[no-untyped-def]
    return embed_texts(list(texts), model_id=LOCAL_MODEL_ID)


@pytest.mark.parametrize(
    ("question", "chunk", "frame", "sentence"),
    [
        (
            "Quelle est la garantie de la batterie ?",
            WARRANTY,
            "La documentation (en anglais) indique : «\u00a0",
            "The battery is covered by a warranty of two years from the day of delivery.",
        ),
        (
            "Wie lange dauert die Lieferung eines Fahrrads?",
            DELIVERY,
            "Die Dokumentation (auf Englisch) sagt: „",
            "Bikes in stock are delivered within three to five working days.",
        ),
        (
            "¿Cuánto tiempo tarda la entrega de una bicicleta?",
            DELIVERY,
            "La documentación (en inglés) indica: «",
            "Bikes in stock are delivered within three to five working days.",
        ),
        # Every language the multilingual model reads has a frame; CLDR names the documents' language.
        (
            "Сколько длится гарантия на батарею?",
            WARRANTY,
            "Документация (язык: английский) гласит: «",
            "The battery is covered by a warranty of two years from the day of delivery.",
        ),
        (
            "电池的保修期是多久？",
            WARRANTY,
            "文档（英语）指出：“",
            "The battery is covered by a warranty of two years from the day of delivery.",
        ),
        (
            "自転車の配達にはどのくらいかかりますか？",
            DELIVERY,
            "ドキュメント（英語）には次のように書かれています：「",
            "Bikes in stock are delivered within three to five working days.",
        ),
    ],
)
def test_a_question_in_another_language_gets_the_english_passage_framed_in_its_language(
    question: str, chunk: str, frame: str, sentence: str
) -> None:
    chunks = [
        RetrievedChunk(id="c1", text=chunk, score=0.62, rank=1, starts_clean=True, ends_clean=True)
    ]
    answer = offline_answer(
        question=question,
        chunks=chunks,
        rules=BotRules(max_answer_sentences=1),
        embed=_embed,
        guard=None,
    )
    assert answer["status"] == "found_in_context", answer
    assert str(answer["answer"]).startswith(frame) and sentence in str(answer["answer"])
    usage = answer["context_usage"]
    assert usage == [
        {"chunk": "c1", "sentences": [sentence], "used_in_response": True, "reason": None}
    ]


def test_a_question_in_the_documents_language_is_not_framed() -> None:
    chunks = [
        RetrievedChunk(
            id="c1", text=DELIVERY, score=0.62, rank=1, starts_clean=True, ends_clean=True
        )
    ]
    answer = offline_answer(
        question="How long does the delivery of a bike take?",
        chunks=chunks,
        rules=BotRules(),
        embed=_embed,
        guard=None,
    )
    assert str(answer["answer"]).startswith("Bikes in stock are delivered")
    # Finnish is not among the multilingual model's languages: no frame; nor for a code CLDR lacks.
    assert cross_language_frame(text="x", question_language="fi", passage_language="en") == "x"
    assert cross_language_frame(text="x", question_language="ru", passage_language="qq") == "x"
    assert cross_language_frame(text="x", question_language="", passage_language="en") == "x"


def test_every_language_the_multilingual_model_reads_has_a_frame_naming_the_documents_language() -> (
    None
):
    # USE v3's sixteen languages, Chinese in one script.
    assert set(CROSS_LANGUAGE_FRAMES) == {
        "ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh",
    }  # fmt: skip
    for language in CROSS_LANGUAGE_FRAMES:
        documents = "fr" if language == "en" else "en"
        name = language_name(language=documents, in_language=language)
        framed = cross_language_frame(
            text="QUOTED", question_language=language, passage_language=documents
        )
        assert name and name in framed and "QUOTED" in framed and framed != "QUOTED", language

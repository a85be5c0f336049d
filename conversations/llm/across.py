"""Offline answers across languages: the multilingual embedding that compares a question with passages in
another language, and the frame that says, in the question's language, which language the quoted passages
are in ("La documentation (en anglais) indique : « … »")."""

from __future__ import annotations

from collections.abc import Sequence

# How an answer quoting documents in another language says so, in the question's language; {language}
# is the documents' language named in the question's (LANGUAGE_NAMES), {text} the quoted passages.
CROSS_LANGUAGE_FRAMES = {
    "en": "The documentation (in {language}) says: \u201c{text}\u201d",
    "fr": "La documentation (en {language}) indique : \u00ab\u00a0{text}\u00a0\u00bb",
    "de": "Die Dokumentation (auf {language}) sagt: \u201e{text}\u201c",
    "es": "La documentación (en {language}) indica: \u00ab{text}\u00bb",
    "it": "La documentazione (in {language}) indica: \u00ab{text}\u00bb",
    "pt": "A documentação (em {language}) indica: \u00ab{text}\u00bb",
}
LANGUAGE_NAMES = {
    "en": {
        "en": "English",
        "fr": "French",
        "de": "German",
        "es": "Spanish",
        "it": "Italian",
        "pt": "Portuguese",
    },
    "fr": {
        "en": "anglais",
        "fr": "français",
        "de": "allemand",
        "es": "espagnol",
        "it": "italien",
        "pt": "portugais",
    },
    "de": {
        "en": "Englisch",
        "fr": "Französisch",
        "de": "Deutsch",
        "es": "Spanisch",
        "it": "Italienisch",
        "pt": "Portugiesisch",
    },
    "es": {
        "en": "inglés",
        "fr": "francés",
        "de": "alemán",
        "es": "español",
        "it": "italiano",
        "pt": "portugués",
    },
    "it": {
        "en": "inglese",
        "fr": "francese",
        "de": "tedesco",
        "es": "spagnolo",
        "it": "italiano",
        "pt": "portoghese",
    },
    "pt": {
        "en": "inglês",
        "fr": "francês",
        "de": "alemão",
        "es": "espanhol",
        "it": "italiano",
        "pt": "português",
    },
}


def embed_across(texts: Sequence[str]) -> Sequence[Sequence[float]]:
    """The multilingual model's vectors: texts in different languages on one scale. One text alone is
    the question (the passages are stored): the query's vector retrieval has just computed."""
    from rag.embeddings import MULTI_MODEL_ID, embed_query, embed_texts

    if len(texts) == 1:
        return [embed_query(texts[0], model_id=MULTI_MODEL_ID)]
    return embed_texts(list(texts), model_id=MULTI_MODEL_ID)


def cross_language_frame(*, text: str, question_language: str, passage_language: str) -> str:
    """The quoted passages, said to be in their language, in the question's language; `text` as it is
    when both are the same (or either is unknown)."""
    if not question_language or not passage_language or question_language == passage_language:
        return text
    frame = CROSS_LANGUAGE_FRAMES.get(question_language)
    name = LANGUAGE_NAMES.get(question_language, {}).get(passage_language)
    if frame is None or name is None:
        return text
    return frame.format(language=name, text=text)

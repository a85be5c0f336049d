"""Offline answers across languages: the multilingual embedding that compares a question with passages in
another language, and the frame that says, in the question's language, which language the quoted passages
are in ("La documentation (en anglais) indique : « … »")."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import babel

# How an answer quoting documents in another language says so, in the question's language: one frame for
# each language the multilingual model reads (USE v3's sixteen, Chinese in one script). {language} is the
# documents' language named in the question's, {text} the quoted passages. Languages whose grammar would
# inflect the name after a preposition (Polish, Russian) name it after a colon, in the form CLDR gives;
# German's "auf" takes CLDR's one-word names as they are (a multi-word one would want a case ending).
CROSS_LANGUAGE_FRAMES = {
    "en": "The documentation (in {language}) says: \u201c{text}\u201d",
    "fr": "La documentation (en {language}) indique : \u00ab\u00a0{text}\u00a0\u00bb",
    "de": "Die Dokumentation (auf {language}) sagt: \u201e{text}\u201c",
    "es": "La documentación (en {language}) indica: \u00ab{text}\u00bb",
    "it": "La documentazione (in {language}) indica: \u00ab{text}\u00bb",
    "pt": "A documentação (em {language}) indica: \u00ab{text}\u00bb",
    "nl": "De documentatie (in het {language}) zegt: \u201c{text}\u201d",
    "pl": "Dokumentacja (język: {language}) podaje: \u201e{text}\u201d",
    "ru": "Документация (язык: {language}) гласит: \u00ab{text}\u00bb",
    "tr": "Belgelerde ({language}) şöyle yazıyor: \u201c{text}\u201d",
    "ar": "تقول الوثائق (باللغة {language}): \u00ab{text}\u00bb",
    "zh": "文档（{language}）指出：\u201c{text}\u201d",
    "ja": "ドキュメント（{language}）には次のように書かれています：\u300c{text}\u300d",
    "ko": "문서({language})에 따르면: \u201c{text}\u201d",
    "th": "เอกสาร (ภาษา{language}) ระบุว่า: \u201c{text}\u201d",
}


@functools.lru_cache(maxsize=512)
def language_name(*, language: str, in_language: str) -> str:
    """`language` (ISO 639-1) named in `in_language`, as CLDR names it (Babel's data, shipped in its wheel:
    "anglais" in French, "Englisch" in German, "英语" in Chinese); "" when CLDR has no such name."""
    try:
        names = babel.Locale.parse(in_language).languages
    except (ValueError, babel.UnknownLocaleError):
        return ""
    name: str = names.get(language, "")
    return name


def embed_across(texts: Sequence[str]) -> Sequence[Sequence[float]]:
    """The multilingual model's vectors: texts in different languages on one scale. One text alone is
    the question (the passages are stored): the query's vector retrieval has just computed."""
    from textmodels.embeddings import MULTI_MODEL_ID, embed_query, embed_texts

    if len(texts) == 1:
        return [embed_query(texts[0], model_id=MULTI_MODEL_ID)]
    return embed_texts(list(texts), model_id=MULTI_MODEL_ID)


def cross_language_frame(*, text: str, question_language: str, passage_language: str) -> str:
    """The quoted passages, said to be in their language, in the question's language; `text` as it is
    when both are the same (or either is unknown)."""
    if not question_language or not passage_language or question_language == passage_language:
        return text
    frame = CROSS_LANGUAGE_FRAMES.get(question_language)
    if frame is None:
        return text
    name = language_name(language=passage_language, in_language=question_language)
    return frame.format(language=name, text=text) if name else text

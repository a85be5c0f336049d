"""The PostgreSQL text-search configuration and the spec's ISO 639-3 codes for each language (the language
itself is guessed by textmodels.language)."""

from __future__ import annotations

# PostgreSQL's built-in snowball configurations, by ISO 639-1 code; anything else uses 'simple'.
_TS_CONFIGS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
# The spec's metadata.languages uses ISO 639-3 codes ("fra").
_ISO3 = {
    "en": "eng",
    "fr": "fra",
    "de": "deu",
    "es": "spa",
    "it": "ita",
    "pt": "por",
    "nl": "nld",
    "sv": "swe",
    "da": "dan",
    "no": "nor",
    "nb": "nob",
    "fi": "fin",
    "ru": "rus",
    "pl": "pol",
    "cs": "ces",
    "ar": "ara",
    "zh": "zho",
    "ja": "jpn",
    "ko": "kor",
    "tr": "tur",
    "el": "ell",
    "hu": "hun",
    "ro": "ron",
    "ca": "cat",
    "eu": "eus",
    "ga": "gle",
    "hi": "hin",
    "id": "ind",
    "lt": "lit",
    "ne": "nep",
    "sr": "srp",
    "ta": "tam",
    "uk": "ukr",
    "he": "heb",
    "hy": "hye",
    "yi": "yid",
}


def search_config_for(language: str) -> str:
    return _TS_CONFIGS.get(language, "simple")


def iso639_3(language: str) -> list[str]:
    return [_ISO3.get(language, language)] if language else []


def ts_config_map() -> tuple[list[str], list[str]]:
    """(ISO 639-1 codes, their text-search configurations) as parallel lists, for SQL `unnest`."""
    return list(_TS_CONFIGS), list(_TS_CONFIGS.values())

"""Numbers and quantities in text, in the six languages the product speaks, on one scale.

- Numbers written in words become digits with `text2num`'s `alpha2digit` ("vierzehn" → 14, "deux
  semaines" → "2 semaines"); its output "10 1000000" for "10 millions" is folded into 10000000.
- A written number may read several ways ("1,500" is 1500 in English and 1.5 in French): each reading
  is a candidate value, and two numbers match when their candidates meet.
- Units come from CLDR through `babel` (long and short names, every plural form, in each language):
  durations in seconds, lengths in metres, masses in grams, areas in square metres, percentages;
  currencies by their symbol, code and names. "14 days" and "2 weeks" are one quantity.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from babel import Locale
from text_to_num import alpha2digit

LANGUAGES = ("en", "fr", "de", "es", "it", "pt")

# CLDR unit → (dimension, factor to the dimension's base unit). A month is a twelfth of a year, so
# "12 months" is "1 year"; a year is 365.25 days.
_YEAR = 365.25 * 86400
_UNITS: dict[str, tuple[str, float]] = {
    "duration-second": ("duration", 1.0),
    "duration-minute": ("duration", 60.0),
    "duration-hour": ("duration", 3600.0),
    "duration-day": ("duration", 86400.0),
    "duration-week": ("duration", 7 * 86400.0),
    "duration-month": ("duration", _YEAR / 12),
    "duration-year": ("duration", _YEAR),
    "duration-decade": ("duration", 10 * _YEAR),
    "duration-century": ("duration", 100 * _YEAR),
    "length-millimeter": ("length", 0.001),
    "length-centimeter": ("length", 0.01),
    "length-meter": ("length", 1.0),
    "length-kilometer": ("length", 1000.0),
    "length-mile": ("length", 1609.344),
    "length-foot": ("length", 0.3048),
    "length-inch": ("length", 0.0254),
    "length-yard": ("length", 0.9144),
    "mass-gram": ("mass", 1.0),
    "mass-kilogram": ("mass", 1000.0),
    "mass-tonne": ("mass", 1e6),
    "mass-pound": ("mass", 453.59237),
    "mass-ounce": ("mass", 28.349523125),
    "area-square-meter": ("area", 1.0),
    "area-square-kilometer": ("area", 1e6),
    "area-hectare": ("area", 1e4),
    "area-square-mile": ("area", 2589988.110336),
    "area-acre": ("area", 4046.8564224),
    "concentr-percent": ("percent", 1.0),
    "volume-liter": ("volume", 1.0),
    "volume-milliliter": ("volume", 0.001),
    "digital-gigabyte": ("data", 1e9),
    "digital-megabyte": ("data", 1e6),
    "digital-terabyte": ("data", 1e12),
    "energy-kilowatt-hour": ("energy", 3.6e6),
    "power-watt": ("power", 1.0),
    "power-kilowatt": ("power", 1000.0),
    "speed-kilometer-per-hour": ("speed", 1 / 3.6),
    "temperature-celsius": ("celsius", 1.0),
    # "0 degrees" in a text about the weather or a battery is the local scale: read as Celsius, the
    # scale of every country the six languages are mostly spoken in but one.
    "temperature-generic": ("celsius", 1.0),
}
_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "BRL", "MXN", "CNY", "INR", "SEK")
_NUMBER_PATTERN = re.compile(r"\{0\}|\{1\}")


def fold(text: str) -> str:
    """Lower case, accents off, the typographic apostrophe made plain."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("’", "'"))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


@functools.lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    folded = fold(char)
    if len(folded) == 1:
        return folded
    lowered = char.lower()
    return lowered if len(lowered) == 1 else char


def fold_aligned(text: str) -> str:
    """`fold` character by character, one character for one: offsets in the result are the text's
    ("…" or "ß" stay themselves where folding would lengthen them)."""
    return "".join(_fold_char(char) for char in text)


@dataclass(frozen=True)
class UnitName:
    dimension: str  # "duration", "length", ... or "currency:EUR"
    factor: float


@functools.cache
def unit_names() -> dict[str, UnitName]:
    """Every unit's folded name in the six languages (CLDR's long and short forms, singular and
    plural), and the currencies' symbols, codes and names."""
    names: dict[str, UnitName] = {}
    for language in LANGUAGES:
        locale = Locale.parse(language)
        patterns = locale._data["unit_patterns"]
        for key, (dimension, factor) in _UNITS.items():
            if key not in patterns:
                continue
            for length in ("long", "short"):
                for form, pattern in patterns[key].get(length, {}).items():
                    if form == "per":
                        continue
                    name = fold(_NUMBER_PATTERN.sub("", pattern)).strip(" \u00a0\u202f.")
                    if name and not name.isdigit():
                        names.setdefault(name, UnitName(dimension, factor))
        plural = locale._data.get("currency_names_plural", {})
        for code in _CURRENCIES:
            currency = UnitName(f"currency:{code}", 1.0)
            spellings = {code.lower(), fold(locale.currencies.get(code, ""))}
            spellings |= {fold(name) for name in plural.get(code, {}).values()}
            # "dollars" for "US dollars", "Franken" for "Schweizer Franken": the first currency listed
            # keeps the bare word.
            spellings |= {spelling.split()[-1] for spelling in spellings if " " in spelling}
            symbol = locale.currency_symbols.get(code, "")
            if symbol and not symbol.isalpha():
                spellings.add(fold(symbol))
            for spelling in spellings - {""}:
                names.setdefault(spelling, currency)
    for degrees in ("degree", "degrees", "°"):
        names.setdefault(degrees, UnitName("celsius", 1.0))
    names.setdefault("%", UnitName("percent", 1.0))
    names.setdefault("€", UnitName("currency:EUR", 1.0))
    names.setdefault("$", UnitName("currency:USD", 1.0))
    names.setdefault("£", UnitName("currency:GBP", 1.0))
    return names


@functools.cache
def _unit_pattern() -> re.Pattern[str]:
    spellings = sorted(unit_names(), key=len, reverse=True)
    alternatives = "|".join(re.escape(spelling) for spelling in spellings)
    return re.compile(rf"\s?({alternatives})(?![^\W\d_])")


_SYMBOL_BEFORE = re.compile(r"(€|\$|£|eur|usd|gbp|chf)\s?$")


def unit_after(folded_rest: str) -> UnitName | None:
    """The unit that follows a number, `folded_rest` being the folded text right after it."""
    match = _unit_pattern().match(folded_rest[:40])
    return unit_names()[match.group(1)] if match else None


def unit_before(folded_before: str) -> UnitName | None:
    """A currency written before its amount ("€1,500", "USD 20")."""
    match = _SYMBOL_BEFORE.search(folded_before[-5:])
    return unit_names().get(match.group(1)) if match else None


# A number as written: digit groups with spaces, dots, commas or apostrophes, or a decimal part.
NUMBER = re.compile(
    r"(?<![\w.,])\d{1,3}(?:(?:[ \u00a0\u202f'’]\d{3})+|(?:,\d{3})+|(?:\.\d{3})+)(?:[.,]\d+)?(?![\w])"
    r"|(?<![\w])\d+(?:[.,]\d+)?(?:½)?(?:(?<=\d0)s)?(?![\w])"
)
_MAGNITUDE = re.compile(r"(\d+(?:[.,]\d+)?) (1000|1000000|1000000000|1000000000000)(?![\d,.])")


def candidate_values(token: str) -> frozenset[float]:
    """The values a written number may stand for (grouping or decimal separators read both ways)."""
    half = token.endswith("½")
    text = re.sub(r"[ \u00a0\u202f'’]", "", token.rstrip("½s"))
    readings: set[float] = set()
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        group = "." if decimal == "," else ","
        readings.add(_float(text.replace(group, "").replace(decimal, ".")))
    elif "," in text or "." in text:
        separator = "," if "," in text else "."
        parts = text.split(separator)
        if all(len(part) == 3 for part in parts[1:]):
            readings.add(_float(text.replace(separator, "")))
        if len(parts) == 2:
            readings.add(_float(text.replace(separator, ".")))
    else:
        readings.add(_float(text))
    if half:
        readings = {value + 0.5 for value in readings}
    return frozenset(value for value in readings if value == value)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def digits_of_words(text: str, language: str) -> str:
    """`text` with its numbers in words written in digits (its own language's words), magnitudes
    folded ("10 millions" → "10000000")."""
    if language not in LANGUAGES or not any(char.isalpha() for char in text):
        return text
    try:
        converted = str(alpha2digit(text, language, threshold=0))
    except Exception:
        return text
    return _MAGNITUDE.sub(_magnitude, converted)


def _magnitude(match: re.Match[str]) -> str:
    values = candidate_values(match.group(1))
    value = min(values) if values else 0.0
    product = value * int(match.group(2))
    return str(int(product)) if product == int(product) else str(product)


def value_key(value: float) -> str:
    return repr(round(value, 4))

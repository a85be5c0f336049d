"""What an entry's field diff keeps: values compared as a person reads them (a form's `\\r\\n` for the
stored `\\n`, a trailing space, is no change), and secrets recorded as "changed", never as values."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_LINE_END = re.compile(r"\r\n?")
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)


def value_normalised(value: Any) -> Any:
    """A value as compared: text with one kind of line end and no trailing blanks (on any line or at
    the end); lists and mappings element by element; anything else as it is."""
    if isinstance(value, str):
        return _TRAILING.sub("", _LINE_END.sub("\n", value)).rstrip()
    if isinstance(value, Mapping):
        return {key: value_normalised(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [value_normalised(item) for item in value]
    return value


def _secret_pair(old: Any, new: Any) -> list[str | None]:
    """A secret's change without either value: set, changed, or removed."""
    if old is not None and new is not None:
        return ["", "changed"]
    return ["set" if old is not None else None, "set" if new is not None else None]


def changes_cleaned(
    changes: Mapping[str, Any] | None, *, redact: Iterable[str] = ()
) -> dict[str, Any] | None:
    """auditlog's {field: [old, new]} without the fields whose values differ only as text is written
    (line ends, trailing blanks), and with each `redact` field's values replaced by what happened to
    it. None when nothing is left. Many-to-many changes ({"type": "m2m", ...}) are kept as they are."""
    if changes is None:
        return None
    hidden = set(redact)
    kept: dict[str, Any] = {}
    for name, change in changes.items():
        if not isinstance(change, Sequence) or isinstance(change, str) or len(change) != 2:
            kept[name] = change
            continue
        old, new = change
        if value_normalised(old) == value_normalised(new):
            continue
        kept[name] = _secret_pair(old, new) if name in hidden else [old, new]
    return kept or None

"""Structured augmentation of the detector's training data: per-language templates with slots
(training-data/guard/templates/<language>.txt) expanded into attacks and benign look-alikes, so every language
gets as many varied examples as English, from fillers written by hand in that language.

A template file holds `@slot = a | b | ~` lines (`~` is the empty filler), and `attack = ...` or
`benign = ...` lines whose `{slot}`s are filled. Expansion is seeded: the same files give the same
examples, so a retrained model.npz changes only when the data does.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

_SLOT = re.compile(r"\{(\w+)\}")
_SPACES = re.compile(r"[ \t]+")
_BEFORE_PUNCTUATION = re.compile(r" +([.,](?:\s|$))")
# Fillings drawn per template: attacks have fewer templates than look-alikes, so more draws each.
DRAWS = {"attack": 9, "benign": 6}


@dataclass
class TemplateSet:
    language: str
    slots: dict[str, list[str]] = field(default_factory=dict)
    templates: list[tuple[str, str]] = field(default_factory=list)  # (kind, template)


def templates_parse(*, language: str, source: str) -> TemplateSet:
    """One language's slots and templates; an unknown slot or kind fails loudly (a typo in the data)."""
    parsed = TemplateSet(language)
    for number, raw in enumerate(source.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, separator, value = (part.strip() for part in line.partition("="))
        if not separator:
            raise ValueError(f"{language}.txt:{number}: expected 'name = value'.")
        if name.startswith("@"):
            parsed.slots[name[1:]] = [
                "" if filler.strip() == "~" else filler.strip() for filler in value.split("|")
            ]
        elif name in DRAWS:
            unknown = set(_SLOT.findall(value)) - parsed.slots.keys()
            if unknown:
                raise ValueError(f"{language}.txt:{number}: unknown slots {sorted(unknown)}.")
            parsed.templates.append((name, value.replace("\\n", "\n")))
        else:
            raise ValueError(f"{language}.txt:{number}: unknown line kind {name!r}.")
    return parsed


def templates_expand(*, templates: TemplateSet, seed: int = 18) -> list[tuple[int, str, int]]:
    """(label, text, template index) for each distinct filling drawn: label 1 for attacks, 0 for
    look-alikes."""
    generator = random.Random(f"{seed}-{templates.language}")  # noqa: S311 (data, not secrets)
    seen: set[str] = set()
    examples = []
    for index, (kind, template) in enumerate(templates.templates):
        for _ in range(DRAWS[kind]):
            text = _SLOT.sub(
                lambda match: generator.choice(templates.slots[match.group(1)]), template
            )
            text = _tidy(text)
            if text not in seen:
                seen.add(text)
                examples.append((1 if kind == "attack" else 0, text, index))
    return examples


def templates_load(*, directory: Path) -> dict[str, TemplateSet]:
    """Every language's template set, by ISO 639-1 code (the file's stem)."""
    return {
        path.stem: templates_parse(language=path.stem, source=path.read_text(encoding="utf-8"))
        for path in sorted(directory.glob("*.txt"))
    }


def _tidy(text: str) -> str:
    """Collapse the gaps empty fillers leave, and start the message with a capital like a person would."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    tidy = _BEFORE_PUNCTUATION.sub(r"\1", "\n".join(lines)).strip()
    tidy = tidy.replace(" .", ".").replace(",.", ".").replace("..", ".")
    return tidy[:1].upper() + tidy[1:]

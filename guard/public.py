"""The public sets the detector is tuned and validated on (../shared/corpora, read from the path given,
never copied here), each split once and deterministically into a tuning part and a validation part.

A row's part comes from a hash of its own text, so the split is stable across runs and machines and does
not depend on file order. Validation rows are never trained or tuned on: bench/guard reports them.
For the indirect set both the contexts and the attacks are split, so a validation attacked context
joins a context and an attack the training never saw.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

# The share of each set kept for validation (hash bucket < VALIDATION_BUCKETS out of 10).
VALIDATION_BUCKETS = 4
WILDGUARD_FILE = "injection-train/wildguard-benign.json"
DEEPSET_FILE = "injection-train/deepset-train.jsonl"
INDIRECT_DIR = "indirect-train"
# Context kind → (contexts file, attacks file): e-mails and tables meet text attacks, code meets code.
INDIRECT_KINDS = {
    "email": ("email-train.jsonl", "text_attack_train.json"),
    "table": ("table-train.jsonl", "text_attack_train.json"),
    "code": ("code-train.jsonl", "code_attack_train.json"),
}
# Public FAQ collections whose tuning part teaches the task scorer that a document's own questions (an
# FAQ entry's title) are not tasks slipped into it; bench/guard reports them on their validation part.
FAQ_CORPORA = ("covid-faq-en", "spf-fr")
POSITIONS = ("start", "middle", "end")
# Each clean context is attacked this many times (different attacks, different positions).
ATTACKS_PER_CONTEXT = 3


def part_of(text: str) -> str:
    """ "validation" or "tuning": a stable hash of the text, not of its position in a file."""
    bucket = zlib.crc32(text.strip().encode("utf-8")) % 10
    return "validation" if bucket < VALIDATION_BUCKETS else "tuning"


def wildguard_benign(*, root: Path, part: str) -> list[str]:
    rows = json.loads((root / WILDGUARD_FILE).read_text(encoding="utf-8"))
    return [str(row["prompt"]) for row in rows if part_of(str(row["prompt"])) == part]


@dataclass(frozen=True)
class Context:
    kind: str  # email, table, code
    text: str
    attack: str  # "" for a clean context
    category: str  # the attack's category, "" for a clean context
    position: str  # start, middle, end ("" clean)


def indirect_contexts(*, root: Path, part: str) -> list[Context]:
    """Every clean context of `part`, and each of them attacked ATTACKS_PER_CONTEXT times by attacks of
    the same part (taken in turn, the position cycling start/middle/end), as the benchmark builds them."""
    built: list[Context] = []
    for kind, (contexts_file, attacks_file) in INDIRECT_KINDS.items():
        contexts = _contexts(root / INDIRECT_DIR / contexts_file, part=part)
        attacks = _attacks(root / INDIRECT_DIR / attacks_file, part=part)
        for index, text in enumerate(contexts):
            built.append(Context(kind=kind, text=text, attack="", category="", position=""))
            for turn in range(ATTACKS_PER_CONTEXT):
                category, attack = attacks[(index * ATTACKS_PER_CONTEXT + turn) % len(attacks)]
                position = POSITIONS[(index + turn) % len(POSITIONS)]
                attacked = attack_insert(text, attack, position)
                built.append(
                    Context(
                        kind=kind,
                        text=attacked,
                        attack=attack,
                        category=category,
                        position=position,
                    )
                )
    return built


def corpus_documents(*, root: Path, name: str, part: str | None = None) -> list[str]:
    """A BEIR corpus's documents (title, then text), all of them or those of `part`."""
    documents = []
    with (root / name / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                documents.append(f"{row.get('title') or ''}\n{row['text']}".strip())
    return [text for text in documents if part is None or part_of(text) == part]


def faq_contexts(*, root: Path, part: str) -> list[Context]:
    """The FAQ collections' documents of `part`, as clean contexts."""
    return [
        Context(kind="faq", text=text, attack="", category="", position="")
        for name in FAQ_CORPORA
        if (root / name / "corpus.jsonl").exists()
        for text in corpus_documents(root=root, name=name, part=part)
    ]


def indirect_attacks(*, root: Path, part: str) -> list[tuple[str, str]]:
    """(category, attack) of both attack files in `part`."""
    files = sorted({attacks for _, attacks in INDIRECT_KINDS.values()})
    return [pair for name in files for pair in _attacks(root / INDIRECT_DIR / name, part=part)]


def attack_insert(context: str, attack: str, position: str) -> str:
    """The attack as its own paragraph at the start, the end, or the line break nearest the middle."""
    if position == "start":
        return f"{attack}\n{context}"
    if position == "end":
        return f"{context}\n{attack}"
    middle = len(context) // 2
    breaks = [i for i, char in enumerate(context) if char == "\n"]
    cut = min(breaks, key=lambda i: abs(i - middle)) if breaks else context.rfind(" ", 0, middle)
    cut = max(cut, 0)
    return f"{context[:cut]}\n{attack}\n{context[cut:].lstrip()}"


def _contexts(path: Path, *, part: str) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    texts = [str(row["context"]) for row in rows if str(row.get("context", "")).strip()]
    return [text for text in dict.fromkeys(texts) if part_of(text) == part]


def _attacks(path: Path, *, part: str) -> list[tuple[str, str]]:
    by_category = json.loads(path.read_text(encoding="utf-8"))
    return [
        (category, attack)
        for category, attacks in sorted(by_category.items())
        for attack in attacks
        if part_of(attack) == part
    ]


# About the ingest chunker's 200 tokens: the bench and the training read a context as the chunks
# ingestion would store, not as one long text.
WINDOW_CHARS = 800


def context_windows(text: str, *, size: int = WINDOW_CHARS) -> list[str]:
    """The text cut at line breaks into pieces of at most about `size` characters (a longer line is
    cut at spaces)."""
    windows: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > size:
            if current:
                windows.append(current)
                current = ""
            cut = line.rfind(" ", 0, size)
            cut = cut if cut > 0 else size
            windows.append(line[:cut])
            line = line[cut:].lstrip()
        if current and len(current) + len(line) + 1 > size:
            windows.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current.strip():
        windows.append(current)
    return [window for window in windows if window.strip()]

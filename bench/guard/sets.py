"""bench/guard's sets: the held-out lines in bench/guard/sets and the shared corpora's questions."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

SETS_DIR = Path(__file__).with_name("sets")


def labelled_lines(name: str) -> list[tuple[str, str]]:
    """(language, text) for each "<language>|<text>" line of a set file (\\n stands for a line break)."""
    lines = []
    for line in (SETS_DIR / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            language, _, text = line.partition("|")
            lines.append((language, text.replace("\\n", "\n")))
    return lines


def corpora_dir() -> Path:
    """The shared corpora next to the checkout (../shared/corpora from a worktree or from main)."""
    base = Path(settings.BASE_DIR)
    for candidate in (
        base.parent / "shared" / "corpora",
        base.parent.parent / "shared" / "corpora",
    ):
        if candidate.is_dir():
            return candidate
    raise SystemExit("No shared corpora found; pass --corpora.")


def corpora_questions(root: Path) -> dict[str, list[str]]:
    """Each corpus's queries.jsonl texts, by corpus folder name."""
    questions = {}
    for path in sorted(root.glob("*/queries.jsonl")):
        with path.open(encoding="utf-8") as handle:
            texts = [json.loads(line)["text"] for line in handle if line.strip()]
        questions[path.parent.name] = texts
    return questions


def corpora_chunks(root: Path, *, limit: int) -> dict[str, list[str]]:
    """Up to `limit` documents (title and text) of each corpus's corpus.jsonl, by corpus folder name:
    ordinary document text, which quarantine must leave alone. The FAQ collections whose tuning part
    trains the task scorer (guard.public.FAQ_CORPORA) give their validation part only."""
    from guard.public import FAQ_CORPORA, corpus_documents

    return {
        path.parent.name: corpus_documents(
            root=root,
            name=path.parent.name,
            part="validation" if path.parent.name in FAQ_CORPORA else None,
        )[:limit]
        for path in sorted(root.glob("*/corpus.jsonl"))
    }


def ingestion_chunks(text: str) -> list[str]:
    """A document's chunks as ingestion cuts them (rag.chunking at the configured size and overlap,
    one block per line)."""
    from rag.chunking import chunks_build
    from rag.parsing.blocks import Block

    blocks = [Block(text=paragraph) for paragraph in text.split("\n") if paragraph.strip()]
    drafts = chunks_build(
        blocks=blocks,
        title="",
        size=settings.PARLEY_CHUNK_TOKENS,
        overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
    )
    return [draft.text for draft in drafts]

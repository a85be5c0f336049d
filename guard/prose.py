"""Ordinary document prose from what is installed, for the document task scorer (guard.tasks) to
learn what is *not* a task for the assistant: the Python reference manual (pydoc's topics), the
scientific libraries' docstrings (numpy, scipy, scikit-learn: declarative and imperative technical
prose, "Return the ...", "Compute the ..."), scikit-learn's dataset descriptions (short scientific
write-ups), the installed packages' licence texts (legal prose addressed to "you") and their
descriptions (the README each package ships in its metadata: first-person prose, "We provide ...",
and the questions of FAQ sections, "Why is ...?").

Without it the scorer knew document prose only from indirect-train's e-mails and tables, and read a
scientific abstract's sentences as requests (scifact-en: 0.33 of abstracts over the cut). Nothing here
is one of the shared corpora that bench/guard measures on.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from importlib import metadata
from pathlib import Path

# Modules whose public callables' docstrings are read (their prose paragraphs, not their examples).
DOCSTRING_MODULES = (
    "numpy",
    "numpy.linalg",
    "numpy.random",
    "scipy.stats",
    "scipy.optimize",
    "scipy.signal",
    "scipy.interpolate",
    "scipy.sparse",
    "sklearn.linear_model",
    "sklearn.ensemble",
    "sklearn.metrics",
    "sklearn.cluster",
    "sklearn.decomposition",
    "sklearn.preprocessing",
    "sklearn.model_selection",
)
# A "document": paragraphs joined up to about a chunk's size (guard.public.WINDOW_CHARS).
DOCUMENT_CHARS = 800
_SECTION_RULE = re.compile(r"^\s*[-=~^*]{3,}\s*$")
_CODE_LIKE = re.compile(r">>>|\.\. |::|^\s{4,}|[{}\[\]=<>]{2,}|`", re.MULTILINE)


@functools.cache
def prose_documents() -> tuple[tuple[str, str], ...]:
    """(source, text) of each installed prose document, about a chunk long, in a stable order."""
    documents: list[tuple[str, str]] = []
    for source, paragraphs in _sources():
        current = ""
        for paragraph in paragraphs:
            if current and len(current) + 1 + len(paragraph) > DOCUMENT_CHARS:
                documents.append((source, current))
                current = ""
            current = f"{current}\n{paragraph}" if current else paragraph
        if current:
            documents.append((source, current))
    return tuple({text: (source, text) for source, text in documents}.values())


def _sources() -> list[tuple[str, list[str]]]:
    sources = [(f"pydoc:{name}", _paragraphs(text)) for name, text in sorted(_pydoc().items())]
    for name in DOCSTRING_MODULES:
        module = importlib.import_module(name)
        for member_name, member in sorted(inspect.getmembers(module, callable)):
            if not member_name.startswith("_"):
                doc = inspect.getdoc(member) or ""
                sources.append((f"doc:{name}.{member_name}", _paragraphs(doc)))
    import sklearn

    for path in sorted((Path(sklearn.__file__).parent / "datasets" / "descr").glob("*.rst")):
        sources.append((f"dataset:{path.stem}", _paragraphs(path.read_text(encoding="utf-8"))))
    site = Path(sklearn.__file__).parent.parent
    for path in sorted(site.glob("*.dist-info/**/LICEN[CS]E*")):
        if path.is_file() and path.stat().st_size < 40_000:
            text = path.read_text(encoding="utf-8", errors="replace")
            sources.append((f"licence:{path.parent.name}", _paragraphs(text)))
    for distribution in sorted(metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
        # METADATA is headers, a blank line, then the description (the package's README).
        description = (distribution.read_text("METADATA") or "").partition("\n\n")[2]
        if description:
            sources.append(
                (f"readme:{distribution.metadata['Name']}", _paragraphs(str(description)))
            )
    return [(source, paragraphs) for source, paragraphs in sources if paragraphs]


def _pydoc() -> dict[str, str]:
    from pydoc_data.topics import topics

    return dict(topics)


def _paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a text: no code, no section rules, no headings, lines joined."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if not _SECTION_RULE.match(line)]
        if not lines or _CODE_LIKE.search("\n".join(lines)):
            continue
        joined = " ".join(" ".join(lines).split())
        if len(joined.split()) >= 8 and joined[-1:] in ".:;)?":
            paragraphs.append(joined)
    return paragraphs

"""Evaluation cases as files: JSONL and CSV import (every row checked before any is stored) and export.

One row is one case. JSONL: an object per line with `question` and any of `history` (a list of
{"role", "content"}), `expected_status`, `expected_sources` (document titles or file names),
`expected_snippet`, `expect_no_answer`. CSV: the same columns, `history` as JSON text and
`expected_sources` separated by "|".
"""

from __future__ import annotations

import copy
import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from conversations.models import TurnStatus
from core.errors import ErrorKind, ParleyError
from insights.models.evaluation import (
    CASE_FIELDS,
    CASES_PER_SET_MAX,
    QUESTION_MAX,
    EvaluationCase,
)

IMPORT_MAX_BYTES = 1024 * 1024
COLUMNS = CASE_FIELDS
SOURCES_SEPARATOR = "|"
_TRUE = {"true", "yes", "1", "y"}
_FALSE = {"false", "no", "0", "n", ""}


class CasesImportError(ParleyError):
    """A refused file; `problems` names each bad row by its line number."""

    code = "evaluation_import_invalid"
    kind = ErrorKind.INVALID

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems), extra={"problems": list(problems)})
        self.problems = problems


@dataclass(frozen=True)
class CaseData:
    question: str
    history: list[dict[str, str]] = field(default_factory=list)
    expected_status: str = ""
    expected_sources: list[str] = field(default_factory=list)
    expected_snippet: str = ""
    expect_no_answer: bool = False

    @classmethod
    def of(cls, case: EvaluationCase) -> CaseData:
        # Copies: the case's JSON lists stay the row's.
        return cls(**{name: copy.copy(getattr(case, name)) for name in CASE_FIELDS})


def cases_parse(*, raw: bytes, file_format: str) -> list[CaseData]:
    """Every case of the file, or CasesImportError listing every bad row (nothing half-read)."""
    if len(raw) > IMPORT_MAX_BYTES:
        raise CasesImportError([f"The file is larger than {IMPORT_MAX_BYTES // 1024} KB."])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CasesImportError([f"The file is not UTF-8 text (byte {error.start})."]) from error
    rows = _jsonl_rows(text) if file_format == "jsonl" else _csv_rows(text)
    cases: list[CaseData] = []
    problems: list[str] = []
    for line, row in rows:
        if isinstance(row, str):
            problems.append(f"line {line}: {row}")
            continue
        try:
            cases.append(case_validate(row))
        except ValueError as error:
            problems.append(f"line {line}: {error}")
    if not problems and not cases:
        problems.append("The file has no case.")
    if len(cases) > CASES_PER_SET_MAX:
        problems.append(
            f"A set holds at most {CASES_PER_SET_MAX} cases; the file has {len(cases)}."
        )
    if problems:
        raise CasesImportError(problems)
    return cases


def case_validate(row: Mapping[str, Any]) -> CaseData:
    """One case from a mapping of its fields; ValueError says what is wrong."""
    unknown = set(row) - set(COLUMNS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("a case needs a question")
    if len(question) > QUESTION_MAX:
        raise ValueError(f"the question is longer than {QUESTION_MAX} characters")
    status = row.get("expected_status") or ""
    if status not in ("", *TurnStatus.values):
        raise ValueError(f"expected_status {status!r} is not one of {', '.join(TurnStatus.values)}")
    sources = row.get("expected_sources") or []
    if not isinstance(sources, list) or not all(isinstance(s, str) and s.strip() for s in sources):
        raise ValueError("expected_sources is a list of document titles or file names")
    snippet = row.get("expected_snippet") or ""
    if not isinstance(snippet, str) or len(snippet) > 1000:
        raise ValueError("expected_snippet is text of at most 1000 characters")
    no_answer = row.get("expect_no_answer", False)
    if not isinstance(no_answer, bool):
        raise ValueError("expect_no_answer is true or false")
    history = _history(row.get("history") or [])
    if not (status or sources or snippet.strip() or no_answer):
        raise ValueError(
            "a case expects something: expected_status, expected_sources, expected_snippet"
            " or expect_no_answer"
        )
    if no_answer and status == TurnStatus.FOUND_IN_CONTEXT:
        raise ValueError("a case cannot expect no answer and the status found_in_context")
    return CaseData(
        question=question.strip(),
        history=history,
        expected_status=status,
        expected_sources=[source.strip() for source in sources],
        expected_snippet=snippet.strip(),
        expect_no_answer=no_answer,
    )


def _history(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise ValueError('history is a list of {"role": "user"|"assistant", "content": "..."}')
    turns = []
    for item in value:
        if (
            not isinstance(item, dict)
            or item.get("role") not in ("user", "assistant")
            or not isinstance(item.get("content"), str)
            or set(item) - {"role", "content"}
        ):
            raise ValueError('each history item is {"role": "user"|"assistant", "content": "..."}')
        turns.append({"role": item["role"], "content": item["content"]})
    return turns


def _jsonl_rows(text: str) -> Iterable[tuple[int, Mapping[str, Any] | str]]:
    for line, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            row = json.loads(content)
        except json.JSONDecodeError as error:
            yield line, f"not valid JSON ({error.msg})"
            continue
        yield line, row if isinstance(row, dict) else "each line is a JSON object"


def _csv_rows(text: str) -> Iterable[tuple[int, Mapping[str, Any] | str]]:
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    if "question" not in header:
        yield 1, "the header names no question column"
        return
    for row in reader:
        line = reader.line_num
        if None in row:
            yield line, "more cells than the header has columns"
            continue
        yield line, _csv_row(row)


def _csv_row(row: dict[str, str]) -> Mapping[str, Any] | str:
    parsed: dict[str, Any] = {key: value for key, value in row.items() if value is not None}
    flag = parsed.get("expect_no_answer", "").strip().lower()
    if flag not in _TRUE | _FALSE:
        return f"expect_no_answer {flag!r} is not true or false"
    parsed["expect_no_answer"] = flag in _TRUE
    raw_history = parsed.get("history", "").strip()
    try:
        parsed["history"] = json.loads(raw_history) if raw_history else []
    except json.JSONDecodeError:
        return "history is not valid JSON"
    sources = parsed.get("expected_sources", "")
    parsed["expected_sources"] = [s.strip() for s in sources.split(SOURCES_SEPARATOR) if s.strip()]
    return parsed


def cases_export(*, cases: Iterable[CaseData], file_format: str) -> str:
    if file_format == "jsonl":
        return "".join(json.dumps(asdict(case), ensure_ascii=False) + "\n" for case in cases)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS)
    writer.writeheader()
    for case in cases:
        row = asdict(case)
        row["history"] = json.dumps(case.history, ensure_ascii=False) if case.history else ""
        row["expected_sources"] = SOURCES_SEPARATOR.join(case.expected_sources)
        row["expect_no_answer"] = "true" if case.expect_no_answer else "false"
        writer.writerow(row)
    return out.getvalue()

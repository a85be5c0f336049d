"""Evaluation cases as files: every row checked before any is stored, errors by line number, limits,
and a JSONL/CSV round trip."""

from __future__ import annotations

import json

import pytest

from insights.models import EvaluationCase, EvaluationSet
from insights.services.cases_io import (
    IMPORT_MAX_BYTES,
    CaseData,
    CasesImportError,
    cases_export,
    cases_parse,
)
from insights.services.sets import evaluation_cases_add
from tests.support.factories import BotFactory

GOOD = {"question": "How long does a charge take?", "expected_status": "found_in_context"}


def _jsonl(*rows: object) -> bytes:
    return "\n".join(json.dumps(row) if not isinstance(row, str) else row for row in rows).encode()


def test_a_malformed_row_is_refused_with_its_line_number() -> None:
    raw = _jsonl(
        GOOD,
        {"question": "", "expected_status": "found_in_context"},
        "{not json",
        {"question": "Q?", "expected_status": "answered"},
        {"question": "Q?"},
        {"question": "Q?", "expect_no_answer": True, "history": [{"role": "bot", "content": "x"}]},
    )
    with pytest.raises(CasesImportError) as refused:
        cases_parse(raw=raw, file_format="jsonl")
    problems = refused.value.problems
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
    assert "needs a question" in problems[0]
    assert "not valid JSON" in problems[1]
    assert "expected_status 'answered'" in problems[2]
    assert "expects something" in problems[3]
    assert "history" in problems[4]


def test_size_and_count_limits() -> None:
    with pytest.raises(CasesImportError, match="larger than"):
        cases_parse(raw=b"x" * (IMPORT_MAX_BYTES + 1), file_format="jsonl")
    with pytest.raises(CasesImportError, match="no case"):
        cases_parse(raw=b"\n\n", file_format="jsonl")


def test_csv_rows_and_a_bad_csv_row() -> None:
    raw = (
        b"question,expected_status,expected_sources,expected_snippet,expect_no_answer,history\n"
        b'Where is my order?,found_in_context,Orders|Delivery FAQ,LB-,no,"[{""role"": ""user"",'
        b' ""content"": ""hi""}]"\n'
        b"Do you sell cars?,,,,yes,\n"
    )
    cases = cases_parse(raw=raw, file_format="csv")
    assert cases[0].expected_sources == ["Orders", "Delivery FAQ"]
    assert cases[0].history == [{"role": "user", "content": "hi"}]
    assert cases[1].expect_no_answer and not cases[1].expected_status
    with pytest.raises(CasesImportError, match="line 3: expect_no_answer 'maybe'"):
        cases_parse(raw=b"question,expect_no_answer\nA?,yes\nB?,maybe\n", file_format="csv")


@pytest.mark.parametrize("file_format", ["jsonl", "csv"])
def test_export_then_import_gives_the_same_cases(file_format: str) -> None:
    cases = [
        CaseData(
            question="A, with a comma?",
            expected_status="found_in_context",
            expected_sources=["Doc one", "Doc two"],
            expected_snippet="30 days",
        ),
        CaseData(
            question="B?", expect_no_answer=True, history=[{"role": "user", "content": "earlier"}]
        ),
    ]
    text = cases_export(cases=cases, file_format=file_format)
    assert cases_parse(raw=text.encode(), file_format=file_format) == cases


@pytest.mark.django_db
def test_nothing_is_stored_when_a_file_is_refused_or_a_set_would_overflow() -> None:
    evaluation_set = EvaluationSet.objects.create(bot=BotFactory(), name="s")
    evaluation_cases_add(set_id=evaluation_set.pk, cases=[CaseData(**GOOD)])
    with pytest.raises(CasesImportError):
        cases_parse(raw=_jsonl(GOOD, {"question": "x"}), file_format="jsonl")
    too_many = [CaseData(**GOOD)] * 1000
    with pytest.raises(CasesImportError, match="at most 1000"):
        evaluation_cases_add(set_id=evaluation_set.pk, cases=too_many)
    assert EvaluationCase.objects.filter(evaluation_set=evaluation_set).count() == 1

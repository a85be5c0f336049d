"""The incremental answer preview (AnswerPreview) gives what the full partial parse (answer_preview) gives,
on every prefix of a streamed output: real contract objects, awkward strings, and shapes it hands back."""

from __future__ import annotations

import json
import random
import time

import pytest

from conversations.contract.parsing import AnswerPreview, answer_preview

_OBJECT = {
    "status": "found_in_context",
    "answer": 'Le port du masque est obligatoire en "intérieur" \\ dès 11 ans.\n\tVoir 😀 la fiche.',
    "display_answer": True,
    "confidence_score": 0.85,
    "topic": "Masques",
    "suggested_topics": ["Vaccins", "Tests"],
    "understanding": "answer: a question about masks",
    "redirection_intent": None,
    "context_usage": [{"chunk_id": "c1", "quote": 'answer: "no"'}],
}

OUTPUTS = [
    json.dumps(_OBJECT, ensure_ascii=False),
    json.dumps(_OBJECT, ensure_ascii=True, indent=2),
    '  Here it is: {"answer":"two\\\\ back\\\\\\"slashes","nested":{"answer":"no"},"list":[1,{"answer":"x"}]}  ',
    '{"status": "x", "answer": "first", "answer": "second"}',
    '{"answer": 5, "topic": "a number, not a string"}',
    '```json\n{"answer": "fenced"}\n```',
    '{"answer": "closed"} and text after it',
    '{"answer": "a raw\nnewline"}',
    '{"confidence_score": 0.5, "answer": "après", "display_answer": false, "redirection_intent": null}',
    "no JSON object at all",
]


def _compare(output: str, *, step: int) -> None:
    preview = AnswerPreview()
    for end in range(0, len(output) + step, step):
        prefix = output[:end]
        assert preview(prefix) == answer_preview(partial_output=prefix), prefix


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("step", [1, 3, 8])
def test_every_prefix_previews_as_the_full_parse(output: str, step: int) -> None:
    _compare(output, step=step)


def test_awkward_answers_preview_as_the_full_parse() -> None:
    # Escapes cut anywhere (\\, \", \u00e9, surrogate pairs), Unicode spaces at the cut (the full
    # parse strips the text first), braces and commas inside the string.
    alphabet = [
        "a",
        " ",
        "\\",
        '"',
        "é",
        "😀",
        "\u00a0",
        "\u2003",
        "u",
        "0",
        "\t",
        "\n",
        "{",
        "}",
        ",",
    ]
    chooser = random.Random(30)
    for _ in range(150):
        value = "".join(chooser.choice(alphabet) for _ in range(chooser.randint(0, 12)))
        for ensure_ascii in (True, False):
            body = {"status": "found_in_context", "answer": value, "topic": "t"}
            _compare(json.dumps(body, ensure_ascii=ensure_ascii), step=1)


def test_a_long_answer_costs_far_less_than_parsing_every_prefix() -> None:
    body = {**_OBJECT, "answer": " ".join(["Le port du masque est obligatoire."] * 60)}
    deltas = json.dumps(body, ensure_ascii=False).split(" ")
    outputs = [" ".join(deltas[: n + 1]) for n in range(len(deltas))]

    def cpu(run: object) -> float:
        started = time.process_time()
        for text in outputs:
            run(text)  # type: ignore[operator]
        return time.process_time() - started

    full = cpu(lambda text: answer_preview(partial_output=text))
    incremental = cpu(AnswerPreview())
    assert AnswerPreview()(outputs[-1]) == body["answer"]
    assert incremental < full / 5, (incremental, full)

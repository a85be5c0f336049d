"""Strict parsing of the LLM's raw output into a JSON object, naming what was wrong with it.

A fenced block or text after the object is tolerated and recorded as a repair; an empty,
truncated, invalid or non-object output raises ContractError so the caller can retry.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import partial_json_parser

from conversations.types import Repair
from core.errors import ErrorKind, ParleyError

_FENCE_OPEN = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?")


class ContractError(ParleyError):
    """The output cannot be used as an answer. `code` is stable; `message` is fed back to the LLM."""

    kind = ErrorKind.INVALID

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True)
class ParsedOutput:
    data: dict[str, object]
    repairs: tuple[Repair, ...] = ()


def _unfence(raw: str) -> tuple[str, list[Repair]]:
    """The text inside the first code fence (closed or not), or the text itself."""
    opening = _FENCE_OPEN.search(raw)
    if opening is None:
        return raw, []
    body = raw[opening.end() :]
    closing = body.find("```")
    if closing >= 0:
        body = body[:closing]
    repair = Repair(
        "code_fence_stripped", "The JSON object was wrapped in a Markdown code fence.", ""
    )
    return body, [repair]


def output_parse(*, raw: str) -> ParsedOutput:
    """Parse `raw` into a JSON object, or raise ContractError with a stable code."""
    if not raw or not raw.strip():
        raise ContractError("output_empty", "The output was empty; return the JSON object.")
    text, repairs = _unfence(raw)
    start = text.find("{")
    if start < 0:
        raise ContractError(
            "output_not_object", "The output holds no JSON object; return only the JSON object."
        )
    if text[:start].strip():
        repairs.append(
            Repair("leading_text_ignored", "Text before the JSON object was ignored.", "")
        )
    body = text[start:]
    try:
        data, end = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError as error:
        if _is_truncated(body):
            raise ContractError(
                "output_truncated",
                "The JSON object was cut off before its end; return a complete, shorter object.",
            ) from None
        raise ContractError(
            "output_invalid_json",
            f"The output is not valid JSON ({error.msg} at character {error.pos}).",
        ) from None
    if not isinstance(data, dict):
        raise ContractError(
            "output_not_object", "The output must be a JSON object, not another JSON value."
        )
    if body[end:].strip():
        repairs.append(
            Repair("trailing_text_ignored", "Text after the JSON object was ignored.", "")
        )
    return ParsedOutput(data=data, repairs=tuple(repairs))


def _is_truncated(body: str) -> bool:
    """True when `body` is a valid prefix of a JSON object that stops before its end."""
    try:
        partial = partial_json_parser.loads(body)
    except (ValueError, IndexError):  # MalformedJSON is a ValueError
        return False
    return isinstance(partial, dict)


def answer_preview(*, partial_output: str) -> str | None:
    """The `answer` text streamed so far, read from an incomplete output (for SSE partial updates)."""
    text, _ = _unfence(partial_output)
    start = text.find("{")
    if start < 0:
        return None
    try:
        partial = partial_json_parser.loads(text[start:])
    except (ValueError, IndexError):  # MalformedJSON is a ValueError
        return None
    answer = partial.get("answer") if isinstance(partial, dict) else None
    return answer if isinstance(answer, str) else None


_WHITESPACE = " \t\r\n"
_HEX = frozenset("0123456789abcdefABCDEF")


class AnswerPreview:
    """``answer_preview`` of an output that grows delta by delta, without parsing it all again each time.

    ``answer_preview`` parses the whole output with partial_json_parser at every streamed delta: its
    cost grows with the square of the answer's length. This reads each new character once, keeping
    where the top-level object's ``answer`` string starts and ends, and decodes only that string (C's
    json), so the cost grows with the length alone (docs/decisions/answer-path-cpu.md).

    It returns what ``answer_preview`` returns for every prefix of a JSON object (tests compare them on
    every prefix of real and awkward outputs). Anything else (a code fence, text after the object, a
    control character inside a string, an ``answer`` that is not a string) hands the rest of the stream
    to ``answer_preview`` itself. One difference is left on purpose: an output that breaks JSON's grammar
    between two values (a missing comma) still previews its ``answer`` where the full parse gave None
    from there on; the contract rejects that output at its end all the same.
    """

    def __init__(self) -> None:
        self._text = ""
        self._fallback = False
        self._started = False  # the object's "{" was read
        self._closed = False  # ... and its "}"
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._string_start = 0
        self._key: str | None = None  # the top-level key whose value comes next
        self._expect_key = True  # at depth 1: the next string is a key
        self._answer: tuple[int, int | None] | None = None  # raw span of the answer string's text
        self._backticks = 0

    def __call__(self, partial_output: str) -> str | None:
        if self._fallback or not partial_output.startswith(self._text):
            self._fallback = True
            return answer_preview(partial_output=partial_output)
        start = len(self._text)
        self._text = partial_output
        for index in range(start, len(partial_output)):
            if not self._read(partial_output[index], index):
                self._fallback = True
                return answer_preview(partial_output=partial_output)
        return self._value()

    def _read(self, char: str, index: int) -> bool:
        """One character; False when the stream must go to the full parse."""
        self._backticks = self._backticks + 1 if char == "`" else 0
        if self._backticks >= 3:  # a fence: answer_preview unwraps it
            return False
        if self._closed:
            return char in _WHITESPACE
        if not self._started:
            if char == "{":
                self._started, self._depth = True, 1
            return True
        if self._in_string:
            return self._read_string(char, index)
        if char == '"':
            self._in_string, self._string_start = True, index + 1
            if self._depth == 1 and not self._expect_key and self._key == "answer":
                self._answer = (index + 1, None)
            return True
        value_starts = self._depth == 1 and not self._expect_key and char not in _WHITESPACE + ":,}"
        if value_starts and self._key == "answer":  # an answer that is not a string
            return False
        if char in "{[":
            self._depth += 1
        elif char in "}]":
            self._depth -= 1
            if self._depth == 0:
                self._closed = True
        if self._depth == 1 and char in ",{":
            self._expect_key, self._key = True, None
        elif self._depth == 1 and char == ":":
            self._expect_key = False
        return True

    def _read_string(self, char: str, index: int) -> bool:
        if char < " ":  # json refuses a raw control character in a string: so does the full parse
            return False
        if self._escaped:
            self._escaped = False
        elif char == "\\":
            self._escaped = True
        elif char == '"':
            self._in_string = False
            if self._depth == 1 and self._expect_key:
                self._key = json.loads(self._text[self._string_start - 1 : index + 1])
            elif self._answer is not None and self._answer[1] is None:
                self._answer = (self._answer[0], index)
        return True

    def _value(self) -> str | None:
        if self._answer is None:
            return None
        begin, end = self._answer
        if end is not None:
            return str(json.loads(self._text[begin - 1 : end + 1]))
        # partial_json_parser strips the whole text first (str.strip): so do trailing spaces here.
        raw = self._text[begin:].rstrip()
        # An escape cut short is left out, as partial_json_parser leaves it.
        cut = raw.rfind("\\")
        run = cut + 1 - len(raw[: cut + 1].rstrip("\\"))  # backslashes in a row ending at `cut`
        if cut >= 0 and run % 2 == 1:  # the last one starts an escape
            tail = raw[cut + 1 :]
            if tail == "" or (tail[0] == "u" and len(tail) < 5 and set(tail[1:]) <= _HEX):
                raw = raw[:cut]
        try:
            return str(json.loads(f'"{raw}"'))
        except ValueError:
            return answer_preview(partial_output=self._text)

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
    if isinstance(partial, dict) and isinstance(partial.get("answer"), str):
        return partial["answer"]
    return None

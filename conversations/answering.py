"""One answer, from rendered prompt messages to an enforced answer: provider choice, streaming (the offline
answer too, relayed in parts), retry, offline fallback and the usage to audit. The turn pipeline calls
`answer_generate` between retrieval (chunks) and routing.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings

from conversations.contract.attempts import SOURCE_FALLBACK_GENERATOR, AnswerOutcome, answer_obtain
from conversations.contract.parsing import AnswerPreview
from conversations.contract.support.apply import SupportInputs, support_apply
from conversations.guards import GuardKind, GuardMatch
from conversations.llm.choose import Estimate
from conversations.llm.offline import (
    OFFLINE_MODEL,
    Embed,
    offline_fallback_model,
    offline_generate,
)
from conversations.llm.replies import guarded_answer
from conversations.types import BotRules
from core.llm.gateway import llm_stream
from core.llm.types import LLMEndpoint
from rag.retrieval import RetrievedChunk

# Answers decided by a cheap guard, before any model (DESIGN.md, "One chat turn", step 2).
GUARD_MODEL = "guard"
GUARDED_KINDS = frozenset({GuardKind.INJECTION, GuardKind.HUMAN_REQUEST})

# on_partial(answer_text_so_far, attempt_number): the answer field as it streams, for SSE partial updates.
OnPartial = Callable[[str, int], None]
# Partial updates an offline answer is relayed in (fewer for an answer of fewer words).
OFFLINE_STREAM_STEPS = 8


@dataclass(frozen=True)
class AnswerRequest:
    question: str
    chunks: Sequence[RetrievedChunk]
    rules: BotRules
    # The rendered prompt, as chat messages ({"role", "content"}), from the prompt builder.
    messages: Sequence[dict[str, str]]
    # What the guards found in the visitor's message: screened once per turn, by `answer_run`.
    guard: GuardMatch | None = None


@dataclass(frozen=True)
class GeneratedAnswer:
    outcome: AnswerOutcome
    # "offline", the endpoint's model, or "offline-fallback(<model>)".
    model: str
    llm_ms: int
    # None: no remote model was called (the guards, the offline provider, a curated answer).
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    json_mode: str = ""


def llm_endpoint_configured() -> LLMEndpoint | None:
    """The remote endpoint when LLM_PROVIDER is "openai"; None means the offline provider answers."""
    return LLMEndpoint.from_settings() if settings.LLM_PROVIDER == "openai" else None


def answer_generate(
    *,
    request: AnswerRequest,
    endpoint: LLMEndpoint | None,
    embed: Embed,
    on_partial: OnPartial | None = None,
    estimate: Estimate | None = None,
    support: SupportInputs | None = None,
) -> GeneratedAnswer:
    """`estimate`: the relevance estimate with the workspace's models, for the offline composer.
    `support`: what the LLM's answer is checked against (conversations/contract/support); the
    offline provider's answers (its fallback's too) quote their passages and are not checked."""
    started = time.monotonic()

    def offline() -> str:
        return offline_generate(
            question=request.question,
            chunks=request.chunks,
            rules=request.rules,
            embed=embed,
            guard=request.guard,
            estimate=estimate,
        )

    guard = request.guard
    if guard is not None and guard.kind in GUARDED_KINDS:
        answer = guarded_answer(
            guard=guard, question=request.question, chunks=request.chunks, rules=request.rules
        )
        outcome = answer_obtain(
            generate=lambda _feedback: json.dumps(answer, ensure_ascii=False),
            chunks=request.chunks,
            rules=request.rules,
            question=request.question,
            max_attempts=1,
        )
        return GeneratedAnswer(outcome=outcome, model=GUARD_MODEL, llm_ms=_elapsed_ms(started))
    if endpoint is None:
        outcome = answer_obtain(
            generate=lambda _feedback: offline(),
            chunks=request.chunks,
            rules=request.rules,
            question=request.question,
            max_attempts=1,
        )
        if on_partial is not None and outcome.enforced.answer.display_answer:
            offline_stream(text=outcome.enforced.answer.answer, on_partial=on_partial)
        return GeneratedAnswer(outcome=outcome, model=OFFLINE_MODEL, llm_ms=_elapsed_ms(started))
    calls = _RemoteCalls(endpoint, request.messages, on_partial)
    outcome = answer_obtain(
        generate=calls.generate,
        chunks=request.chunks,
        rules=request.rules,
        question=request.question,
        fallback_generate=offline,
    )
    model = calls.model or endpoint.model
    if outcome.source == SOURCE_FALLBACK_GENERATOR:
        model = offline_fallback_model(model)
    elif support is not None:
        outcome = dataclasses.replace(
            outcome,
            enforced=support_apply(
                enforced=outcome.enforced,
                passages=support.passages,
                language=support.language,
                rules=request.rules,
                embed=support.embed,
            ),
        )
    return GeneratedAnswer(
        outcome=outcome,
        model=model,
        prompt_tokens=calls.prompt_tokens,
        completion_tokens=calls.completion_tokens,
        llm_ms=_elapsed_ms(started),
        json_mode=calls.json_mode,
    )


class _RemoteCalls:
    """The `generate` callable for the remote LLM: streams, feeds errors back, sums usage over attempts."""

    def __init__(
        self,
        endpoint: LLMEndpoint,
        messages: Sequence[dict[str, str]],
        on_partial: OnPartial | None,
    ) -> None:
        self.endpoint = endpoint
        self.messages = list(messages)
        self.on_partial = on_partial
        self.attempt = 0
        self.previous_output = ""
        self.model = ""
        self.json_mode = ""
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None

    def generate(self, feedback: str | None) -> str:
        self.attempt += 1
        messages = list(self.messages)
        if feedback is not None:
            # The rejected output goes back as the assistant's turn, the error as the user's.
            messages += [
                {"role": "assistant", "content": self.previous_output},
                {"role": "user", "content": feedback},
            ]
        stream = llm_stream(endpoint=self.endpoint, messages=messages)
        text, shown = "", ""
        previewer = AnswerPreview()  # reads each delta once, not the whole output again
        for delta in stream:
            text += delta
            if self.on_partial is not None:
                preview = previewer(text)
                if preview and preview != shown:
                    shown = preview
                    self.on_partial(preview, self.attempt)
        usage = stream.result.usage
        self.model, self.json_mode = usage.model, usage.json_mode
        self.prompt_tokens = _add(self.prompt_tokens, usage.prompt_tokens)
        self.completion_tokens = _add(self.completion_tokens, usage.completion_tokens)
        self.previous_output = stream.result.text
        return stream.result.text


def offline_stream(*, text: str, on_partial: OnPartial, steps: int = OFFLINE_STREAM_STEPS) -> None:
    """Relay an offline answer as a remote one streams: growing prefixes, cut at word ends.

    The answer exists whole before the first partial; the pause between partials
    (PARLEY_OFFLINE_STREAM_PAUSE_MS, 0 in tests) only lets a person see it arrive.
    """
    words = text.split(" ")
    size = max(1, -(-len(words) // steps))  # ceil: at most `steps` partials
    pause = settings.PARLEY_OFFLINE_STREAM_PAUSE_MS / 1000
    for end in range(size, len(words) + size, size):
        if pause and end > size:
            time.sleep(pause)
        on_partial(" ".join(words[:end]), 1)


def _add(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return (total or 0) + more


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)

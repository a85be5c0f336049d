"""What the pipeline reports while it works, as a Protocol: `streams.sse.StreamEmitter` fits it, so the
pipeline streams without importing the API app (dependencies point down only)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol


class PipelineEmitter(Protocol):
    def search_preparation_started(self) -> None: ...

    def retrieval_completed(self, *, retrieved_count: int) -> None: ...

    def reranking_completed(
        self, *, initial_count: int, reranked_count: int, kept_count: int
    ) -> None: ...

    def compiling_results_started(self) -> None: ...

    def partial(self, *, content: str, output_key: str = "response") -> None: ...


class PartialRelay:
    """Turns `answer_generate`'s on_partial(answer_so_far, attempt) into `partial` deltas.

    A retry restarts the answer; its text is only relayed once it grows past what was already sent.
    """

    def __init__(self, emitter: PipelineEmitter | None) -> None:
        self.emitter = emitter
        self.sent = ""

    def __call__(self, answer_so_far: str, attempt: int) -> None:
        if (
            self.emitter is None
            or not answer_so_far.startswith(self.sent)
            or answer_so_far == self.sent
        ):
            return
        self.emitter.partial(content=answer_so_far[len(self.sent) :])
        self.sent = answer_so_far

    def finish(self, final_text: str) -> None:
        """Send whatever of the final text was not streamed (all of it for the offline provider)."""
        if (
            self.emitter is not None
            and final_text.startswith(self.sent)
            and final_text != self.sent
        ):
            self.emitter.partial(content=final_text[len(self.sent) :])
            self.sent = final_text


# A sentence is complete once its end (. ! ? or a line break) is followed by more text.
_COMPLETE = re.compile(r"(.+?(?:[.!?](?=\s)|\n))\s*", re.DOTALL)


class CheckedRelay(PartialRelay):
    """The relay of an LLM answer under the support check (docs/decisions/support-check-streaming.md):
    only complete sentences that pass `supported` are streamed, so the widget never shows a sentence
    the final answer drops. An unfinished sentence waits for its end; `finish` sends what is left of
    the final text."""

    def __init__(self, emitter: PipelineEmitter | None, supported: Callable[[str], bool]) -> None:
        super().__init__(emitter)
        self.supported = supported
        self.read = 0  # characters of the current attempt's answer already split into sentences
        self.attempt = -1

    def __call__(self, answer_so_far: str, attempt: int) -> None:
        if self.emitter is None:
            return
        if attempt != self.attempt:
            self.attempt, self.read = attempt, 0
        for match in _COMPLETE.finditer(answer_so_far, self.read):
            # At the very end of the text so far, a sentence's end may not be final yet ("3." of "3.5").
            if match.end() == len(answer_so_far) and not match.group(1).endswith("\n"):
                break
            self.read = match.end()
            sentence = match.group(1).strip()
            if not sentence or not self.supported(sentence):
                continue
            text = f"{self.sent} {sentence}" if self.sent else sentence
            self.emitter.partial(content=text[len(self.sent) :])
            self.sent = text

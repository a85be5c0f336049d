"""What the pipeline reports while it works, as a Protocol: `streams.sse.StreamEmitter` fits it, so the
pipeline streams without importing the API app (dependencies point down only)."""

from __future__ import annotations

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

"""The streamed answer where the platform can edit a message (Slack, Telegram, Teams): posted at its
first words, then edited as it grows, at most every ``every`` seconds (the platform's edit rate).
The final text, with its sources, is the outbox's (it edits this message), so a failed post or edit
here loses nothing: the outbox sends the whole answer (as a new message when none was posted)."""

from __future__ import annotations

import time
from collections.abc import Callable

from connectors.models import InboundEvent


class EditingStream:
    """The pipeline's emitter (conversations.pipeline.events.PipelineEmitter) for one answer.
    ``post(text) -> ref`` and ``edit(ref, text)`` call the platform; ``shown(text)`` is what the
    visitor reads while it streams; ``errors``: the platform failures swallowed here."""

    def __init__(
        self,
        *,
        event: InboundEvent,
        post: Callable[[str], str],
        edit: Callable[[str, str], None],
        shown: Callable[[str], str],
        every: float,
        errors: tuple[type[BaseException], ...],
    ) -> None:
        self.event, self.post, self.edit, self.shown = event, post, edit, shown
        self.every, self.errors = every, errors
        self.ref = event.reply_ref
        self.text = ""
        self.edited_at = 0.0

    def partial(self, *, content: str, output_key: str = "response") -> None:
        if output_key != "response":
            return
        self.text += content
        if self.ref and time.monotonic() - self.edited_at < self.every:
            return
        shown = self.shown(self.text.strip())
        try:
            if self.ref:
                self.edit(self.ref, shown)
            else:
                self.ref = self.post(shown)
                InboundEvent.objects.filter(pk=self.event.pk).update(reply_ref=self.ref)
        except self.errors:
            pass  # the outbox sends the whole answer
        self.edited_at = time.monotonic()

    def search_preparation_started(self) -> None:
        pass

    def retrieval_completed(self, *, retrieved_count: int) -> None:
        pass

    def reranking_completed(
        self, *, initial_count: int, reranked_count: int, kept_count: int
    ) -> None:
        pass

    def compiling_results_started(self) -> None:
        pass

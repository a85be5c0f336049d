"""The full-text side's Okapi BM25: scores against hand-computed arithmetic, pruning, analysis and bad input."""

from __future__ import annotations

import math
import re

import pytest
from django.db import connection

from bots.models import Bot
from core.models import Workspace
from rag.models import Chunk
from rag.retrieval import RetrievalScope, chunks_retrieve
from rag.retrieval.calibration.withheld import text_scores
from rag.retrieval.sql import text_plan, text_rows
from tests.support.knowledge import document_ingested, hybrid_params

pytestmark = pytest.mark.django_db

# Three one-chunk documents, no stop words, no two words sharing a stem (in 'simple' or 'english' alike).
FRUIT = ("apple apple banana", "apple cherry", "cherry cherry cherry durian")


def _workspace(name: str) -> tuple[Workspace, Bot]:
    workspace = Workspace.objects.create(name=name, slug=name)
    return workspace, Bot.objects.create(workspace=workspace, name=f"{name} bot")


def _fruit_scope() -> tuple[RetrievalScope, list[str]]:
    workspace, bot = _workspace("ws-fruit")
    documents = [
        document_ingested(workspace=workspace, text=text, filename=f"f{n}.txt", bots=[bot])
        for n, text in enumerate(FRUIT)
    ]
    return RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)]), [
        str(d.pk) for d in documents
    ]


def _text_scores(scope: RetrievalScope, question: str) -> dict[str, float]:
    result = chunks_retrieve(
        scope=scope, question=question, mode="text", score_threshold=-1, top_k=20
    )
    return {hit.document_id: hit.text_score for hit in result.hits}  # type: ignore[misc]


def test_bm25_scores_match_the_hand_computed_example() -> None:
    scope, (d1, d2, d3) = _fruit_scope()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT document_id::text, search_length FROM rag_chunk WHERE workspace_id = %s",
            [scope.workspace_id],
        )
        assert dict(cursor.fetchall()) == {d1: 3, d2: 2, d3: 4}
    # N = 3 chunks, total length 9, avg_length = 3; k1 = 1.2, b = 0.75.
    # "apple": df = 2, idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.470004
    #   d1: tf 2, length 3: 0.470004 · 2 · 2.2 / (2 + 1.2 · (0.25 + 0.75 · 3/3)) = 0.470004 · 4.4 / 3.2 = 0.646255
    #   d2: tf 1, length 2: 0.470004 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 2/3)) = 0.470004 · 2.2 / 1.9 = 0.544215
    idf_apple = math.log(1.6)
    assert idf_apple == pytest.approx(0.470004, abs=1e-6)
    assert _text_scores(scope, "apple") == {
        d1: pytest.approx(0.646255, abs=1e-6),
        d2: pytest.approx(0.544215, abs=1e-6),
    }
    # A lexeme the query says twice counts twice (Lucene sums over the query terms).
    assert _text_scores(scope, "apple? apple!") == {
        d1: pytest.approx(2 * 0.646255, abs=1e-6),
        d2: pytest.approx(2 * 0.544215, abs=1e-6),
    }
    # "durian": df = 1, idf = ln(1 + 2.5 / 1.5) = 0.980829; d3: tf 1, length 4:
    #   0.980829 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 4/3)) = 0.980829 · 2.2 / 2.5 = 0.863130
    # "cherry": df = 2, idf = 0.470004; d3: tf 3: 0.470004 · 6.6 / (3 + 1.5) = 0.689339, so d3 = 1.552469;
    #   d2: tf 1, length 2: 0.544215 (as "apple" above)
    assert _text_scores(scope, "Durian and cherry?") == {
        d3: pytest.approx(0.863130 + 0.689339, abs=1e-6),
        d2: pytest.approx(0.544215, abs=1e-6),
    }


def test_a_heading_lexeme_counts_with_the_texts_and_no_other_heading_lexeme_counts() -> None:
    """The statement marks the query's lexemes in each candidate's vector (weight C) and reads their
    qtf · idf from an array: a lexeme in both the heading and the text counts every position, and each
    lexeme gets its own weight. Checked against the calibration's scorer, which unnests the whole vector
    and joins it to the query instead."""
    workspace, bot = _workspace("ws-headings")
    document_ingested(
        workspace=workspace,
        text="# Battery care\n\nThe battery lasts two years. Charge the battery weekly.",
        filename="battery.md",
        bots=[bot],
    )
    document_ingested(
        workspace=workspace, text="Screens crack when dropped.", filename="s.md", bots=[bot]
    )
    # "battery" in two chunks of three, the other words in one: the lexemes weigh differently.
    document_ingested(
        workspace=workspace, text="Battery recycling is free.", filename="r.md", bots=[bot]
    )
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    chunks = dict(Chunk.objects.filter(workspace=workspace).values_list("document_id", "id"))
    texts = dict(Chunk.objects.filter(workspace=workspace).values_list("id", "text"))
    for question in (
        "battery charge",
        "care for screens",
        "weekly",
        "battery battery, screens weekly",
    ):
        found = _text_scores(scope, question)
        expected = text_scores(
            workspace_id=str(workspace.pk),
            query=question,
            texts={str(chunk_id): text for chunk_id, text in texts.items()},
        )
        by_document = {
            str(document_id): expected[str(chunk_id)] for document_id, chunk_id in chunks.items()
        }
        assert found == {document: pytest.approx(by_document[document]) for document in found}, (
            question
        )
        assert set(found) == {d for d, score in by_document.items() if score > 0}, question


def test_k1_and_b_are_settings(settings) -> None:
    scope, (d1, d2, _) = _fruit_scope()
    settings.RETRIEVAL_BM25_B = 0.0  # no length normalisation: tf · (k1 + 1) / (tf + k1)
    settings.RETRIEVAL_BM25_K1 = 2.0
    idf = math.log(1.6)
    assert _text_scores(scope, "apple") == {
        d1: pytest.approx(idf * 2 * 3 / (2 + 2)),
        d2: pytest.approx(idf * 1 * 3 / (1 + 2)),
    }


def test_pruned_common_lexemes_still_score_the_candidates_exactly(settings) -> None:
    workspace, bot = _workspace("ws-prune")
    texts = [f"warranty policy number {n} covers screens" for n in range(6)]
    texts.append("warranty policy for batteries and chargers")
    for n, text in enumerate(texts):
        document_ingested(workspace=workspace, text=text, filename=f"w{n}.txt", bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "warranty policy batteries"
    exact = _text_scores(scope, question)
    assert len(exact) == 7  # every chunk holds "warranty"
    # A budget of 1: only the rarest lexeme ("batteri", df 1) is essential and finds one candidate, scored
    # on the common ones too. That is fewer than the exact top EXACT_DEPTH, so the safety test searches
    # the common lexemes as well: pruning costs nothing exact BM25 finds.
    settings.RETRIEVAL_BM25_POSTINGS_BUDGET = 1
    pruned = _text_scores(scope, question)
    assert next(iter(pruned)) == max(exact, key=exact.__getitem__)
    assert list(pruned) == list(exact)
    assert pruned == {key: pytest.approx(exact[key]) for key in pruned}


def test_the_safety_test_searches_only_within_its_own_budget(settings) -> None:
    workspace, bot = _workspace("ws-safety-budget")
    screens = [f"warranty policy number {n} covers screens" for n in range(6)]
    for n, text in enumerate(screens):
        document_ingested(workspace=workspace, text=text, filename=f"s{n}.txt", bots=[bot])
    battery_text = "warranty policy for batteries and chargers"
    battery = str(
        document_ingested(workspace=workspace, text=battery_text, filename="b.txt", bots=[bot]).pk
    )
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "warranty policy batteries"
    settings.RETRIEVAL_BM25_POSTINGS_BUDGET = 1  # "batteri" alone is essential: one candidate
    exact = _text_scores(scope, question)
    assert len(exact) == 7
    # "polici" and "warranti" (7 chunks each) are the unsafe lexemes the safety test must search. A
    # budget of 7 postings searches the rarer one only, which every chunk holds here; a budget of 6
    # searches neither: the screens' chunks, which hold no essential lexeme, are not found, and the
    # battery chunk keeps its exact score.
    settings.RETRIEVAL_BM25_SAFETY_BUDGET = 7
    assert _text_scores(scope, question) == {key: pytest.approx(exact[key]) for key in exact}
    settings.RETRIEVAL_BM25_SAFETY_BUDGET = 6
    assert _text_scores(scope, question) == {battery: pytest.approx(exact[battery])}


def _chunk_scans_run(plan: str) -> list[str]:
    """Each scan of rag_chunk that ran (the other branch's show "never executed"), with its conditions."""
    scans, current = [], None
    for line in plan.splitlines():
        if "(cost=" in line:  # a plan node
            current = None
            if re.search(r"\bon rag_chunk\b", line) and "never executed" not in line:
                current = len(scans)
                scans.append(line.strip())
        elif current is not None:
            scans[current] += " | " + line.strip()
    return scans


def _chunks_scored(plan: str) -> int:
    """The rows the statement's scans of rag_chunk returned, i.e. the chunks it scored."""
    return sum(
        round(float(match.group(1)))
        for scan in _chunk_scans_run(plan)
        for match in [re.search(r"actual time=\S+ rows=([\d.]+)", scan)]
        if match
    )


def test_a_small_workspace_is_pruned_and_still_ranks_its_whole_list_exactly() -> None:
    """At most RETRIEVAL_BM25_POSTINGS_BUDGET chunks (1000): the essential lexemes are the rarest up to half
    the workspace's chunks, and the safety test guards all 40 candidates, not only the top 20."""
    workspace, bot = _workspace("ws-small-pruned")
    texts = {}
    for n in range(80):  # "warranty" in all 80 chunks, "zinc" in 45, "cobalt" in 27
        words = ["warranty", "record", f"item{n}", *["extra"] * (n % 4)]
        words += ["zinc"] if n < 45 else []
        words += ["cobalt"] if n % 3 == 0 else []
        document = document_ingested(
            workspace=workspace, text=" ".join(words), filename=f"w{n}.txt", bots=[bot]
        )
        chunk = Chunk.objects.get(document=document)
        texts[str(chunk.pk)] = chunk.text

    def ranked(question: str) -> list[tuple[str, float]]:
        params = hybrid_params(workspace=workspace, bot=bot, question=question)
        return [(hit.chunk_id, hit.score) for hit in text_rows(params=params)]

    def exact(question: str) -> list[tuple[str, float]]:
        scores = text_scores(workspace_id=str(workspace.pk), query=question, texts=texts)
        best = sorted((item for item in scores.items() if item[1] > 0), key=lambda i: (-i[1], i[0]))
        return [(chunk_id, pytest.approx(score)) for chunk_id, score in best[:40]]

    # "cobalt" (27 chunks) is essential and finds fewer than 40 chunks: the safety test searches
    # "warranti" too, and ranks 28 to 40 are the exact best of the chunks holding only "warranty".
    assert ranked("cobalt warranty") == exact("cobalt warranty")
    # "zinc" (45 chunks) fills the list with chunks scoring above anything "warranti" alone can give:
    # the 35 chunks holding only "warranty" are never read, and the list is still the exact one.
    assert ranked("zinc warranty") == exact("zinc warranty")
    plan = text_plan(params=hybrid_params(workspace=workspace, bot=bot, question="zinc warranty"))
    assert _chunks_scored(plan) == 45, plan


def test_a_small_workspace_reads_its_own_rows_and_not_the_shared_gin_index(settings) -> None:
    """The shared GIN index holds every workspace's postings: a small workspace (at most the postings budget)
    matches its own rows one by one (a condition no GIN index serves), a larger one may go through the index;
    the scores are the same."""
    workspace, bot = _workspace("ws-small-own-rows")
    for n in range(30):
        text = f"warranty record item{n}" + (" zinc" if n % 2 else "")
        document_ingested(workspace=workspace, text=text, filename=f"r{n}.txt", bots=[bot])
    params = hybrid_params(workspace=workspace, bot=bot, question="zinc warranty")
    small = [(hit.chunk_id, hit.score) for hit in text_rows(params=params)]
    assert len(small) == 30
    scans = _chunk_scans_run(text_plan(params=params))
    own_rows = ["IS TRUE" in scan and "chunk_search_gin" not in scan for scan in scans]
    assert own_rows and all(own_rows), scans
    settings.RETRIEVAL_BM25_POSTINGS_BUDGET = 20  # 30 chunks: no longer small
    scans = _chunk_scans_run(text_plan(params=params))
    assert scans and not any("IS TRUE" in scan for scan in scans), scans
    assert [(hit.chunk_id, hit.score) for hit in text_rows(params=params)] == [
        (chunk_id, pytest.approx(score)) for chunk_id, score in small
    ]


def test_pruning_counts_a_lexemes_postings_in_every_language_of_the_workspace(settings) -> None:
    workspace, bot = _workspace("ws-prune-languages")
    english = "Clean every kitchen surface with soap, then disinfect the handles of the fridge."
    english_id = str(
        document_ingested(workspace=workspace, text=english, filename="en.txt", bots=[bot]).pk
    )
    for n in range(4):
        french = (
            f"La surface numéro {n} du bureau se nettoie avec un chiffon doux et sec chaque jour."
        )
        document_ingested(workspace=workspace, text=french, filename=f"fr{n}.txt", bots=[bot])
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "How should I disinfect a kitchen surface?"
    exact = _text_scores(scope, question)
    # "surfac" is in one English chunk but five chunks in all: under a budget of 2 it is not essential
    # (the GIN index would fetch the French ones too), the English chunk is still found through its
    # rarer words and scored exactly, on "surfac" as well.
    settings.RETRIEVAL_BM25_POSTINGS_BUDGET = 2
    pruned = _text_scores(scope, question)
    assert english_id in pruned
    assert pruned == {key: pytest.approx(exact[key]) for key in pruned}


def test_the_query_is_analysed_as_the_chunks_stemmed_without_stop_words_and_accents_folded() -> (
    None
):
    workspace, bot = _workspace("ws-french")
    text = (
        "Les frais d'expédition sont offerts dès cinquante euros. La livraison à domicile prend trois "
        "jours ouvrés et le suivi du colis est envoyé par courriel."
    )
    document = document_ingested(workspace=workspace, text=text, bots=[bot])
    assert document.language == "fr"
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    for question in ("expedition", "Expéditions gratuites ?", "ouvres", "livraisons"):
        assert _text_scores(scope, question).keys() == {str(document.pk)}, question


@pytest.mark.parametrize(
    ("config", "text", "lexemes"),
    [
        # English keeps every word (rag 0009): BM25's idf weighs "the" near zero by itself
        (
            "english",
            "The runners were running to the café",
            {"the", "runner", "were", "run", "to", "cafe"},
        ),
        # PostgreSQL's French stop words lack "les" (BM25's idf makes it cheap)
        ("french", "Les élèves mangeaient des pommes", {"elev", "le", "mang", "pomm"}),
        ("german", "Die Häuser und die Straßen", {"haus", "strass"}),
        ("spanish", "Los niños estaban corriendo", {"nin", "corr"}),
        ("italian", "Le città sono bellissime", {"citt", "bellissim"}),
        ("portuguese", "As crianças estão correndo", {"crianc", "corr"}),  # "estão": a stop word
    ],
)
def test_each_language_stems_drops_stop_words_and_folds_where_expected(
    config: str, text: str, lexemes: set[str]
) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme FROM unnest(parley_tsvector(%s, %s))", [config, text])
        assert {row[0] for row in cursor.fetchall()} == lexemes


def test_english_keeps_every_word_lucenes_stop_words_and_question_words_too() -> None:
    from importlib import import_module

    words = import_module("rag.migrations.0008_bm25_english_stop_words").LUCENE_ENGLISH_STOP_WORDS
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(lexeme ORDER BY lexeme) FROM unnest(parley_tsvector('english', %s))",
            [" ".join(words)],
        )
        assert cursor.fetchone()[0] == sorted(words)
        cursor.execute(
            "SELECT lexeme FROM unnest(parley_tsvector('english', %s))",
            ["How should I not pay, and what can you do?"],
        )
        assert {row[0] for row in cursor.fetchall()} == {
            "how",
            "should",
            "i",
            "not",
            "pay",
            "and",
            "what",
            "can",
            "you",
            "do",
        }


@pytest.mark.parametrize(
    "question",
    [
        "the and of to is",  # only stop words
        "rental " * 500 + "x" * 1000,  # 4,000 characters
        "ᚠᛇᚻ᛫ᛒᛦᚦ ᛗᛁᚳᛚᚢᚾ 𓀀𓀁𓀂",  # runes and hieroglyphs: no configuration knows them
        "&|!():*'\\ bike' & | rental:* !(day) \\' ''",  # tsquery and SQL syntax characters
        "",
        "   ",
    ],
    ids=["stop-words", "4000-chars", "unknown-script", "syntax-characters", "empty", "blank"],
)
@pytest.mark.parametrize("mode", ["text", "hybrid"])
def test_bad_queries_return_results_or_nothing_never_an_error(question: str, mode: str) -> None:
    workspace, bot = _workspace("ws-bad")
    document_ingested(
        workspace=workspace, text="A day bike rental costs 25 euros with a helmet.", bots=[bot]
    )
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    result = chunks_retrieve(scope=scope, question=question, mode=mode)  # type: ignore[arg-type]
    assert isinstance(result.hits, list)
    if mode == "text" and "rental" in question:
        assert result.hits  # the real words still match

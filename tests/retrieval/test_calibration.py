"""Per-workspace fusion calibration: the SQL fusion equals its Python reference, the choice on workspaces where
one side is clearly better (never below the better side), the calibrated fusion used by searches, and the
background recalibration queued after commit once ingestion changed enough of a workspace."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest
from django.core.files.base import ContentFile

from bots.models import Bot
from core.models import Workspace
from rag.ingestion import document_ingest
from rag.models import WorkspaceEmbedding, WorkspaceFusion
from rag.retrieval import RetrievalScope, chunks_retrieve, document_languages_foreign
from rag.retrieval.calibration.choose import grid, side_shares, vector_share
from rag.retrieval.calibration.pairs import sentence_span, synthetic_pairs
from rag.retrieval.calibration.service import (
    workspace_fusion_calibrate,
    workspace_fusion_change_record,
)
from rag.retrieval.fusion import FusionChoice, fused_ids
from rag.services import document_create, document_delete
from rag.tasks import document_ingest_task, workspace_fusion_calibrate_task
from tests.support.knowledge import document_ingested
from tests.support.llm_server import Reply, ScriptedLLMServer

pytestmark = pytest.mark.django_db

# Each sentence and a question about it that shares none of its content words: the full-text side cannot
# find the sentence from the question, a multilingual-enough embedding model can.
PARAPHRASES = dict(
    [
        (
            "The physician examined the infant at the clinic early yesterday.",
            "Which doctor checked a newborn baby inside the hospital?",
        ),
        (
            "Our automobile dealership sells affordable used vehicles every weekend.",
            "Where can I purchase a cheap second-hand car on Saturdays?",
        ),
        (
            "Passengers must fasten seatbelts before the aircraft departs the runway.",
            "Do travellers need to buckle up prior to a plane taking off?",
        ),
        (
            "The chef prepared a delicious spicy curry with fresh coriander.",
            "What tasty hot dish did the cook make using cilantro?",
        ),
        (
            "Heavy rainfall caused severe flooding across the northern valley.",
            "Did big storms bring rivers over their banks up north?",
        ),
        (
            "Students can borrow novels from the campus library for three weeks.",
            "How long may pupils take out books at the university reading room?",
        ),
        (
            "The attorney advised her client to remain silent during questioning.",
            "What did the lawyer tell the defendant about keeping quiet in an interrogation?",
        ),
        (
            "Our dentist recommends brushing teeth twice daily with fluoride toothpaste.",
            "How often should I clean my molars according to the tooth doctor?",
        ),
        (
            "The orchestra performed a moving symphony at the concert hall.",
            "Which band of musicians played an emotional piece in the auditorium?",
        ),
        (
            "Gardeners should water tomato plants early to prevent wilting.",
            "How do I keep my vegetable garden crops from drooping?",
        ),
        (
            "The kitten chased a ball of yarn across the carpet.",
            "Did the young cat run after some wool on the rug?",
        ),
        (
            "Investors fear the stock market will crash next quarter.",
            "Are shareholders worried that equities could plunge soon?",
        ),
        (
            "The firefighters rescued an elderly woman from the burning apartment.",
            "Who saved the old lady trapped in the flat on fire?",
        ),
        (
            "Hikers reached the mountain summit after a strenuous climb.",
            "Did the trekkers get to the peak following a tough ascent?",
        ),
        (
            "The bakery sells warm croissants and baguettes each dawn.",
            "Which shop offers hot pastries and French bread every sunrise?",
        ),
        (
            "Scientists discovered a new species of beetle in the rainforest.",
            "Did researchers find an unknown insect kind in the jungle?",
        ),
        (
            "The plumber repaired the leaking faucet in the kitchen sink.",
            "Who fixed the dripping tap by the basin where we cook?",
        ),
        (
            "Voters elected a new mayor for the city last November.",
            "Which leader did citizens choose to run the town in autumn?",
        ),
        (
            "The athlete sprinted swiftly and won the gold medal.",
            "Which runner dashed fast to take first prize?",
        ),
        (
            "Our pharmacy dispenses prescription medicine until midnight.",
            "When does the drugstore hand out doctor-ordered drugs at night?",
        ),
        (
            "The professor graded the exams over the holiday break.",
            "Did the lecturer mark the tests during vacation?",
        ),
        (
            "Commuters crowded the subway platform during rush hour.",
            "Were travellers packed onto the metro station at peak time?",
        ),
        (
            "The jeweller polished a sparkling diamond necklace carefully.",
            "Who shined the glittering gem chain with care?",
        ),
        (
            "The toddler giggled loudly while splashing in the bathtub.",
            "Was the small child laughing noisily while playing in the bath?",
        ),
    ]
)


# A second sentence for each document, on its topic with the first one's words and none of its
# question's: a synthetic pair's sentence is withheld from its chunk (the inverse cloze task), so the
# chunk must be found from the other one.
SECOND = dict(
    zip(
        PARAPHRASES,
        [
            "The clinic physician found the infant healthy.",
            "The dealership offers financing on every automobile it sells.",
            "Cabin crew check that passengers have fastened seatbelts.",
            "The chef grows coriander for his curry.",
            "The valley flooding followed a week of heavy rainfall.",
            "The campus library lends novels to students free of charge.",
            "The attorney has represented this client for years.",
            "Fluoride toothpaste protects teeth, our dentist says.",
            "The orchestra rehearsed the symphony all week at the concert hall.",
            "Tomato plants wilt quickly when gardeners water them late.",
            "The kitten loves that ball of yarn.",
            "Investors sold stock before the market crash.",
            "The firefighters reached the burning apartment within minutes.",
            "The hikers rested at the mountain summit after the climb.",
            "The bakery bakes croissants and baguettes before dawn.",
            "The scientists named the new beetle species after the rainforest.",
            "The plumber replaced the faucet washer under the kitchen sink.",
            "Voters gave the new mayor a large majority in November.",
            "The athlete celebrated the gold medal after sprinting.",
            "The pharmacy keeps prescription medicine in stock until midnight.",
            "The professor graded exams over every holiday break.",
            "Commuters wait on the subway platform each rush hour.",
            "The jeweller sells each diamond necklace after polishing it.",
            "The toddler enjoys splashing in the bathtub.",
        ],
        strict=True,
    )
)


def calibration_workspace(name: str, *, model: str | None = None) -> tuple[Workspace, Bot]:
    workspace = Workspace.objects.create(name=name, slug=name)
    if model:
        WorkspaceEmbedding.objects.create(workspace=workspace, embedding_model=model)
    # A real question's pair falls in the fit or the held-out half by its bot and question: a bot id
    # fixed by the name keeps that split, and so the figures, the same from run to run.
    bot_id = uuid.uuid5(uuid.NAMESPACE_URL, f"parley-test/{name}")
    return workspace, Bot.objects.create(id=bot_id, workspace=workspace, name=f"{name} bot")


def ingest_sentences(workspace: Workspace, bot: Bot) -> None:
    for number, sentence in enumerate(PARAPHRASES):
        text = f"{sentence} {SECOND[sentence]}"
        document_ingested(workspace=workspace, text=text, bots=[bot], filename=f"s{number}.txt")


def _paraphrasing_model(body: dict) -> str:
    """The scripted LLM's answer to a calibration paraphrase request: each span's sentence's question."""
    spans = json.loads(body["messages"][-1]["content"])
    questions = [
        next(
            question
            for sentence, question in PARAPHRASES.items()
            if span in sentence or span in SECOND[sentence]
        )
        for span in spans
    ]
    return json.dumps({"questions": questions})


def _assert_never_below_the_better_side(fusion: WorkspaceFusion) -> None:
    assert fusion.recall_at_5 >= max(fusion.vector_recall_at_5, fusion.text_recall_at_5)
    assert fusion.held_out_count > 0 and fusion.pair_count == len(PARAPHRASES)


def test_the_sql_fusion_ranks_as_its_python_reference() -> None:
    workspace, bot = calibration_workspace("ws-fusion-sql")
    for number, sentence in enumerate(list(PARAPHRASES)[:8]):
        document_ingested(workspace=workspace, text=sentence, bots=[bot], filename=f"f{number}.txt")
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    question = "Which doctor examined the baby at the clinic?"
    kwargs = {"scope": scope, "question": question, "top_k": 20, "score_threshold": -1.0}
    vector = [(h.id, h.vector_score) for h in chunks_retrieve(**kwargs, mode="vector").hits]
    text = [(h.id, h.text_score or 0.0) for h in chunks_retrieve(**kwargs, mode="text").hits]
    assert len(vector) == 8 and 1 <= len(text) < 8  # both sides, and chunks only one side found
    for choice in (
        FusionChoice(method="rrf", rrf_k=10, vector_weight=0.3, text_weight=0.7),
        FusionChoice(method="convex", vector_share=0.4),
        FusionChoice(method="convex", vector_share=0.9),
    ):
        result = chunks_retrieve(**kwargs, choice=choice)
        assert [hit.id for hit in result.hits] == fused_ids(vector=vector, text=text, choice=choice)
        assert result.fusion == choice.label()


def test_spans_come_from_one_sentence_of_the_chunk() -> None:
    text = "Short one. " + " ".join(PARAPHRASES)
    span = sentence_span(text=text, language="en", seed="chunk-1")
    assert span == sentence_span(text=text, language="en", seed="chunk-1")  # deterministic
    assert span in PARAPHRASES  # a whole sentence (each is under 24 words)
    assert sentence_span(text="Too short. Also.", language="en", seed="x") == ""


def test_a_workspace_whose_vector_side_is_useless_is_searched_mostly_by_full_text(
    settings, llm_server: ScriptedLLMServer
) -> None:
    # the scripted server's embeddings are hashes of the text: similar texts get unrelated vectors
    settings.PARLEY_EMBEDDING_OPENAI_BASE_URL = llm_server.base_url
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    workspace, bot = calibration_workspace(
        "ws-hash-vectors", model=f"openai/hash-{uuid.uuid4().hex[:6]}"
    )
    ingest_sentences(workspace, bot)
    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.SYNTHETIC
    assert fusion.paraphrased_count == 0
    assert fusion.text_recall_at_5 >= 0.9 > fusion.vector_recall_at_5
    # the measured best: the full-text side alone or a fusion led by it (a useless side adds noise)
    choice = FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters)
    assert vector_share(choice) <= 0.25
    _assert_never_below_the_better_side(fusion)
    assert len(fusion.candidates) == len(grid()) and fusion.chunk_count == len(PARAPHRASES)
    # searches now use it, and the full-text side's hit leads
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    # (no cosine threshold: these hash vectors' cosines are often below 0, the default threshold)
    result = chunks_retrieve(
        scope=scope, question="the kitten chased a ball of yarn", score_threshold=-1.0
    )
    assert result.fusion == choice.label()
    assert "kitten" in result.hits[0].text


def test_a_workspace_whose_questions_share_no_words_with_its_chunks_gets_the_vector_side(
    settings, llm: ScriptedLLMServer
) -> None:
    settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_API_KEY = "openai", llm.base_url, "k"
    settings.LLM_MAX_RETRIES = 0
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    settings.RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE = 1.0
    workspace, bot = calibration_workspace("ws-paraphrased")
    ingest_sentences(workspace, bot)
    llm.enqueue(Reply(responder=_paraphrasing_model), Reply(responder=_paraphrasing_model))
    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.SYNTHETIC_PARAPHRASED
    assert fusion.paraphrased_count == len(PARAPHRASES)
    assert len(llm.chat_requests()) == 2  # batches of 20
    # No shared words with the sentence withheld: the vector side finds them, the full-text side only
    # where the chunk's other sentence happens to share a word. Which sentence is withheld and which half
    # a pair falls in follow its chunk's id (a new UUID each run), so the text side's held-out figure
    # changes from run to run (0.67 in one, against 1.0 for vectors): only the sides' order is asserted.
    assert fusion.vector_recall_at_5 >= 0.8
    assert fusion.text_recall_at_5 < fusion.vector_recall_at_5
    assert fusion.method != "text"
    _assert_never_below_the_better_side(fusion)


@pytest.fixture
def calibrations_sent(settings, monkeypatch) -> list[str]:
    """The workspace ids of the calibration messages sent (none leaves); ingestion messages are dropped,
    the tests ingest in process."""
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    sent: list[str] = []
    monkeypatch.setattr(
        workspace_fusion_calibrate_task, "apply_async", lambda args, *_, **__: sent.append(args[0])
    )
    monkeypatch.setattr(document_ingest_task, "apply_async", lambda *args, **kwargs: None)
    return sent


def test_ingestion_queues_a_recalibration_after_commit_past_the_change_share(
    settings, django_capture_on_commit_callbacks, calibrations_sent: list[str]
) -> None:
    settings.RETRIEVAL_CALIBRATION_CHANGE_SHARE = 0.2
    sent = calibrations_sent
    workspace, bot = calibration_workspace("ws-trigger")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ingest_sentences(workspace, bot)  # due once there are 10 chunks: a first calibration
    assert sent == []  # nothing leaves before the commit
    _run(callbacks)
    assert sent == [str(workspace.pk)]  # one message, however many documents followed
    workspace_fusion_calibrate_task.run(str(workspace.pk))  # what the worker runs for that message
    fusion = WorkspaceFusion.objects.get(workspace=workspace)
    assert fusion.calibrated_at and fusion.queued_at is None and fusion.changed_chunks == 0
    sent.clear()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert not workspace_fusion_change_record(workspace_id=workspace.pk, chunks=4)  # 4/24 < 20%
        document = document_ingested(workspace=workspace, text="A new sentence about llamas here.")
    _run(callbacks)
    assert sent == [str(workspace.pk)]  # 5 changed chunks out of 24 is past the share
    with django_capture_on_commit_callbacks(execute=True):
        document_delete(document_id=document.pk)
    assert sent == [str(workspace.pk)]  # already queued: no second message
    assert WorkspaceFusion.objects.get(workspace=workspace).changed_chunks == 6


def test_a_bulk_upload_calibrates_once_after_its_last_document_settles(
    django_capture_on_commit_callbacks, calibrations_sent: list[str]
) -> None:
    sent = calibrations_sent
    workspace, bot = calibration_workspace("ws-bulk")
    waiting = [
        document_create(workspace=workspace, file=ContentFile(text.encode(), name=name))
        for name, text in (
            ("late.txt", "A late sentence about alpacas and their wool."),
            ("broken.pdf", "%PDF-1.4 nothing useful"),
        )
    ]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ingest_sentences(workspace, bot)  # enough chunks, but two documents still wait
        document_ingest(document_id=str(waiting[0].pk), claim_id="late", batch_limit=1)
    _run(callbacks)
    assert sent == []
    assert WorkspaceFusion.objects.get(workspace=workspace).changed_chunks > 0
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        # the last one fails: it adds no chunks, yet settling it lets the deferred run go
        document_ingest(document_id=str(waiting[1].pk), claim_id="broken", batch_limit=1)
    _run(callbacks)
    assert sent == [str(workspace.pk)]


def _run(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        callback()


def test_an_unusable_paraphrase_keeps_the_raw_sentences(settings, llm: ScriptedLLMServer) -> None:
    settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_API_KEY = "openai", llm.base_url, "k"
    settings.LLM_MAX_RETRIES = 0
    settings.RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE = 1.0
    workspace, bot = calibration_workspace("ws-bad-paraphrase")
    for number, sentence in enumerate(list(PARAPHRASES)[:6]):
        text = f"{sentence} {SECOND[sentence]}"
        document_ingested(workspace=workspace, text=text, bots=[bot], filename=f"p{number}.txt")
    llm.enqueue(Reply(content='{"questions": ["only one"]}'))  # six asked, one given
    pairs = synthetic_pairs(
        workspace_id=str(workspace.pk),
        model_id="local/all-MiniLM-L6-v2",
        sample_size=10,
        paraphrase_share=1.0,
    )
    assert pairs.source == WorkspaceFusion.Source.SYNTHETIC and pairs.paraphrased_count == 0
    documents = list(PARAPHRASES)[:6]
    assert len(pairs.pairs) == 6
    for pair in pairs.pairs:  # each query is one of its chunk's two sentences, as it was
        assert pair.query == pair.withheld and pair.query in {
            *documents,
            *map(SECOND.get, documents),
        }


def test_the_documents_languages_other_than_the_questions_follow_the_scope() -> None:
    workspace, bot = calibration_workspace("ws-languages")
    other_bot = Bot.objects.create(workspace=workspace, name="other")
    document_ingested(workspace=workspace, text=" ".join(list(PARAPHRASES)[:4]), bots=[bot])
    french = "Le boulanger vend des croissants chauds et des baguettes chaque matin à l'aube."
    document_ingested(workspace=workspace, text=french, bots=[other_bot], filename="fr.txt")
    question = "Combien coûte la livraison d'un colis à domicile ?"
    scope = RetrievalScope(workspace_id=str(workspace.pk), bot_ids=[str(bot.pk)])
    assert document_languages_foreign(scope=scope, question=question) == ["en"]
    whole = RetrievalScope(workspace_id=str(workspace.pk))
    assert document_languages_foreign(scope=whole, question=question) == ["en"]
    assert document_languages_foreign(scope=whole, question="How much is the delivery?") == ["fr"]
    assert document_languages_foreign(scope=whole, question="?!") == []  # language unknown


def _evaluation_set(bot: Bot, *, cases: int) -> None:
    from insights.models import EvaluationCase, EvaluationSet

    evaluation_set = EvaluationSet.objects.create(bot=bot, name="paraphrases")
    for number, question in enumerate(list(PARAPHRASES.values())[:cases]):
        EvaluationCase.objects.create(
            evaluation_set=evaluation_set,
            position=number,
            question=question,
            expected_sources=[f"s{number}.txt"],
        )


def test_the_bots_evaluation_set_decides_over_synthetic_pairs(settings, admin_client) -> None:
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    workspace, bot = calibration_workspace("ws-evaluation")
    ingest_sentences(workspace, bot)
    synthetic = workspace_fusion_calibrate(workspace_id=workspace.pk)
    # raw spans repeat their sentence's words: the full-text side finds them all
    assert synthetic is not None and synthetic.pair_source == WorkspaceFusion.Source.SYNTHETIC
    assert synthetic.text_recall_at_5 >= 0.9
    _evaluation_set(bot, cases=len(PARAPHRASES))
    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.EVALUATION
    label = f"evaluation set “paraphrases” of bot {bot.name}"
    assert fusion.pair_origins == [{"label": label, "count": 24}]
    # the cases' questions share no words with their documents: counted by document, the set shows
    # the vector side far ahead, and the choice follows it (vector-led, never below it)
    # (English keeps "the" and "a": the full-text side finds a few through them, 0.1 to 0.5 of the
    # held-out half depending on which questions fall in it)
    assert fusion.vector_recall_at_5 >= 0.8
    assert fusion.vector_recall_at_5 - fusion.text_recall_at_5 >= 0.4
    choice = FusionChoice.from_stored(method=fusion.method, parameters=fusion.parameters)
    # (semantic-led: the two vector sides, MiniLM and multilingual, hold most of the weight)
    assert side_shares(choice)[2] <= 0.2 and fusion.method != "text"
    _assert_never_below_the_better_side(fusion)
    page = admin_client.get(f"/admin/core/workspace/{workspace.pk}/change/").content.decode()
    assert "real questions asked of this workspace&#x27;s bots" in page
    assert "Evaluation set “paraphrases” of bot ws-evaluation bot</td><td>24</td>" in page


def test_too_few_evaluation_cases_are_set_aside_for_synthetic_pairs(settings) -> None:
    settings.RETRIEVAL_CALIBRATION_MIN_PAIRS = 10
    workspace, bot = calibration_workspace("ws-few-cases")
    ingest_sentences(workspace, bot)
    _evaluation_set(bot, cases=4)
    fusion = workspace_fusion_calibrate(workspace_id=workspace.pk)
    assert fusion is not None and fusion.pair_source == WorkspaceFusion.Source.SYNTHETIC
    assert fusion.pair_count == len(PARAPHRASES)
    labels = {origin["label"]: origin["count"] for origin in fusion.pair_origins}
    assert labels["real questions set aside (under the 10 a calibration needs)"] == 4
    assert labels["sentences withheld from 24 sampled chunks (inverse cloze)"] == 24


def test_a_calibration_queued_for_a_deleted_workspace_ends_quietly() -> None:
    # Ingestion queues the task after commit; the workspace may be deleted before a worker takes it.
    workspace = Workspace.objects.create(name="gone", slug=f"gone-{uuid.uuid4().hex[:6]}")
    workspace_id = str(workspace.pk)
    workspace.delete()

    assert workspace_fusion_calibrate_task.apply(args=[workspace_id]).get() == "too_few_pairs"
    assert not WorkspaceFusion.objects.filter(workspace_id=workspace_id).exists()

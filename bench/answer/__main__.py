"""The answer a visitor reads, scored in every language, beside a plain extractive reference in the same run.

    .venv/bin/python -m bench.answer run [--root /work/shared/corpora] [--half tune|report] [--limit N]
    .venv/bin/python -m bench.answer fit [--root ...] [--limit N]     # rag/relevance/weights.json

`run` gives each corpus's documents to an offline bot as an admin and an API user do (uploaded, ingested
by the product's task; bench/answer/workspaces.py) and asks every question through the product's turn
path (`conversations.pipeline.run.answer_run`, the code the chat API runs, offline provider). Per set it
prints the share of answers holding a gold span, of answerable questions refused, of unanswerable ones
declined (questions of another set, in the same language and in another: bench/answer/plan.py), and the
median answer length in sentences; then the same for the reference (bench/answer/reference.py) on the same
questions. Then the demo bot's evaluation set: its no-answer cases declined, and its answerable cases lost.

Sets are split by article (bench/answer/sets.py): everything is chosen on `--half tune`; `--half report`
is run once, at the end. `fit` fits the relevance estimate on the tune half (bench/answer/fit.py).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path("/work/shared/corpora")
NO_ANSWER = ("not_found_in_context", "out_of_scope", "human_escalation")


def _plans(root: Path, corpora: list[str]):  # type: ignore[no-untyped-def]
    from bench.answer.plan import PLANS, WorkspacePlan, corpus_of
    from bench.answer.sets import sets_load
    from bench.answer.workspaces import corpus_workspace, document_ids_by_name
    from conversations.pipeline.retrieve import scope_for
    from prompts.selectors import bot_settings_get

    sets = sets_load(root)
    plans = []
    for corpus in corpora or PLANS:
        name = next(n for n in sets if corpus_of(n) == corpus)
        workspace, bot, seconds = corpus_workspace(corpus, sets[name].documents)
        if seconds:
            print(f"{corpus}: {len(sets[name].documents)} documents ingested in {seconds:.0f} s")
        plans.append(
            WorkspacePlan(
                corpus=corpus,
                workspace_id=str(workspace.pk),
                bot_id=str(bot.pk),
                settings=bot_settings_get(bot_id=str(bot.pk)),
                scope=scope_for(
                    workspace_id=str(workspace.pk),
                    bot_id=str(bot.pk),
                    conversation_id=None,
                    external_user_id=None,
                ),
                set_ids=document_ids_by_name(workspace),
                sets=sets,
            )
        )
    return plans, sets


def _run(root: Path, *, half: str, limit: int | None, corpora: list[str]) -> None:
    from bench.answer.reference import Reference
    from bench.answer.scoring import Tally
    from conversations.pipeline.run import answer_run

    plans, sets = _plans(root, corpora)
    header = ["holds span", "refused", "declined", "median sentences"]
    print(
        f"\nhalf: {half}; offline bots with the model's defaults; reference: top document, closest sentences"
    )
    print(f"{'workspace <- questions':40}{'side':11}" + "".join(h.rjust(18) for h in header))
    for plan in plans:
        documents = next(s for n, s in sets.items() if n.split("/")[0] == plan.corpus)
        reference = Reference(documents.documents, language=documents.language)
        limit_sentences = plan.settings.answer_max_sentences
        for name, questions, answerable in plan.questions(half=half, limit=limit):  # type: ignore[arg-type]
            ours, theirs, latencies = Tally(), Tally(), []
            for question in questions:
                started = time.monotonic()
                run = answer_run(
                    bot=plan.settings,
                    question=question.text,
                    history=[],
                    scope=plan.scope,
                    endpoint=None,
                )
                latencies.append(time.monotonic() - started)
                found = run.generated.outcome.enforced.answer.status.value not in NO_ANSWER
                quoted = reference.answer(
                    question.text, language=question.language, limit=limit_sentences
                )
                if answerable:
                    ours.answered(
                        text=run.route.text,
                        found=found,
                        spans=question.answers,
                        language=question.language,
                    )
                    theirs.answered(
                        text=quoted, found=True, spans=question.answers, language=question.language
                    )
                else:
                    ours.unanswerable_seen(found=found)
                    theirs.unanswerable_seen(found=True)
            spans = answerable and bool(sets[name].questions[0].answers)
            label = f"{plan.corpus} <- {name} ({len(questions)})"
            median_ms = statistics.median(latencies) * 1000 if latencies else 0
            print(
                f"{label:40}{'Parley':11}"
                + "".join(c.rjust(18) for c in ours.cells(spans=spans))
                + f"   {median_ms:.0f} ms/turn"
            )
            print(
                f"{'':40}{'reference':11}" + "".join(c.rjust(18) for c in theirs.cells(spans=spans))
            )


def _demo() -> None:
    import uuid

    from conversations.pipeline.retrieve import scope_for
    from conversations.pipeline.run import answer_run
    from insights.management.commands.demo_evaluation import DEMO_SET
    from insights.services.cases_io import cases_parse
    from prompts.engine import HistoryTurn
    from prompts.selectors import bot_settings_get
    from prompts.services.demo import demo_bot_ensure
    from rag.demo_content import demo_documents_ensure
    from rag.ingestion import document_ingest

    bot = demo_bot_ensure(workspace_slug="bench-answer-demo")
    for document in demo_documents_ensure(workspace=bot.workspace, bots=[bot]):
        if document.status != "ready":
            document_ingest(document_id=str(document.pk), claim_id=uuid.uuid4().hex)
    settings = bot_settings_get(bot_id=str(bot.pk))
    scope = scope_for(
        workspace_id=str(bot.workspace_id),
        bot_id=str(bot.pk),
        conversation_id=None,
        external_user_id=None,
    )
    cases = cases_parse(raw=DEMO_SET.read_bytes(), file_format="jsonl")
    declined = no_answer = lost = answerable = 0
    for case in cases:
        history = [HistoryTurn.coerce(turn) for turn in case.history]
        run = answer_run(
            bot=settings, question=case.question, history=history, scope=scope, endpoint=None
        )
        status = run.generated.outcome.enforced.answer.status.value
        if case.expect_no_answer:
            no_answer += 1
            declined += status in NO_ANSWER
        elif case.expected_status == "found_in_context":
            answerable += 1
            lost += status != "found_in_context"
    print(
        f"\ndemo evaluation set ({len(cases)} cases): no-answer cases declined {declined} of"
        f" {no_answer}; answerable cases lost {lost} of {answerable}"
    )


def _fit(root: Path, *, limit: int | None, corpora: list[str]) -> None:
    from bench.answer.fit import models_fit, neutral_weights, rows_collect
    from rag.relevance.model import weights_load, weights_write

    try:
        weights_load()
    except (ValueError, KeyError):  # weights of other features: retrieval still runs while fitting
        weights_write(neutral_weights())
    plans, _ = _plans(root, corpora)
    rows = rows_collect(plans, limit=limit)
    fitted_on = (
        f"tune halves of piaf-dev, xquad-dev (en, de, es), covid-faq-en, spf-fr (bench.answer fit,"
        f" at most {limit} answerable questions per set): {len(rows.passage_y)} chunks,"
        f" {len(rows.units)} units"
    )
    weights = models_fit(rows, fitted_on=fitted_on)
    weights_write(weights)
    print(fitted_on)
    print(f"  answer threshold {weights.answer_threshold:.2f}")
    for model in (weights.passage, weights.unit):
        print(
            "  "
            + ", ".join(
                f"{n} {c:+.2f}" for n, c in zip(model.names, model.coefficients, strict=True)
            )
            + f", intercept {model.intercept:+.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.answer")
    parser.add_argument("command", choices=("run", "fit"))
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--half", choices=("tune", "report"), default="tune")
    parser.add_argument("--limit", type=int, default=None, help="answerable questions per set")
    parser.add_argument("--corpora", default="", help="workspaces to run, comma-separated (all)")
    parser.add_argument(
        "--no-demo", action="store_true", help="leave out the demo's evaluation set"
    )
    args = parser.parse_args()
    import django

    django.setup()
    logging.getLogger("celery").setLevel(logging.WARNING)
    corpora = [name for name in args.corpora.split(",") if name]
    if args.command == "fit":
        _fit(args.root, limit=args.limit, corpora=corpora)
    else:
        _run(args.root, half=args.half, limit=args.limit, corpora=corpora)
        if not args.no_demo:
            _demo()


if __name__ == "__main__":
    main()

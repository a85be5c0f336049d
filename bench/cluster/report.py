"""What the cluster run checks and prints once the load is over: from the clients (each message
answered once), and from the database (turns, documents, chunks); the defects counted.

Some invariants are held by the schema itself (one turn per conversation and client_message_id, one
chunk per document and ordinal): they are printed as such, not counted as checks. The checks are the
ones a fault could break: a message with no answer or two different turns, a turn left unfinished, an
acknowledged document missing or stored twice, a document stuck or failed, a ready document's chunks
with a gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from django.db.models import Count

from bench.api.load import percentile
from bench.cluster.clients import Uploads, VisitorMessage


def report(
    messages: Sequence[VisitorMessage],
    uploads: Uploads,
    conversations: Sequence[str],
    documents: Sequence[tuple[str, str]],
    load_seconds: float,
    sampler: Any,
    database_url: str,
    *,
    expected_messages: int,
) -> int:
    """Prints the outcome; returns the number of defects."""
    defects = _visitors(messages, conversations, load_seconds)
    unanswered = expected_messages - sum(len(set(m.turn_ids)) == 1 for m in messages)
    if (
        unanswered
    ):  # lost on the way, answered twice, or never sent (the load's deadline came first)
        print(f"FAILED: {unanswered} of {expected_messages} messages not answered exactly once")
    defects += expected_messages - len(messages)  # never sent: the others are counted above
    defects += _documents(uploads, documents)
    _connections(sampler, database_url)
    print("result: " + ("nothing lost, nothing twice" if not defects else f"{defects} defects"))
    return defects


def _visitors(
    messages: Sequence[VisitorMessage], conversations: Sequence[str], seconds: float
) -> int:
    from conversations.models import Turn

    answered = [m for m in messages if len(set(m.turn_ids)) == 1]
    lost = [m for m in messages if not m.turn_ids]
    twice = [m for m in messages if len(set(m.turn_ids)) > 1]
    turns = Turn.objects.filter(conversation_id__in=conversations)
    unfinished = turns.filter(completed_at__isnull=True).count()
    stored = {(str(t.conversation_id), t.client_message_id): str(t.pk) for t in turns}
    mismatched = [
        m for m in answered if stored.get((m.conversation_id, m.client_message_id)) != m.turn_ids[0]
    ]
    retried = [m for m in messages if m.posts > 1 or m.resumes]
    firsts = [m.first_event for m in messages if m.first_event is not None]
    totals = [m.total for m in messages if m.total is not None]
    print()
    print("visitors (client side, with widget.js's retry policy):")
    print(
        f"  messages {len(messages)}: answered once {len(answered)}, lost {len(lost)}, answered "
        f"with two different turns {len(twice)}; retried {len(retried)} (sent again "
        f"{sum(m.posts - 1 for m in messages)}, resumed {sum(m.resumes for m in messages)})"
    )
    print(
        f"  first event p50 {percentile(firsts, 50) * 1000:.0f} ms, p95 {percentile(firsts, 95) * 1000:.0f} ms; "
        f"answer p50 {percentile(totals, 50):.2f} s, p95 {percentile(totals, 95):.2f} s; "
        f"{len(answered) / seconds:.1f} answers/s over the load"
    )
    for error in sorted({e for m in messages for e in m.errors})[:6]:
        print(f"  seen on the way: {error}")
    print("database:")
    print(
        f"  turns {turns.count()} for {len(messages)} messages (one per client_message_id: a unique "
        f"constraint); unfinished {unfinished}; answers whose turn is not the stored one {len(mismatched)}"
    )
    return len(lost) + len(twice) + unfinished + len(mismatched)


def _documents(uploads: Uploads, documents: Sequence[tuple[str, str]]) -> int:
    from rag.models import Chunk, Document

    ours = Document.objects.filter(title__startswith="cluster ")
    stuck = ours.filter(status__in=["pending", "processing"]).count()
    failed = ours.filter(status="failed")
    titles_twice = ours.values("title").annotate(n=Count("id")).filter(n__gt=1).count()
    acknowledged = set(uploads.created.values())
    missing = acknowledged - {str(pk) for pk in ours.values_list("pk", flat=True)}
    chunks = Chunk.objects.filter(document__in=ours)
    text_twice = (
        chunks.values("document_id", "text").annotate(n=Count("id")).filter(n__gt=1).count()
    )
    gaps = sum(
        1
        for document in ours.filter(status="ready")
        if sorted(Chunk.objects.filter(document=document).values_list("ordinal", flat=True))
        != list(range(document.chunk_count))
    )
    stored = ours.count()
    print(
        f"  documents: {len(documents)} uploaded, {len(acknowledged)} acknowledged ({uploads.lost} "
        f"answers lost on the way and sent again, {uploads.replayed} of those answered with the "
        f"document the lost one had created); {stored} stored, ready "
        f"{ours.filter(status='ready').count()}, stuck {stuck}, failed {failed.count()}, created "
        f"twice {titles_twice}, acknowledged but missing {len(missing)}"
    )
    print(
        f"  chunks: {chunks.count()} (one per document and ordinal: a unique constraint); "
        f"the same text twice in a document {text_twice}, ready documents with a gap {gaps}"
    )
    for failure in uploads.failed[:5]:
        print(f"  upload failed: {failure}")
    for title, code in failed.values_list("title", "error_code")[:5]:
        print(f"  ingestion failed: {title}: {code}")
    return (
        stuck
        + failed.count()
        + titles_twice
        + len(missing)
        + abs(stored - len(documents))
        + text_twice
        + gaps
        + len(uploads.failed)
    )


def _connections(sampler: Any, database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SHOW max_connections").fetchone()
    limit = int(row[0]) if row else 0
    median = percentile([float(s) for s in sampler.samples], 50)
    verdict = (
        "a PgBouncer in transaction mode is called for"
        if sampler.peak > 0.8 * limit
        else "no PgBouncer needed at this size"
    )
    print(
        f"PostgreSQL client connections: peak {sampler.peak} of max_connections {limit} "
        f"(median {median:.0f}); {verdict}"
    )

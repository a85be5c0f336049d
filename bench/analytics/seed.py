"""Seed a bot with N turns through COPY: conversations on both channels, a realistic status mix,
confidences, topics and suggestions, handoffs (claimed, timed out) and feedback with reasons."""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.db import connection

STATUS_MIX = [
    ("found_in_context", 0.55),
    ("not_found_in_context", 0.20),
    ("small_talk", 0.10),
    ("out_of_scope", 0.07),
    ("human_escalation", 0.05),
    ("injection_attempt", 0.03),
]
TOPICS = [f"topic {n}" for n in range(12)]
SUGGESTIONS = [f"suggestion {n}" for n in range(20)]
QUESTIONS = [
    "How long does the battery last?",
    "Where is my order?",
    "Can I return a bike after 30 days?",
    "Does the warranty cover the motor?",
    "How do I reset the display?",
    "What is the charging time?",
]
TURNS_PER_CONVERSATION = 5
TURN_COLUMNS = [
    "id",
    "conversation_id",
    "client_message_id",
    "execution_id",
    "created_at",
    "completed_at",
    "user_text",
    "condensed_question",
    "retrieved_chunks",
    "prompt_version",
    "prompt_hash",
    "raw_output",
    "attempts",
    "repairs",
    "llm_error_code",
    "status",
    "answer",
    "topic",
    "suggested_topics",
    "understanding",
    "confidence",
    "redirection_intent",
    "display_answer",
    "context_usage",
    "route_action",
    "route_reason",
    "reply_text",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "latencies",
    "llm_error_message",
]


def _status(rng: random.Random) -> str:
    pick, total = rng.random(), 0.0
    for status, share in STATUS_MIX:
        total += share
        if pick < total:
            return status
    return STATUS_MIX[0][0]


def _route(status: str, confidence: float) -> tuple[str, str]:
    if status == "human_escalation":
        return "open_handoff", "human_requested"
    if status == "found_in_context" and confidence < 0.3:
        return "open_handoff", "low_confidence"
    if status in ("out_of_scope", "injection_attempt"):
        return "show_text", status
    return "show_answer", "answer" if status == "found_in_context" else status


def seed(*, bot_id: uuid.UUID, turns: int, days: int, seed_value: int = 17) -> dict[str, int]:
    rng = random.Random(seed_value)
    now = datetime.now().astimezone()
    start = now - timedelta(days=days)
    conversations = max(1, turns // TURNS_PER_CONVERSATION)
    conv_rows: list[tuple[Any, ...]] = []
    turn_rows: list[tuple[Any, ...]] = []
    handoff_rows: list[tuple[Any, ...]] = []
    feedback_rows: list[tuple[Any, ...]] = []
    for c in range(conversations):
        conv_id = uuid.uuid4()
        began = start + timedelta(seconds=rng.uniform(0, days * 86400 - 3600))
        channel = "widget" if rng.random() < 0.7 else "api"
        conv_rows.append((conv_id, bot_id, channel, f"v{c}", "", "bot", began, began))
        for k in range(TURNS_PER_CONVERSATION):
            if len(turn_rows) >= turns:
                break
            at = began + timedelta(seconds=40 * k)
            status = _status(rng)
            confidence = (
                rng.betavariate(5, 2) if status == "found_in_context" else rng.uniform(0, 0.4)
            )
            topic = rng.choice(TOPICS) if rng.random() < 0.4 else "unknown"
            suggested = rng.sample(SUGGESTIONS, rng.randint(1, 2)) if topic == "unknown" else []
            action, reason = _route(status, confidence)
            turn_id = uuid.uuid4()
            turn_rows.append(
                (
                    turn_id,
                    conv_id,
                    f"m{k}",
                    uuid.uuid4(),
                    at,
                    at + timedelta(seconds=1),
                    rng.choice(QUESTIONS),
                    "",
                    "[]",
                    "v1",
                    "",
                    "",
                    "[]",
                    "[]",
                    "",
                    status,
                    "An answer.",
                    topic,
                    json.dumps(suggested),
                    "",
                    round(confidence, 4),
                    "",
                    True,
                    "[]",
                    action,
                    reason,
                    "An answer.",
                    # A tenth of the found answers come from curated answers (the analytics count them).
                    "curated" if status == "found_in_context" and rng.random() < 0.1 else "offline",
                    rng.randint(300, 900),
                    rng.randint(20, 200),
                    json.dumps({"total": rng.randint(50, 900)}),
                    "",
                )
            )
            if action == "open_handoff":
                opened = at + timedelta(seconds=2)
                claimed = rng.random() < 0.7
                handoff_rows.append(
                    (
                        uuid.uuid4(),
                        conv_id,
                        "low_confidence" if reason == "low_confidence" else "human_escalation",
                        "",
                        turn_id,
                        opened,
                        opened + timedelta(seconds=rng.randint(5, 600)) if claimed else None,
                        None if claimed else opened + timedelta(seconds=300),
                        opened + timedelta(seconds=900),
                        "resolved",
                    )
                )
            if rng.random() < 0.08:
                down = rng.random() < 0.3
                reasons = [rng.choice(["wrong", "incomplete", "not_what_i_asked"])] if down else []
                feedback_rows.append((turn_id, "down" if down else "up", reasons, "", at, at))
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(
            "COPY conversations_conversation (id, bot_id, channel, visitor_id, external_user_id,"
            " owner, created_at, updated_at) FROM STDIN"
        ) as copy:
            for row in conv_rows:
                copy.write_row(row)
        with raw.copy(f"COPY conversations_turn ({', '.join(TURN_COLUMNS)}) FROM STDIN") as copy:
            for row in turn_rows:
                copy.write_row(row)
        with raw.copy(
            "COPY handoff_handoff (id, conversation_id, reason, detail, turn_id, opened_at,"
            " claimed_at, timed_out_at, closed_at, outcome) FROM STDIN"
        ) as copy:
            for row in handoff_rows:
                copy.write_row(row)
        with raw.copy(
            "COPY handoff_turnfeedback (turn_id, rating, reasons, comment, created_at, updated_at)"
            " FROM STDIN"
        ) as copy:
            for row in feedback_rows:
                copy.write_row(row)
        cursor.execute(
            "ANALYZE conversations_conversation, conversations_turn, handoff_handoff,"
            " handoff_turnfeedback"
        )
    return {
        "conversations": len(conv_rows),
        "turns": len(turn_rows),
        "handoffs": len(handoff_rows),
        "feedback": len(feedback_rows),
    }

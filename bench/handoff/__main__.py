"""python -m bench.handoff [--conversations 50] [--messages 10]

Latency from an agent's message (``handoff.services.agent_message_post``: the database write and
the Redis publish) to its arrival in the visitor's SSE stream (``GET /api/v1/conversations/{id}/events``
on a real uvicorn server, with the widget key and visitor session), with N live conversations on
loopback. Baseline in the same run: a bare Redis XADD → XREAD BLOCK round trip, without Django,
HTTP or the database. Target: p95 under 300 ms. Uses the worktree's own services and cleans up.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import threading
import time
import uuid


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--messages", type=int, default=10, help="agent messages per conversation")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from api.authentication import widget_key_principal
    from api.services import visitor_session_start, widget_key_create
    from bots.models import Bot
    from core.models import Membership, Workspace
    from handoff.models import HandoffReason
    from handoff.services import agent_message_post, handoff_claim, handoff_open
    from streams.redis_gateway import redis_sync
    from tests.support.processes import child_database_url, free_port, process_group_stop, wait_for
    from tests.support.uvicorn import uvicorn_start, uvicorn_wait

    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DATABASE_URL": child_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "DATABASE_CONN_MAX_AGE": "0",
    }
    server = uvicorn_start(port=port, env=env, stdout=subprocess.DEVNULL)
    workspace = Workspace.objects.create(
        name=f"bench-{uuid.uuid4().hex[:8]}", slug=f"bench-{uuid.uuid4().hex[:8]}"
    )
    try:
        uvicorn_wait(server, base_url=origin)
        print("server up", flush=True)
        bot = Bot.objects.create(workspace=workspace, name="Bench", escalation_allowed=True)
        key = widget_key_create(bot=bot, name="bench", allowed_origins=[origin])
        principal, _ = widget_key_principal(raw_key=key.key, origin=origin)
        agent = get_user_model().objects.create_user(
            username=f"agent-{workspace.slug}", is_staff=True
        )
        Membership.objects.create(workspace=workspace, user=agent)
        sessions = []
        for _ in range(args.conversations):
            session, token = visitor_session_start(principal=principal, bot=bot)
            handoff_open(
                conversation_id=session.conversation_id, reason=HandoffReason.VISITOR_REQUEST
            )
            handoff_claim(conversation_id=session.conversation_id, agent=agent)
            sessions.append((session.conversation_id, token))
        sent: dict[str, float] = {}
        latencies: list[float] = []
        lock = threading.Lock()
        ready = threading.Barrier(args.conversations + 1)
        stop = threading.Event()
        shared = (sent, latencies, lock, ready, stop)
        readers = [
            threading.Thread(target=_read, args=(origin, key.key, cid, token, *shared), daemon=True)
            for cid, token in sessions
        ]
        for reader in readers:
            reader.start()
        print("sessions ready", flush=True)
        ready.wait(timeout=60)
        print("streams open", flush=True)
        time.sleep(0.5)
        expected = args.conversations * args.messages
        for round_ in range(args.messages):
            for cid, _ in sessions:
                text = f"m{round_}-{uuid.uuid4().hex}"
                with lock:
                    sent[text] = time.perf_counter()
                agent_message_post(conversation_id=cid, agent=agent, text=text)
                time.sleep(0.002)
        wait_for(
            lambda: len(latencies) >= expected, timeout=60, what="all agent messages in the streams"
        )
        stop.set()
        baseline = _redis_baseline(redis_sync(), count=expected)
        print(
            f"bench/handoff: {args.conversations} live conversations, {expected} agent messages, loopback"
        )
        print(f"{'':34}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
        for name, values in (
            ("agent message → visitor SSE", latencies),
            ("baseline Redis XADD → XREAD", baseline),
        ):
            print(
                f"{name:34}{statistics.median(values):10.1f}{percentile(values, 95):10.1f}{max(values):10.1f}"
            )
        p95 = percentile(latencies, 95)
        print(f"target p95 < 300 ms: {'met' if p95 < 300 else 'NOT met'} ({p95:.1f} ms)")
        return 0
    finally:
        process_group_stop(
            server, grace=3
        )  # the 50 open streams would hold uvicorn's graceful shutdown
        workspace.delete()  # first: its conversations and the agent's messages go with it
        get_user_model().objects.filter(username=f"agent-{workspace.slug}").delete()


def _read(origin, key, conversation_id, token, sent, latencies, lock, ready, stop) -> None:  # type: ignore[no-untyped-def]
    import json

    import httpx
    from httpx_sse import connect_sse

    headers = {"Authorization": f"Bearer {key}", "Origin": origin, "X-Parley-Session": token}
    try:
        with httpx.Client(timeout=httpx.Timeout(5, read=None)) as client:
            url = f"{origin}/api/v1/conversations/{conversation_id}/events"
            with connect_sse(client, "GET", url, headers=headers) as source:
                ready.wait(timeout=60)
                for event in source.iter_sse():
                    if event.event == "agent_message":
                        arrived = time.perf_counter()
                        text = json.loads(event.data)["text"]
                        with lock:
                            latencies.append((arrived - sent[text]) * 1000)
                    if stop.is_set():
                        return
    except httpx.TransportError:
        if not stop.is_set():  # the server going away at the end is expected
            raise


def _redis_baseline(client, *, count: int) -> list[float]:  # type: ignore[no-untyped-def]
    key = f"parley:bench:{uuid.uuid4().hex}"
    results: list[float] = []
    try:
        last = "0-0"
        for n in range(count):
            started = time.perf_counter()
            client.xadd(key, {"n": str(n)})
            batch = client.xread({key: last}, count=1, block=1000)
            last = batch[0][1][0][0]
            results.append((time.perf_counter() - started) * 1000)
    finally:
        client.delete(key)
    return results


if __name__ == "__main__":
    raise SystemExit(main())

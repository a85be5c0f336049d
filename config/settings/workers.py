"""Celery (the broker, the queues, the periodic sweeps) and ./parley run's processes."""

from __future__ import annotations

from config.env import env_bool, env_int, env_str
from config.settings.services import REDIS_URL


def _kombu_url(redis_url: str) -> str:
    """Kombu spells redis-py's unix:///path?db=N as redis+socket:///path?virtual_host=N."""
    if not redis_url.startswith("unix://"):
        return redis_url
    path, _, query = redis_url.removeprefix("unix://").partition("?")
    db = dict(part.split("=", 1) for part in query.split("&") if "=" in part).get("db", "0")
    return f"redis+socket://{path}?virtual_host={db}"


CELERY_BROKER_URL = _kombu_url(REDIS_URL)
CELERY_RESULT_BACKEND = None  # business state lives on models, not in a result store
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another worker
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=60)
}
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 900, minimum=10)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 30 if CELERY_TASK_TIME_LIMIT > 60 else None
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's Django fix-up closes a worker's connections, and its psycopg pool, only every this many
# tasks; around each task config.celery hands them back as Django does after a request.
CELERY_DB_REUSE_MAX = 1000
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Periodic sweeps (run by `celery beat`; ./parley run embeds it in its worker).
# The analytics rollups' refresh period: the beat's, and the age past which the page refreshes them
# on load (insights.services.rollups.turn_rollups_ensure_fresh).
INSIGHTS_ROLLUP_EVERY_SECONDS = env_int("INSIGHTS_ROLLUP_EVERY_SECONDS", 60, minimum=5)
# How often beat looks for sources whose schedule is due.
PARLEY_SOURCES_DISPATCH_EVERY_SECONDS = env_int(
    "PARLEY_SOURCES_DISPATCH_EVERY_SECONDS", 60, minimum=10
)
CELERY_BEAT_SCHEDULE = {
    "reclaim-stuck-documents": {
        "task": "rag.documents_reclaim_stuck",
        "schedule": float(env_int("PARLEY_RECLAIM_EVERY_SECONDS", 300, minimum=10)),
    },
    # Chunks without their workspace's multilingual vector (rag.embeddings.backfill).
    "backfill-multilingual-vectors": {
        "task": "rag.multilingual_backfill_sweep",
        "schedule": float(env_int("PARLEY_RECLAIM_EVERY_SECONDS", 300, minimum=10)),
    },
    # Chunks without their passages for the workspace's models (rag.passages.backfill).
    "backfill-chunk-passages": {
        "task": "rag.passages_backfill_sweep",
        "schedule": float(env_int("PARLEY_RECLAIM_EVERY_SECONDS", 300, minimum=10)),
    },
    # Large workspaces get an HNSW index of their own, shrunk ones lose it (rag.workspace_indexes).
    "workspace-indexes": {
        "task": "rag.workspace_indexes_sync",
        "schedule": float(env_int("RETRIEVAL_WORKSPACE_INDEX_EVERY_SECONDS", 3600, minimum=60)),
    },
    # The analytics page reads daily rollups (insights.services.rollups); this keeps them fresh.
    "refresh-analytics-rollups": {
        "task": "insights.turn_rollups_refresh",
        "schedule": float(INSIGHTS_ROLLUP_EVERY_SECONDS),
    },
    # Per workspace, conversations, audits and security events past its retention (privacy app).
    "privacy-retention": {
        "task": "privacy.retention_apply",
        "schedule": float(env_int("PRIVACY_RETENTION_EVERY_SECONDS", 3600, minimum=10)),
    },
    # Audit entries past PARLEY_AUDIT_RETENTION_DAYS (the audit app).
    "audit-prune": {
        "task": "audit.entries_prune",
        "schedule": float(env_int("PARLEY_AUDIT_PRUNE_EVERY_SECONDS", 3600, minimum=10)),
    },
    # Sources whose schedule is due get a sync (sources.services.sources_due_dispatch).
    "sources-dispatch": {
        "task": "sources.dispatch_due",
        "schedule": float(PARLEY_SOURCES_DISPATCH_EVERY_SECONDS),
    },
    # Visitor erasures a failure or a killed process left unfinished are taken up again.
    "privacy-erasures-resume": {
        "task": "privacy.erasures_resume",
        "schedule": float(env_int("PRIVACY_ERASURE_RESUME_EVERY_SECONDS", 300, minimum=10)),
    },
    # A channel's outbox rows a lost task or a platform's long Retry-After left due (connectors).
    "deliver-channel-outbox": {
        "task": "connectors.outbox_sweep",
        "schedule": float(env_int("CONNECTORS_SWEEP_EVERY_SECONDS", 30, minimum=5)),
    },
    # E-mail channels with an IMAP mailbox: their unseen messages read (connectors.services.imap).
    "poll-channel-mailboxes": {
        "task": "connectors.imap_poll",
        "schedule": float(env_int("CONNECTORS_IMAP_POLL_EVERY_SECONDS", 60, minimum=10)),
    },
    # Resolved handoffs become FAQ candidates for review (insights.services.knowledge).
    "collect-faq-candidates": {
        "task": "insights.faq_candidates_collect",
        "schedule": float(INSIGHTS_ROLLUP_EVERY_SECONDS),
    },
}

# --- Run command --------------------------------------------------------------------------
PARLEY_HOST = env_str("PARLEY_HOST", "127.0.0.1")
PARLEY_PORT = env_int("PARLEY_PORT", 8000, minimum=1, maximum=65535)
PARLEY_WORKER_CONCURRENCY = env_int("PARLEY_WORKER_CONCURRENCY", 1, minimum=1, maximum=64)
# The first superuser `./parley run` creates when there is none (config.launcher.prepare.admin_ensure):
# "admin" when unnamed, a generated password (shown once) when none is given.
PARLEY_ADMIN_USERNAME = env_str("PARLEY_ADMIN_USERNAME", "admin")
PARLEY_ADMIN_EMAIL = env_str("PARLEY_ADMIN_EMAIL")
PARLEY_ADMIN_PASSWORD = env_str("PARLEY_ADMIN_PASSWORD")

# --- Streams worker (issue 6) ---------------------------------------------------------------
# Streamed answers (SSE chat turns and rag_search) mostly wait on the LLM: they go to their own
# queue, served by a thread-pool worker, so ingestion's prefork worker never delays them (and
# they never wait for one another). Set it to CELERY_TASK_DEFAULT_QUEUE to run them with the rest.
CELERY_STREAM_QUEUE = env_str("CELERY_STREAM_QUEUE", "streams")
CELERY_TASK_ROUTES = {
    "streams.stream_runner_execute": {"queue": CELERY_STREAM_QUEUE},
    "api.stream_runner_execute": {"queue": CELERY_STREAM_QUEUE},  # its former name (an alias)
    # The bot's answer to messages an agent left unanswered: a chat turn too, waiting on the LLM.
    "handoff.pending_answer": {"queue": CELERY_STREAM_QUEUE},
    # A channel's inbound message: a chat turn, streamed into the platform's message.
    "connectors.inbound_process": {"queue": CELERY_STREAM_QUEUE},
}
# Threads of ./parley run's streams worker: the concurrent streamed answers it runs.
PARLEY_STREAM_WORKER_THREADS = env_int("PARLEY_STREAM_WORKER_THREADS", 32, minimum=1, maximum=512)
PARLEY_LOAD_DEMO = env_bool("PARLEY_LOAD_DEMO", True)
# Load the embedding models and what else a first turn needs before a process serves (conversations.warmup):
# the web process while uvicorn imports the app, the workers before they answer the health check.
PARLEY_WARM_UP = env_bool("PARLEY_WARM_UP", True)

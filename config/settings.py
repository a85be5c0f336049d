"""Parley's one settings module: everything is read from the environment through config.env.

With DATABASE_URL and REDIS_URL unset, Parley starts (or attaches to) its embedded
PostgreSQL+pgvector and Valkey under PARLEY_VAR_DIR; see core.embedded.
"""

from __future__ import annotations

import atexit
import os
import secrets
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_choice, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PARLEY_VAR_DIR") or BASE_DIR / "var").resolve()

DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])


def _secret_key() -> str:
    """An env-provided key, or one generated once and kept in var/ for the embedded setup."""
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    key_file = VAR_DIR / "secret_key"
    try:
        if key_file.exists():
            return key_file.read_text().strip()
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(50)
        key_file.write_text(key)
        key_file.chmod(0o600)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"Parley keeps its generated secret key and embedded services under {VAR_DIR}, but cannot write there "
            f"({exc.strerror}). Make the folder writable, set PARLEY_VAR_DIR to a writable folder, or set SECRET_KEY."
        ) from exc
    return key


SECRET_KEY = _secret_key()

# --- Security headers and cookies ---------------------------------------------------------------
# SecurityMiddleware sends nosniff and the referrer policy on every response; core.middleware adds the
# Content-Security-Policy of HTML pages. Same-origin keeps the Referer the widget's origin check reads
# on the demo page's own GETs (api.access), and sends nothing to other sites.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# PARLEY_BEHIND_TLS: Parley is served over HTTPS by a proxy that terminates TLS and sets
# X-Forwarded-Proto (it must overwrite a client's own). Then cookies are HTTPS-only, plain HTTP is
# redirected (the health check excepted: load balancers probe it on the private address) and HSTS
# tells browsers to never use HTTP again.
PARLEY_BEHIND_TLS = env_bool("PARLEY_BEHIND_TLS", False)
if PARLEY_BEHIND_TLS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    # Preloading is a request to browser vendors, hard to undo: opt in once every subdomain has TLS.
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)


# What the settings name when they are read for type checking only: never connected to.
_TYPE_CHECK_URLS = ("postgres://type-check.invalid/parley", "redis://type-check.invalid/0")


def _type_check_only() -> bool:
    """Whether mypy's Django plugin is reading these settings (for the models, not a database). mypy
    ends with os._exit, so the atexit stop below never runs: services started for it outlived it, and
    the test session then attached to them and left them running too."""
    return "mypy.build" in sys.modules


def _service_urls() -> tuple[str, str]:
    database_url = env_str("DATABASE_URL")
    redis_url = env_str("REDIS_URL")
    if database_url and redis_url:
        return database_url, redis_url
    if _type_check_only():
        return _TYPE_CHECK_URLS
    from core.embedded import ensure_started

    # The embedded PostgreSQL is sized to the machine (core.pg_sizing); each of these overrides one value.
    postgres_overrides = {
        "shared_buffers": env_str("PARLEY_PG_SHARED_BUFFERS"),
        "effective_cache_size": env_str("PARLEY_PG_EFFECTIVE_CACHE_SIZE"),
        "work_mem": env_str("PARLEY_PG_WORK_MEM"),
        "maintenance_work_mem": env_str("PARLEY_PG_MAINTENANCE_WORK_MEM"),
        "max_parallel_workers": env_str("PARLEY_PG_MAX_PARALLEL_WORKERS"),
        "max_parallel_workers_per_gather": env_str("PARLEY_PG_MAX_PARALLEL_WORKERS_PER_GATHER"),
        "max_parallel_maintenance_workers": env_str("PARLEY_PG_MAX_PARALLEL_MAINTENANCE_WORKERS"),
    }
    services = ensure_started(VAR_DIR, postgres_overrides=postgres_overrides)
    # Children (worker, web server) inherit the resolved URLs instead of re-probing.
    os.environ.setdefault("DATABASE_URL", services.database_url)
    os.environ.setdefault("REDIS_URL", services.redis_url)
    if services.started:
        # This process started them (pytest, a bare manage.py): it stops them when it exits.
        atexit.register(services.stop)
    return database_url or services.database_url, redis_url or services.redis_url


DATABASE_URL, REDIS_URL = _service_urls()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # OpClass in index expressions (rag's HNSW indexes), search lookups
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from this package: /api/docs/ needs no CDN
    "core",
    "bots",
    "prompt_context",
    "prompts",
    "rag",
    "conversations",
    "sources",
    "streams",
    "handoff",
    "api",
    "agent",
    "widget",
    "insights",
    "privacy",
    "connectors",
    "sso",
    # The audit trail (audit/): django-auditlog's receivers and diff, django-pgtrigger's append-only
    # trigger; audit.AuditEntry replaces auditlog's own entry model.
    "pgtrigger",
    "auditlog",
    "audit",
]
AUDITLOG_LOGENTRY_MODEL = "audit.AuditEntry"
# auditlog's migrations would create its own (swapped-out) entry table, which a test flush then cannot
# truncate (it references content types); without migrations no table is made for a swapped model.
MIGRATION_MODULES = {"auditlog": None}
AUDITLOG_STORE_JSON_CHANGES = True  # diffs keep their types (numbers, lists), not their str()
# Audit entries older than this many days are deleted by the periodic task (audit.entries_prune).
PARLEY_AUDIT_RETENTION_DAYS = env_int("PARLEY_AUDIT_RETENTION_DAYS", 365, minimum=1)
# true behind a proxy that appends the client's address to X-Forwarded-For: the audit records that
# header's last address (the proxy's own addition) rather than the proxy's REMOTE_ADDR.
PARLEY_AUDIT_FORWARDED_FOR = env_bool("PARLEY_AUDIT_FORWARDED_FOR", False)
# Where personal data is redacted (core.redaction), phone numbers written without a country code
# are recognised when valid in one of these regions (ISO 3166 codes); international ones always.
PARLEY_REDACTION_PHONE_REGIONS = env_list(
    "PARLEY_REDACTION_PHONE_REGIONS", ["US", "GB", "FR", "DE", "ES", "IT", "NL", "BE", "CH", "AT"]
)
# After a visitor's erasure, how long Valkey's append-only file rewrite and snapshot are each waited
# for (privacy.services.valkey_files): past it the erasure is done with a note, not failed.
PRIVACY_VALKEY_REWRITE_TIMEOUT_SECONDS = env_int(
    "PRIVACY_VALKEY_REWRITE_TIMEOUT_SECONDS", 60, minimum=1
)

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.ContentSecurityPolicyMiddleware",  # the CSP of every HTML page (one place)
    "api.middleware.ApiEdgeMiddleware",  # CORS, body cap and JSON errors on /api/
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "audit.context.AuditContextMiddleware",  # who and from where, for the audit entries written
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SyncChainMiddleware",  # last: the chain runs in one thread under ASGI (see its docstring)
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "sso.context_processors.sign_in",  # the login page's SSO button, passwords on or off
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
}
DATABASES["default"].setdefault("OPTIONS", {})
if not DATABASES["default"]["HOST"]:
    # dj-database-url keeps a unix-socket ?host=/path in OPTIONS; HOST is where Django looks.
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host", "")
DATABASES["default"]["OPTIONS"].setdefault(
    "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1)
)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Staff sign-in: local passwords and OpenID Connect single sign-on (docs/sso.md) -----------
# Workspace members get the "Workspace admins" group's permissions (core.auth); sso.backends adds the
# password switch to that backend and signs staff in through the OIDC provider (mozilla-django-oidc).
AUTHENTICATION_BACKENDS = ["sso.backends.LocalPasswordBackend", "sso.backends.OidcStaffBackend"]
# false: the admin's login form is replaced by the single sign-on button and passwords are refused.
PARLEY_LOCAL_PASSWORDS = env_bool("PARLEY_LOCAL_PASSWORDS", True)
# Single sign-on is on when a client id is set; the provider's endpoints come from its discovery
# document (/.well-known/openid-configuration), copied here so that nothing is fetched at start-up.
OIDC_RP_CLIENT_ID = env_str("PARLEY_OIDC_CLIENT_ID", "") or ""
OIDC_RP_CLIENT_SECRET = env_str("PARLEY_OIDC_CLIENT_SECRET", "") or ""
PARLEY_OIDC_ISSUER = env_str("PARLEY_OIDC_ISSUER", "") or ""
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("PARLEY_OIDC_AUTHORIZATION_ENDPOINT", "") or ""
OIDC_OP_TOKEN_ENDPOINT = env_str("PARLEY_OIDC_TOKEN_ENDPOINT", "") or ""
OIDC_OP_USER_ENDPOINT = env_str("PARLEY_OIDC_USERINFO_ENDPOINT", "") or ""
OIDC_OP_JWKS_ENDPOINT = env_str("PARLEY_OIDC_JWKS_ENDPOINT", "") or ""
OIDC_RP_SIGN_ALGO = env_choice(
    "PARLEY_OIDC_SIGN_ALGORITHM", "RS256", ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512")
)
OIDC_RP_SCOPES = env_str("PARLEY_OIDC_SCOPES", "openid email profile") or "openid email profile"
OIDC_TIMEOUT = env_float("PARLEY_OIDC_TIMEOUT", 10.0, minimum=1.0, maximum=120.0)
# The claim that lists the user's groups, and which group gives which role in which workspace:
# "group=workspace-slug:role,..." (sso.rolemap; the roles are checked against Membership's at sign-in).
PARLEY_OIDC_GROUPS_CLAIM = env_str("PARLEY_OIDC_GROUPS_CLAIM", "groups") or "groups"
PARLEY_OIDC_ROLE_MAP = env_list("PARLEY_OIDC_ROLE_MAP", [])
# true: a first sign-in whose verified e-mail is an existing account's takes that account over.
PARLEY_OIDC_LINK_BY_EMAIL = env_bool("PARLEY_OIDC_LINK_BY_EMAIL", False)
PARLEY_OIDC_BUTTON_LABEL = (
    env_str("PARLEY_OIDC_BUTTON_LABEL", "Sign in with single sign-on")
    or "Sign in with single sign-on"
)
if OIDC_RP_CLIENT_ID:
    _oidc_missing = [
        name
        for name, value in (
            ("PARLEY_OIDC_ISSUER", PARLEY_OIDC_ISSUER),
            ("PARLEY_OIDC_AUTHORIZATION_ENDPOINT", OIDC_OP_AUTHORIZATION_ENDPOINT),
            ("PARLEY_OIDC_TOKEN_ENDPOINT", OIDC_OP_TOKEN_ENDPOINT),
            ("PARLEY_OIDC_USERINFO_ENDPOINT", OIDC_OP_USER_ENDPOINT),
            ("PARLEY_OIDC_JWKS_ENDPOINT", OIDC_OP_JWKS_ENDPOINT),
        )
        if not value
    ]
    if _oidc_missing:
        raise ImproperlyConfigured(
            f"PARLEY_OIDC_CLIENT_ID is set, so single sign-on is on, but {', '.join(_oidc_missing)} "
            "is not: copy them from the provider's /.well-known/openid-configuration (docs/sso.md)."
        )
elif not PARLEY_LOCAL_PASSWORDS:
    raise ImproperlyConfigured(
        "PARLEY_LOCAL_PASSWORDS=false leaves no way to sign in without single sign-on: "
        "set PARLEY_OIDC_CLIENT_ID and the provider's endpoints too (docs/sso.md)."
    )
# The authorization code flow with PKCE (S256) and a nonce, always; the library's routes are named
# here so its views and backend find Parley's callback.
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_USE_NONCE = True
OIDC_AUTHENTICATION_CALLBACK_URL = "sso-callback"
LOGIN_REDIRECT_URL = "/admin/"  # after a sign-in that named no `next`

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("PARLEY_MEDIA_ROOT") or VAR_DIR / "media")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# --- Celery -------------------------------------------------------------------------------


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
        "schedule": float(env_int("PARLEY_SOURCES_DISPATCH_EVERY_SECONDS", 60, minimum=10)),
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

# --- Knowledge sources: the website kind's fetcher (sources/website) -------------------------
# Networks or host names a source may fetch from although they are private, loopback or link-local
# (CIDRs like 10.1.0.0/16, addresses, or host names): empty by default, so no source reaches inside.
PARLEY_SOURCES_ALLOWED_NETWORKS = env_list("PARLEY_SOURCES_ALLOWED_NETWORKS", [])
PARLEY_SOURCES_USER_AGENT = (
    env_str("PARLEY_SOURCES_USER_AGENT", "Parley/1.0 (knowledge source sync)")
    or "Parley/1.0 (knowledge source sync)"
)
PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS = env_float(
    "PARLEY_SOURCES_REQUEST_TIMEOUT_SECONDS", 20.0, minimum=0.1, maximum=600.0
)
# A page (or file) larger than this is skipped ("too_large"), read no further than the limit.
PARLEY_SOURCES_MAX_PAGE_BYTES = env_int(
    "PARLEY_SOURCES_MAX_PAGE_BYTES", 10 * 1024 * 1024, minimum=1024
)
# A 429's Retry-After is waited up to this long; beyond it the page fails ("rate_limited").
PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS = env_float(
    "PARLEY_SOURCES_RETRY_AFTER_MAX_SECONDS", 60.0, minimum=0.0, maximum=3600.0
)
# robots.txt's Crawl-delay is honoured up to this many seconds between two requests to a host.
PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS = env_float(
    "PARLEY_SOURCES_CRAWL_DELAY_MAX_SECONDS", 30.0, minimum=0.0, maximum=3600.0
)
PARLEY_SOURCES_RENDER_TIMEOUT_SECONDS = env_float(
    "PARLEY_SOURCES_RENDER_TIMEOUT_SECONDS", 30.0, minimum=1.0, maximum=600.0
)

# --- Knowledge / ingestion ---------------------------------------------------------------
# Uploads above this size are refused; a DOCX/zip may expand to at most 20 times it.
PARLEY_UPLOAD_MAX_BYTES = env_int("PARLEY_UPLOAD_MAX_BYTES", 25 * 1024 * 1024, minimum=1024)
# Chunk size and overlap in model tokens (all-MiniLM-L6-v2 truncates input at 256).
PARLEY_CHUNK_TOKENS = env_int("PARLEY_CHUNK_TOKENS", 200, minimum=16, maximum=8192)
PARLEY_CHUNK_OVERLAP_TOKENS = env_int("PARLEY_CHUNK_OVERLAP_TOKENS", 30, minimum=0, maximum=4096)
PARLEY_EMBEDDING_PROVIDER = env_choice("PARLEY_EMBEDDING_PROVIDER", "local", ("local", "openai"))
PARLEY_EMBEDDING_OPENAI_BASE_URL = env_str(
    "PARLEY_EMBEDDING_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_EMBEDDING_OPENAI_API_KEY = env_str("PARLEY_EMBEDDING_OPENAI_API_KEY", "")
PARLEY_EMBEDDING_OPENAI_MODEL = env_str("PARLEY_EMBEDDING_OPENAI_MODEL", "text-embedding-3-small")
# The second, multilingual vector of every chunk (rag.embeddings.multilingual); "" turns it off.
PARLEY_EMBEDDING_MULTILINGUAL = env_choice(
    "PARLEY_EMBEDDING_MULTILINGUAL", "local/use-multilingual-v3", ("local/use-multilingual-v3", "")
)
PARLEY_EMBEDDING_BATCH_SIZE = env_int("PARLEY_EMBEDDING_BATCH_SIZE", 32, minimum=1, maximum=2048)
# The local model's matrix products in bfloat16 (rag.embeddings.precision): "auto" where the CPU does
# bfloat16 in hardware, "on", or "off" (float32 everywhere).
PARLEY_EMBEDDING_BF16 = env_choice("PARLEY_EMBEDDING_BF16", "auto", ("auto", "on", "off"))
# CPU threads of the local model per process (0: torch's default, one per core); see bench/ingest.
PARLEY_EMBEDDING_THREADS = env_int("PARLEY_EMBEDDING_THREADS", 0, minimum=0, maximum=256)
# A document whose worker has not reported progress for this long is reclaimed.
PARLEY_INGEST_STUCK_AFTER = env_int(
    "PARLEY_INGEST_STUCK_AFTER", CELERY_TASK_TIME_LIMIT + 60, minimum=30
)
# Documents one worker task claims together, so small files fill the embedding batches (1: one at a time).
PARLEY_INGEST_BATCH_DOCUMENTS = env_int("PARLEY_INGEST_BATCH_DOCUMENTS", 64, minimum=1, maximum=256)
# Deliveries of one document (worker deaths included) before it fails for good.
PARLEY_INGEST_MAX_ATTEMPTS = env_int("PARLEY_INGEST_MAX_ATTEMPTS", 3, minimum=1, maximum=20)

# --- Knowledge sources (sources/, docs/sources.md) ----------------------------------------
# A sync whose share of failed fetches (timeouts, 5xx, DNS, refused) passes this retires nothing.
PARLEY_SOURCES_MAX_FAILURE_SHARE = env_float("PARLEY_SOURCES_MAX_FAILURE_SHARE", 0.1, minimum=0.0)
# A sync stops fetching after this long (its frontier is kept; an incomplete crawl retires no absent page).
PARLEY_SOURCES_SYNC_BUDGET_SECONDS = env_int("PARLEY_SOURCES_SYNC_BUDGET_SECONDS", 1800, minimum=10)
# Pages of one source at most, when its configuration names no max_pages.
PARLEY_SOURCES_MAX_PAGES = env_int("PARLEY_SOURCES_MAX_PAGES", 500, minimum=1)
# Two pages whose word-shingle sets are at least this similar (estimated Jaccard) are one text.
PARLEY_SOURCES_NEAR_DUPLICATE = env_float("PARLEY_SOURCES_NEAR_DUPLICATE", 0.9, minimum=0.0)
# Where Git sources are cloned.
PARLEY_SOURCES_CHECKOUTS = VAR_DIR / "sources"
# How often beat looks for sources whose schedule is due.
PARLEY_SOURCES_DISPATCH_EVERY_SECONDS = env_int(
    "PARLEY_SOURCES_DISPATCH_EVERY_SECONDS", 60, minimum=10
)

# --- OCR, figures, audio ------------------------------------------------------------------
# Tesseract reads scanned PDF pages and image documents (rag/parsing/ocr.py).
PARLEY_OCR_ENABLED = env_bool("PARLEY_OCR_ENABLED", True)
# The pack of OCR's first pass; the detected language's pack reads the page again when it differs.
PARLEY_OCR_DEFAULT_LANGUAGE = env_str("PARLEY_OCR_DEFAULT_LANGUAGE", "eng") or "eng"
# A PDF page whose text layer has fewer characters than this is treated as a scan and OCR'd.
PARLEY_OCR_MIN_PAGE_CHARS = env_int("PARLEY_OCR_MIN_PAGE_CHARS", 20, minimum=0, maximum=10000)
PARLEY_OCR_DPI = env_int("PARLEY_OCR_DPI", 200, minimum=72, maximum=600)
PARLEY_OCR_TIMEOUT = env_int("PARLEY_OCR_TIMEOUT", 60, minimum=1, maximum=3600)
# Chunks whose OCR'd words average under this confidence (0-100) are marked low_confidence.
PARLEY_OCR_LOW_CONFIDENCE = env_int("PARLEY_OCR_LOW_CONFIDENCE", 60, minimum=0, maximum=100)
# Images declaring more pixels than this are refused before decoding (image bombs).
PARLEY_IMAGE_MAX_PIXELS = env_int("PARLEY_IMAGE_MAX_PIXELS", 40_000_000, minimum=10_000)
# Figures: images embedded in PDFs and DOCX, described by the workspace's vision model (or OCR'd).
PARLEY_FIGURES_PER_DOCUMENT = env_int("PARLEY_FIGURES_PER_DOCUMENT", 20, minimum=0, maximum=500)
PARLEY_FIGURE_MIN_SIDE = env_int("PARLEY_FIGURE_MIN_SIDE", 120, minimum=1, maximum=10000)
PARLEY_VISION_OPENAI_BASE_URL = env_str(
    "PARLEY_VISION_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_VISION_OPENAI_API_KEY = env_str("PARLEY_VISION_OPENAI_API_KEY", "")
PARLEY_VISION_TIMEOUT = env_float("PARLEY_VISION_TIMEOUT", 30.0, minimum=1.0, maximum=600.0)
# Audio and video: ffmpeg extracts the sound, the workspace's transcription model transcribes it.
PARLEY_TRANSCRIPTION_OPENAI_BASE_URL = env_str(
    "PARLEY_TRANSCRIPTION_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_TRANSCRIPTION_OPENAI_API_KEY = env_str("PARLEY_TRANSCRIPTION_OPENAI_API_KEY", "")
PARLEY_TRANSCRIPTION_TIMEOUT = env_float(
    "PARLEY_TRANSCRIPTION_TIMEOUT", 300.0, minimum=1.0, maximum=3600.0
)

# --- LLM ----------------------------------------------------------------------------------
# "offline": the embedded deterministic provider; "openai": any OpenAI-compatible endpoint.
LLM_PROVIDER = env_choice("LLM_PROVIDER", "offline", ("offline", "openai"))
LLM_BASE_URL = env_str("LLM_BASE_URL")
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL", "gpt-4o-mini")
LLM_JSON_RESPONSE_FORMAT = env_bool("LLM_JSON_RESPONSE_FORMAT", True)
LLM_CONNECT_TIMEOUT = env_float("LLM_CONNECT_TIMEOUT", 5.0, minimum=0.1)
LLM_READ_TIMEOUT = env_float("LLM_READ_TIMEOUT", 60.0, minimum=0.1)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2, minimum=0, maximum=10)
LLM_RETRY_BACKOFF = env_float("LLM_RETRY_BACKOFF", 0.5, minimum=0.0)
LLM_RETRY_MAX_WAIT = env_float("LLM_RETRY_MAX_WAIT", 20.0, minimum=0.0)
LLM_TEMPERATURE = env_float("LLM_TEMPERATURE", 0.0, minimum=0.0, maximum=2.0)
LLM_MAX_TOKENS = env_int("LLM_MAX_TOKENS", 1024, minimum=16)
# A streamed answer's body is read at most once per this many ms after its first text (its first token
# is never held): the tokens sent meanwhile come in one read, not one wake-up and parse each
# (core.llm.lines.paced_reads; docs/decisions/answer-path-cpu.md). The visitor's updates go out at
# most every API_SSE_PARTIAL_INTERVAL_MS (100) anyway. 0: read each token as it comes.
LLM_STREAM_READ_INTERVAL_MS = env_int("LLM_STREAM_READ_INTERVAL_MS", 100, minimum=0, maximum=1000)
# Pause between the partial updates of a streamed offline answer, so a person sees it arrive (0: none).
PARLEY_OFFLINE_STREAM_PAUSE_MS = env_int(
    "PARLEY_OFFLINE_STREAM_PAUSE_MS", 40, minimum=0, maximum=1000
)

# --- Retrieval (issue 5) --------------------------------------------------------------------
# Optional reranker: a TEI or Cohere-style server answering POST {RERANKER_URL}/rerank; on any
# error retrieval keeps the fused order.
RERANKER_URL = env_str("RERANKER_URL", "")
RERANKER_MODEL = env_str("RERANKER_MODEL", "")
RERANKER_API_KEY = env_str("RERANKER_API_KEY", "")
RERANKER_TIMEOUT_SECONDS = env_float("RERANKER_TIMEOUT_SECONDS", 2.0, minimum=0.1)
# HNSW candidate list per vector search (pgvector's hnsw.ef_search, at least the 40 candidates
# retrieval fuses); 100 measured by bench/retrieval --latency: recall of the exact top-40 0.99 at 10k.
RETRIEVAL_HNSW_EF_SEARCH = env_int("RETRIEVAL_HNSW_EF_SEARCH", 100, minimum=1, maximum=1000)
# A scope of at most this many chunks is searched exactly (every vector compared: complete, and ~7 ms at
# 2,000 chunks); a larger one walks the HNSW index (1.4 ms at 10k chunks, bench/turn), see rag.retrieval.sql.
RETRIEVAL_EXACT_SCAN_MAX_CHUNKS = env_int("RETRIEVAL_EXACT_SCAN_MAX_CHUNKS", 2000, minimum=0)
# A workspace (per embedding dimension) of at least this many chunks gets an HNSW index of its own from
# `manage.py chunks_workspace_indexes` (rag.workspace_indexes; docs/decisions/tenant-isolation.md).
RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS = env_int(
    "RETRIEVAL_WORKSPACE_INDEX_MIN_CHUNKS", 5000, minimum=1
)
# Threads per process that run retrieval's full-text statement while the question is embedded (each on
# its own connection from the pool); 0 runs it after the embedding, on the caller's connection.
RETRIEVAL_TEXT_THREADS = env_int("RETRIEVAL_TEXT_THREADS", 4, minimum=0, maximum=64)
# Okapi BM25 of the full-text side (rag.retrieval.bm25): term-frequency saturation k1 and length normalisation b
# (the textbook 1.2 / 0.75).
RETRIEVAL_BM25_K1 = env_float("RETRIEVAL_BM25_K1", 1.2, minimum=0.0, maximum=10.0)
RETRIEVAL_BM25_B = env_float("RETRIEVAL_BM25_B", 0.75, minimum=0.0, maximum=1.0)
# Max-score pruning: a query's lexemes are taken rarest first (the rarest always) while the chunks holding them
# number at most this; commoner lexemes still score those candidates but find none. 1000 measured at 100k chunks
# (docs/decisions/bm25-pruning.md): text p50 191 -> 45 ms, spf-fr's full-text R@5 unchanged against 5000.
RETRIEVAL_BM25_POSTINGS_BUDGET = env_int("RETRIEVAL_BM25_POSTINGS_BUDGET", 1000, minimum=1)
# The safety test's own budget: the lexemes it must search (chunks holding no essential one could still reach
# the exact top 20) are taken rarest first while their chunks number at most this; past it the commonest go
# unsearched and the ranking may differ from exact BM25's. 5000 measured at 1M rows (bench/scale, a 500k-chunk
# workspace): text p50 98 -> 18 ms, p95 621 -> 35 ms, recall@10 unchanged (docs/decisions/bm25-pruning.md).
RETRIEVAL_BM25_SAFETY_BUDGET = env_int("RETRIEVAL_BM25_SAFETY_BUDGET", 5000, minimum=0)
# maintenance_work_mem (MB) of the transaction that (re)builds an HNSW index (`manage.py chunks_reindex`):
# with PostgreSQL's 64 MB the 100k-chunk graph stops fitting and the build runs 2.3-3.5x slower.
RETRIEVAL_HNSW_BUILD_MEMORY_MB = env_int(
    "RETRIEVAL_HNSW_BUILD_MEMORY_MB", 512, minimum=64, maximum=65536
)

# Per-workspace fusion calibration (rag.retrieval.calibration): chunks sampled into (query, chunk) pairs,
# the fewest pairs worth measuring (fewer: the default fusion stays), the share of the queries rewritten by
# the LLM when one is configured, and the share of a workspace's chunks ingestion must add or remove before
# a background recalibration.
RETRIEVAL_CALIBRATION_SAMPLE_SIZE = env_int(
    "RETRIEVAL_CALIBRATION_SAMPLE_SIZE", 300, minimum=10, maximum=5000
)
RETRIEVAL_CALIBRATION_MIN_PAIRS = env_int("RETRIEVAL_CALIBRATION_MIN_PAIRS", 30, minimum=4)
RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE = env_float(
    "RETRIEVAL_CALIBRATION_PARAPHRASE_SHARE", 0.5, minimum=0.0, maximum=1.0
)
RETRIEVAL_CALIBRATION_CHANGE_SHARE = env_float(
    "RETRIEVAL_CALIBRATION_CHANGE_SHARE", 0.2, minimum=0.0, maximum=10.0
)

# --- Django REST framework ----------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "api.schema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.api_exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": ["api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["api.authentication.HasPrincipal"],
    "DEFAULT_THROTTLE_CLASSES": [
        "api.ratelimit.KeyRateThrottle",
        "api.ratelimit.VisitorRateThrottle",
    ],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parley API",
    "DESCRIPTION": "Conversational RAG bots: chat turns, rag_search, chunks and documents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- API ----------------------------------------------------------------------------------
# Largest request body accepted under /api/ (413 payload_too_large above it).
API_MAX_REQUEST_BODY_BYTES = env_int("API_MAX_REQUEST_BODY_BYTES", 1_048_576, minimum=1024)
# SSE: an event whose data exceeds this is split into <event>_delta_sse pieces (streams.sse.framing).
API_SSE_MAX_EVENT_BYTES = env_int("API_SSE_MAX_EVENT_BYTES", 16_384, minimum=256)
API_SSE_HEARTBEAT_SECONDS = env_float("API_SSE_HEARTBEAT_SECONDS", 15.0, minimum=0.05, maximum=300)
API_SSE_STREAM_TTL_SECONDS = env_int("API_SSE_STREAM_TTL_SECONDS", 3600, minimum=10)
# SSE: a stream's runner must start within this many seconds of the stream's opening, and renews a
# lease of this length while it runs; a relay finding neither re-queues the run (a web process died
# before queueing it) or ends the stream with a `stream_interrupted` error (streams.sse.supervision).
API_SSE_RUNNER_LEASE_SECONDS = env_float(
    "API_SSE_RUNNER_LEASE_SECONDS", 10.0, minimum=0.5, maximum=300
)
# SSE: at most one tool_partial_update per stream per this many ms (later deltas join the pending
# one, so no text is lost; 0: one event per token). 100 ms (ten updates a second) rather than 50: each
# event costs ~1.4 ms of CPU between the worker and the relay (docs/decisions/answer-path-cpu.md).
API_SSE_PARTIAL_INTERVAL_MS = env_int("API_SSE_PARTIAL_INTERVAL_MS", 100, minimum=0, maximum=5000)
API_VISITOR_SESSION_MAX_AGE = env_int("API_VISITOR_SESSION_MAX_AGE", 30 * 24 * 3600, minimum=60)
# Verified API keys are cached in Redis (api.key_cache): a change made through Parley drops the cache
# at once; one made behind its back (raw SQL) is seen within this many seconds. 0 turns it off.
API_KEY_CACHE_SECONDS = env_int("API_KEY_CACHE_SECONDS", 60, minimum=0, maximum=3600)
# Sliding-window rate limits in Redis; 0 requests disables a limit.
API_RATE_LIMIT_KEY_REQUESTS = env_int("API_RATE_LIMIT_KEY_REQUESTS", 600, minimum=0)
API_RATE_LIMIT_KEY_WINDOW_SECONDS = env_int("API_RATE_LIMIT_KEY_WINDOW_SECONDS", 60, minimum=1)
API_RATE_LIMIT_VISITOR_REQUESTS = env_int("API_RATE_LIMIT_VISITOR_REQUESTS", 30, minimum=0)
API_RATE_LIMIT_VISITOR_WINDOW_SECONDS = env_int(
    "API_RATE_LIMIT_VISITOR_WINDOW_SECONDS", 60, minimum=1
)

# --- API: documents -----------------------------------------------------------------------
# POST /api/v1/documents alone may exceed API_MAX_REQUEST_BODY_BYTES, up to this (all files of
# one multipart request together); each file is still held to PARLEY_UPLOAD_MAX_BYTES.
API_DOCUMENTS_MAX_REQUEST_BYTES = env_int(
    "API_DOCUMENTS_MAX_REQUEST_BYTES", 64 * 1024 * 1024, minimum=1024
)
API_DOCUMENTS_MAX_FILES = env_int("API_DOCUMENTS_MAX_FILES", 20, minimum=1, maximum=100)

# --- API: database connections of the web process ------------------------------------------
# Under ASGI each request runs in its own thread, so Django's persistent connections are never
# reused and concurrent requests open one connection each (past PostgreSQL's max_connections at
# ~100 simultaneous requests; see bench/api). Every LLM call also hands its thread's connection
# back for its length (core.llm.connections): without a pool the next query reconnects (a new
# PostgreSQL backend, ~10 ms; bench/turn). So each process keeps a psycopg pool of at most this
# many connections (requests wait for one); 0 turns it off for Django's persistent connections.
DATABASE_POOL_MAX_SIZE = env_int("DATABASE_POOL_MAX_SIZE", 20, minimum=0, maximum=1000)
if DATABASE_POOL_MAX_SIZE:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": 30,
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # Personal data (e-mail addresses, phone numbers, IBANs, card numbers) leaves no log in clear
    # (core.redaction; docs/privacy.md); PARLEY_LOG_REDACTION=false keeps logs as written.
    "filters": {
        "pii": {"()": "core.redaction.PiiRedactingFilter"},
        # A refused page (403) in one line, not a traceback (core.request_log).
        "forbidden": {"()": "core.request_log.ForbiddenOneLine"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["pii"] if env_bool("PARLEY_LOG_REDACTION", True) else [],
        }
    },
    "loggers": {"django.request": {"filters": ["forbidden"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

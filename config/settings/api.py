"""The public API: Django REST framework, its schema, request limits, SSE streams, keys and rate limits."""

from __future__ import annotations

from config.env import env_float, env_int

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
# one, so no text is lost; 0: one event per token). 100 ms (ten updates a second) rather than 50: every
# event costs CPU in both the worker and the relay (docs/decisions/answer-path-cpu.md).
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

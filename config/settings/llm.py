"""The LLM: the offline provider or an OpenAI-compatible endpoint, its timeouts, retries and streaming."""

from __future__ import annotations

from config.env import env_bool, env_choice, env_float, env_int, env_str

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

"""Parley's gateway to OpenAI-compatible endpoints (chat completions and embeddings).

`gateway/` is the only package of the project that imports `openai`: one client factory and one
retry policy for every call. `types.py` holds the plain endpoint and result types the callers build.
"""

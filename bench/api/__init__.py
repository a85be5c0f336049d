"""bench.api: streaming latency and throughput of the API through uvicorn, Celery and Redis; see bench/README.md."""

"""The product's settings with the bench URL conf (bench.api.urls); used by the bench's uvicorn and worker."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.api.urls"

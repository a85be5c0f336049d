"""ASGI entry point, served by uvicorn (the chat streams over SSE)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()


def _warm_up() -> None:
    """Before uvicorn listens (it imports this module first), so /healthz answers a warm process."""
    from django.conf import settings

    if settings.PARLEY_WARM_UP:
        from conversations.warmup import process_warm_up

        process_warm_up()


_warm_up()

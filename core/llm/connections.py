"""Releasing Django's database connections around slow network calls (the OpenAI-compatible gateway's)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections

logger = logging.getLogger(__name__)


@contextmanager
def db_connections_released() -> Iterator[None]:
    """Hand Django's DB connections back for the length of a slow network call.

    As paperless-ngx does around its LLM calls (paperless_ai/db.py, `connections.close_all()`),
    a web worker must not pin a database connection for the seconds an LLM takes; Django
    reconnects lazily on the next query. A connection inside a transaction cannot be closed
    without breaking that transaction, so it is kept and logged.
    """
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            logger.debug(
                "DB connection %r kept during the LLM call: inside a transaction", connection.alias
            )
        else:
            connection.close()
    yield

"""An SSE response holds no database connection while it relays (found by bench/api at 128 streams)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from api.sse import sse_response


@pytest.mark.django_db(transaction=True)
def test_a_stream_response_releases_the_requests_database_connection() -> None:
    connection.ensure_connection()
    assert connection.connection is not None
    response = sse_response(stream_id="s-unused", last_event_id=None)
    assert connection.connection is None
    assert response["Content-Type"] == "text/event-stream"


@pytest.mark.django_db(transaction=True)
def test_a_connection_inside_a_transaction_is_left_open() -> None:
    with transaction.atomic():
        connection.ensure_connection()
        sse_response(stream_id="s-unused", last_event_id=None)
        assert connection.connection is not None and connection.in_atomic_block

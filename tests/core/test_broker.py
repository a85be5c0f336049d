"""The broker transport: the Redis URL's scheme resolves to config.broker's transport, and its channel can
still build a client once Celery has cut the transport from its connection (as it does after a broker
restart, before closing the channel and requeueing what it holds)."""

from __future__ import annotations

from config import broker
from config.celery import app


def test_the_broker_url_resolves_to_parleys_transport() -> None:
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, broker.Transport)
        assert connection.transport.Channel is broker.Channel


def test_a_channel_cut_from_its_connection_still_reaches_the_broker() -> None:
    with app.connection_for_write() as connection:
        channel = connection.channel()
        transport = channel.connection
        transport.client = None  # what kombu's Connection.collect() leaves behind
        try:
            channel._pool = None  # closing disconnects the pools: a restore builds one again
            assert channel._create_client().ping() is True
            assert transport.client is None  # lent for that read only
        finally:
            transport.client = connection
            channel.close()

"""The access choke points, each tried by an owner, a teammate (same workspace, other bot) and a stranger."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from api.access import (
    bot_get_for_principal,
    bots_for_principal,
    conversation_get_for_principal,
    stream_get_for_principal,
)
from api.errors import ApiError
from api.principal import Principal, PrincipalKind, VisitorSession
from api.services import visitor_session_start
from streams.sse import StreamOwner, stream_open
from tests.api.factories import bearer, bot_make, server_key_make, workspace_make

pytestmark = pytest.mark.django_db


def _server(workspace_id: uuid.UUID, external_user_id: str | None = None) -> Principal:
    return Principal(
        kind=PrincipalKind.SERVER,
        key_id=uuid.uuid4(),
        workspace_id=workspace_id,
        bot_id=None,
        scopes=frozenset({"chat"}),
        external_user_id=external_user_id,
    )


def _widget(
    bot_id: uuid.UUID, workspace_id: uuid.UUID, visitor: VisitorSession | None = None
) -> Principal:
    return Principal(
        kind=PrincipalKind.WIDGET,
        key_id=uuid.uuid4(),
        workspace_id=workspace_id,
        bot_id=bot_id,
        scopes=frozenset({"chat"}),
        visitor=visitor,
        origin="https://shop.example",
    )


def _not_found(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ApiError) as caught:
        call()
    assert caught.value.code == "not_found"
    assert caught.value.message == "Not found."


def test_bots_owner_teammate_stranger() -> None:
    workspace = workspace_make()
    bot, sibling = bot_make(workspace), bot_make(workspace, name="Sibling")
    stranger = _server(workspace_make().pk)
    assert bot_get_for_principal(principal=_server(workspace.pk), bot_id=bot.pk) == bot
    assert bot_get_for_principal(principal=_widget(bot.pk, workspace.pk), bot_id=bot.pk) == bot
    _not_found(
        lambda: bot_get_for_principal(principal=_widget(sibling.pk, workspace.pk), bot_id=bot.pk)
    )
    _not_found(lambda: bot_get_for_principal(principal=stranger, bot_id=bot.pk))
    _not_found(lambda: bot_get_for_principal(principal=stranger, bot_id=uuid.uuid4()))
    assert list(bots_for_principal(principal=_widget(bot.pk, workspace.pk))) == [bot]
    assert set(bots_for_principal(principal=_server(workspace.pk))) == {bot, sibling}


def test_conversations_owner_teammate_stranger() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    owner = _widget(bot.pk, workspace.pk)
    session, _ = visitor_session_start(principal=owner, bot=bot)
    other_session, _ = visitor_session_start(principal=owner, bot=bot)
    conversation_id = session.conversation_id

    found = conversation_get_for_principal(
        principal=owner.with_visitor(session), conversation_id=conversation_id
    )
    assert found.pk == conversation_id
    assert conversation_get_for_principal(
        principal=_server(workspace.pk), conversation_id=conversation_id
    )
    for principal in [
        owner,  # a widget without a session
        owner.with_visitor(other_session),  # another visitor of the same bot
        _widget(bot_make(workspace, name="Sibling").pk, workspace.pk),
        _server(workspace_make().pk),
    ]:
        _not_found(
            lambda principal=principal: conversation_get_for_principal(
                principal=principal, conversation_id=conversation_id
            )
        )


def test_conversations_of_an_external_user_are_theirs_alone() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    session, _ = visitor_session_start(principal=_server(workspace.pk, "alice"), bot=bot)
    assert conversation_get_for_principal(
        principal=_server(workspace.pk, "alice"), conversation_id=session.conversation_id
    )
    for principal in [_server(workspace.pk, "bob"), _server(workspace.pk)]:
        _not_found(
            lambda principal=principal: conversation_get_for_principal(
                principal=principal, conversation_id=session.conversation_id
            )
        )


def test_a_cached_server_key_authenticates_without_a_query(
    django_assert_num_queries, settings
) -> None:  # type: ignore[no-untyped-def]
    raw, _ = server_key_make(workspace_make())
    client = Client()
    client.get(
        "/api/v1/me", **bearer(raw)
    )  # the first use reads the key, records last_used_at, caches it
    with django_assert_num_queries(0):
        assert client.get("/api/v1/me", **bearer(raw)).status_code == 200
    settings.API_KEY_CACHE_SECONDS = 0  # without the cache: one indexed SELECT
    with django_assert_num_queries(1):
        assert client.get("/api/v1/me", **bearer(raw)).status_code == 200


def test_streams_follow_their_owner() -> None:
    workspace = workspace_make()
    bot = bot_make(workspace)
    session, _ = visitor_session_start(principal=_widget(bot.pk, workspace.pk), bot=bot)
    visitor = _widget(bot.pk, workspace.pk).with_visitor(session)
    stream_id = stream_open(
        owner=StreamOwner.for_principal(visitor, conversation_id=session.conversation_id)
    )
    assert (
        stream_get_for_principal(principal=visitor, stream_id=stream_id).visitor_id
        == session.visitor_id
    )
    assert stream_get_for_principal(principal=_server(workspace.pk), stream_id=stream_id)
    other_session, _ = visitor_session_start(principal=_widget(bot.pk, workspace.pk), bot=bot)
    for principal in [
        _widget(bot.pk, workspace.pk).with_visitor(other_session),
        _widget(bot_make(workspace, name="Sibling").pk, workspace.pk),
        _server(workspace_make().pk),
    ]:
        _not_found(
            lambda principal=principal: stream_get_for_principal(
                principal=principal, stream_id=stream_id
            )
        )

    alice_stream = stream_open(
        owner=StreamOwner.for_principal(_server(workspace.pk, "alice"), bot_id=bot.pk)
    )
    assert stream_get_for_principal(
        principal=_server(workspace.pk, "alice"), stream_id=alice_stream
    )
    _not_found(
        lambda: stream_get_for_principal(
            principal=_server(workspace.pk, "bob"), stream_id=alice_stream
        )
    )

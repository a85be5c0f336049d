"""Session documents belong to one conversation (not to bots) and go away with it; tenants' owner id is kept."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile

from conversations.models import Conversation
from rag.models import Document
from rag.services import document_create


@pytest.mark.django_db
def test_a_session_document_is_attached_to_its_conversation_and_deleted_with_it(
    workspace, bot
) -> None:
    conversation = Conversation.objects.create(bot=bot, external_user_id="tenant-42")
    document = document_create(
        workspace=workspace,
        file=ContentFile(b"My order number is LB-123456.", name="order.txt"),
        conversation_id=conversation.pk,
        external_user_id="tenant-42",
    )
    assert document.conversation_id == conversation.pk and document.external_user_id == "tenant-42"
    assert not document.bots.exists()
    conversation.delete()
    assert not Document.objects.filter(pk=document.pk).exists()


@pytest.mark.django_db
def test_a_document_cannot_belong_to_bots_and_a_session(workspace, bot) -> None:
    conversation = Conversation.objects.create(bot=bot)
    with pytest.raises(ValidationError, match="not both"):
        document_create(
            workspace=workspace,
            file=ContentFile(b"x", name="x.txt"),
            bots=[bot],
            conversation_id=conversation.pk,
        )

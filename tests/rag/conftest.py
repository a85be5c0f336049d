"""Factories for the knowledge tests: a workspace, a bot, and a document built from bytes."""

from __future__ import annotations

import uuid

import pytest
from django.core.files.base import ContentFile

from bots.models import Bot
from core.models import Workspace
from rag.models import Document
from rag.services import document_create


@pytest.fixture
def workspace(db: None) -> Workspace:
    slug = f"ws-{uuid.uuid4().hex[:8]}"
    return Workspace.objects.create(name=slug, slug=slug)


@pytest.fixture
def bot(workspace: Workspace) -> Bot:
    return Bot.objects.create(workspace=workspace, name="Helper")


@pytest.fixture
def make_document(workspace: Workspace, bot: Bot):
    def make(name: str, data: bytes | str) -> Document:
        content = data.encode() if isinstance(data, str) else data
        return document_create(
            workspace=workspace, file=ContentFile(content, name=name), bots=[bot]
        )

    return make

"""The workspace's privacy settings in the admin: all off by default, and redaction before the LLM
refused (a form error, not a 500) unless stored text is redacted too."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from core.models import Workspace
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def _post(client: Client, workspace: Workspace, **fields: object) -> int:
    data = {"name": workspace.name, "slug": workspace.slug, "retention_days": "", **fields}
    response = client.post(reverse("admin:core_workspace_change", args=[workspace.pk]), data)
    return response.status_code


def test_the_admin_sets_the_privacy_settings_and_refuses_an_inconsistent_pair() -> None:
    workspace = Workspace.objects.create(name="Shop", slug="shop")
    assert (workspace.redact_personal_data, workspace.redact_before_llm) == (False, False)
    client = Client()
    client.force_login(UserFactory(is_superuser=True))
    assert _post(client, workspace, redact_before_llm="on") == 200  # the form, with its error
    workspace.refresh_from_db()
    assert not workspace.redact_before_llm
    assert _post(client, workspace, redact_personal_data="on", redact_before_llm="on") == 302
    assert _post(client, workspace, redact_personal_data="on", retention_days="0") == 200
    workspace.refresh_from_db()
    assert workspace.redact_personal_data and workspace.redact_before_llm
    assert workspace.retention_days is None

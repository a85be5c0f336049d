"""docs/roles.md shows the tables the code decides by: the grants of core.permissions.ROLE_GRANTS, and
every custom admin page and admin action with the grant it needs (read from the admin site), so the
page cannot drift from what tests/core/test_roles_walk.py walks."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from core.admin_scoping import WorkspaceScopedAdmin
from core.permissions import ROLE_GRANTS, roles_table_markdown
from core.permissions import role_allows as allows
from tests.core.test_roles_walk import admin_urls

DOC = Path(__file__).resolve().parents[2] / "docs" / "roles.md"


def _row(label: str, grant: tuple[str, str, str]) -> str:
    app, model, verb = grant
    cells = [
        "yes" if allows(role=role, key=(app, model), verb=verb) else "—" for role in ROLE_GRANTS
    ]
    return f"| {label} | {verb} `{app}.{model}` | " + " | ".join(cells) + " |"


def pages_and_actions_table() -> str:
    """Each custom admin page and each admin action of the workspace-scoped admins, with its grant."""
    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_superuser=True, is_staff=True, is_active=True)
    header = "| Page or action | Needs | " + " | ".join(r.title() for r in ROLE_GRANTS) + " |"
    lines = [header, "|---" * (len(ROLE_GRANTS) + 2) + "|"]
    for page in sorted((p for p in admin_urls() if p.custom), key=lambda p: p.name):
        lines.append(_row(f"page `{page.name}`", (*page.key, page.verb)))
    actions = []
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model_admin, WorkspaceScopedAdmin):
            continue
        for name, (func, _, _) in model_admin.get_actions(request).items():
            label = f"action `{model._meta.label_lower}.{name}`"
            actions.append(_row(label, model_admin.action_grant(func)))
    return "\n".join(lines + sorted(actions))


@pytest.mark.django_db
def test_the_roles_page_shows_the_tables_the_code_uses() -> None:
    text = DOC.read_text()
    assert roles_table_markdown() in text, roles_table_markdown()
    table = pages_and_actions_table()
    assert table in text, table

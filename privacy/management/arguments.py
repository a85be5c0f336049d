"""The arguments both privacy commands take: the workspace (id or slug) and whom (one id)."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.management.base import CommandError, CommandParser

from core.models import Workspace


def visitor_arguments_add(parser: CommandParser) -> None:
    parser.add_argument(
        "--workspace",
        help="the workspace's id or slug (needed with an external user id or a visitor id)",
    )
    whom = parser.add_mutually_exclusive_group(required=True)
    whom.add_argument("--external-user-id", help="every conversation and document of this user")
    whom.add_argument("--conversation-id", help="this conversation only")
    whom.add_argument(
        "--visitor-id",
        help="every conversation of this visitor id (the widget's id for a browser, or an API "
        "client's visitor id)",
    )


def visitor_arguments_read(options: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `visitor_subject_get` / `visitor_erasure_request`."""
    workspace_id = None
    if options["workspace"]:
        name = options["workspace"]
        try:
            lookup: dict[str, Any] = {"pk": uuid.UUID(name)}
        except ValueError:
            lookup = {"slug": name}
        workspace_id = Workspace.objects.filter(**lookup).values_list("pk", flat=True).first()
        if workspace_id is None:
            raise CommandError(f"no workspace {name!r}")
    return {
        "workspace_id": workspace_id,
        "external_user_id": options["external_user_id"],
        "conversation_id": options["conversation_id"],
        "visitor_id": options["visitor_id"],
    }

"""The widget's look, set by the admin per bot."""

from __future__ import annotations

from django.contrib import admin

from core.admin_scoping import WorkspaceScopedAdmin
from widget.models import WidgetAppearance


@admin.register(WidgetAppearance)
class WidgetAppearanceAdmin(WorkspaceScopedAdmin[WidgetAppearance]):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "title", "position", "locale", "primary_color"]

"""Admin screens for API credentials: create (the server key is shown once), revoke, rotate."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from api.models import BotSigningSecret, ServerApiKey, WidgetKey
from api.services import (
    bot_signing_secret_create,
    bot_signing_secret_rotate,
    origin_normalize,
    server_api_key_create,
    server_api_key_revoke,
    widget_key_create,
    widget_key_revoke,
)
from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin


def _adopt(obj: Any, created: Any) -> None:
    """Points the admin's unsaved object at the row a service created, for the redirect and the log."""
    obj.__dict__.update({k: v for k, v in created.__dict__.items() if k != "_state"})
    obj._state.adding = False


@admin.register(ServerApiKey)
class ServerApiKeyAdmin(WorkspaceScopedAdmin[ServerApiKey]):
    list_display = [
        "name",
        "workspace",
        "prefix",
        "scopes",
        "expires_at",
        "revoked_at",
        "last_used_at",
    ]
    list_filter = [WorkspaceListFilter]
    search_fields = ["name", "prefix"]
    readonly_fields = ["prefix", "revoked_at", "last_used_at", "created_at"]
    actions = ["revoke"]

    def get_readonly_fields(
        self, request: HttpRequest, obj: ServerApiKey | None = None
    ) -> list[str]:
        return [*self.readonly_fields, "workspace"] if obj else self.readonly_fields

    def save_model(
        self,
        request: HttpRequest,
        obj: ServerApiKey,
        form: forms.ModelForm[ServerApiKey],
        change: bool,
    ) -> None:
        if change:
            obj.save(update_fields=["name", "scopes", "expires_at"])
            return
        key, raw_key = server_api_key_create(
            workspace=obj.workspace, name=obj.name, scopes=obj.scopes, expires_at=obj.expires_at
        )
        _adopt(obj, key)
        messages.warning(
            request,
            f"Copy this API key now; it is stored only as a hash and will not be shown again: {raw_key}",
        )

    @admin.action(description="Revoke selected keys", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ServerApiKey]) -> None:
        revoked = sum(
            server_api_key_revoke(key_id=key_id) for key_id in queryset.values_list("pk", flat=True)
        )
        messages.success(request, f"Revoked {revoked} key(s).")


class OriginsField(forms.CharField):
    """Origins one per line (commas and spaces separate them too) in a text area wide enough to read
    them whole: the default array input was one narrow line that cut its value (issue 26)."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 60, "spellcheck": "false"})

    def prepare_value(self, value: Any) -> Any:
        return "\n".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]  # a list parsed from the text
        return [part for part in re.split(r"[\s,]+", str(value or "")) if part]


class WidgetKeyForm(forms.ModelForm[WidgetKey]):
    allowed_origins = OriginsField(
        help_text="One origin per line, such as https://www.example.com or http://127.0.0.1:8124.",
    )

    class Meta:
        model = WidgetKey
        fields = ["bot", "name", "allowed_origins"]

    def clean_allowed_origins(self) -> list[str]:
        try:
            return sorted(
                {origin_normalize(origin) for origin in self.cleaned_data["allowed_origins"]}
            )
        except ValidationError as error:
            raise forms.ValidationError(error.messages) from None


@admin.register(WidgetKey)
class WidgetKeyAdmin(WorkspaceScopedAdmin[WidgetKey]):
    workspace_lookup = "bot__workspace"
    form = WidgetKeyForm
    list_display = ["name", "bot", "key", "allowed_origins", "revoked_at", "created_at"]
    list_filter = [WorkspaceListFilter]
    search_fields = ["name", "key"]
    readonly_fields = ["key", "revoked_at", "created_at"]
    actions = ["revoke"]

    def get_readonly_fields(self, request: HttpRequest, obj: WidgetKey | None = None) -> list[str]:
        return [*self.readonly_fields, "bot"] if obj else self.readonly_fields

    def save_model(
        self, request: HttpRequest, obj: WidgetKey, form: forms.ModelForm[WidgetKey], change: bool
    ) -> None:
        if change:
            obj.save(update_fields=["name", "allowed_origins"])
            return
        _adopt(
            obj, widget_key_create(bot=obj.bot, name=obj.name, allowed_origins=obj.allowed_origins)
        )

    @admin.action(description="Revoke selected keys", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[WidgetKey]) -> None:
        revoked = sum(
            widget_key_revoke(key_id=key_id) for key_id in queryset.values_list("pk", flat=True)
        )
        messages.success(request, f"Revoked {revoked} key(s).")


@admin.register(BotSigningSecret)
class BotSigningSecretAdmin(WorkspaceScopedAdmin[BotSigningSecret]):
    workspace_lookup = "bot__workspace"
    list_display = ["bot", "created_at", "rotated_at"]
    readonly_fields = ["secret", "created_at", "rotated_at"]
    actions = ["rotate"]

    def get_readonly_fields(
        self, request: HttpRequest, obj: BotSigningSecret | None = None
    ) -> list[str]:
        return [*self.readonly_fields, "bot"] if obj else self.readonly_fields

    def save_model(
        self,
        request: HttpRequest,
        obj: BotSigningSecret,
        form: forms.ModelForm[BotSigningSecret],
        change: bool,
    ) -> None:
        if not change:
            _adopt(obj, bot_signing_secret_create(bot=obj.bot))

    @admin.action(
        description="Rotate selected secrets (old signatures stop working)", permissions=["change"]
    )
    def rotate(self, request: HttpRequest, queryset: QuerySet[BotSigningSecret]) -> None:
        for bot_id in queryset.values_list("pk", flat=True):
            bot_signing_secret_rotate(bot_id=bot_id)
        messages.success(request, "Rotated.")

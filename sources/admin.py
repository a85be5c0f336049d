"""The source admin: a source's settings and bots, its credentials write-only (a blank field keeps the
stored value; the page says only whether they are set), "Sync now", a progress bar while a sync runs
(polled from a small JSON view), the last syncs' counts and the pages with their state and reason."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from core.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from core.errors import ParleyError
from sources.models import Source
from sources.selectors import sync_progress
from sources.services import source_config_check, source_delete, source_sync_request

CREDENTIAL_NAMES = ("header_name", "header_value", "username", "password")


def _secret(help_text: str = "") -> forms.CharField:
    """A write-only field: never rendered back (blank keeps the stored value)."""
    return forms.CharField(
        required=False, widget=forms.PasswordInput(render_value=False), help_text=help_text
    )


class SourceForm(forms.ModelForm[Source]):
    header_name = forms.CharField(
        required=False, help_text="A protected site's header (e.g. Authorization)."
    )
    header_value = _secret("The header's value. Write-only: blank keeps the stored one.")
    username = forms.CharField(required=False, help_text="Basic auth's user name.")
    password = _secret("Basic auth's password. Write-only: blank keeps the stored one.")

    class Meta:
        model = Source
        fields = ["workspace", "name", "kind", "config", "bots", "schedule_minutes", "enabled"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            source_config_check(kind=cleaned.get("kind", ""), config=cleaned.get("config") or {})
        except ParleyError as exc:
            raise forms.ValidationError({"config": exc.message}) from exc
        workspace, bots = cleaned.get("workspace"), cleaned.get("bots") or []
        if workspace is not None and any(bot.workspace_id != workspace.pk for bot in bots):
            raise forms.ValidationError(
                {"bots": "Every bot must belong to the source's workspace."}
            )
        return cleaned

    def save(self, commit: bool = True) -> Source:
        source: Source = super().save(commit=False)
        given = {name: str(self.cleaned_data.get(name) or "").strip() for name in CREDENTIAL_NAMES}
        source.credentials = {
            **source.credentials,
            **{name: value for name, value in given.items() if value},
        }
        if commit:
            source.save()
            self.save_m2m()
        return source


@admin.register(Source)
class SourceAdmin(WorkspaceScopedAdmin[Source]):
    form = SourceForm
    change_form_template = "admin/sources/source/change_form.html"
    list_display = ["name", "workspace", "kind", "enabled", "last_sync_column"]
    list_filter = ["kind", WorkspaceListFilter]
    search_fields = ["name"]
    list_select_related = ["workspace"]
    readonly_fields = ["credentials_set", "last_syncs", "pages_table"]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # deleting retires the documents, through the service
        return actions

    def delete_model(self, request: HttpRequest, obj: Source) -> None:
        source_delete(source_id=obj.pk)

    @admin.display(description="credentials")
    def credentials_set(self, source: Source) -> str:
        names = [name for name in CREDENTIAL_NAMES if source.credentials.get(name)]
        return ", ".join(f"{name}: set" for name in names) or "None"

    @admin.display(description="last sync")
    def last_sync_column(self, source: Source) -> str:
        sync = source.syncs.first()
        if sync is None:
            return "never"
        return f"{sync.get_status_display()} · {_counts_line(sync.counts)}"

    @admin.display(description="last syncs")
    def last_syncs(self, source: Source) -> str:
        syncs = list(source.syncs.all()[:5]) if source.pk else []
        if not syncs:
            return "None yet"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"{sync.queued_at:%Y-%m-%d %H:%M}",
                    sync.get_status_display(),
                    f"{sync.duration_seconds:.1f} s" if sync.duration_seconds is not None else "",
                    _counts_line(sync.counts),
                    " ".join([sync.retirement, *sync.errors[-3:]]),
                )
                for sync in syncs
            ),
        )
        return format_html(
            "<table class='source-syncs'><tr><th>queued</th><th>status</th><th>took</th>"
            "<th>counts</th><th>retirement, errors</th></tr>{}</table>",
            rows,
        )

    @admin.display(description="pages")
    def pages_table(self, source: Source) -> str:
        pages = list(source.pages.select_related("document")[:500]) if source.pk else []
        if not pages:
            return "None yet"
        rows = format_html_join(
            "",
            "<tr class='source-page source-page-{}'><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    page.state,
                    page.url,
                    page.get_state_display(),
                    page.reason,
                    page.document.get_status_display() if page.document else "",
                )
                for page in pages
            ),
        )
        return format_html(
            "<table class='source-pages'><tr><th>URL</th><th>state</th><th>reason</th>"
            "<th>document</th></tr>{}</table>",
            rows,
        )

    def get_urls(self) -> list[URLPattern]:
        sync = self.role_view(require_POST(self.sync_now_view), grant=self.role_grant("change"))
        progress = self.role_view(self.progress_view, grant=self.role_grant("view"))
        return [
            path("<path:object_id>/sync/", sync, name="sources_source_sync"),
            path("<path:object_id>/progress/", progress, name="sources_source_progress"),
            *super().get_urls(),
        ]

    def _source(self, request: HttpRequest, object_id: str) -> Source:
        source: Source | None = self.get_object(
            request, object_id
        )  # scoped to the user's workspaces
        if source is None:
            raise Http404("No such source.")
        return source

    def sync_now_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        source = self._source(request, object_id)
        if not self.has_change_permission(request, source):
            raise PermissionDenied
        _, created = source_sync_request(source=source, trigger="manual")
        message = "Sync queued." if created else "A sync of this source is already running."
        self.message_user(request, message, messages.SUCCESS if created else messages.INFO)
        return HttpResponseRedirect(reverse("admin:sources_source_change", args=[source.pk]))

    def progress_view(self, request: HttpRequest, object_id: str) -> JsonResponse:
        source = self._source(request, object_id)
        sync = source.syncs.first()
        if sync is None:
            return JsonResponse({"status": "none", "done": 0, "total": 0, "counts": {}})
        return JsonResponse(
            {"status": sync.status, **sync_progress(sync=sync), "counts": sync.counts}
        )

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        context["sync_url"] = reverse("admin:sources_source_sync", args=[object_id])
        context["progress_url"] = reverse("admin:sources_source_progress", args=[object_id])
        return super().change_view(request, object_id, form_url, context)


def _counts_line(counts: dict[str, Any]) -> str:
    parts = []
    for key in ("discovered", "new", "changed", "unchanged", "gone", "retired"):
        if counts.get(key):
            parts.append(f"{counts[key]} {key}")
    for key in ("skipped", "failed"):
        if counts.get(key):
            detail = ", ".join(f"{reason} {n}" for reason, n in sorted(counts[key].items()))
            parts.append(f"{key}: {detail}")
    return "; ".join(parts) or json.dumps(counts)

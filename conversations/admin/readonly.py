"""The admin of a record: it shows, and nothing can be added, changed or deleted."""

from __future__ import annotations

from typing import TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

_ModelT = TypeVar("_ModelT", bound=Model)


class ReadOnlyAdmin(admin.ModelAdmin[_ModelT]):
    """An admin of a record: nothing can be added, changed or deleted."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


LIST_TEXT_CHARS = 80


def shortened(text: str) -> str:
    """A long text as a list column shows it: its first characters and an ellipsis."""
    return text if len(text) <= LIST_TEXT_CHARS else text[: LIST_TEXT_CHARS - 1] + "…"

"""Admin forms for documents: a multi-file upload to a workspace and its bots, and a file replacement."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError

from bots.models import Bot
from core.models import Workspace
from rag.models import Document


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class DocumentUploadForm(forms.Form):
    workspace = forms.ModelChoiceField(queryset=Workspace.objects.none())
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        required=False,
        help_text="Bots of the chosen workspace that will know the files.",
    )
    # A field named like BaseForm.files (the request's files), as the admin's upload page names it.
    files = MultipleFileField(  # type: ignore[assignment]
        help_text="Select one or more files: txt, md, html, pdf, docx, csv, vtt, srt, png, jpg, webp,"
        " tiff (OCR), mp3, m4a, wav, mp4, webm (with a transcription model)."
    )

    def __init__(self, *args: Any, workspaces: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ModelChoiceField[Any]", self.fields["workspace"]).queryset = workspaces
        bots = cast("forms.ModelMultipleChoiceField[Any]", self.fields["bots"])
        bots.queryset = Bot.objects.filter(workspace__in=workspaces).select_related("workspace")
        bots.label_from_instance = lambda bot: f"{bot.workspace} · {bot.name}"  # type: ignore[assignment]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        workspace = cleaned.get("workspace")
        if workspace and any(bot.workspace_id != workspace.pk for bot in cleaned.get("bots") or []):
            raise ValidationError("Choose bots of the selected workspace only.")
        return cleaned


class DocumentChangeForm(forms.ModelForm):
    source_url = forms.URLField(required=False, assume_scheme="https", max_length=2000)
    replace_file = forms.FileField(
        required=False, help_text="Upload a fixed file: the document is ingested again."
    )

    class Meta:
        model = Document
        fields = ["title", "source_url", "bots", "external_user_id"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "bots" in self.fields:
            bots = cast("forms.ModelMultipleChoiceField[Any]", self.fields["bots"])
            bots.queryset = Bot.objects.filter(workspace_id=self.instance.workspace_id)

    def clean_bots(self) -> Any:
        bots = self.cleaned_data["bots"]
        if any(bot.workspace_id != self.instance.workspace_id for bot in bots):
            raise ValidationError("Choose bots of the document's workspace only.")
        return bots

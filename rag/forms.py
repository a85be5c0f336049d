"""Admin forms for documents: a multi-file upload to a workspace and its bots, and a file replacement."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.functional import cached_property

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
    """Files for a workspace and its bots. Choosing no bot gives the files to every bot of the workspace, as
    the form states (`default_bots`); a document known to no bot must be asked for with `no_bot`, so none
    is uploaded where no bot will ever find it without the uploader knowing."""

    workspace = forms.ModelChoiceField(queryset=Workspace.objects.none())
    bots = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(),
        required=False,
        help_text="Bots of the chosen workspace that will know the files. Choose none to give them to"
        " every bot of the workspace (listed below).",
    )
    no_bot = forms.BooleanField(
        required=False,
        label="Known to no bot",
        help_text="Keep the files out of every bot for now: only rag_search calls not tied to a bot"
        " find them, until you add bots on a document's page.",
    )
    files = MultipleFileField(  # type: ignore[assignment]  # named like BaseForm.files, as the upload page names it
        help_text="Select one or more files: txt, md, html, pdf, docx, csv, vtt, srt, png, jpg, webp,"
        " tiff (OCR), mp3, m4a, wav, mp4, webm (with a transcription model)."
    )

    def __init__(self, *args: Any, workspaces: QuerySet[Workspace], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._workspaces = workspaces
        self._bots = Bot.objects.filter(workspace__in=workspaces).select_related("workspace")
        cast("forms.ModelChoiceField[Any]", self.fields["workspace"]).queryset = workspaces
        bots = cast("forms.ModelMultipleChoiceField[Any]", self.fields["bots"])
        bots.queryset = self._bots
        bots.label_from_instance = lambda bot: f"{bot.workspace} · {bot.name}"  # type: ignore[assignment]  # per-form label
        self.bots_defaulted = False
        if len(self.default_bots) == 1:  # one workspace: nothing to choose
            self.fields["workspace"].initial = self.default_bots[0][0].pk

    @cached_property
    def default_bots(self) -> list[tuple[Workspace, list[Bot]]]:
        """Each workspace the user may upload to, with the bots that get the files when none is chosen."""
        by_workspace: dict[Any, list[Bot]] = {}
        for bot in self._bots.order_by("name"):
            by_workspace.setdefault(bot.workspace_id, []).append(bot)
        return [(w, by_workspace.get(w.pk, [])) for w in self._workspaces.order_by("name")]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        workspace, chosen = cleaned.get("workspace"), list(cleaned.get("bots") or [])
        if workspace is None:
            return cleaned
        if any(bot.workspace_id != workspace.pk for bot in chosen):
            raise ValidationError("Choose bots of the selected workspace only.")
        if chosen and cleaned.get("no_bot"):
            raise ValidationError('Choose bots, or tick "Known to no bot": not both.')
        if not chosen and not cleaned.get("no_bot"):
            every = {w.pk: bots for w, bots in self.default_bots}.get(workspace.pk, [])
            if not every:
                raise ValidationError(
                    f'{workspace} has no bot yet: tick "Known to no bot" to upload the files anyway.'
                )
            cleaned["bots"], self.bots_defaulted = every, True
        return cleaned


class DocumentChangeForm(forms.ModelForm[Document]):
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

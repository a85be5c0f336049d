"""Admin forms for bots: the bot itself, its topic and lexicon formsets, overrides, preview and import.

Validation messages come from prompt_context.rules and the prompt engine, so the admin and
the JSON import refuse the same things in the same words.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib.postgres.forms import SimpleArrayField
from django.core.validators import RegexValidator

from bots.models import Bot, BotLocaleText
from bots.models.templates import TEMPLATE_MAX_CHARS
from prompt_context.limits import IMPORT_MAX_BYTES, TERM_MAX, TERMS_PER_GROUP_MAX
from prompt_context.models import LexiconGroup, Topic
from prompt_context.rules import lexicon_group_problems, topic_problems
from prompts.engine import Chunk, ChunkLike, HistoryTurn, template_check

LONG_TEXT_FIELDS = [
    "response_expectations",
    "formatting_rules",
    "vocabulary_constraints",
    "regulatory_constraints",
    "forbidden_statements",
    "mandatory_mentions",
    "specific_instructions",
    "escalation_triggers",
    "escalation_unavailable_text",
    "relaxation_statement",
    "refusal_text",
    "no_answer_text",
    "injection_refusal_text",
    "escalation_text",
]


LOCALE = RegexValidator(
    r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
    "Use a language code such as en, fr or pt-BR.",
    code="locale_invalid",
)


class BotForm(forms.ModelForm[Bot]):
    class Meta:
        model = Bot
        fields = [
            "workspace",
            "name",
            "role",
            "domain",
            "target_audience",
            "locale",
            "formality",
            "escalation_allowed",
            "escalation_confidence_threshold",
            "rag_strictness",
            "explainability",
            "llm_provider",
            "llm_model",
            "llm_temperature",
            "llm_max_output_tokens",
            "llm_timeout_seconds",
            "retrieval_top_k",
            "retrieval_score_threshold",
            "retrieval_hybrid",
            "injection_threshold",
            "injection_watch",
            "answer_locales",
            "answer_max_sentences",
            *LONG_TEXT_FIELDS,
        ]
        widgets = {name: forms.Textarea(attrs={"rows": 2, "cols": 80}) for name in LONG_TEXT_FIELDS}
        labels = {
            "rag_strictness": "RAG strictness",
            "llm_provider": "LLM provider",
            "llm_model": "LLM model",
            "llm_temperature": "Temperature",
            "llm_max_output_tokens": "Max output tokens",
            "llm_timeout_seconds": "Timeout (seconds)",
            "retrieval_top_k": "Top k",
            "retrieval_score_threshold": "Score threshold",
            "retrieval_hybrid": "Hybrid search (vector + full text)",
            "injection_threshold": "Injection threshold (refusal band from)",
            "injection_watch": "Injection watch band from",
            "locale": "Response language (locale)",
            "answer_locales": "Languages it may answer in",
            "answer_max_sentences": "Sentences in an offline answer (at most)",
        }

    def clean_locale(self) -> str:
        locale: str = self.cleaned_data["locale"].strip()
        LOCALE(locale)
        return locale

    def clean_answer_locales(self) -> str:
        """Each code checked like the locale; stored as one space-separated list."""
        codes = self.cleaned_data["answer_locales"].replace(",", " ").split()
        for code in codes:
            LOCALE(code)
        return " ".join(dict.fromkeys(codes))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (
            data.get("rag_strictness") == Bot.Strictness.RELAXED
            and not (data.get("relaxation_statement") or "").strip()
        ):
            self.add_error(
                "relaxation_statement",
                "A relaxed bot needs a relaxation statement (spec section 1.2).",
            )
        return data


class LocaleTextForm(forms.ModelForm[BotLocaleText]):
    class Meta:
        model = BotLocaleText
        fields = [
            "locale",
            "refusal_text",
            "no_answer_text",
            "injection_refusal_text",
            "escalation_text",
            "escalation_unavailable_text",
        ]
        widgets = {
            name: forms.Textarea(attrs={"rows": 2}) for name in fields if name.endswith("_text")
        }
        help_texts = {
            "injection_refusal_text": "Empty: the default locale's text.",
            "escalation_text": "Empty: the default locale's text.",
            "escalation_unavailable_text": "Empty: the default locale's text.",
        }

    def clean_locale(self) -> str:
        locale: str = self.cleaned_data["locale"].strip()
        LOCALE(locale)
        return locale


class TopicFormSet(forms.BaseInlineFormSet[Topic, Bot, forms.ModelForm[Topic]]):
    def clean(self) -> None:
        super().clean()
        pairs = [
            (form.cleaned_data["name"], form.cleaned_data["kind"])
            for form in self.forms
            if form.cleaned_data.get("name") and not form.cleaned_data.get("DELETE")
        ]
        if self.instance.pk is not None:
            # Inline forms skip constraints on their bot; saved topics missing from this formset still count.
            shown = [form.instance.pk for form in self.initial_forms]
            pairs += list(self.instance.topics.exclude(pk__in=shown).values_list("name", "kind"))
        problems = topic_problems(pairs)
        if problems:
            raise forms.ValidationError(problems)


class TermsField(SimpleArrayField):
    """Comma-separated synonyms, shown back with a space after each comma."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return ", ".join(str(item) for item in value)
        return value


class LexiconGroupForm(forms.ModelForm[LexiconGroup]):
    terms = TermsField(
        forms.CharField(max_length=TERM_MAX),
        max_length=TERMS_PER_GROUP_MAX,
        help_text="Synonyms separated by commas, at least two.",
        widget=forms.TextInput(attrs={"size": 60}),
    )

    class Meta:
        model = LexiconGroup
        fields = ["terms", "definition"]
        widgets = {"definition": forms.TextInput(attrs={"size": 60})}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "terms" in data:
            data["terms"] = [term.strip() for term in data["terms"] if term.strip()]
            for problem in lexicon_group_problems(data["terms"], data.get("definition") or ""):
                self.add_error("terms", problem)
        return data


class TemplateVersionForm(forms.Form):
    source = forms.CharField(
        widget=forms.Textarea(
            attrs={"rows": 28, "cols": 120, "spellcheck": "false", "class": "vLargeTextField"}
        ),
        max_length=TEMPLATE_MAX_CHARS,
    )
    note = forms.CharField(max_length=200, required=False, help_text="What changed and why.")

    def clean_source(self) -> str:
        source: str = self.cleaned_data["source"].replace("\r\n", "\n")
        problem = template_check(source=source)
        if problem is not None:
            raise forms.ValidationError(str(problem), code=problem.code)
        return source


class PreviewForm(forms.Form):
    question = forms.CharField(
        max_length=4000, widget=forms.Textarea(attrs={"rows": 2, "cols": 100})
    )
    history = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 100, "spellcheck": "false"}),
        help_text='A JSON array of {"role": "user" or "assistant", "content": "..."}.',
    )
    chunks = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "cols": 100, "spellcheck": "false"}),
        help_text='A JSON array of {"id", "title", "source", "page", "text"}.',
    )
    locale = forms.CharField(max_length=10)

    def clean_history(self) -> list[HistoryTurn]:
        try:
            return [HistoryTurn.coerce(item) for item in self._json_list("history")]
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_chunks(self) -> list[ChunkLike]:
        items = self._json_list("chunks")
        if not all(isinstance(item, dict) and "id" in item for item in items):
            raise forms.ValidationError(
                "Each chunk must be an object with at least an \u201cid\u201d."
            )
        return [Chunk.coerce(item) for item in items]

    def _json_list(self, name: str) -> list[Any]:
        raw = self.cleaned_data.get(name) or "[]"
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"Not valid JSON (line {exc.lineno}: {exc.msg}).") from None
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise forms.ValidationError("Expected a JSON array of objects.")
        return value


class ContextImportForm(forms.Form):
    file = forms.FileField(
        help_text=f"A JSON file exported from Parley, at most {IMPORT_MAX_BYTES // 1024} KB."
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:  # refuse before reading it into memory
            raise forms.ValidationError(f"The file is larger than {IMPORT_MAX_BYTES // 1024} KB.")
        return upload

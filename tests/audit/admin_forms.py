"""The POST body an admin change form would send unchanged (its fields and inlines as rendered), to
which a test applies the one change it means to make."""

from __future__ import annotations

from typing import Any

from django.forms import BaseForm


def _form_values(form: BaseForm) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for bound in form:
        value = bound.value()
        if value is None:
            continue
        if isinstance(value, bool):
            if value:
                data[bound.html_name] = "on"
            continue
        if isinstance(value, list | tuple):
            data[bound.html_name] = [
                getattr(item, "pk", item) for item in value if item not in ("", None)
            ]
            continue
        data[bound.html_name] = bound.field.widget.format_value(value) or ""
        if hasattr(value, "pk"):
            data[bound.html_name] = value.pk
    return data


def admin_change_data(response: Any) -> dict[str, Any]:
    """The change form's fields and every inline formset's forms, management forms included."""
    data = _form_values(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update(_form_values(formset.management_form))
        for form in formset.forms:
            data.update(_form_values(form))
    return data

"""Per-bot template overrides: save a validated version, activate one (roll back), or return to the default.

A version becomes active only after it passed the sandbox check, here and at activation time.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from audit.services import audit_change_record
from bots.models import PromptTemplateVersion
from bots.models.templates import TEMPLATE_MAX_CHARS
from core.errors import ErrorKind, ParleyError
from prompts.engine import TemplateProblem, template_check


class TemplateRejected(ParleyError):
    """A template that failed validation; it was not saved or not activated."""

    kind = ErrorKind.INVALID

    def __init__(self, problem: TemplateProblem) -> None:
        super().__init__(str(problem), code=problem.code)
        self.problem = problem


def template_version_save(
    *, bot_id: Any, kind: str, source: str, note: str = "", author_id: int | None = None
) -> PromptTemplateVersion:
    """Validate, then store as the next version number and make it the active one."""
    if len(source) > TEMPLATE_MAX_CHARS:
        raise TemplateRejected(
            TemplateProblem(
                "template_too_long", f"A template is at most {TEMPLATE_MAX_CHARS} characters.", None
            )
        )
    problem = template_check(source=source)
    if problem is not None:
        raise TemplateRejected(problem)
    for _attempt in range(
        3
    ):  # two admins saving at once race for the same number; retry on the unique index
        try:
            with transaction.atomic():
                top = PromptTemplateVersion.objects.filter(bot_id=bot_id, kind=kind).aggregate(
                    n=Max("number")
                )["n"]
                PromptTemplateVersion.objects.filter(
                    bot_id=bot_id, kind=kind, is_active=True
                ).update(is_active=False)
                return PromptTemplateVersion.objects.create(
                    bot_id=bot_id,
                    kind=kind,
                    number=(top or 0) + 1,
                    source=source,
                    note=note,
                    author_id=author_id,
                    is_active=True,
                )
        except IntegrityError:
            continue
    raise IntegrityError("could not allocate a template version number")


def template_version_activate(*, bot_id: Any, kind: str, number: int) -> PromptTemplateVersion:
    """Roll back (or forward) to an existing version, re-checking it against the current engine first."""
    version = PromptTemplateVersion.objects.get(bot_id=bot_id, kind=kind, number=number)
    problem = template_check(source=version.source)
    if problem is not None:
        raise TemplateRejected(problem)
    with transaction.atomic():
        active = PromptTemplateVersion.objects.select_for_update().filter(
            bot_id=bot_id, kind=kind, is_active=True
        )
        before = list(active.values_list("number", flat=True))
        active.update(is_active=False)
        PromptTemplateVersion.objects.filter(pk=version.pk).update(is_active=True)
        version.is_active = True
        # A queryset update sends no model signal: the roll-back's one audit entry is written here.
        audit_change_record(
            instance=version, changes={"active_version": [before[0] if before else None, number]}
        )
    return version


def template_default_restore(*, bot_id: Any, kind: str) -> None:
    """Deactivate every override of this kind: the bot uses the default template file again."""
    with transaction.atomic():
        active = PromptTemplateVersion.objects.select_for_update().filter(
            bot_id=bot_id, kind=kind, is_active=True
        )
        for version in active:  # a queryset update sends no model signal: audited here
            audit_change_record(instance=version, changes={"is_active": [True, False]})
        active.update(is_active=False)

"""One error vocabulary: every exception class Parley defines is a `core.errors.ParleyError` (a stable
code, a message, extra, a kind), and each HTTP edge maps the kind to a status once."""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import MultipleObjectsReturned, ObjectDoesNotExist
from django.test import Client

from conversations.models import Conversation
from core.errors import HTTP_STATUS, ErrorKind, ParleyError
from handoff.services import HandoffError
from tests.api.factories import bot_make, widget_key_make, workspace_make
from tests.core.test_import_graph import map_layers

ROOT = Path(__file__).resolve().parents[2]


def _app_modules() -> list[str]:
    """Every module of every Parley app (the apps of ARCHITECTURE.md's map, whatever comes next)."""
    modules = []
    for app in sorted(app for layer in map_layers() for app in layer):
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules.append(module.removesuffix(".__init__"))
    return modules


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def _base_resolved(namespace: dict[str, Any], node: ast.expr) -> object:
    """What a class statement's base names (`Name` or `a.b.Name`) in its module, or None."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        owner = _base_resolved(namespace, node.value)
        return getattr(owner, node.attr, None)
    return None


def _ast_exception_classes(module: str) -> list[tuple[str, list[type]]]:
    """Every class statement of the module (nested ones too) with an exception among its bases, with
    its bases: this sees what an import-time walk cannot (a class made inside a function)."""
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    namespace = vars(importlib.import_module(module))
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = [_base_resolved(namespace, base) for base in node.bases]
            types = [base for base in bases if isinstance(base, type)]
            if any(issubclass(base, BaseException) for base in types):
                found.append((node.name, types))
    return found


def test_every_exception_class_of_every_app_is_a_parley_error_with_a_code(
    settings: Any,
) -> None:
    """Found by inheritance, not by name: every module of every app is imported, then every subclass
    of Exception defined in an app is checked, and every class statement whose base is an exception.
    `config.asgi` warms the process up when imported; that needs the database, so it is off here."""
    settings.PARLEY_WARM_UP = False
    modules = _app_modules()
    for module in modules:
        importlib.import_module(module)
    apps = tuple(f"{module.split('.')[0]}." for module in modules)
    classes = {
        cls
        for cls in _subclasses(BaseException)
        if cls.__module__.startswith(apps) and not _made_by_django(cls)
    }
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in classes}
    # The five that once slipped, whatever their names, and errors of every shape of name.
    assert {
        "insights.services.cases_io.CasesImportError",
        "insights.services.knowledge.ReviewRefused",
        "insights.services.runs.RunRefused",
        "insights.services.runs.DocumentsPending",
        "rag.preview.PreviewUnavailable",
        "prompts.services.templates.TemplateRejected",
        "prompts.selectors.BotNotFound",
    } <= names
    assert len(classes) >= 20
    strays = sorted(_name(cls) for cls in classes if not issubclass(cls, ParleyError))
    assert strays == [], f"not ParleyErrors: {strays}"
    for cls in classes:
        assert cls.code and cls.kind in HTTP_STATUS, f"{_name(cls)} has no code or kind"
    for module in modules:
        for name, bases in _ast_exception_classes(module):
            if (module, name) == ("core.errors", "ParleyError"):
                continue  # the root itself
            assert any(issubclass(base, ParleyError) for base in bases), f"{module}.{name}"


def _made_by_django(cls: type) -> bool:
    """The ORM's per-model `DoesNotExist` and `MultipleObjectsReturned` (and a relation's
    `RelatedObjectDoesNotExist`): classes Django makes, with no class statement in Parley."""
    return issubclass(
        cls, ObjectDoesNotExist | MultipleObjectsReturned
    ) and cls.__qualname__.endswith(("DoesNotExist", "MultipleObjectsReturned"))


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_an_error_carries_its_code_message_and_extra() -> None:
    error = HandoffError("handoff_not_allowed", "the conversation is owned by resolved")
    assert error.kind is ErrorKind.CONFLICT and error.http_status == 409
    assert error.as_json() == {
        "code": "handoff_not_allowed",
        "message": "the conversation is owned by resolved",
        "extra": {},
    }


@pytest.mark.django_db
def test_the_api_maps_a_service_error_by_its_kind_with_its_code_as_the_reason() -> None:
    bot = bot_make(workspace_make())
    bot.escalation_allowed = True
    bot.save()
    origin = "https://shop.example"
    key = widget_key_make(bot, origins=(origin,)).key
    client = Client()
    headers = {"Authorization": f"Bearer {key}", "Origin": origin}
    session = client.post(
        "/api/v1/sessions", data={}, content_type="application/json", headers=headers
    ).json()
    Conversation.objects.filter(pk=session["conversation_id"]).update(owner="resolved")
    response = client.post(
        f"/api/v1/conversations/{session['conversation_id']}/handoff",
        data={},
        content_type="application/json",
        headers={**headers, "X-Parley-Session": session["session_token"]},
    )
    assert response.status_code == 409
    body = response.json()
    assert (body["code"], body["extra"]["reason"]) == ("conflict", "handoff_not_allowed")

"""The one Jinja environment that renders prompts: sandboxed, strict, no autoescape, lists as JSON.

Templates come from templates/prompts/ (the defaults, also includable from overrides) or
from a per-bot override's source. Lists and dicts printed with {{ }} become JSON, never
Python reprs, and `tojson` does not HTML-escape (prompts are not HTML).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from django.conf import settings
from jinja2 import FileSystemLoader, StrictUndefined, Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

ANSWER_TEMPLATE = "answer.jinja"
CONDENSE_TEMPLATE = "condense_question.jinja"


def _json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _finalize(value: Any) -> Any:
    """Printed lists put one compact JSON item per line: readable for the admin, cheap in tokens."""
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(f"  {_json(item)}" for item in value) + "\n]"
    if isinstance(value, dict):
        return _json(value)
    return value


@functools.cache
def prompt_environment() -> ImmutableSandboxedEnvironment:
    """Immutable sandbox: templates can neither reach Python internals nor mutate the data they get."""
    env = ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(str(settings.BASE_DIR / "templates" / "prompts")),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_finalize,
        auto_reload=settings.DEBUG,
    )
    env.filters["tojson"] = _json
    return env


@functools.lru_cache(maxsize=256)
def template_compile(source: str) -> Template:
    """Compile an override's source once per distinct text."""
    return prompt_environment().from_string(source)


def template_default_source(name: str) -> str:
    """The text of a default template file, e.g. to prefill an override form."""
    env = prompt_environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return source

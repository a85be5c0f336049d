"""Check a template before it may be saved: it must compile, use only known variables, and render
in the sandbox against sample data. Every refusal names the template line at fault."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import TracebackType

from jinja2 import TemplateSyntaxError, meta, nodes
from jinja2.exceptions import SecurityError, TemplateNotFound, UndefinedError

from prompts.engine.environment import prompt_environment
from prompts.engine.render import TEMPLATE_VARIABLES, prompt_variables
from prompts.engine.samples import (
    SAMPLE_CHUNKS,
    SAMPLE_HISTORY,
    SAMPLE_QUESTION,
    sample_bot_settings,
)


@dataclass(frozen=True)
class TemplateProblem:
    code: str  # template_syntax, template_unknown_variable, template_forbidden, template_render
    message: str
    line: int | None

    def __str__(self) -> str:
        where = f"Line {self.line}: " if self.line else ""
        return f"{where}{self.message}"


def template_check(*, source: str) -> TemplateProblem | None:
    """The first problem of a template source, or None when it is safe to activate."""
    env = prompt_environment()
    try:
        tree = env.parse(source)
    except TemplateSyntaxError as exc:
        return TemplateProblem("template_syntax", f"syntax error: {exc.message}", exc.lineno)
    allowed = TEMPLATE_VARIABLES | set(env.globals)
    unknown = sorted(meta.find_undeclared_variables(tree) - allowed)
    if unknown:
        name = unknown[0]
        return TemplateProblem(
            "template_unknown_variable",
            f"unknown variable “{name}”. Available: {', '.join(sorted(TEMPLATE_VARIABLES))}.",
            _first_line_of(tree, name),
        )
    template = env.from_string(source)
    for strictness in ("strict", "relaxed"):
        bot = sample_bot_settings(strictness=strictness)
        variables = prompt_variables(
            bot=bot,
            question=SAMPLE_QUESTION,
            history=SAMPLE_HISTORY,
            chunks=SAMPLE_CHUNKS,
            locale="en",
        )
        try:
            template.render(variables)
        except SecurityError as exc:
            return TemplateProblem(
                "template_forbidden", f"forbidden in the sandbox: {exc}", _template_line()
            )
        except UndefinedError as exc:
            return TemplateProblem(
                "template_unknown_variable", f"undefined value: {exc}", _template_line()
            )
        except TemplateNotFound as exc:
            return TemplateProblem(
                "template_render", f"included template not found: {exc}", _template_line()
            )
        except (
            Exception
        ) as exc:  # any failure of an admin's template is reported, never raised into the admin
            return TemplateProblem(
                "template_render", f"{exc.__class__.__name__}: {exc}", _template_line()
            )
    return None


def _first_line_of(tree: nodes.Template, name: str) -> int | None:
    lines = [
        node.lineno
        for node in tree.find_all(nodes.Name)
        if node.name == name and node.ctx == "load"
    ]
    return min(lines) if lines else None


def _template_line() -> int | None:
    """Jinja rewrites tracebacks so template frames carry the template's own line numbers."""
    tb: TracebackType | None = sys.exc_info()[2]
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

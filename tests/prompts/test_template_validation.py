"""A template is checked in the sandbox before it is saved; every refusal names the line at fault."""

from __future__ import annotations

import pytest

from prompts.engine import template_check


@pytest.mark.parametrize(
    ("source", "code", "line", "words"),
    [
        ("Hello\n{% if question %}\nno end", "template_syntax", 3, "syntax error"),
        ("Hello\n\n{{ customer_name }}", "template_unknown_variable", 3, "customer_name"),
        ("A\n{{ ''.__class__ }}", "template_forbidden", 2, "unsafe"),
        ("A\nB\n{{ question.__class__.__mro__ }}", "template_forbidden", 3, "unsafe"),
        ("A\n{{ bot.no_such_field }}", "template_unknown_variable", 2, "no_such_field"),
        ("{% set x = covered_topics.append('x') %}", "template_forbidden", 1, "unsafe"),
        ('{% include "no/such/file.jinja" %}', "template_render", 1, "not found"),
        ('x\n{% include "../../config/settings.py" %}', "template_render", 2, "not found"),
    ],
)
def test_bad_templates_are_refused_with_their_line(
    source: str, code: str, line: int, words: str
) -> None:
    problem = template_check(source=source)
    assert problem is not None
    assert (problem.code, problem.line) == (code, line)
    assert words in problem.message
    assert str(problem).startswith(f"Line {line}: ")


def test_a_template_using_every_spec_variable_is_accepted() -> None:
    source = (
        "{{ context }}{{ chat_history }}{{ question }}{{ locale }}{{ covered_topics }}{{ excluded_topics }}"
        "{{ lexicon_groups }}{% if explainability %}x{% endif %}{% for g in lexicon_groups %}{{ g.terms }}{% endfor %}"
        '{% include "sections/1_system_rules.jinja" %}'
    )
    assert template_check(source=source) is None

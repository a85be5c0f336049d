"""The typed env readers fail loudly, naming the variable."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_choice, env_float, env_int, env_list, env_str


def test_values_parse_and_defaults_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P_INT", "42")
    monkeypatch.setenv("P_BOOL", "yes")
    monkeypatch.setenv("P_FLOAT", "0.25")
    monkeypatch.setenv("P_LIST", "a, b,,c")
    monkeypatch.setenv("P_EMPTY", "  ")
    assert env_int("P_INT", 1) == 42
    assert env_bool("P_BOOL", False) is True
    assert env_float("P_FLOAT", 1.0) == 0.25
    assert env_list("P_LIST", []) == ["a", "b", "c"]
    assert env_str("P_EMPTY", "fallback") == "fallback"
    assert env_choice("P_MISSING", "local", ("local", "openai")) == "local"


@pytest.mark.parametrize(
    ("reader", "value", "message"),
    [
        (lambda: env_int("P_BAD", 1), "ten", "P_BAD='ten' is not an integer"),
        (lambda: env_int("P_BAD", 1, maximum=5), "9", "P_BAD=9 is above the maximum 5"),
        (lambda: env_bool("P_BAD", True), "maybe", "P_BAD='maybe' is not a boolean"),
        (lambda: env_float("P_BAD", 1.0), "x", "P_BAD='x' is not a number"),
        (lambda: env_choice("P_BAD", "a", ("a", "b")), "c", "P_BAD='c' is not one of: a, b"),
    ],
)
def test_bad_values_fail_loudly(
    monkeypatch: pytest.MonkeyPatch, reader, value: str, message: str
) -> None:
    monkeypatch.setenv("P_BAD", value)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()

"""Every environment variable the settings (config/settings/) read is documented: a row of
docs/configuration.md and a line of .env.example (read from the settings' syntax tree, so a new
variable cannot slip in undocumented)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_READERS = {"os.environ.get", "os.getenv", "os.environ.setdefault"}


def settings_variables() -> set[str]:
    """The names passed to the typed readers (`env_str`, `env_int`, ...) and to `os.environ`."""
    parts = sorted((ROOT / "config/settings").glob("*.py"))
    trees = [ast.parse(part.read_text()) for part in parts]
    found: set[str] = set()
    for node in (node for tree in trees for node in ast.walk(tree)):
        if isinstance(node, ast.Call) and node.args:
            reader = ast.unparse(node.func)
            name = node.args[0]
            if (reader.startswith("env_") or reader in _READERS) and isinstance(name, ast.Constant):
                found.add(str(name.value))
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.slice, ast.Constant)
        ):
            found.add(str(node.slice.value))
    return found


def test_the_settings_read_variables_this_test_can_see() -> None:
    names = settings_variables()
    assert {"DATABASE_URL", "LLM_PROVIDER", "API_KEY_CACHE_SECONDS", "PARLEY_OCR_DPI"} <= names
    assert len(names) > 80


def test_every_variable_is_in_the_configuration_page() -> None:
    page = (ROOT / "docs/configuration.md").read_text()
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", page))
    assert sorted(settings_variables() - documented) == []


def test_every_variable_is_in_env_example() -> None:
    example = (ROOT / ".env.example").read_text()
    listed = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", example, flags=re.MULTILINE))
    assert sorted(settings_variables() - listed) == []


# Read outside the settings, each for its reason (and documented like a setting all the same).
READ_ELSEWHERE = {
    # OpenMP reads it itself when the local model starts; rag's OCR may set its default in the same
    # process after the settings are loaded, so it is read where OpenMP reads it, at run time.
    "OMP_THREAD_LIMIT": "textmodels/embeddings/threads.py",
}


def environment_reads(path: Path) -> set[str]:
    """The variables a module reads itself: `os.environ.get`, `os.getenv`, `os.environ[...]` and the
    typed readers (`env_str`...); setting a child process's default (`setdefault`) is not a read."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            reader = ast.unparse(node.func)
            if reader.startswith("env_") or reader in {"os.environ.get", "os.getenv"}:
                found.add(str(node.args[0].value))
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
        ):
            found.add(str(node.slice.value))
    return found


def test_the_settings_are_the_one_reader_of_the_environment() -> None:
    from tests.core.test_import_graph import map_layers

    apps = sorted(app for layer in map_layers() for app in layer)
    readers = {
        f"{path.relative_to(ROOT)}: {name}"
        for app in apps
        for path in sorted((ROOT / app).rglob("*.py"))
        if path.relative_to(ROOT).parent.as_posix() != "config/settings"
        and path.relative_to(ROOT).as_posix() != "config/env.py"
        for name in environment_reads(path)
    }
    assert readers == {f"{where}: {name}" for name, where in READ_ELSEWHERE.items()}


def test_what_is_read_elsewhere_is_documented_too() -> None:
    page = (ROOT / "docs/configuration.md").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in READ_ELSEWHERE:
        assert f"`{name}`" in page
        assert re.search(rf"^#?\s*{name}=", example, flags=re.MULTILINE)

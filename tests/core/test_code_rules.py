"""The house rules a reader can check with `ast`, held by tests over every module (apps, bench, tests):
a module's `_private` names stay in it, and results with more than four fields are built by keyword."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "migrations", "node_modules"}
FIELDS_MAX = 4  # a result with more fields is built by keyword


def _modules(root: Path = ROOT) -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(root.rglob("*.py")):
        if SKIPPED.isdisjoint(path.relative_to(root).parts):
            yield path, ast.parse(path.read_text(), filename=str(path))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(root: Path = ROOT) -> list[str]:
    """`from m import _name` and `import m._private` anywhere (functions included)."""
    found = []
    for path, tree in _modules(root):
        where = path.relative_to(root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                found += [
                    f"{where}:{node.lineno} imports {alias.name} from {node.module}"
                    for alias in node.names
                    if _private(alias.name)
                ]
            elif isinstance(node, ast.Import):
                found += [
                    f"{where}:{node.lineno} imports {alias.name}"
                    for alias in node.names
                    if any(_private(part) for part in alias.name.split("."))
                ]
    return found


def _is_record(node: ast.ClassDef) -> bool:
    """A dataclass or a NamedTuple: a class whose calls build a result from its fields."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(target) in {"dataclass", "dataclasses.dataclass"}:
            return True
    return any(ast.unparse(base) in {"NamedTuple", "typing.NamedTuple"} for base in node.bases)


def _fields(node: ast.ClassDef) -> int:
    return sum(
        1
        for statement in node.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and "ClassVar" not in ast.unparse(statement.annotation)
    )


def positional_constructions(root: Path = ROOT) -> list[str]:
    """Calls that pass positional arguments (`*args` included) to one of the project's dataclasses or
    NamedTuples with more than four fields: such a result is built by keyword."""
    trees = list(_modules(root))
    fields: dict[str, int] = {}
    for _, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and _is_record(node):
                fields[node.name] = max(fields.get(node.name, 0), _fields(node))
    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if isinstance(node.func, ast.Name):
                name = node.func.id
            if fields.get(name, 0) > FIELDS_MAX:
                found.append(
                    f"{path.relative_to(root)}:{node.lineno} {name}({len(node.args)} args)"
                )
    return found


def test_no_module_imports_another_modules_private_name() -> None:
    assert private_imports() == []


def test_results_with_more_than_four_fields_are_built_by_keyword() -> None:
    assert positional_constructions() == []


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """The checks themselves, on a tree of their own."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app/moves.py").write_text(
        "from dataclasses import dataclass\nfrom typing import NamedTuple\n\n"
        "@dataclass(frozen=True)\nclass Run:\n    a: int\n    b: int\n    c: int\n    d: int\n    e: int = 0\n\n"
        "class Pair(NamedTuple):\n    a: int\n    b: int\n\n"
        "class Wide(NamedTuple):\n    a: int\n    b: int\n    c: int\n    d: int\n    e: int\n"
    )
    (tmp_path / "app/receive.py").write_text(
        "from app.moves import Pair, Run, Wide, _helper\n"
        "import app._internal\n"
        "def f(values):\n"
        "    from app import moves\n"
        "    return Run(1, 2, 3, 4, 5), Run(1, e=5), moves.Wide(*values), Pair(1, 2), Run(a=1)\n"
    )
    assert private_imports(tmp_path) == [
        "app/receive.py:1 imports _helper from app.moves",
        "app/receive.py:2 imports app._internal",
    ]
    assert positional_constructions(tmp_path) == [
        "app/receive.py:5 Run(5 args)",
        "app/receive.py:5 Run(1 args)",
        "app/receive.py:5 Wide(1 args)",
    ]

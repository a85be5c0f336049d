"""No import circles inside an app: a module's imports of its own app's modules (with `ast`, imports
inside functions included, as the import-graph test reads them) never lead back to it.

A circle hides which module is the lower one: the usual one was services importing their own task
module to queue it while the tasks import the services. Services queue through the app's `queue.py`
(core.queue, by the task's name) instead."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.core.test_import_graph import ROOT, map_layers

# Circles accepted, each with its reason (none today).
ACCEPTED: dict[str, str] = {}


def app_modules(app: str, root: Path = ROOT) -> dict[str, Path]:
    """The app's modules by dotted name (a package by its own name), migrations left out."""
    found = {}
    for path in sorted((root / app).rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _owner(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` lives in: itself, or the nearest package holding it (a name imported from it)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the same app that `name` imports, wherever the import stands."""
    found: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_owner(alias.name, modules) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                # `from pkg import mod` imports the module mod; `from mod import name`, mod.
                full = f"{source}.{alias.name}"
                owner = full if full in modules else _owner(source, modules)
                if owner is not None:
                    found.add(owner)
    found.discard(name)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def app_circles(app: str, root: Path = ROOT) -> list[list[str]]:
    modules = app_modules(app, root)
    graph = {name: module_imports(name, path, modules) for name, path in modules.items()}
    return circles(graph)


def test_no_app_has_an_import_circle_inside_it() -> None:
    apps = sorted(app for layer in map_layers() for app in layer)
    found = {" ↔ ".join(circle): app for app in apps for circle in app_circles(app) if circle}
    assert {circle for circle in found if circle not in ACCEPTED} == set()
    assert set(ACCEPTED) <= set(found), "an accepted circle is gone: drop it from the list"


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    """The check itself, on a tree of its own: services queueing through their task module (the
    import inside a function) close a circle; a queue module below both does not."""
    files = {
        "shop/__init__.py": "",
        "shop/services.py": "def order_place() -> None:\n    from shop.tasks import order_task\n",
        "shop/tasks.py": "from shop.services import order_place\n",
        "shop/queue.py": "from core.queue import task_enqueue\n",
        "shop/selectors.py": "from . import queue\nfrom .queue import task_enqueue\n",
        "shop/parts/__init__.py": "from .a import x\n",
        "shop/parts/a.py": "from .. import selectors\n",
    }
    for name, source in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)

    assert app_circles("shop", root=tmp_path) == [["shop.services", "shop.tasks"]]
    modules = app_modules("shop", tmp_path)
    assert module_imports("shop.selectors", modules["shop.selectors"], modules) == {"shop.queue"}
    assert module_imports("shop.parts", modules["shop.parts"], modules) == {"shop.parts.a"}
    assert module_imports("shop.parts.a", modules["shop.parts.a"], modules) == {"shop.selectors"}

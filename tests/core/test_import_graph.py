"""The dependency rule of ARCHITECTURE.md, held by the code: every import between Parley's apps points
down the map (`config` at the top, `core` at the bottom), never up and never beside.

The layers are read from the map itself, so the drawing and this test cannot drift apart."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_APP = re.compile(r"([a-z_]+)/(?=\s)")


def map_layers() -> list[set[str]]:
    """The apps of each level of ARCHITECTURE.md's map, top first (apps side by side share one)."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    block = text.split("## The map", 1)[1].split("```", 2)[1]
    layers: list[set[str]] = [set()]
    for line in block.splitlines():
        if line.strip() == "↓":
            layers.append(set())
            continue
        rest = line
        while match := _APP.match(rest):
            layers[-1].add(match.group(1))
            rest = rest[match.end() :].lstrip()
    return [layer for layer in layers if layer]


def _imports(path: Path) -> set[str]:
    """The top-level packages a module imports, wherever the import stands (functions included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def upward_imports(layers: list[set[str]], root: Path = ROOT) -> list[str]:
    level = {app: index for index, layer in enumerate(layers) for app in layer}
    problems = []
    for app, app_level in sorted(level.items()):
        for path in sorted((root / app).rglob("*.py")):
            for target in sorted(_imports(path) & level.keys() - {app}):
                if level[target] <= app_level:
                    where = "above" if level[target] < app_level else "beside"
                    problems.append(f"{path.relative_to(root)} imports {target} ({where} {app})")
    return problems


def test_the_map_names_every_app_once_with_config_on_top_and_core_at_the_bottom() -> None:
    layers = map_layers()
    names = [app for layer in layers for app in layer]
    assert len(names) == len(set(names))
    assert layers[0] == {"config"} and layers[-1] == {"core"}
    packages = {
        path.parent.name
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench"}
    }
    assert packages == set(names), "every package is an app placed on the map"


def test_no_app_imports_an_app_above_or_beside_it() -> None:
    assert upward_imports(map_layers()) == []


def test_an_upward_or_sideways_import_is_found(tmp_path: Path) -> None:
    """The check itself, on a tree of its own: up and beside are reported, down is not."""
    files = {
        "config/urls.py": "import widget.views\n",
        "widget/views.py": "from core.models import Workspace\n",
        "agent/views.py": "def f() -> None:\n    from widget import views\n",
        "core/selectors.py": "def f() -> None:\n    from config.celery import app\n",
    }
    for name, source in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(source)
    layers = [{"config"}, {"widget", "agent"}, {"core"}]
    assert upward_imports(layers, root=tmp_path) == [
        "agent/views.py imports widget (beside agent)",
        "core/selectors.py imports config (above core)",
    ]

"""One gateway per external service: only the gateway package (core/llm/gateway/) imports `openai`."""

from __future__ import annotations

import ast
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "var", "node_modules", "__pycache__"}


def _project_sources() -> list[Path]:
    sources = []
    for folder, subfolders, files in os.walk(ROOT):
        # Prune in place: never walk into the virtualenv, the embedded services' data or hidden folders.
        subfolders[:] = [
            name for name in subfolders if name not in SKIPPED and not name.startswith(".")
        ]
        sources += [Path(folder) / name for name in files if name.endswith(".py")]
    return sources


def _imports_openai(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            alias.name.split(".")[0] == "openai" for alias in node.names
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "openai"
        ):
            return True
        if isinstance(node, ast.Call) and _dynamic_import_of_openai(node):
            return True
    return False


def _dynamic_import_of_openai(call: ast.Call) -> bool:
    name = getattr(call.func, "id", None) or getattr(call.func, "attr", "")
    if name not in {"__import__", "import_module"}:
        return False
    return any(
        isinstance(arg, ast.Constant) and str(arg.value).split(".")[0] == "openai"
        for arg in call.args
    )


def test_only_the_gateway_imports_openai() -> None:
    sources = _project_sources()
    assert len(sources) > 100  # the scan really walked the project
    importers = sorted(
        str(path.relative_to(ROOT))
        for path in sources
        if _imports_openai(ast.parse(path.read_text(), str(path)))
    )
    gateway = "core/llm/gateway/"
    assert importers and all(path.startswith(gateway) for path in importers), importers


def test_the_scan_sees_every_form_of_import() -> None:
    imports = [
        "import openai",
        "import openai.types as t",
        "from openai import OpenAI",
        "from openai.types import x",
    ]
    for source in [*imports, "importlib.import_module('openai')", "__import__('openai.types')"]:
        assert _imports_openai(ast.parse(source)), source
    for source in [
        "import openai_helpers",
        "from .openai import x",
        "from core.llm import gateway",
    ]:
        assert not _imports_openai(ast.parse(source)), source

"""The size rule of ARCHITECTURE.md: a product module (a `.py` file outside tests/, bench/ and migrations)
holds at most 300 lines; one that grows past it becomes a package split along its seams."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINES_MAX = 300
# Not product code: the tests, the benchmarks, and the migrations Django writes.
_NOT_PRODUCT = {"tests", "bench"}
_SKIPPED = {"migrations", "node_modules", "var", "__pycache__"}

# Modules other branches of this round split while they edit them. The integrator removes this set once
# those branches are merged: from then on every product module is held to the rule.
_SPLIT_ELSEWHERE = {
    "conversations/contract/enforce.py",
    "conversations/models.py",
    "conversations/admin.py",
    "insights/admin/turns.py",
}


def product_modules(root: Path = ROOT) -> list[Path]:
    """Every product module under `root`, as paths relative to it."""
    modules = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if parts[0] in _NOT_PRODUCT or not _SKIPPED.isdisjoint(parts):
            continue
        if any(part.startswith(".") for part in parts):  # .venv, .git and other hidden folders
            continue
        modules.append(path.relative_to(root))
    return modules


def lines_of(path: Path) -> int:
    return len(path.read_text().splitlines())


def oversized(root: Path = ROOT) -> dict[str, int]:
    """The product modules over LINES_MAX lines, with their line counts."""
    return {
        str(module): count
        for module in product_modules(root)
        if (count := lines_of(root / module)) > LINES_MAX
    }


def test_no_product_module_is_over_the_limit() -> None:
    assert len(product_modules()) > 300  # the walk really found the project
    over = {
        module: count for module, count in oversized().items() if module not in _SPLIT_ELSEWHERE
    }
    assert over == {}, f"over {LINES_MAX} lines, split them into packages: {over}"


def test_the_modules_split_elsewhere_are_still_product_modules() -> None:
    # A stale entry (renamed, moved) would silently exempt nothing; the set names real modules.
    modules = {str(module) for module in product_modules()}
    assert modules >= _SPLIT_ELSEWHERE


def test_the_rule_counts_lines_and_skips_what_is_not_product(tmp_path: Path) -> None:
    long = "\n".join(f"x{n} = {n}" for n in range(LINES_MAX + 1)) + "\n"
    short = "\n".join(f"x{n} = {n}" for n in range(LINES_MAX)) + "\n"
    for place, text in {
        "app/big.py": long,
        "app/ok.py": short,
        "app/migrations/0001_initial.py": long,
        "tests/test_big.py": long,
        "bench/big.py": long,
        ".venv/lib/big.py": long,
    }.items():
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / place).write_text(text)
    assert oversized(tmp_path) == {"app/big.py": LINES_MAX + 1}
    assert [str(module) for module in product_modules(tmp_path)] == ["app/big.py", "app/ok.py"]

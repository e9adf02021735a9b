"""The test suite's own rules: every test name says one thing, once."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def duplicate_test_names(files) -> list[str]:
    """Test functions defined more than once: module-level ``test_x`` and methods
    ``Class.test_x`` (a subclass may override its base's test)."""
    names = Counter()
    for path in files:
        for node in ast.parse(Path(path).read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names[node.name] += 1
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name.startswith("test_"):
                        names[f"{node.name}.{item.name}"] += 1
    return sorted(name for name, n in names.items() if n > 1)


def test_test_names_are_unique_across_the_suite():
    files = sorted(TESTS.glob("test_*.py"))
    assert len(files) > 10
    assert duplicate_test_names(files) == []


def test_the_unique_names_check_finds_a_duplicate(tmp_path):
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text("def test_same():\n    pass\n")
    assert duplicate_test_names(sorted(tmp_path.glob("*.py"))) == ["test_same"]

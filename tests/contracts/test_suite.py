"""The test suite's own rules: every test name says one thing, once; the tests mirror
the package, and every test module says what it checks."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


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
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 10
    assert duplicate_test_names(files) == []


def test_the_unique_names_check_finds_a_duplicate(tmp_path):
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text("def test_same():\n    pass\n")
    assert duplicate_test_names(sorted(tmp_path.glob("*.py"))) == ["test_same"]


#: Test folders that check no single package folder: the contracts (layers, docs,
#: conformance with the peer, races and kills, the suite itself) and the benchmark scripts.
NOT_MIRRORED = {"contracts": None, "benchmarks": "benchmarks"}


def package_folder(root: Path, test_folder: str) -> Path | None:
    """The package folder of project ``root`` that a test folder mirrors (``kernels``
    mirrors ``_kernels``; ``strategies`` and ``analysis`` are installed as
    ``yahtzee_sim.*``)."""
    for candidate in (
        root / "yahtzee_sim" / test_folder,
        root / "yahtzee_sim" / f"_{test_folder}",
        root / test_folder,
    ):
        if (candidate / "__init__.py").exists():
            return candidate
    return None


def misplaced_tests(tests: Path) -> list[str]:
    """Test modules under ``tests`` outside the package's mirror: each sits in a folder
    named after the package folder it checks (or in ``contracts/`` / ``benchmarks/``), and
    one at the top checks a top-level module of the package."""
    out = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if len(rel.parts) == 1:
            module = rel.stem.removeprefix("test_")
            if not (tests.parent / "yahtzee_sim" / f"{module}.py").exists():
                out.append(rel.as_posix())
        elif (
            rel.parts[0] not in NOT_MIRRORED and package_folder(tests.parent, rel.parts[0]) is None
        ):
            out.append(rel.as_posix())
    return out


def test_the_tests_mirror_the_package():
    assert misplaced_tests(TESTS) == []
    assert {p.name for p in TESTS.iterdir() if p.is_dir()} >= {"game", "engine", "solving"}


def test_the_mirror_check_finds_a_misplaced_module(tmp_path):
    for folder in ("yahtzee_sim/game", "yahtzee_sim/_kernels"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "yahtzee_sim" / "errors.py").write_text("")
    for test in ("game/test_a", "kernels/test_b", "test_errors", "misc/test_c", "test_d"):
        (tmp_path / "tests" / test).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / f"{test}.py").write_text("")
    assert misplaced_tests(tmp_path / "tests") == ["misc/test_c.py", "test_d.py"]


def test_every_test_module_says_what_it_checks():
    silent = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("test_*.py"))
        if not ast.get_docstring(ast.parse(path.read_text()))
    ]
    assert not silent, f"test modules without a docstring: {silent}"


def test_no_test_module_imports_another():
    """Shared code lives in helpers.py (or the brute-force modules): a test module that
    imports another finds it only when a test of that folder ran first in its worker."""
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("test_"):
                offenders.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert not offenders, f"test modules importing test modules: {offenders}"

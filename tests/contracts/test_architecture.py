"""The Architecture page matches the tree: every folder of the project and every module of
the package is named under "Where things live", and every file a row of "Where a change
goes" names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text()
#: Folders that hold no source of the project (caches, build output, tool state).
NOT_SOURCE = {"__pycache__", "site", "build", "dist", ".benchmarks"}


def section(title: str) -> str:
    """The text of the page's section headed ``title`` (to the next heading)."""
    start = PAGE.index(f"# {title}\n")
    rest = PAGE[start:].split("\n", 1)[1]
    end = re.search(r"^#{1,3} ", rest, flags=re.M)
    return rest[: end.start()] if end else rest


WHERE = section("Where things live")
ROWS = {
    m.group(1): m.group(2)
    for m in re.finditer(r"^\| `([^`]+/)`[^|]*\| (.*) \|$", WHERE, flags=re.M)
}


def folders() -> list[str]:
    """Every folder of the project (``a/b/``), hidden and generated ones left out."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if not path.is_dir() or any(
            part.startswith(".") or part in NOT_SOURCE or part.endswith(".egg-info")
            for part in rel.parts
        ):
            continue
        out.append(rel.as_posix() + "/")
    return out


@pytest.mark.parametrize("folder", folders())
def test_every_folder_is_named(folder):
    """A Python package is named itself; any other folder may be named by a parent."""
    named = [*ROWS, *re.findall(r"`([\w./-]+/)`", WHERE)]
    package = (ROOT / folder / "__init__.py").exists()
    assert any(folder == f or (not package and folder.startswith(f)) for f in named), (
        f"{folder} is not named under 'Where things live' in docs/architecture.md"
    )


@pytest.mark.parametrize("folder", sorted(ROWS))
def test_every_module_of_a_folder_is_named_in_its_row(folder):
    modules = [
        p.stem
        for p in sorted((ROOT / folder).glob("*.py"))
        if not p.name.startswith("_") or (folder.startswith("yahtzee_sim/_") and p.stem[1] != "_")
    ]
    missing = [m for m in modules if f"`{m}`" not in ROWS[folder]]
    assert not missing, f"docs/architecture.md, row {folder}: name {missing}"


def test_every_file_a_change_goes_to_exists():
    table = section("Where a change goes")
    named = re.findall(r"`((?:[\w-]+/)+[\w.-]+\.(?:py|md|toml))`", table)
    assert named
    missing = [
        f
        for f in named
        if not any((ROOT / base / f).exists() for base in ("", "yahtzee_sim", "tests", "docs"))
    ]
    assert not missing, f"'Where a change goes' names files that do not exist: {missing}"

"""Numba caches of the kernels are keyed on every shared kernel file, so editing a shared
kernel (the scoring step, the widget) can never leave a stale compiled cache behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import yahtzee_sim._kernels as kernels
from yahtzee_sim._kernels import (
    SharedSourceLocator,
    SharedUserDirLocator,
    numba_locators,
    source_stamp,
)
from yahtzee_sim._kernels.widget import widget


@pytest.mark.skipif(
    bool(os.environ.get("NUMBA_CACHE_DIR")), reason="NUMBA_CACHE_DIR set: numba's own folder"
)
def test_project_kernels_use_the_shared_source_locator():
    assert numba_locators()[:2] == [SharedUserDirLocator, SharedSourceLocator]
    for kernel in (widget,):
        assert isinstance(kernel._cache._impl.locator, SharedSourceLocator)


def test_cache_file_names_change_when_a_shared_file_is_renamed():
    """An index written before a rename (it names its types by module) is never read."""
    before = kernels.names_tag((Path("k/play.py"), Path("k/widget.py")))
    assert kernels.names_tag((Path("k/scoring.py"), Path("k/widget.py"))) != before
    assert kernels.names_tag((Path("other/play.py"), Path("k/widget.py"))) == before
    for kernel in (widget,):
        locator = kernel._cache._impl.locator
        assert locator.get_disambiguator().endswith(f"-{kernels.names_tag()}")


def test_foreign_files_keep_numba_locators(tmp_path):
    other = tmp_path / "mod.py"
    other.write_text("def f():\n    return 1\n")
    ns: dict = {}
    exec(compile(other.read_text(), str(other), "exec"), ns)
    assert SharedSourceLocator.from_function(ns["f"], str(other)) is None


def test_stamp_changes_when_any_shared_file_changes(tmp_path):
    own = tmp_path / "own.py"
    shared = [tmp_path / f"shared{i}.py" for i in range(3)]
    for p in [own, *shared]:
        p.write_text("x = 1\n")
    before = source_stamp(own, tuple(shared))
    assert source_stamp(own, tuple(shared)) == before  # deterministic
    for p in shared:
        p.write_text("x = 2\n")
        after = source_stamp(own, tuple(shared))
        assert after != before
        before = after
    own.write_text("x = 3\n")
    assert source_stamp(own, tuple(shared)) != before


def test_every_kernel_file_is_shared():
    names = {p.name for p in kernels.shared_sources()}
    assert {"scoring.py", "widget.py", "exact.py", "_yahtzee_boxes.py"} <= names


def test_strategy_kernels_are_found_in_an_installed_layout(tmp_path):
    """An installed package keeps the strategies in ``yahtzee_sim/strategies``, not
    beside the package as a source checkout does: both are project kernel folders."""
    site = tmp_path / "site"
    kernels_dir = site / "yahtzee_sim" / "_kernels"
    strategies_dir = site / "yahtzee_sim" / "strategies"
    for d in (kernels_dir, strategies_dir):
        d.mkdir(parents=True)
    (site / "yahtzee_sim" / "__init__.py").write_text("")
    (kernels_dir / "__init__.py").write_text(Path(kernels.__file__).read_text())
    (strategies_dir / "__init__.py").write_text("")
    (strategies_dir / "_yahtzee_boxes.py").write_text("x = 1\n")
    code = (  # an editable install's finder would map the package back to this checkout
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
        "if '__editable__' not in getattr(f, '__module__', '')]; "
        "import yahtzee_sim._kernels as k; "
        "print(*k.project_dirs(), sep='\\n'); print(k.shared_sources()[-1])"
    )
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [
        str((site / "yahtzee_sim").resolve()),
        str(strategies_dir.resolve()),
        str((strategies_dir / "_yahtzee_boxes.py").resolve()),
    ]


def test_kernels_outside_the_kernel_folder_carry_the_shared_stamp():
    """A kernel of any project module (here the engine's and the coach's) may inline the
    shared kernels: its cache must go stale with them, so it gets the shared locator."""
    from yahtzee_sim.analysis.decisions import saved_options
    from yahtzee_sim.engine import observation

    for module in (observation, saved_options):
        assert kernels.in_project(module.__file__)
        assert SharedSourceLocator.from_function(lambda: 0, module.__file__) is not None
    assert not kernels.in_project(Path(kernels.__file__).parents[2] / "elsewhere.py")


def test_strategy_kernels_are_found_in_this_checkout():
    import yahtzee_sim.strategies as strategies

    assert Path(strategies.__file__).resolve().parent in kernels.strategy_dirs()


def test_numba_cache_dir_is_honoured(tmp_path):
    """With ``NUMBA_CACHE_DIR`` set, the kernels are cached in that folder (a benchmark's
    cold run compiles into an empty one), keyed as beside the source."""
    code = (
        "from yahtzee_sim._kernels import SharedUserDirLocator\n"
        "from yahtzee_sim._kernels.widget import widget\n"
        "assert isinstance(widget._cache._impl.locator, SharedUserDirLocator)\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)

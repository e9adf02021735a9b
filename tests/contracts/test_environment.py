"""The environment is input: every variable the package reads is checked, and a bad value
gives one clear line naming the variable (an error, or a warning and a documented
fallback), never silence or a traceback.

Variables: ``YAHTZEE_SIM_MEMORY`` (the memory budget), ``YAHTZEE_SIM_CACHE``,
``XDG_CACHE_HOME`` and ``HOME`` (the folder of solved tables), ``YAHTZEE_SIM_THREADS`` (the
compiled core's threads). The command line is run in subprocesses: exit code 2, one line on
stderr, no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from yahtzee_sim.engine.memory_budget import (
    BUDGET_ENV,
    available_memory,
    memory_from_environment,
    parse_memory,
)
from yahtzee_sim.errors import EnvironmentVariableError, YahtzeeSimError
from yahtzee_sim.solving.cache import CacheWarning, cache_dir


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``python -m yahtzee_sim ARGS`` with ``env`` added to the environment."""
    return subprocess.run(
        [sys.executable, "-m", "yahtzee_sim", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


# ------------------------------------------------------------------ YAHTZEE_SIM_MEMORY
@pytest.mark.parametrize(
    ("text", "n_bytes"),
    [
        ("100000", 100_000),
        ("8e9", 8_000_000_000),
        ("8GB", 8_000_000_000),
        ("8g", 8_000_000_000),
        (" 12 MB ", 12_000_000),
        ("1.5GiB", 1_610_612_736),
        ("64 kib", 65_536),
        (".5k", 500),
        ("2TB", 2 * 10**12),
    ],
)
def test_memory_sizes_accepted(monkeypatch, text, n_bytes):
    assert parse_memory(text) == n_bytes
    monkeypatch.setenv(BUDGET_ENV, text)
    assert memory_from_environment() == n_bytes
    assert available_memory() == n_bytes


@pytest.mark.parametrize("text", ["lots", "-5", "0", "0.5", "1e400", "nan", "inf", "8 XB", "8 8"])
def test_memory_sizes_refused_in_one_line(monkeypatch, text):
    monkeypatch.setenv(BUDGET_ENV, text)
    with pytest.raises(EnvironmentVariableError) as info:
        available_memory()
    message = str(info.value)
    assert isinstance(info.value, YahtzeeSimError) and isinstance(info.value, ValueError)
    assert message.startswith(f"{BUDGET_ENV}={text!r} is not a memory size")
    assert "\n" not in message and "8GB" in message
    assert (info.value.variable, info.value.value) == (BUDGET_ENV, text)


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_memory_budget_counts_as_unset(monkeypatch, text):
    monkeypatch.setenv(BUDGET_ENV, text)
    assert memory_from_environment() is None
    monkeypatch.delenv(BUDGET_ENV)
    assert memory_from_environment() is None


def test_cli_refuses_a_bad_memory_budget_in_one_line():
    done = cli("simulate", "--strategy", "random", "--games", "10", YAHTZEE_SIM_MEMORY="lots")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "yahtzee-sim simulate: error: YAHTZEE_SIM_MEMORY='lots' is not a memory size: "
        "expected a positive number of bytes, optionally with a unit (8000000000, 8e9, "
        "8GB, 7.5GiB), or leave it unset to use the memory the machine has available"
    ]


# ------------------------------------------------------------------ the table cache folder
@pytest.fixture
def no_cache_vars(monkeypatch):
    """Neither YAHTZEE_SIM_CACHE nor XDG_CACHE_HOME set (the test sets what it needs)."""
    monkeypatch.delenv("YAHTZEE_SIM_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return monkeypatch


def test_cache_folder_default_order(no_cache_vars, tmp_path, recwarn):
    no_cache_vars.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "yahtzee_sim"
    no_cache_vars.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "yahtzee_sim"
    no_cache_vars.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    no_cache_vars.setenv("YAHTZEE_SIM_CACHE", "")  # empty: unset
    assert cache_dir() == tmp_path / "xdg" / "yahtzee_sim"
    no_cache_vars.setenv("YAHTZEE_SIM_CACHE", "~/tables")
    assert cache_dir() == tmp_path / "home" / "tables"
    assert not recwarn.list


def test_cache_folder_that_is_a_file(monkeypatch, tmp_path):
    file = tmp_path / "tables.bin"
    file.write_text("not a folder")
    for value, why in [
        (file, f"{file} is a file"),
        (file / "sub", f"the cache folder {file / 'sub'} cannot be made: {file} is a file"),
    ]:
        monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(value))
        with pytest.raises(EnvironmentVariableError) as info:
            cache_dir()
        assert str(info.value) == (
            f"YAHTZEE_SIM_CACHE={str(value)!r}: {why}; set YAHTZEE_SIM_CACHE to a folder "
            "(made if missing) for the cache of solved tables"
        )
        assert info.value.variable == "YAHTZEE_SIM_CACHE"


def test_cache_folder_not_writable_warns_and_is_still_read(monkeypatch, tmp_path):
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path))
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as for any user but root
    with pytest.warns(CacheWarning) as record:
        assert cache_dir() == tmp_path
    (warning,) = record
    assert str(warning.message) == (
        f"YAHTZEE_SIM_CACHE={str(tmp_path)!r}: the cache folder {tmp_path} is not "
        "writable: tables already there are read, tables solved now are not kept"
    )
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(tmp_path / "new" / "folder"))
    with pytest.warns(CacheWarning, match=f"cannot be made in {tmp_path}: tables already"):
        cache_dir()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anyway")
def test_read_only_cache_folder_for_real(monkeypatch, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(folder))
    try:
        with pytest.warns(CacheWarning, match="is not writable"):
            cache_dir()
    finally:
        folder.chmod(0o755)


def test_relative_xdg_cache_home_is_ignored_with_a_warning(no_cache_vars, tmp_path):
    no_cache_vars.setenv("HOME", str(tmp_path))
    no_cache_vars.setenv("XDG_CACHE_HOME", "relative/cache")
    with pytest.warns(CacheWarning, match=r"XDG_CACHE_HOME='relative/cache' is not an absolute"):
        assert cache_dir() == tmp_path / ".cache" / "yahtzee_sim"


def test_no_home_folder(no_cache_vars):
    def no_home(*args):
        raise RuntimeError("Could not determine home directory.")

    no_cache_vars.delenv("HOME", raising=False)
    no_cache_vars.setattr(Path, "home", classmethod(no_home))
    with pytest.warns(CacheWarning, match="no home folder .* set YAHTZEE_SIM_CACHE"):
        folder = cache_dir()
    assert folder.parent == Path(tempfile.gettempdir())
    assert folder.name.startswith("yahtzee_sim-")
    no_cache_vars.setenv("YAHTZEE_SIM_CACHE", "~/tables")
    no_cache_vars.setattr(Path, "expanduser", no_home)
    with pytest.raises(EnvironmentVariableError, match="no home folder to expand ~ to"):
        cache_dir()


def test_cli_refuses_a_cache_folder_that_is_a_file(tmp_path):
    file = tmp_path / "cache"
    file.write_text("")
    done = cli("solve", "--rules", "upper-3d4f", YAHTZEE_SIM_CACHE=str(file))
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"yahtzee-sim solve: error: YAHTZEE_SIM_CACHE={str(file)!r}: {file} is a file; set "
        "YAHTZEE_SIM_CACHE to a folder (made if missing) for the cache of solved tables"
    ]


# -------------------------------------------------------------- YAHTZEE_SIM_THREADS
@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_cli_refuses_a_thread_count_that_is_not_a_whole_number(value):
    # whether or not the command needs the threads (the table may be cached already)
    done = cli("solve", "--rules", "upper-3d4f", YAHTZEE_SIM_THREADS=value)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"yahtzee-sim solve: error: $YAHTZEE_SIM_THREADS must be a whole number of threads "
        f">= 1, got {value!r}"
    ]


def test_a_thread_count_from_the_environment_gives_the_same_values(monkeypatch):
    from yahtzee_sim.engine.threads import get_threads
    from yahtzee_sim.game.rules import get_rules
    from yahtzee_sim.solving.solver import solve

    values = []
    for n in ("1", "2"):
        monkeypatch.setenv("YAHTZEE_SIM_THREADS", n)
        assert get_threads() == int(n)
        values.append(solve(get_rules("upper-3d4f")).values)
    np.testing.assert_array_equal(values[0], values[1])

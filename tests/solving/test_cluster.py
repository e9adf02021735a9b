"""Solving on a dask cluster as a user runs one: a ``dask scheduler`` process and two
``dask worker`` processes on 127.0.0.1, started with the commands the Maxi Yatzy page
gives; the values equal the one-process solve bit for bit, also when a worker is killed
with SIGKILL while it computes a chunk of a level."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from yahtzee_sim.solving import levels

from helpers import small_saved_game

pytestmark = pytest.mark.slow

START_SECONDS = 120  # a process started on a loaded two-core machine


def _dask(*args: str, log: Path) -> subprocess.Popen:
    """``dask ARGS`` (the command the handbook gives) in a session of its own, its output
    in ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _scheduler_address(scheduler_file: Path, process: subprocess.Popen) -> str:
    """The address the scheduler writes into its scheduler file once it listens."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, "the dask scheduler exited at start"
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            return json.loads(scheduler_file.read_text())["address"]
        time.sleep(0.1)
    raise AssertionError(f"no scheduler file after {START_SECONDS} s")


def _stop(process: subprocess.Popen) -> None:
    """End ``process`` and everything it started (a worker's nanny and its child)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@contextlib.contextmanager
def dask_processes(folder: Path, n_workers: int = 2):
    """A scheduler and ``n_workers`` single-threaded workers, each its own process on
    127.0.0.1; yields a client with every worker connected, then stops them all."""
    distributed = pytest.importorskip("distributed")
    scheduler_file = folder / "scheduler.json"
    started = [
        _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(scheduler_file), log=folder / "scheduler.log")
    ]  # fmt: skip
    try:
        address = _scheduler_address(scheduler_file, started[0])
        for k in range(n_workers):
            started.append(
                _dask("worker", address, "--nworkers", "1", "--nthreads", "1",
                      "--host", "127.0.0.1", "--no-dashboard", log=folder / f"worker{k}.log")
            )  # fmt: skip
        with distributed.Client(address, timeout=START_SECONDS) as client:
            client.wait_for_workers(n_workers, timeout=START_SECONDS)
            yield client
    finally:
        for process in reversed(started):
            _stop(process)


class WorkerKiller(threading.Thread):
    """Watches the scheduler and kills (SIGKILL) the first worker seen computing a
    task; ``killed`` holds that worker's address and how many tasks it held."""

    def __init__(self, address: str):
        super().__init__(daemon=True)
        self.address = address
        self.killed: tuple[str, int] | None = None
        self.done = threading.Event()

    def run(self) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_SECONDS) as watcher:
            pids = watcher.run(os.getpid)  # the worker processes (not their nannies)
            while not self.done.is_set() and self.killed is None:
                busy = {w: tasks for w, tasks in watcher.processing().items() if tasks}
                for worker, tasks in sorted(busy.items()):
                    os.kill(pids[worker], signal.SIGKILL)
                    self.killed = (worker, len(tasks))
                    break
                time.sleep(0.005)


def test_a_scheduler_and_two_worker_processes_give_the_one_process_values(tmp_path):
    rules = small_saved_game(5)
    with dask_processes(tmp_path) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        levels.solve_to_file(rules, tmp_path / "cluster.bin", client=client)
    levels.solve_to_file(rules, tmp_path / "local.bin")
    assert (tmp_path / "cluster.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()


def test_a_worker_killed_in_the_middle_of_a_level_changes_no_value(tmp_path):
    rules = small_saved_game(5, n_dice=4)
    filled = []
    with dask_processes(tmp_path) as client:
        killer = WorkerKiller(client.scheduler.address)
        killer.start()
        try:
            levels.solve_to_file(rules, tmp_path / "cluster.bin", client=client,
                                 on_level=filled.append)  # fmt: skip
        finally:
            killer.done.set()
            killer.join(timeout=60)
        assert killer.killed is not None, "no worker was seen computing a chunk"
        worker, held = killer.killed
        assert held >= 1  # it was computing a chunk of a level when it was killed
        assert worker not in client.scheduler_info()["workers"]  # it is gone
    assert filled == [lv.filled for lv in levels.plan(rules)]  # every level written once
    levels.solve_to_file(rules, tmp_path / "local.bin")
    assert (tmp_path / "cluster.bin").read_bytes() == (tmp_path / "local.bin").read_bytes()

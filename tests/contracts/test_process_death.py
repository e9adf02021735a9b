"""Process death loses nothing (issue 55, item 2): every long job that writes state is
killed with SIGKILL at precise points, and running it again gives what an uninterrupted
run gives, while no half-written file is ever left where a reader would take it.

The kills are deterministic, not timed: a child process runs the job with the shared
atomic writer (:mod:`yahtzee_sim.engine.atomic`) instrumented, and kills itself either
*half-way through a file* (the file's content is written, then cut to its first half, as if
the kill came in the middle of the write, and the process dies before the rename) or
*after a file* (the new file is whole and renamed, the process dies before it goes on).
The n-th file the job writes in the watched folder is the one killed.

* Checkpointed :func:`~yahtzee_sim.simulate` and :func:`~yahtzee_sim.simulate_aggregate`
  killed after the first block, half-way through the second checkpoint, after the last
  block and half-way through the last checkpoint: the file left is a whole checkpoint of
  the blocks before, and the same call again resumes from it and returns the results of an
  uninterrupted run bit for bit.
* The table cache killed half-way through a table's file (no file: the next process solves
  it, without a warning) or after it (the next process loads it): the same values, and the
  same file, as an uninterrupted solve.
* Every file writer (``simulate --out/--record``, ``dataset --out``, ``tournament --plot``,
  ``distill --out/--plot``, the report folder, the reproduction folder, the generated doc
  tables) killed half-way through its first, a middle and its last file, over the files of
  an older run: every file is the old one, the new one, or absent when there was none —
  never a part of one — and running again writes the files of an uninterrupted run.
* A writer that raises leaves the old file and no temporary file; a rewritten file keeps
  its permissions.
* :func:`test_the_check_catches_a_non_atomic_writer`: each of these checks fails when the
  shared writer is made non-atomic (the "temporary" file is the target itself), so the
  tests above would catch a writer that lost atomicity.

The out-of-core level solver has its own kill tests (``tests/solving/test_levels.py``).

``--stress-seed N`` cuts the files killed part-way at a point drawn from the seed and plays
other games; CI runs this file with several seeds.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import stat
import warnings
import zipfile
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pytest

import yahtzee_sim
from yahtzee_sim.engine import simulate as simulate_module
from yahtzee_sim.engine.atomic import atomic_path, write_atomic
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.cache import CacheWarning, cache_path, load_array
from yahtzee_sim.solving.solver import TABLES, solve, value_table

REPO = Path(__file__).resolve().parents[2]


def _killed_child(
    event: str,
    nth: int,
    kind: str,
    watch: str,
    job: str,
    cut: float,
    env: dict[str, str],
    output: str,
) -> None:
    """The child: instruments the atomic writer, then runs the job file given (its output
    to the file ``output``). It dies by SIGKILL at its ``nth`` file in ``watch``."""
    from yahtzee_sim.engine import atomic

    os.environ.update(env)
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    folder = Path(watch).resolve()
    sync, sync_folder, written = atomic._sync, atomic._sync_folder, []
    if kind == "non-atomic":  # the deliberately non-atomic writer: it writes the target itself
        atomic._temp_beside = lambda path: path

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def synced(path):  # the content is written: killed half-way = keep its first part, die
        if folder in Path(path).resolve().parents:
            written.append(path)
            if event == "half" and len(written) == nth:
                os.truncate(path, int(os.path.getsize(path) * cut))
                die()
        sync(path)

    def renamed(parent):  # the file is whole and in place: killed before going on
        if folder in (parent / "x").resolve().parents and event == "after" and len(written) == nth:
            die()
        sync_folder(parent)

    atomic._sync, atomic._sync_folder = synced, renamed
    exec(compile(Path(job).read_text(), job, "exec"), {"__name__": "__job__"})
    raise SystemExit(f"the job ended before its file {nth} in {folder}: not killed")


#: What the children's server has imported before it forks each child: a child starts
#: with the package loaded, as a process that ran for a while would have it.
_PRELOAD = [
    "yahtzee_sim", "yahtzee_sim.cli", "yahtzee_sim.analysis.report.write",
    "yahtzee_sim.analysis.report.reproduction.write", "matplotlib.pyplot", "pandas",
    "test_process_death",
]  # fmt: skip
_SERVER: list = []


def children():
    """The multiprocessing context whose server forks the children (a new process, not a
    fork of this test process, so no thread or lock of it is inherited)."""
    if not _SERVER:
        import multiprocessing

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        _SERVER.append(context)
    return _SERVER[0]


def kill_child(
    tmp_path: Path,
    code: str,
    event: str,
    nth: int,
    watch: Path,
    non_atomic: bool = False,
    env: dict[str, str] | None = None,
    cut: float = 0.5,
) -> None:
    """Run ``code`` in a child process that SIGKILLs itself at its ``nth`` file in
    ``watch`` (``event``: ``"half"`` part-way through it, its first ``cut`` written;
    ``"after"`` once it is written), with these environment variables added."""
    job, output = tmp_path / "job.py", tmp_path / "child-output.txt"
    job.write_text(code)
    kind = "non-atomic" if non_atomic else "atomic"
    env = {"YAHTZEE_SIM_THREADS": "1", "MPLBACKEND": "Agg", **(env or {})}
    args = (event, nth, kind, str(watch), str(job), cut, env, str(output))
    child = children().Process(target=_killed_child, args=args)
    child.start()
    child.join(timeout=300)
    if child.exitcode is None:
        child.kill()
        child.join()
    text = output.read_text(errors="replace") if output.exists() else ""
    assert child.exitcode == -signal.SIGKILL, f"exit code {child.exitcode}:\n{text[-3000:]}"


@pytest.fixture
def cut(stress_rng) -> float:
    """The part of a file killed half-way that is written: one half, or with
    ``--stress-seed N`` a part drawn from the seed (2% to 98%)."""
    return 0.5 if stress_rng is None else float(stress_rng.uniform(0.02, 0.98))


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every visible file under ``folder`` (hidden ones: temporary files), by relative path."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def assert_whole_files(folder: Path, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """Every file of ``folder`` is its old version or its new one (absent if it had no old
    one): never a part of a file, never a file of neither run."""
    now = snapshot(folder)
    for name in sorted(set(now) | set(old) | set(new)):
        if name not in now:
            assert name not in old, f"{name}: the old file is gone"
            continue
        got = now[name]
        assert got in (old.get(name), new.get(name)), (
            f"{name}: {len(got)} bytes, neither the old file ({len(old.get(name, b''))} "
            f"bytes) nor the new one ({len(new.get(name, b''))} bytes)"
        )


def test_a_writer_that_fails_leaves_the_old_file_and_no_temporary_file(tmp_path):
    target = tmp_path / "a.csv"
    write_atomic(target, "old")
    os.chmod(target, 0o600)
    with pytest.raises(RuntimeError, match="stopped"), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("stopped")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.csv"]
    write_atomic(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o600


# ------------------------------------------------------------ checkpointed simulation
GAMES, BLOCK = 2000, 500  # four blocks
_SIMULATE = """
import yahtzee_sim
yahtzee_sim.{function}("greedy", {games}, seed={seed}, chunk_size={block}, n_jobs=1,
                       progress=False, checkpoint={path!r})
"""
#: kill point -> (event, file, blocks in the checkpoint it leaves)
CHECKPOINT_KILLS = {
    "after-the-first-block": ("after", 1, 1),
    "half-way-through-a-checkpoint": ("half", 2, 1),
    "after-the-last-block": ("after", 4, 4),
    "half-way-through-the-last-checkpoint": ("half", 4, 3),
}


def checkpoint_blocks(path: Path) -> int:
    """Blocks done in the whole checkpoint ``path`` (AssertionError if it is not one)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(bytes(z["header"]).decode())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise AssertionError(f"{path.name} is not a whole checkpoint ({exc})") from None
    return int(header["blocks_done"])


def assert_same_games(a, b) -> None:
    """Results or Aggregates equal bit for bit (every array, its dtype, every count)."""
    assert type(a) is type(b)
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        elif f.name == "rules":
            assert x.fingerprint() == y.fingerprint()
        elif f.name != "meta":
            assert x == y, f.name


@pytest.mark.parametrize("kill", list(CHECKPOINT_KILLS))
@pytest.mark.parametrize("function", ["simulate", "simulate_aggregate"])
def test_a_killed_checkpointed_run_resumes_to_the_same_games(
    tmp_path, monkeypatch, function, kill, cut, stress_seed
):
    event, nth, blocks = CHECKPOINT_KILLS[kill]
    path = tmp_path / "run" / "run.ckpt"
    path.parent.mkdir()
    seed = 7 + stress_seed
    code = _SIMULATE.format(function=function, games=GAMES, block=BLOCK, path=str(path), seed=seed)
    kill_child(tmp_path, code, event, nth, path.parent, cut=cut)
    assert checkpoint_blocks(path) == blocks
    saves = []
    save = simulate_module.save_checkpoint
    monkeypatch.setattr(
        simulate_module, "save_checkpoint", lambda *a: saves.append(a[2]) or save(*a)
    )
    play = getattr(yahtzee_sim, function)
    again = play("greedy", GAMES, seed=seed, chunk_size=BLOCK, n_jobs=1, checkpoint=path)
    assert saves == list(range(blocks + 1, GAMES // BLOCK + 1))  # resumed, not replayed
    assert_same_games(again, play("greedy", GAMES, seed=seed, chunk_size=BLOCK, n_jobs=1))


# ------------------------------------------------------------------ the table cache
CACHE_RULES = "upper-3d4f"
_SOLVE = f"""
from yahtzee_sim.solving.solver import value_table
value_table({CACHE_RULES!r})
"""


def cached_table(folder: Path, monkeypatch) -> tuple[Path, object, list]:
    """``(table file, value_table(CACHE_RULES), cache warnings)`` as a new process
    with the cache in ``folder`` sees them."""
    rules = get_rules(CACHE_RULES)
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(folder))
    TABLES.forget(TABLES.key(rules))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CacheWarning)
        table = value_table(rules)
    TABLES.forget(TABLES.key(rules))
    return cache_path("values", TABLES.key(rules)), table, caught


def assert_no_half_table(folder: Path, monkeypatch) -> None:
    """The table's file in ``folder`` is absent or whole (loads with its checksum)."""
    rules = get_rules(CACHE_RULES)
    monkeypatch.setenv("YAHTZEE_SIM_CACHE", str(folder))
    path = cache_path("values", TABLES.key(rules))
    if path.exists():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CacheWarning)
            got = load_array(path, len(solve(rules).values))
        assert got is not None and not caught, f"{path.name}: a half-written table file"


@pytest.mark.parametrize(
    ("event", "source"), [("half", "solved"), ("after", "cache")], ids=["half-way", "after"]
)
def test_a_solve_killed_while_caching_its_table_never_leaves_a_half_file(
    tmp_path, monkeypatch, event, source, cut
):
    """Killed half-way through the table's file, the next process finds no file and
    solves; killed once it is written, the next process loads it. Either way: the values
    of an uninterrupted solve, no cache warning, and the same file."""
    rules = get_rules(CACHE_RULES)
    cache = tmp_path / "cache"
    kill_child(tmp_path, _SOLVE, event, 1, cache, env={"YAHTZEE_SIM_CACHE": str(cache)}, cut=cut)
    assert_no_half_table(tmp_path / "cache", monkeypatch)
    path, table, caught = cached_table(tmp_path / "cache", monkeypatch)
    assert table.meta["source"] == source and not caught
    assert np.array_equal(table.values, solve(rules).values)
    reference, _, _ = cached_table(tmp_path / "reference", monkeypatch)
    assert path.read_bytes() == reference.read_bytes()


# ------------------------------------------------------------------ every file writer
@dataclass(frozen=True)
class Writer:
    """A job writing files into a folder: Python code with the fields ``{out}`` (the
    folder), ``{seed}`` (1: an older run, 2: the new one) and ``{data}`` (inputs made by
    :func:`writer_data`); ``kills``: the files killed half-way (first, a middle one, last);
    ``setup``: code making the older run's files, when it is not the job with seed 1."""

    job: str
    kills: tuple[int, ...]
    setup: str | None = None


def cli(*argv: str) -> str:
    """The code running the command line with these arguments (Python expressions)."""
    return f"from yahtzee_sim.cli import main\nmain([{', '.join(argv)}])\n"


_REPRODUCTION = """
import pandas as pd
from pathlib import Path
from yahtzee_sim.analysis.report.reproduction.papers import SY, SY_BOX_TABLES
from yahtzee_sim.analysis.report.reproduction.rows import Reproduction, Row
from yahtzee_sim.analysis.report.reproduction.write import write_reproduction

rows = [
    Row(f"{{SY}}, {{table.number}}", f"{{sid}}: {{box}} ({{table.what}})", 1.5 + k,
        1.5 + k + {seed} / 100, "simulated", 100, 1.0, 2.0, table_id=table.table_id,
        strategy=sid, box=box)
    for table in SY_BOX_TABLES
    for sid in ("greedy", "glenn-2007-rules")
    for k, box in enumerate(("Aces", "Twos"))
]
kn = pd.DataFrame({{"delta": [1.0], "selected": ["greedy"], "seed": [{seed}]}})
write_reproduction(Reproduction(rows, ("simulating-yahtzee",), 100, {seed}), Path({out}), kn)
"""
_DOC_PAGES = """
import re, shutil
from pathlib import Path
out, repo = Path({out}), Path({repo})
shutil.copytree(repo / "docs", out / "docs", ignore=shutil.ignore_patterns("*.png"))
shutil.copy(repo / "README.md", out / "README.md")
for page in out.rglob("*.md"):  # every generated table stale, as before a change
    text = page.read_text(encoding="utf-8")
    stale = re.sub(r"(<!-- generated: [^>]*-->\\n).*?(<!-- end generated)", r"\\1stale\\n\\2",
                   text, flags=re.S)
    page.write_text(stale, encoding="utf-8")
"""

WRITERS = {
    "simulate-out-csv-and-record-jsonl": Writer(
        cli(
            '"simulate", "--strategy", "greedy", "--games", "300", "--rules", "2-yatzy"',
            '"--seed", "{seed}", "--out", {out} + "/games.csv"',
            '"--record", {out} + "/games.jsonl", "--quiet", "--json"',
        ),
        (1, 2),
    ),
    "dataset-out-parquet": Writer(
        cli(
            '"dataset", "--strategy", "greedy", "--games", "40", "--rules", "2-yatzy"',
            '"--seed", "{seed}", "--out", {out} + "/decisions.parquet", "--json"',
        ),
        (1,),
    ),
    "tournament-plot-png": Writer(
        cli(
            '"tournament", "--strategies", "greedy,random", "--round-robin", "--games", "100"',
            '"--rules", "2-yatzy", "--seed", "{seed}", "--plot", {out} + "/wins.png"',
            '"--json", "--quiet"',
        ),
        (1,),
    ),
    "distill-card-and-plot": Writer(
        cli(
            '"distill", "--rules", "2-yatzy", "--max-rules", "{seed}", "--games", "100"',
            '"--out", {out} + "/card.md", "--plot", {out} + "/curve.png", "--quiet", "--json"',
        ),
        (1, 2),
    ),
    "report-folder": Writer(
        "import pickle\nfrom yahtzee_sim.analysis.report.write import write_report\n"
        "write_report(pickle.loads(open({data} + '/report-{seed}.pkl', 'rb').read()), {out})\n",
        (1, 9, 17),
    ),
    "reproduction-folder": Writer(_REPRODUCTION, (1, 6)),
    "doc-tables": Writer(
        "import sys\nsys.path.insert(0, {repo} + '/tools')\n"
        "from doc_tables import write_doc_tables\n"
        "write_doc_tables(['--root', {out}])\n",
        (1, 4),
        setup=_DOC_PAGES,
    ),
}


@pytest.fixture(scope="module")
def writer_data(tmp_path_factory) -> Path:
    """Inputs of the writers: two small reports (seeds 1 and 2), pickled."""
    from yahtzee_sim.analysis.report.build import build_report

    folder = tmp_path_factory.mktemp("writer-data")
    for seed in (1, 2):
        rep = build_report(
            rules="2-yatzy", strategies="greedy", n_games=200, seed=seed, quick=True,
            progress=False, n_jobs=1,
        )  # fmt: skip
        (folder / f"report-{seed}.pkl").write_bytes(pickle.dumps(rep))
    return folder


def job(code: str, out: Path, data: Path, seed: int = 2) -> str:
    """The code of a writer's job, its fields filled."""
    return code.format(out=repr(str(out)), seed=seed, data=repr(str(data)), repo=repr(str(REPO)))


def run_here(code: str) -> None:
    exec(compile(code, "<writer job>", "exec"), {"__name__": "__job__"})


@pytest.fixture(scope="module")
def older_runs(tmp_path_factory, writer_data) -> dict[str, tuple[Path, dict, dict]]:
    """Per writer, made on first use: ``(folder of an older run's files, those files, the
    new run's files)`` (the new run written over a copy of the older one's folder)."""
    made: dict[str, tuple[Path, dict, dict]] = {}

    def older_run(name: str) -> tuple[Path, dict, dict]:
        if name not in made:
            writer, root = WRITERS[name], tmp_path_factory.mktemp(f"older-{name}")
            old_folder, ref = root / "old", root / "reference"
            old_folder.mkdir()
            run_here(job(writer.setup or writer.job, old_folder, writer_data, seed=1))
            old = snapshot(old_folder)
            shutil.copytree(old_folder, ref)
            run_here(job(writer.job, ref, writer_data))
            new = snapshot(ref)
            assert old != new, "the older run must write other files than the new one"
            made[name] = old_folder, old, new
        return made[name]

    return older_run


def prepare(tmp_path: Path, name: str, older_runs) -> tuple[Path, dict, dict]:
    """``(folder holding an older run's files, those files, the new run's files)``: a copy
    of the writer's older run (:func:`older_runs`) in ``tmp_path / "out"``."""
    old_folder, old, new = older_runs(name)
    out = tmp_path / "out"
    shutil.copytree(old_folder, out)
    assert snapshot(out) == old
    return out, old, new


@pytest.mark.parametrize(
    ("name", "nth"),
    [(name, nth) for name, w in WRITERS.items() for nth in w.kills],
    ids=[f"{name}-file{nth}" for name, w in WRITERS.items() for nth in w.kills],
)
def test_a_writer_killed_half_way_through_a_file_leaves_whole_files(
    tmp_path, writer_data, older_runs, name, nth, cut
):
    writer = WRITERS[name]
    out, old, new = prepare(tmp_path, name, older_runs)
    kill_child(tmp_path, job(writer.job, out, writer_data), "half", nth, out, cut=cut)
    assert_whole_files(out, old, new)
    run_here(job(writer.job, out, writer_data))  # running again: the uninterrupted files
    assert snapshot(out) == new


# ------------------------------------------- the checks fail on a non-atomic writer
def _checkpoint_case(tmp_path: Path, monkeypatch, writer_data: Path, older_runs) -> None:
    path = tmp_path / "run" / "run.ckpt"
    path.parent.mkdir()
    code = _SIMULATE.format(function="simulate", games=GAMES, block=BLOCK, path=str(path), seed=7)
    kill_child(tmp_path, code, "half", 2, path.parent, non_atomic=True)
    assert checkpoint_blocks(path) == 1


def _table_cache_case(tmp_path: Path, monkeypatch, writer_data: Path, older_runs) -> None:
    cache = tmp_path / "cache"
    env = {"YAHTZEE_SIM_CACHE": str(cache)}
    kill_child(tmp_path, _SOLVE, "half", 1, cache, non_atomic=True, env=env)
    assert_no_half_table(tmp_path / "cache", monkeypatch)


def _writer_case(name: str):
    def case(tmp_path: Path, monkeypatch, writer_data: Path, older_runs) -> None:
        writer = WRITERS[name]
        out, old, new = prepare(tmp_path, name, older_runs)
        code = job(writer.job, out, writer_data)
        kill_child(tmp_path, code, "half", writer.kills[0], out, non_atomic=True)
        assert_whole_files(out, old, new)

    return case


NON_ATOMIC_CASES = {
    "checkpoint": _checkpoint_case,
    "table-cache": _table_cache_case,
    **{name: _writer_case(name) for name in WRITERS},
}


@pytest.mark.parametrize("case", list(NON_ATOMIC_CASES))
def test_the_check_catches_a_non_atomic_writer(
    tmp_path, monkeypatch, writer_data, older_runs, case
):
    """The same kill with the shared writer made non-atomic (it writes the target in
    place): each test's check above fails, on the half file the kill left."""
    with pytest.raises(AssertionError, match="half|neither the old|not a whole checkpoint"):
        NON_ATOMIC_CASES[case](tmp_path, monkeypatch, writer_data, older_runs)

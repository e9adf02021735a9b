"""The README and the handbook (docs/) run as written.

Every fenced code block of README.md and docs/**/*.md is checked:

* ``python`` blocks run, in page order, in one namespace per page, in a temporary
  working directory. A block with ``title="NAME"`` is also written to the file ``NAME`` there,
  so that later commands on the page can use it.
* ``bash`` blocks: every ``yahtzee-sim`` command names an existing subcommand and only
  options that its ``--help`` lists (optional parts in ``[...]`` included). A bash block
  preceded by ``<!-- test: run -->`` is run as written, and the lines of the ``text`` block
  that follows it (its shown output; lines containing ``...`` are trimmed places) must
  appear in that order in what the commands print.
* A block preceded by ``<!-- test: skip (reason) -->`` is not run (it needs something a test
  cannot have, such as a cluster's scheduler); the reason is required.
* ``pycon`` blocks are doctests: their ``>>>`` lines run in the page's namespace and what
  each prints is compared with the output shown under it (``...`` matches anything). A
  value shown in a comment of a ``python`` block (``print(x)  # 254.5877``) is refused:
  such values go in a ``pycon`` block.
* Other blocks (``text``, ``json``) show output or formats and are not run.

The Getting-started page is the newcomer path: its commands run in a fresh clone of the
repository.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import importlib.util
import inspect
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import cloudpickle
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]

BLOCK = re.compile(
    r"(?:<!--\s*test:\s*(?P<marker>run|skip)(?P<reason>[^>]*)-->\s*\n)?"
    r"^```(?P<lang>\w*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^```[ \t]*$",
    flags=re.S | re.M,
)


def blocks(path: Path) -> list[dict]:
    """The fenced blocks of a page, in order, with their test marker."""
    out = []
    for m in BLOCK.finditer(path.read_text()):
        title = re.search(r'title="([^"]+)"', m["attrs"])
        out.append(
            {
                "lang": m["lang"],
                "body": m["body"],
                "marker": m["marker"],
                "reason": (m["reason"] or "").strip(" ()"),
                "title": title and title.group(1),
                "line": path.read_text()[: m.start()].count("\n") + 1,
            }
        )
    return out


def commands(body: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, prompts and comments off."""
    text = body.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("$ "):
            line = line[2:]
        if line and not line.startswith("#"):
            out.append(line)
    return out


_HELP: dict[str, str] = {}
TIMES: dict[str, float] = {}  # seconds per Python block, to keep the examples cheap


def help_text(sub: str) -> str:
    """``yahtzee-sim SUB --help`` (in process)."""
    if sub not in _HELP:
        from yahtzee_sim.cli import main

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
            main([sub, "--help"])
        _HELP[sub] = buf.getvalue()
    return _HELP[sub]


def check_command(cmd: str, where: str) -> None:
    """A ``yahtzee-sim`` command line names a real subcommand and real options."""
    cmd = cmd.split(" #")[0].split("&&")[-1].split("|")[-1].strip()
    if not cmd.startswith("yahtzee-sim"):
        return
    words = shlex.split(re.sub(r"[\[\]|]", " ", cmd.split(">")[0]))[1:]
    sub = next((w for w in words if not w.startswith("-")), None)
    if sub is None:
        return
    text = help_text(sub)
    for w in words:
        if w.startswith("--"):
            opt = w.split("=")[0]
            assert re.search(rf"{re.escape(opt)}\b", text), f"{where}: {sub} has no {opt}"


def run_shell(body: str, cwd: Path) -> str:
    """Run a shell block's commands as written; return what they printed."""
    env_path = str(Path(sys.executable).parent)
    out = []
    for cmd in commands(body):
        proc = subprocess.run(
            cmd,
            shell=True,
            cwd=cwd,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": env_path + os.pathsep + os.environ["PATH"]},
            timeout=300,
        )
        assert proc.returncode == 0, f"{cmd!r} failed:\n{proc.stdout}\n{proc.stderr}"
        out.append(proc.stdout)
    return "".join(out)


def check_output(shown: str, printed: str, where: str) -> None:
    """Every shown line (but trimmed places, '...') appears, in order, in the printed lines."""
    lines = [ln.rstrip() for ln in printed.splitlines()]
    pos = 0
    for want in shown.splitlines():
        want = want.rstrip()
        if not want or "..." in want or want.startswith("$ "):
            continue
        try:
            pos = lines.index(want, pos) + 1
        except ValueError:
            pytest.fail(f"{where}: shown line not printed: {want!r}\nprinted:\n{printed}")


DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_doctest(body: str, ns: dict, where: str) -> None:
    """Run a ``pycon`` block (``>>>`` lines and their shown output) in the page's namespace;
    every shown output is compared with what the line prints (``...`` matches anything)."""
    test = doctest.DocTestParser().get_doctest(body, ns, where, where, 0)
    assert test.examples, f"{where}: a pycon block without >>> lines"
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
    runner.run(test, out=out.write, clear_globs=False)
    ns.update(test.globs)  # names the block defines serve the page's later blocks
    assert runner.failures == 0, f"{where}: shown output differs\n{out.getvalue()}"


#: A ``print(...)`` in a python block whose comment shows a value: such values belong in a
#: ``pycon`` block, where they are compared.
VALUE_COMMENT = re.compile(r"^print\(.*\)\s+#\s*(-?\d|True|False|\[|\{|'|\")", flags=re.M)


def run_page(path: Path, cwd: Path) -> dict:
    """Run every block of one page in ``cwd``; return the page's Python namespace."""
    # a real module, so that classes defined on the page pickle (check_strategy, workers)
    module = types.ModuleType("docs_page_" + re.sub(r"\W", "_", path.stem))
    sys.modules[module.__name__] = module
    cloudpickle.register_pickle_by_value(module)  # worker processes get its classes by value
    ns = module.__dict__
    items = blocks(path)
    for i, b in enumerate(items):
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{b['line']}"
        if b["marker"] == "skip":
            assert b["reason"], f"{where}: a skipped block says why"
            continue
        if b["title"]:
            (cwd / b["title"]).write_text(b["body"])
        if b["lang"] == "python":
            t0 = time.perf_counter()
            exec(compile(b["body"], where, "exec"), ns)
            TIMES[where] = time.perf_counter() - t0
        elif b["lang"] == "pycon":
            run_doctest(b["body"], ns, where)
        elif b["lang"] in ("bash", "sh", "console"):
            for cmd in commands(b["body"]):
                check_command(cmd, where)
            if b["marker"] == "run":
                printed = run_shell(b["body"], cwd)
                nxt = items[i + 1] if i + 1 < len(items) else None
                if nxt is not None and nxt["lang"] == "text":
                    check_output(nxt["body"], printed, where)
    return ns


@pytest.mark.slow
@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if p.name != "getting-started.md"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_page_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = run_page(page, tmp_path)
    if page == README:  # the README's own strategy plays as it says
        assert (ns["mine"].filled_turn[:, -1] == 1).all()  # Chance first


@pytest.mark.slow
def test_getting_started_on_a_fresh_clone(tmp_path, monkeypatch):
    """The newcomer path: the page's commands, run verbatim in a fresh clone, print what the
    page shows (the package is the one installed in this environment)."""
    clone = tmp_path / "yahtzee_sim"
    if shutil.which("git") and (ROOT / ".git").exists():
        subprocess.run(
            ["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(clone)], check=True
        )
    else:
        clone.mkdir()
    monkeypatch.chdir(clone)
    run_page(DOCS / "getting-started.md", clone)


def test_ci_runs_the_readme_test_command():
    text = README.read_text()
    quick = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1)
    first, test_cmd = (ln.split("#")[0].strip() for ln in quick.strip().splitlines()[:2])
    assert first == 'pip install -e ".[dev]" && yahtzee-sim report'
    assert test_cmd == "python -m pytest -q"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_cmd in ci
    assert any(line.startswith("mkdocs build --strict") for line in ci)
    # the README's extra and the handbook's, in one build of the compiled core
    assert any(line.startswith('python -m pip install -e ".[dev,docs]"') for line in ci)


def test_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), link


NARRATION = re.compile(
    r"this session|later session|earlier machine|earlier session|before this work"
    r"|an earlier README|we did not find|not built that",
    flags=re.I,
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_describe_not_narrate(page):
    found = NARRATION.findall(page.read_text())
    assert not found, f"{page.name} narrates: {found}"


def test_nav_lists_every_page():
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).as_posix()
        assert rel in nav, f"{rel} is not in mkdocs.yml's nav"


def _api_modules() -> list[str]:
    mods = []
    for page in (DOCS / "api").glob("*.md"):
        text = page.read_text()
        for name in re.findall(r"^::: ([\w.]+)", text, flags=re.M):
            heading = re.search(
                rf"::: {re.escape(name)}\n\s+options:\n\s+heading: \"([\w.]+)\"", text
            )
            mods.append(heading.group(1) if heading else name)
    return mods


STABLE = [
    "game.rules", "game.dice", "game.state", "engine.lockstep", "engine.simulate",
    "engine.registry", "solving.solver", "exact.laws", "solving.advisor", "solving.target",
    "solving.utility", "solving.risk", "multiplayer.matches", "multiplayer.win_probability",
    "engine.records",
]  # fmt: skip


#: Modules the API reference leaves out, and where they are documented instead.
NOT_IN_API = {
    "yahtzee_sim.cli": "the command line: `--help` and the guides",
    "yahtzee_sim.apps": "the terminal game and the web page: the Play, coach and analyze guide",
}
#: Packages whose public names (``__all__``) the API reference must cover.
FACADES = ("yahtzee_sim", "yahtzee_sim.strategies", "yahtzee_sim.analysis")


def public_modules() -> list[str]:
    """Every module of the package without a private part (``_name``), packages' own
    ``__init__`` (re-exports) and :data:`NOT_IN_API` left out."""
    import pkgutil

    import yahtzee_sim
    import yahtzee_sim.analysis
    import yahtzee_sim.strategies

    found = []
    for pkg in (yahtzee_sim, yahtzee_sim.strategies, yahtzee_sim.analysis):
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if m.ispkg or any(part.startswith("_") for part in m.name.split(".")):
                continue
            if not m.name.startswith(tuple(f"{k}." for k in NOT_IN_API)):
                found.append(m.name)
    return sorted(set(found))


def missing_from_api(documented: set[str]) -> list[str]:
    """Public modules, and modules defining a facade's public name, not in ``documented``."""
    missing = {m for m in public_modules() if m not in documented}
    for facade in FACADES:
        mod = importlib.import_module(facade)
        for name in mod.__all__:
            home = getattr(getattr(mod, name), "__module__", None)  # None: a constant
            if home is not None and home not in documented:
                missing.add(f"{home} ({facade}.{name})")
    return sorted(missing)


def test_api_reference_covers_every_public_module_and_name():
    mods = set(_api_modules())
    for m in STABLE:
        assert f"yahtzee_sim.{m}" in mods, m
    assert len(public_modules()) > 60
    assert missing_from_api(mods) == []


def test_the_api_coverage_check_names_what_is_missing():
    mods = set(_api_modules()) - {
        "yahtzee_sim.strategies.cards.format",
        "yahtzee_sim.engine.aggregate",
    }
    missing = missing_from_api(mods)
    assert "yahtzee_sim.strategies.cards.format" in missing
    assert "yahtzee_sim.engine.aggregate" in missing


@pytest.mark.parametrize("module", _api_modules())
def test_every_public_function_has_a_docstring(module):
    """mkdocstrings lists the public members that carry a docstring: all of them must."""
    mod = importlib.import_module(module)
    missing = []
    for name, obj in vars(mod).items():
        if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) != module:
            continue  # imported from elsewhere
        if not (obj.__doc__ or "").strip():
            missing.append(name)
    assert not missing, f"{module}: no docstring for {missing}"


def test_performance_page_is_generated_from_the_saved_results():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "perf_page.py"), "--check"], cwd=ROOT
    )
    assert proc.returncode == 0, "run `python benchmarks/perf_page.py` to regenerate it"


def test_performance_page_speaks_in_words():
    """Every row of the Performance page's tables starts with words, not a JSON key such as
    `optimal_moments.target_seconds`; the page opens with ours against the peer."""
    text = (ROOT / "docs" / "performance.md").read_text()
    lines = text.splitlines()
    first_cells = [  # of the body rows (not a header: the line before |---|)
        line.split("|")[1].strip()
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line[:2] == "| " and not after.startswith("|---")
    ]
    assert first_cells
    keys = [c for c in first_cells if re.fullmatch(r"`?[a-z_0-9]+([.][a-z_0-9]+)*`?", c)]
    assert not keys, f"rows labelled with JSON keys: {keys}"
    sections = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert sections[0] == "Versus the peer"


def tool(name: str) -> types.ModuleType:
    """The script ``tools/NAME.py``, imported (its ``main`` not run)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_tables_are_current():
    """The command, strategy and gap tables match the parser, the registry and the
    strategies' references (``python tools/doc_tables.py`` rewrites them)."""
    doc_tables = tool("doc_tables")

    assert doc_tables.stale(ROOT) == []
    for page, name in doc_tables.TABLES:
        assert f"<!-- generated: {name} " in (ROOT / page).read_text(), page


def test_a_drifted_table_is_found(tmp_path):
    doc_tables = tool("doc_tables")

    shutil.copytree(DOCS, tmp_path / "docs")
    text = README.read_text().replace("| `yahtzee-sim rules` |", "| `yahtzee-sim rulez` |")
    (tmp_path / "README.md").write_text(text)
    assert doc_tables.stale(tmp_path) == ["README.md"]
    assert doc_tables.write_doc_tables(["--root", str(tmp_path), "--check"]) == 1
    assert doc_tables.write_doc_tables(["--root", str(tmp_path)]) == 0
    assert doc_tables.stale(tmp_path) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_values_shown_are_compared(page):
    """No python block shows a value in a comment: values shown are doctest outputs."""
    shown = [
        f"{page.name}:{b['line']}: {m.group(0)}"
        for b in blocks(page)
        if b["lang"] == "python"
        for m in VALUE_COMMENT.finditer(b["body"])
    ]
    assert not shown, shown


def test_a_wrong_shown_value_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```pycon\n>>> print(1 + 1)\n3\n```\n")
    with pytest.raises(AssertionError, match="shown output differs"):
        run_page(page, tmp_path)
    page.write_text("```pycon\n>>> print(1 + 1)\n2\n```\n")
    run_page(page, tmp_path)
    assert VALUE_COMMENT.search("print(x)  # 254.5877")
    assert not VALUE_COMMENT.search("print(x)  # the card, as Markdown")


def presets_missing_from(page_text: str) -> list[str]:
    """The presets (:data:`~yahtzee_sim.game.presets.PRESETS`, what ``--help`` lists) that
    no table row of a page names (a row starting ``| `NAME` |``)."""
    from yahtzee_sim.game.presets import PRESETS

    rows = set(re.findall(r"^\| `([\w-]+)` \|", page_text, flags=re.M))
    return [name for name in PRESETS if name not in rows]


def test_rules_page_lists_every_preset():
    assert presets_missing_from((DOCS / "rules.md").read_text()) == []


def test_the_preset_check_names_a_preset_left_out():
    text = (DOCS / "rules.md").read_text().replace("| `yahtzee-6box` |", "| yahtzee-6box |")
    assert presets_missing_from(text) == ["yahtzee-6box"]

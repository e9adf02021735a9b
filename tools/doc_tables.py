"""The tables the README and the handbook show, generated from their one source.

* the command table, from the parser (:data:`yahtzee_sim.cli.main.COMMANDS`), in the README
  and on the handbook's home page;
* the strategy table, from the registry (:mod:`yahtzee_sim.engine.registry`), in the
  strategies guide;
* the documented gaps, from the strategies' references
  (:func:`yahtzee_sim.analysis.report.reproduction.literature.documented_gaps`), on the
  reproduction page.

A page holds a generated table between ``<!-- generated: NAME -->`` and
``<!-- end generated: NAME -->``. ``python tools/doc_tables.py`` rewrites them
in a clone of the repository; ``--check`` only reports the stale ones (exit code 1), as
the test suite does.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from yahtzee_sim.engine.atomic import write_atomic

#: The handbook page (relative to ``docs/``) that explains each command.
COMMAND_PAGES = {
    "simulate": "guide/simulate.md",
    "solve": "guide/optimal.md",
    "advise": "guide/optimal.md",
    "select": "guide/ranking.md",
    "rank": "guide/ranking.md",
    "exact": "guide/exact.md",
    "regret": "guide/regret.md",
    "check": "guide/strategies.md",
    "report": "guide/report.md",
    "reproduce": "guide/reproduce.md",
    "target": "guide/target-utility-risk.md",
    "win": "guide/target-utility-risk.md",
    "risk": "guide/target-utility-risk.md",
    "tournament": "guide/matches.md",
    "winprob": "guide/matches.md",
    "duel": "guide/two-player.md",
    "distill": "guide/cards.md",
    "dataset": "guide/machine-learning.md",
    "analyze": "guide/play-coach-analyze.md",
    "play": "guide/play-coach-analyze.md",
    "serve": "guide/play-coach-analyze.md",
    "strategies": "guide/strategies.md",
    "rules": "rules.md",
}


def _cell(text: str) -> str:
    """Text for a Markdown table cell: ``code`` as `code`, pipes escaped."""
    return text.replace("``", "`").replace("|", "\\|")


def _page_title(docs: Path, page: str) -> str:
    """The first heading of a handbook page."""
    for line in (docs / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page


def command_table(docs: Path, prefix: str = "") -> str:
    """Markdown: one row per ``yahtzee-sim`` command, its help line and its handbook page
    (links start with ``prefix``: ``"docs/"`` from the README, ``""`` from the handbook)."""
    from yahtzee_sim.cli.main import COMMANDS

    missing = [c.name for c in COMMANDS if c.name not in COMMAND_PAGES]
    if missing:
        raise KeyError(f"no handbook page for the commands {missing} (COMMAND_PAGES)")
    rows = ["| command | what it does | explained in |", "|---|---|---|"]
    for c in COMMANDS:
        page = COMMAND_PAGES[c.name]
        rows.append(
            f"| `yahtzee-sim {c.name}` | {_cell(c.help)} "
            f"| [{_page_title(docs, page)}]({prefix}{page}) |"
        )
    return "\n".join(rows)


def strategy_table(docs: Path | None = None) -> str:
    """Markdown: one row per registered strategy (its latest version): id, version, what it
    plays (its docstring's first sentence), and its declared capabilities: the rules it
    needs, whether it is deterministic (exact evaluation), whether it reads a solved table,
    and whether it is part of ``all``."""
    from yahtzee_sim.cli.catalog import strategy_rows

    rows = [
        "| id | version | what it plays | rules | deterministic | solved table | in `all` |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in strategy_rows():
        needs = r["requires"] or "any"
        text = _cell(r["description"])
        yes = {True: "yes", False: "no"}
        rows.append(
            f"| `{r['id']}` | {r['version']} | {text} | {needs} | {yes[r['deterministic']]} "
            f"| {yes[r['solved_table']]} | {yes[r['in_all']]} |"
        )
    return "\n".join(rows)


def gap_table(docs: Path | None = None) -> str:
    """Markdown: the documented gaps between the built-ins and their papers."""
    from yahtzee_sim.analysis.report.reproduction.literature import documented_gaps

    def fmt(v: float, sign: str = "") -> str:
        if v == int(v):
            return f"{int(v):{sign}d}"
        return f"{v:{sign}.4f}".rstrip("0").rstrip(".")

    rows = [
        "| strategy | source | rules | figure | paper | ours | gap | why |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in documented_gaps():
        rows.append(
            f"| `{g['strategy']}` | {g['source']} | {g['rules']} | {g['quantity']} "
            f"| {fmt(g['paper'])} | {fmt(g['ours'])} | {fmt(g['gap'], '+')} "
            f"| {_cell(g['reason'])} |"
        )
    return "\n".join(rows)


#: ``(page, table name) -> table`` of every generated table (pages relative to the
#: repository; the functions take the ``docs`` folder).
TABLES: dict[tuple[str, str], Callable[[Path], str]] = {
    ("README.md", "commands"): lambda docs: command_table(docs, "docs/"),
    ("docs/index.md", "commands"): lambda docs: command_table(docs, ""),
    ("docs/guide/strategies.md", "strategies"): strategy_table,
    ("docs/guide/reproduce.md", "gaps"): gap_table,
}


def _block(name: str) -> re.Pattern:
    return re.compile(
        rf"(<!-- generated: {re.escape(name)}[^>]*-->\n)(.*?)(<!-- end generated: "
        rf"{re.escape(name)} -->)",
        flags=re.S,
    )


def render(root: Path) -> dict[str, str]:
    """The pages with their generated tables up to date: ``{page: text}``."""
    pages: dict[str, str] = {}
    for (page, name), make in TABLES.items():
        text = pages.get(page) or (root / page).read_text(encoding="utf-8")
        pattern = _block(name)
        if not pattern.search(text):
            raise ValueError(f"{page} has no <!-- generated: {name} --> block")
        table = make(root / "docs")
        pages[page] = pattern.sub(lambda m, t=table: f"{m[1]}{t}\n{m[3]}", text)
    return pages


def stale(root: Path) -> list[str]:
    """The pages whose generated tables differ from their source."""
    return [
        page
        for page, text in render(root).items()
        if (root / page).read_text(encoding="utf-8") != text
    ]


def write_doc_tables(argv: list[str] | None = None) -> int:
    """Rewrite the generated tables of the repository at ``--root`` (``--check``: report
    the stale pages only, exit code 1 if any)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository folder")
    parser.add_argument("--check", action="store_true", help="only report stale pages")
    args = parser.parse_args(argv)
    if args.check:
        pages = stale(args.root)
        for page in pages:
            print(f"{page}: generated table out of date (python tools/doc_tables.py)")
        return 1 if pages else 0
    for page, text in render(args.root).items():
        write_atomic(args.root / page, text)
    return 0


if __name__ == "__main__":
    sys.exit(write_doc_tables())

"""``yahtzee-sim distill``: learn a rule card and its curve number of rules → exact mean.

The command group exposes :func:`add_parser` (adds the ``distill`` subcommand to an
:mod:`argparse` subparsers object) and :func:`run` (runs it from the parsed arguments
and returns the exit status).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .errors import YahtzeeSimError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``distill`` to ``subparsers``; returns its parser."""
    p = subparsers.add_parser(
        "distill",
        help="learn a short rule card a person can play; exact mean per number of rules",
        description=(
            "Grow a rule card (decision list) rule by rule, each rule chosen to remove the "
            "most regret against optimal play on the card's own games, prune it, and "
            "evaluate the cards of 1, 2, 5, 10, ... rules exactly."
        ),
    )
    p.add_argument("--rules", default="yahtzee", help="rule-set preset (default: yahtzee)")
    p.add_argument("--max-rules", type=int, default=30, help="most rules on the card (30)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled games (0)")
    p.add_argument("--games", type=int, default=3000, help="games sampled per step (3000)")
    p.add_argument("--out", help="write the card here (Markdown)")
    p.add_argument("--plot", help="write the curve rules → exact mean here (PNG/SVG/PDF)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)
    return p


def _check_out(path: str | None, what: str) -> Path | None:
    if path is None:
        return None
    out = Path(path)
    if not out.parent.is_dir():
        raise YahtzeeSimError(f"{what} folder {str(out.parent)!r} does not exist")
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``distill`` from parsed arguments: 0 on success, 2 (one line on stderr) on bad
    input."""
    from .analysis.distill import distill

    try:
        out = _check_out(args.out, "--out")
        plot = _check_out(args.plot, "--plot")
        if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
            raise YahtzeeSimError(f"--plot {args.plot!r}: the name must end in .png, .svg or .pdf")
        res = distill(
            args.rules,
            max_rules=args.max_rules,
            seed=args.seed,
            n_games=args.games,
            progress=not args.quiet,
        )
    except YahtzeeSimError as exc:
        print(f"yahtzee-sim distill: error: {exc}", file=sys.stderr)
        return 2
    if out is not None:
        res.card.save(out)
    if plot is not None:
        res.plot(plot)
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
        return 0
    print(res.card.format())
    print(f"optimal play: {res.optimal:.4f}")
    print("rules  exact mean      sd  regret")
    for p in res.curve:
        print(f"{p['n_rules']:5d}  {p['mean']:10.4f}  {p['sd']:6.2f}  {p['regret']:6.3f}")
    return 0

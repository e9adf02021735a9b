"""Reports written to a folder: ``report`` (the benchmark) and ``reproduce`` (the papers)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import print_result

MIN_GAMES = 100


def _fmt2(v: float) -> str:
    """Two decimals."""
    return f"{v:.2f}"


def _fmt4(v: float) -> str:
    """Four decimals."""
    return f"{v:.4f}"


def _run_options(args: argparse.Namespace) -> dict:
    """The API keywords ``report`` and ``reproduce`` share: games, seed, folder, jobs,
    progress (``--games`` below :data:`MIN_GAMES` is refused by the parser)."""
    return {
        "n_games": args.games,
        "seed": args.seed,
        "out": args.out,
        "n_jobs": args.jobs,
        "progress": opt.progress(args),
    }


# ------------------------------------------------------------------ report
def add_report_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``report``."""
    opt.add_rules(p)
    opt.add_strategies(p, "all", "'all' or comma-separated strategies (optimal is always added)")
    opt.add_games(
        p,
        None,
        f"simulated games per strategy (default 100000, 10000 with --quick; >= {MIN_GAMES})",
        minimum=MIN_GAMES,
    )
    opt.add_seed(p)
    opt.add_path(p, "--out", "report folder (default: reports/<rules>)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="a first look in seconds: 10000 games unless --games, regret against optimal "
        "play, exact laws of optimal play only, no Kim-Nelson ranking",
    )
    opt.add_flag(
        p,
        "--simulate-all",
        "rank every strategy by its simulated games, the deterministic ones too (as rank "
        "--simulate-all; by default the ranking takes their exact means)",
    )
    opt.add_jobs(p, 2, "parallel jobs (default 2)")
    p.add_argument(
        "--figure-format",
        default="png",
        metavar="FORMATS",
        help="comma-separated formats of every figure: png, pdf, svg (default png)",
    )
    p.add_argument(
        "--top",
        type=opt.whole,
        default=10,
        help="costliest situations listed per strategy (default 10)",
    )
    opt.add_output(p)


def format_report(rep, out: Path, files: list[str], seconds: float) -> str:
    """The summary table of a report, what was left out, the ranking's guarantee, where
    (``out``, ``files``) it was written and in how many ``seconds``."""
    cols = ["exact mean", "mean", "SD", "p10", "median", "bonus %"]
    lines = [rep.summary[cols].to_string(float_format=_fmt2)]
    lines += [f"left out {what}: {why}" for what, why in rep.skipped.items()]
    lines.append(f"full ranking: {rep.ranking.guarantee}")
    lines.append(
        f"report written to {out / 'report.md'} (and report.html, {len(files) - 2} "
        f"figures and data files) in {seconds:.1f} s"
    )
    return "\n".join(lines)


def run_report(args: argparse.Namespace) -> int:
    """Compute the benchmark report (:func:`analysis.report.build_report`), write it
    (:func:`analysis.report_files.write_report`) and summarize it."""
    # analysis loads pandas, matplotlib and every strategy: imported here, not for --help.
    from yahtzee_sim.analysis.report.build import build_report
    from yahtzee_sim.analysis.report.write import report_folder, write_report
    from yahtzee_sim.analysis.style import parse_figure_formats

    formats = parse_figure_formats(args.figure_format)  # a bad format fails before the run
    if args.top < 0:
        raise opt.CliError(f"--top must be >= 0, got {args.top}")
    t0 = time.perf_counter()
    options = _run_options(args)
    rules = opt.rules_from(args)
    out = report_folder(options.pop("out"), rules)  # a file there fails before the long run
    rep = build_report(
        rules=rules,
        strategies=args.strategies,
        regret_top=args.top,
        quick=args.quick,
        simulate_all=args.simulate_all,
        **options,
    )
    files = write_report(rep, out, formats)
    seconds = time.perf_counter() - t0
    data = {"out": str(out), "files": files, **rep.to_dict()}
    return print_result(args.json, data, format_report(rep, out, files, seconds))


# ------------------------------------------------------------------ reproduce
def add_reproduce_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``reproduce``."""
    opt.add_flag(
        p,
        "--quick",
        "skip the Yatzy target table (Tillius Table 13); Kim-Nelson for delta >= 1 only",
    )
    p.add_argument(
        "--sections",
        default="all",
        help="'all' (default) or comma-separated sections (reference-values, glenn-2006, "
        "simulating-yahtzee, kim-nelson, defensive, tillius)",
    )
    opt.add_games(
        p,
        100_000,
        f"games per simulated figure (default 100000, as the papers; >= {MIN_GAMES})",
        minimum=MIN_GAMES,
    )
    opt.add_seed(p, 2026)
    opt.add_path(
        p,
        "--out",
        "output folder (default reports/reproduction)",
        default=Path("reports/reproduction"),
    )
    opt.add_jobs(p, 2, "parallel jobs (default 2)")
    opt.add_output(p)


def format_reproduction(rep) -> str:
    """Paper against ours, one row per published figure (with its status: ``agrees``, or a
    documented ``gap``), then the documented gaps with their reasons, then what was skipped."""
    import pandas as pd  # pandas is loaded by the analysis package already

    shown = rep.frame()[["table", "item", "paper", "ours", "difference", "method", "status"]]
    with pd.option_context("display.width", 200, "display.max_colwidth", 70):
        lines = [shown.to_string(index=False, float_format=_fmt4)]
    gaps = rep.gaps()
    if len(gaps):
        lines.append("documented gaps (paper | ours | gap: reason):")
        lines += [
            f"  {g.table}, {g.item}: {_fmt4(g.paper)} | {_fmt4(g.ours)} | "
            f"{g.difference:+.4f}: {g.note}"
            for g in gaps.itertuples()
        ]
    lines += [f"skipped {what}: {why}" for what, why in rep.skipped.items()]
    lines.append(f"written to {rep.out / 'report.md'} (and report.html, reproduction.csv, figures)")
    return "\n".join(lines)


def run_reproduce(args: argparse.Namespace) -> int:
    """Recompute every published table: paper | ours
    (:func:`yahtzee_sim.analysis.report.reproduction.build.reproduce`)."""
    # pandas, matplotlib: not for --help
    from yahtzee_sim.analysis.report.reproduction.build import SECTIONS, reproduce

    sections = SECTIONS if args.sections == "all" else tuple(args.sections.split(","))
    rep = reproduce(sections=sections, quick=args.quick, **_run_options(args))
    print(json.dumps(rep.to_dict()) if args.json else format_reproduction(rep))
    return 0

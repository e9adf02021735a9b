"""Learning which strategy is best: ``select`` (Kim-Nelson) and ``dataset`` (decisions)."""

from __future__ import annotations

import argparse
import json
import time

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import check_frame_file, print_result


# ------------------------------------------------------------------ select
def add_select_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``select``."""
    opt.add_strategies(p, "all", "'all' or comma-separated strategies")
    p.add_argument(
        "--delta",
        type=float,
        default=1.0,
        help="indifference zone: smallest difference worth detecting (default 1)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="1 - P(correct selection)")
    p.add_argument("--metric", choices=["total", "yahtzees", "bonus", "win"], default="total")
    p.add_argument(
        "--field",
        default="optimal",
        metavar="STRATEGY",
        help=opt.strategy_help("optimal", "with --metric win: the opponents' strategy, an id"),
    )
    opt.add_count(p, "--players", "with --metric win: players per match", default=2)
    opt.add_flag(p, "--blind", "with --metric win: hide the score sheets (blind games)")
    opt.add_flag(p, "--minimize", "select the smallest mean")
    opt.add_count(p, "--m", "stop when m strategies remain", default=1)
    opt.add_count(p, "--n0", "first-stage observations", default=20)
    opt.add_count(p, "--batch", "games per observation", default=10)
    opt.add_seed(p)
    opt.add_rules(p)
    opt.add_jobs(p, 1, "threads/processes per draw")
    opt.add_output(p, quiet=False)


def select_summary(res, intervals) -> dict:
    """The JSON form of a Kim-Nelson selection and its MCB intervals."""
    return {
        "winners": res.winners,
        "observations": res.observations,
        "games": res.parameters["games"],
        "eliminated": [[name, stage] for name, stage in res.eliminated],
        "means": res.means,
        "mcb": intervals.to_dict(orient="records"),
        "parameters": {k: v for k, v in res.parameters.items() if k != "games"},
    }


def format_selection(args: argparse.Namespace, res, intervals, seconds: float) -> str:
    """The winners, then one row per strategy: mean, observations, stage out, MCB interval."""
    width = max(18, 2 + max(len(name) for name in res.means))
    lines = [
        f"Kim-Nelson selection on {args.metric} ({'min' if args.minimize else 'max'}), "
        f"delta {args.delta}, alpha {args.alpha}, m {args.m}, n0 {args.n0}, "
        f"{args.batch} games per observation, rules {res.parameters['rules']}",
        f"winners: {', '.join(res.winners)}   observations needed: "
        f"{max(res.observations.values()):,}   games played: {res.parameters['games']:,}   "
        f"({seconds:.1f} s)",
        f"{'strategy':<{width}}{'mean':>10}{'obs':>9}  eliminated at  MCB interval vs best",
    ]
    stage = dict(res.eliminated)
    for row in intervals.itertuples():
        when = f"stage {stage[row.system]}" if row.system in stage else "winner"
        lines.append(
            f"{row.system:<{width}}{res.means[row.system]:>10.3f}{res.observations[row.system]:>9}"
            f"  {when:<15}[{row.lower:+.3f}, {row.upper:+.3f}]"
        )
    return "\n".join(lines)


def run_select(args: argparse.Namespace) -> int:
    """Kim-Nelson selection of the best strategy (:func:`analysis.select_best`) with MCB."""
    # analysis loads pandas and every strategy: imported here so that --help stays fast.
    from yahtzee_sim.analysis import WinMetric, mcb, select_best
    from yahtzee_sim.engine.plugins import split_strategy_list
    from yahtzee_sim.strategies import default_strategy_ids

    ids = (
        default_strategy_ids()
        if args.strategies.strip() == "all"
        else split_strategy_list(args.strategies)
    )
    metric = args.metric
    if metric == WinMetric.name:
        metric = WinMetric(field=args.field, players=args.players, visible=not args.blind)
    t0 = time.perf_counter()
    res = select_best(
        ids,
        delta=args.delta,
        alpha=args.alpha,
        metric=metric,
        m=args.m,
        n0=args.n0,
        batch=args.batch,
        seed=args.seed,
        rules=opt.rules_from(args),
        maximize=not args.minimize,
        n_jobs=args.jobs,
    )
    seconds = time.perf_counter() - t0
    common = min(res.observations.values())
    intervals = mcb(
        res.data[:, :common], list(res.observations), alpha=args.alpha, maximize=not args.minimize
    )
    text = format_selection(args, res, intervals, seconds)
    return print_result(args.json, select_summary(res, intervals), text)


# ------------------------------------------------------------------ dataset
def add_dataset_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``dataset``."""
    opt.add_game_options(p, 10_000)
    opt.add_path(p, "--out", "write the decisions to FILE.parquet or FILE.csv", required=True)
    opt.add_output(p, json_help="print the summary as one JSON object")


def format_dataset(out: dict) -> str:
    """The text summary of a decision data set: size, regret, decisions by type."""
    lines = [
        f"{out['decisions']:,} decisions of {out['strategy']} in {out['games']:,} games "
        f"({out['rules']}, seed {out['seed']}) written to {out['out']}",
        f"  regret against optimal: {out['regret_per_game']:.3f} points per game",
    ]
    for name, k in out["by_decision"].items():
        lines.append(
            f"  {name:<22} {k['decisions']:>10,} decisions, {k['mistakes']:>9,} mistakes, "
            f"{k['regret_per_game']:.3f} points per game"
        )
    return "\n".join(lines)


def run_dataset(args: argparse.Namespace) -> int:
    """Write one row per decision (:func:`analysis.dataset.decision_dataset`) and summarize."""
    from yahtzee_sim.analysis.decisions.dataset import decision_dataset  # pandas: not for --help

    check_frame_file("--out", args.out)  # before the games are played
    ds = decision_dataset(
        opt.strategy_from(args),
        args.games,
        args.seed,
        opt.rules_from(args),
        progress=opt.progress(args),
    )
    ds.write(args.out)
    out = ds.summary() | {"out": str(args.out), "seconds": round(ds.seconds, 2)}
    print(json.dumps(out) if args.json else format_dataset(out))
    return 0

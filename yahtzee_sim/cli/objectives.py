"""Play for other goals than the mean: ``target``, ``win`` and ``risk``."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import PLOT_SUFFIXES, check_file, print_result, save_plot
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.solving.risk import check_theta
from yahtzee_sim.solving.target import best_percentile, max_score, target_table


# ------------------------------------------------------------------ target
def add_target_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``target``."""
    opt.add_rules(p)
    opt.add_count(p, "--beta", "the target final score (needed unless --curve)")
    opt.add_flag(p, "--curve", "P*(final >= beta) for every beta, next to max-EV play's")
    opt.add_count(p, "--max-beta", "solve only for targets up to this (default: all)")
    opt.add_path(p, "--plot", "with --curve: save the plot to FILE.png/.pdf/.svg")
    p.add_argument(
        "--percentile",
        type=float,
        default=None,
        help="the highest q-th percentile any strategy can guarantee, and its target",
    )
    opt.add_output(p)


def _check_target_args(args: argparse.Namespace, top: int, rules_name: str) -> None:
    """CliError for a combination of ``target`` options that asks for nothing or too much."""
    if args.beta is not None and args.beta > top:
        raise opt.CliError(
            f"--beta {args.beta} is above {top}, the largest score on rules {rules_name!r}"
        )
    if args.beta is None and not args.curve and args.percentile is None:
        raise opt.CliError("give --beta N (one target), --curve (every target) or --percentile Q")
    if args.plot is not None and not args.curve:
        raise opt.CliError("--plot draws the curve: add --curve")
    if args.beta is not None and args.max_beta is not None and args.beta > args.max_beta:
        raise opt.CliError(f"--beta {args.beta} is above --max-beta {args.max_beta}")
    check_file("--plot", args.plot, PLOT_SUFFIXES)


def target_summary(args: argparse.Namespace, rules) -> tuple[dict, np.ndarray, np.ndarray]:
    """Solve target play (:func:`yahtzee_sim.solving.target.target_table`) for the options given.

    Returns
    -------
    tuple
        The JSON-ready result, target play's survival curve ``P*(final >= beta)`` and
        max-EV play's.
    """
    top = max_score(rules)
    _check_target_args(args, top, rules.name)
    t0 = time.perf_counter()
    max_beta = args.max_beta if args.max_beta is not None else args.beta if not args.curve else None
    table = target_table(rules, max_beta=max_beta, progress=opt.progress(args))
    curve = table.curve()
    optimal = evaluate("optimal", rules).survival()
    opt_curve = np.zeros(len(curve))
    opt_curve[: min(len(optimal), len(curve))] = optimal[: len(curve)]
    out = {
        "rules": rules.name,
        "max_beta": table.max_beta,
        "seconds": time.perf_counter() - t0,
        "source": table.meta.get("source"),
        "table_gb": table.nbytes / 2**30,
    }
    if args.beta is not None:
        out.update(
            beta=args.beta,
            probability=float(curve[args.beta]),
            optimal_probability=float(opt_curve[args.beta]),
        )
    if args.curve:
        out.update(curve=curve.tolist(), optimal_curve=opt_curve.tolist())
    if args.percentile is not None:
        best = best_percentile(curve, args.percentile)
        if best >= table.max_beta and table.max_beta < top:
            raise opt.CliError(
                f"the best {args.percentile:g}th percentile is at least --max-beta "
                f"{table.max_beta}: raise --max-beta"
            )
        out["percentile"] = {
            "q": args.percentile,
            "best": best,
            "strategy": f"target:{best}",
            "optimal": evaluate("optimal", rules).percentile(args.percentile),
        }
    return out, curve, opt_curve


def format_target(out: dict, curve: np.ndarray, opt_curve: np.ndarray) -> str:
    """The text report of :func:`target_summary` (one target, the curve, the source)."""
    lines = []
    if "beta" in out:
        lines.append(
            f"rules {out['rules']}: max P(final >= {out['beta']}) = {out['probability']:.6g} "
            f"(max-EV play: {out['optimal_probability']:.6g})"
        )
    if "curve" in out:
        lines.append("beta  P*(final >= beta)  max-EV P(final >= beta)")
        nz = np.flatnonzero(curve > 0)
        last = int(nz[-1]) if len(nz) else 0
        for b in range(0, last + 1, max(1, last // 20)):
            lines.append(f"{b:4d}  {curve[b]:17.6g}  {opt_curve[b]:23.6g}")
    return "\n".join(lines)


def run_target(args: argparse.Namespace) -> int:
    """Target-score optimal play: max P(final score >= beta), the curve, the best percentile."""
    rules = opt.rules_from(args)
    out, curve, opt_curve = target_summary(args, rules)
    if "percentile" in out and not args.json:
        q = out["percentile"]
        print(
            f"rules {rules.name}: the best {args.percentile:g}th percentile any strategy "
            f"can guarantee is {q['best']} (target:{q['best']}); max-EV play's is {q['optimal']}"
        )
    if args.plot is not None:
        from yahtzee_sim.analysis import plot_target_curve  # pandas: only when a plot is asked for

        title = f"Target-score play on {rules.name}"
        save_plot(
            args.plot, lambda ax: plot_target_curve(curve, opt_curve, ax=ax, title=title), (7, 3.2)
        )
    if args.json:
        print(json.dumps(out))
        return 0
    text = format_target(out, curve, opt_curve)
    if text:
        print(text)
    if args.plot is not None:
        print(f"plot written to {args.plot}")
    print(f"({out['source']}, {out['seconds']:.1f} s)")
    return 0


# ------------------------------------------------------------------ win
def add_win_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``win``."""
    opt.add_rules(p)
    opt.add_count(p, "--players", "players in the match (>= 2; default 2)", default=2)
    p.add_argument(
        "--vs",
        default="optimal",
        metavar="STRATEGY",
        help=opt.strategy_help(
            "optimal", "the opponents' deterministic strategy (its exact law is used), an id"
        ),
    )
    opt.add_flag(p, "--law", "also the exact law of win:N (mean, SD)")
    opt.add_output(p)


def win_summary(args: argparse.Namespace, rules) -> dict:
    """The best response to known opponents
    (:class:`~yahtzee_sim.strategies.win_seeking_blind.BlindWinSeeking`)."""
    from yahtzee_sim.strategies import get_strategy  # loads every strategy: not needed for --help
    from yahtzee_sim.strategies.win_seeking_blind import BlindWinSeeking

    if args.players < 2:
        raise opt.CliError(f"--players must be at least 2, got {args.players}")
    t0 = time.perf_counter()
    vs = get_strategy(args.vs)
    strategy = BlindWinSeeking(args.players, vs=vs)
    p = strategy.win_probability(rules)
    law = evaluate(strategy, rules, progress=opt.progress(args)) if args.law else None
    opp = evaluate(vs, rules)
    return {
        "rules": rules.name,
        "players": args.players,
        "vs": strategy_label(vs),
        "win_probability": p,
        "baseline": 1.0 / args.players,
        "opponent_mean": opp.mean,
        "opponent_sd": opp.sd,
        "mean": law.mean if law else None,
        "sd": law.sd if law else None,
        "seconds": time.perf_counter() - t0,
    }


def format_win(out: dict) -> str:
    """The text report of :func:`win_summary`."""
    n = out["players"]
    lines = [
        f"rules {out['rules']}, {n} players, opponents play {out['vs']}: "
        f"win:{n} wins with probability {out['win_probability']:.6f} (baseline {1 / n:.6f})"
    ]
    if out["mean"] is not None:
        lines.append(
            f"  its score: mean {out['mean']:.4f}, SD {out['sd']:.4f} "
            f"(opponents: mean {out['opponent_mean']:.4f}, SD {out['opponent_sd']:.4f})"
        )
    lines.append(f"  ({out['seconds']:.1f} s)")
    return "\n".join(lines)


def run_win(args: argparse.Namespace) -> int:
    """Play to win against known opponents: the win probability and, with --law, the score law."""
    out = win_summary(args, opt.rules_from(args))
    print(json.dumps(out) if args.json else format_win(out))
    return 0


# ------------------------------------------------------------------ risk
def add_risk_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``risk``."""
    opt.add_rules(p)
    p.add_argument(
        "--theta",
        type=opt.float_list,
        default=None,
        help="risk parameter(s), comma-separated (> 0 risk-averse, < 0 risk-seeking)",
    )
    opt.add_path(p, "--plot", "save the mean-vs-SD / mean-vs-p10 frontier")
    opt.add_output(p, quiet=False)


def _law_row(theta: float, res) -> dict:
    """Mean, SD, p10 and p90 of one exact law, under its risk parameter."""
    return {
        "theta": theta,
        "mean": res.mean,
        "sd": res.sd,
        "p10": res.percentile(10),
        "p90": res.percentile(90),
    }


def risk_frontier(thetas: list[float], rules) -> tuple[list[dict], dict]:
    """Exact laws of exponential-utility play (``risk:THETA``) and of max-EV play (theta 0)."""
    rows = []
    for theta in thetas:
        t0 = time.perf_counter()
        res = evaluate(f"risk:{theta!r}", rules)
        rows.append(_law_row(theta, res) | {"seconds": time.perf_counter() - t0})
    return rows, _law_row(0.0, evaluate("optimal", rules))


def format_risk(rules_name: str, rows: list[dict]) -> str:
    """The frontier as a table sorted by theta."""
    lines = [
        f"rules {rules_name}: exponential-utility play (theta 0 = max-EV)",
        f"  {'theta':>9} {'mean':>9} {'sd':>8} {'p10':>5} {'p90':>5}",
    ]
    for r in sorted(rows, key=lambda r: r["theta"]):
        lines.append(
            f"  {r['theta']:>9.4g} {r['mean']:>9.3f} {r['sd']:>8.3f} {r['p10']:>5} {r['p90']:>5}"
        )
    return "\n".join(lines)


def run_risk(args: argparse.Namespace) -> int:
    """Risk-sensitive play: the mean, SD and percentiles of each theta, and the frontier plot."""
    rules = opt.rules_from(args)
    if not args.theta:
        raise opt.CliError("give --theta T (or several, comma-separated)")
    thetas = [check_theta(t, rules) for t in args.theta]
    check_file("--plot", args.plot, PLOT_SUFFIXES)
    rows, base = risk_frontier(thetas, rules)
    if args.plot is not None:
        from yahtzee_sim.analysis import plot_risk_frontier  # pandas: only when a plot is asked for

        title = f"Risk-sensitive play on {rules.name}"
        save_plot(
            args.plot,
            lambda axes: plot_risk_frontier([*rows, base], axes, title=title),
            (7, 3.0),
            ncols=2,
        )
    data = {"rules": rules.name, "rows": rows, "optimal": base}
    return print_result(args.json, data, format_risk(rules.name, [*rows, base]))

"""``rank``: the full ranking of strategies with simultaneous intervals and tiers."""

from __future__ import annotations

import argparse

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import print_result

#: Games per strategy of ``rank`` by default.
RANK_GAMES = 10_000


def add_rank_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``rank``."""
    opt.add_strategies(p, "all", "'all' or comma-separated strategies (at least 2)")
    opt.add_games(
        p, RANK_GAMES, f"games per random strategy (default: {RANK_GAMES}, >= 2)", minimum=2
    )
    p.add_argument("--alpha", type=float, default=0.05, help="family-wise error (default 0.05)")
    opt.add_flag(p, "--simulate-all", "simulate the deterministic strategies too (no exact means)")
    opt.add_seed(p)
    opt.add_rules(p)
    opt.add_jobs(p, 1, "parallel blocks of games")
    opt.add_path(
        p,
        "--out",
        "also write ranking.csv, ranking_pairs.csv and ranking.tex into folder DIR (created), "
        "the files of the report's ranking",
        metavar="DIR",
    )
    opt.add_output(p)


def format_ranking(res, rules: str, seed: int) -> str:
    """The ranking table (rank order: mean, the difference to the best with its
    simultaneous interval, tier, games), the procedure and its guarantee."""
    from yahtzee_sim.analysis.report.ranking_files import BEHIND, ranking_display

    shown = ranking_display(res)
    width = max(10, 2 + max(len(s) for s in shown.index))
    lines = [
        f"full ranking on {rules}: {res.games:,} games per random strategy, seed {seed}, "
        f"alpha {res.alpha:g}",
        f"{'strategy':<{width}}{'mean':>10}{BEHIND:>17}  {'simultaneous interval':<22}"
        f"{'tier':<6}games",
    ]
    for sid, row in shown.iterrows():
        behind = "" if row[BEHIND] != row[BEHIND] else f"{row[BEHIND]:.2f}"
        lines.append(
            f"{sid:<{width}}{row['mean']:>10.2f}{behind:>17}  "
            f"{row['simultaneous interval']:<22}{row['tier']:<6}{row['games']}"
        )
    lines += [
        f"procedure: {res.procedure}; pairs tested: {res.tested_pairs}, "
        f"compared by exact means: {int(res.pairs['exact'].sum())}",
        res.guarantee,
    ]
    return "\n".join(lines)


def run_rank(args: argparse.Namespace) -> int:
    """The full ranking (:func:`analysis.rank_strategies`)."""
    # analysis loads pandas and every strategy: imported here so that --help stays fast.
    from yahtzee_sim.analysis import rank_strategies
    from yahtzee_sim.analysis.report.ranking_files import write_ranking_files
    from yahtzee_sim.engine.plugins import split_strategy_list
    from yahtzee_sim.strategies import default_strategy_ids

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise opt.CliError(f"--out: {str(args.out)!r} exists and is not a folder")
    text = args.strategies.strip()
    ids = default_strategy_ids() if text == "all" else split_strategy_list(text)
    rules = opt.rules_from(args)
    res = rank_strategies(
        ids,
        n_games=args.games,
        seed=args.seed,
        rules=rules,
        alpha=args.alpha,
        exact=not args.simulate_all,
        n_jobs=args.jobs,
        progress=opt.progress(args),
    )
    text = format_ranking(res, rules.name, args.seed)
    if args.out is not None:
        files = write_ranking_files(args.out, res)
        text += f"\n{', '.join(files)} written to {args.out}"
    return print_result(args.json, res.to_dict(), text)

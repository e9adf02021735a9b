"""Several players: ``tournament`` (and its round robin) and ``winprob``."""

from __future__ import annotations

import argparse
import json
import time

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import PLOT_SUFFIXES, check_file, print_result, save_plot


# ------------------------------------------------------------------ tournament
def add_tournament_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``tournament``."""
    opt.add_strategies(
        p, "optimal,greedy", "one strategy per seat, comma-separated (the last fills the others)"
    )
    opt.add_count(p, "--players", "number of seats (default: one per strategy)")
    opt.add_games(p, 100_000)
    opt.add_seed(p)
    opt.add_rules(p)
    opt.add_jobs(p, 1, "parallel jobs per seat", all_cores=False)
    opt.add_flag(
        p, "--visible", "players take turns in each match and see each other's score sheets"
    )
    opt.add_flag(
        p,
        "--round-robin",
        "every ordered choice of --players distinct strategies (default 2 players)",
    )
    opt.add_path(p, "--plot", "with --round-robin: save the win matrix plot")
    opt.add_output(p)


def _fmt4(v: float) -> str:
    """A rate with four decimals."""
    return f"{v:.4f}"


def format_tournament(res, visible: bool, seed: int) -> str:
    """The text report of a :class:`TournamentResult`: win rates and the winning score."""
    kind = "visible" if visible else "blind"
    w = res.winning_summary()
    return "\n".join(
        [
            f"{res.parameters['players']}-player {kind} games on {res.rules_name}, "
            f"{res.games} games, seed {seed}",
            res.win_rates().to_string(float_format=_fmt4),
            f"winning score: mean {w['mean']:.2f}, SD {w['sd']:.2f}, p10 {w['p10']:.0f}, "
            f"median {w['median']:.0f}, p90 {w['p90']:.0f}   ({res.seconds:.1f} s)",
        ]
    )


def format_round_robin(res, visible: bool) -> str:
    """The text report of a round robin: the win matrix and the ranking."""
    kind = "visible" if visible else "blind"
    p = res.parameters
    return "\n".join(
        [
            f"round robin of {p['players']}-player {kind} games on {res.rules_name}: "
            f"{len(res.seatings)} seatings of {p['games']} games, seed {p['seed']}",
            "win share of row against column (both seat orders):",
            res.win_matrix().to_string(float_format=_fmt4, na_rep="-"),
            res.ranking().to_string(float_format=_fmt4),
            f"({res.seconds:.1f} s)",
        ]
    )


def run_tournament(args: argparse.Namespace) -> int:
    """Multiplayer games (:func:`analysis.tournament` or :func:`analysis.round_robin`)."""
    # analysis loads pandas and every strategy: imported here so that --help stays fast.
    from yahtzee_sim.analysis import round_robin, tournament

    if not args.round_robin and args.plot is not None:
        raise opt.CliError("--plot needs --round-robin")
    check_file("--plot", args.plot, PLOT_SUFFIXES)
    play = round_robin if args.round_robin else tournament
    res = play(
        args.strategies,
        players=(args.players or 2) if args.round_robin else args.players,
        n_games=args.games,
        seed=args.seed,
        rules=opt.rules_from(args),
        n_jobs=args.jobs,
        progress=opt.progress(args),
        visible=args.visible,
    )
    if args.plot is not None:  # (only with --round-robin)
        save_plot(args.plot, lambda ax: res.plot(ax=ax), (7, 5.5))
    if args.round_robin:
        text = format_round_robin(res, args.visible)
    else:
        text = format_tournament(res, args.visible, args.seed)
    return print_result(args.json, res.to_dict(), text, args.plot)


# ------------------------------------------------------------------ winprob
#: The most play-outs ``winprob --playouts`` holds in memory.
MAX_PLAYOUTS = 1_000_000

#: The strategy every seat plays in ``winprob --playouts``.
PLAYOUT_STRATEGY = "win-aware"


def add_winprob_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``winprob``."""
    p.add_argument(
        "--me",
        required=True,
        metavar="SHEET",
        help="your score sheet: 'ones=3,full_house=25,...' ('' = empty)",
    )
    p.add_argument(
        "--opponent",
        action="append",
        required=True,
        metavar="SHEET",
        help="an opponent's score sheet (repeat; seats follow yours in order)",
    )
    opt.add_position(p)
    p.add_argument(
        "--playouts",
        "--simulate",
        dest="playouts",
        type=opt.whole,
        default=0,
        metavar="N",
        help=f"also play the position out N times, at most {MAX_PLAYOUTS:,} "
        f"({PLAYOUT_STRATEGY} at every seat; the older spelling --simulate still works)",
    )
    opt.add_seed(p, help="seed of the play-outs (default 0)")
    opt.add_rules(p)
    opt.add_output(p, quiet=False)


def _sheets(args: argparse.Namespace, rules) -> list:
    """The score sheets in seat order: the opponents', with yours at ``--seat``."""
    from yahtzee_sim.multiplayer.win_probability import (
        ScoreSheet,  # loads every strategy: not needed for --help
    )

    sheets = [ScoreSheet.parse(s, rules) for s in args.opponent]
    if not 0 <= args.seat <= len(sheets):
        raise opt.CliError(f"--seat must be in 0..{len(sheets)} with {len(sheets)} opponents")
    sheets.insert(args.seat, ScoreSheet.parse(args.me, rules))
    return sheets


def format_winprob(res, sheets: list, seat: int, rules_name: str) -> str:
    """The text report of
    :func:`~yahtzee_sim.multiplayer.win_probability.win_probability_now`, one line a seat."""
    who = "game over" if res.to_move < 0 else f"seat {res.to_move} to move"
    lines = [f"rules {rules_name}, {len(sheets)} players, {who}"]
    for i, s in enumerate(sheets):
        name = "you" if i == seat else f"seat {i}"
        line = (
            f"  {name:8s} score {s.score:4d} ({s.turns:2d} boxes)  expected final "
            f"{res.expected_final[i]:7.2f}  P(win), max-EV play: {res.exact[i]:.4f}"
        )
        if res.simulated is not None:
            lo, hi = res.simulated_ci95[i]
            line += f"  {res.strategy}: {res.simulated[i]:.4f} [{lo:.4f}, {hi:.4f}]"
        lines.append(line)
    return "\n".join(lines)


def run_winprob(args: argparse.Namespace) -> int:
    """Live win probability of mid-game score sheets
    (:func:`~yahtzee_sim.multiplayer.win_probability.win_probability_now`)."""
    from yahtzee_sim.multiplayer.win_probability import win_probability_now

    rules = opt.rules_from(args)
    sheets = _sheets(args, rules)
    dice = None
    if args.dice is not None:
        dice = opt.dice(args.dice)
    elif args.rolls_left is not None:
        raise opt.CliError("--rolls-left needs --dice")
    if not 0 <= args.playouts <= MAX_PLAYOUTS:
        raise opt.CliError(
            f"--playouts must be in 0..{MAX_PLAYOUTS:,} (play-outs are held in memory), "
            f"got {args.playouts}"
        )
    t0 = time.perf_counter()
    res = win_probability_now(
        sheets,
        rules,
        dice=dice,
        rolls_left=args.rolls_left,
        n_playouts=args.playouts,
        strategy=PLAYOUT_STRATEGY,
        seed=args.seed,
    )
    if args.json:
        print(json.dumps(res.to_dict()))
        return 0
    print(format_winprob(res, sheets, args.seat, rules.name))
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0

"""Playing and coaching: ``play`` (terminal), ``serve`` (web page), ``analyze`` (records)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import check_file, save_plot
from yahtzee_sim.cli.missing_extras import require
from yahtzee_sim.game.rules import get_rules

#: The default near-tie threshold, points (the analysis's NEAR_TIE; the analysis itself is
#: imported only when a command needs it, so that --help stays fast).
NEAR_TIE = 0.1


# ------------------------------------------------------------------ play
def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``play``."""
    opt.add_rules(p)
    opt.add_seed(p, None, "dice of this seed (default: random)")
    p.add_argument("--game", type=opt.seed, default=0, help="which game of the seed (default 0)")
    p.add_argument(
        "--dice",
        choices=("program", "manual"),
        default="program",
        help="'manual': type the dice of a real game (default: the program rolls)",
    )
    opt.add_flag(p, "--no-coach", "no advice until the end")
    opt.add_path(p, "--record", "write the game's record (JSONL)")
    add_tie(p)
    p.add_argument(
        "--opponent",
        default=None,
        metavar="STRATEGY",
        help="play against this strategy in a visible two-player match (it plays its turn "
        "after each of yours)",
    )
    p.add_argument(
        "--compare",
        default=None,
        metavar="STRATEGY",
        help="show what this deterministic strategy (e.g. a rule card: card-30) plays at "
        "each decision, and what it loses",
    )


def run_play(args: argparse.Namespace) -> int:
    """Play one game in the terminal with a coach (:func:`yahtzee_sim.apps.terminal.play`)."""
    from yahtzee_sim.apps.terminal import play  # the game and its coach: imported only when playing

    check_file("--record", args.record)
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    play(
        opt.rules_from(args),
        seed=seed,
        game=args.game,
        manual=args.dice == "manual",
        coach=not args.no_coach,
        record=args.record,
        opponent=args.opponent,
        compare=args.compare,
        tie=args.tie,
    )
    if args.record is not None:
        print(f"game record written to {args.record} (yahtzee-sim analyze {args.record})")
    return 0


# ------------------------------------------------------------------ serve
def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``serve``."""
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: localhost)")
    p.add_argument("--port", type=opt.port, default=8000, help="port (default 8000; 0: any free)")
    opt.add_rules(p, help="default rule set", rolls_per_turn=False)


def run_serve(args: argparse.Namespace) -> int:
    """Serve the advisor, coach and game on a local web page
    (:func:`yahtzee_sim.apps.server.serve`)."""
    get_rules(args.rules)  # a bad preset: one line before anything starts
    require("flask", "serve")
    from yahtzee_sim.apps.server import serve  # Flask (the 'web' extra): only for this command

    serve(args.host, args.port, args.rules)
    return 0


# ------------------------------------------------------------------ analyze
def add_analyze_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``analyze``."""
    p.add_argument(
        "file",
        type=Path,
        help="game records (JSON Lines; format: the handbook's Play, coach and analyze page)",
    )
    opt.add_rules(
        p,
        default=None,
        help="the rules of records that name none (a record naming other rules is refused)",
        rolls_per_turn=False,
    )
    p.add_argument("--game", type=opt.whole, default=None, help="show this game's decisions")
    opt.add_count(p, "--top", "mistakes to list (default 5)", default=5)
    add_tie(p)
    opt.add_path(p, "--plot", "write the game's value path (PNG)")
    opt.add_output(p, quiet=False)


def points(text: str) -> float:
    """A number of points >= 0 (finite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of points >= 0, got {text!r}")
    return value


def add_tie(p: argparse.ArgumentParser) -> None:
    """Declare ``--tie POINTS``: the near-tie threshold of the grades."""
    p.add_argument(
        "--tie",
        type=points,
        default=NEAR_TIE,
        metavar="POINTS",
        help="a move within this many points of the best is a near tie, not a mistake "
        f"(default {NEAR_TIE})",
    )


def _span(values) -> str:
    """``first..last`` of the game numbers, or the one number."""
    v = sorted({int(x) for x in values})
    return f"{v[0]}..{v[-1]}" if len(v) > 1 else str(v[0])


def _json_default(x):
    """JSON for numpy scalars (the records' frames hold them)."""
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def format_game(res, game) -> str:
    """Every decision of one game: the move, the best move, the luck and the loss."""
    d = res.decisions[res.decisions["game"] == game]
    lines = [
        f"game {game}: every decision, its loss against optimal play and the luck before it "
        f"(<-: a mistake; ~: a near tie, within {res.tie:g} points of the best)",
        f"  {'turn':>4} {'left':>4}  {'dice':<10} {'move':<22} {'best move':<22} "
        f"{'luck':>7} {'loss':>6}",
    ]
    for r in d.itertuples():
        flag = {"mistake": "  <-", "near tie": "  ~"}.get(r.grade, "")
        best = r.optimal_move if r.loss > 1e-9 else "="
        lines.append(
            f"  {r.turn:>4} {r.rolls_left:>4}  {r.dice:<10} {r.move:<22} "
            f"{best:<22} {r.luck:>+7.2f} {r.loss:>6.2f}{flag}"
        )
    row = res.games[res.games["game"] == game].iloc[0]
    if row["complete"]:
        head = f"  score {row['score']}"
    else:
        head = f"  expected final {row['expected_final']:.2f} (in progress, {row['score']} so far)"
    lines.append(
        f"{head} = start {res.start_value:.2f} + luck {row['luck']:+.2f} "
        f"- regret {row['regret']:.2f}"
    )
    return "\n".join(lines)


def format_analysis(res, out: dict) -> str:
    """Means over the games, points lost by decision type, the costliest mistakes."""
    n = out["games"]
    lines = []
    if n > 1:
        lines.append(f"{n:,} games ({out['complete_games']:,} complete), rules {out['rules']}")
        for key, name in (("expected_final", "score"), ("luck", "luck"), ("regret", "regret")):
            m = out[key]
            lines.append(
                f"  mean {name:<7} {m['mean']:8.2f}  (95% CI {m['lo']:.2f} .. {m['hi']:.2f})"
            )
        lines.append(f"  start value {res.start_value:.2f} (expected score of optimal play)")
    lines.append(
        f"  points lost by decision type (per game; near ties: within {res.tie:g} points of "
        "the best, not mistakes):"
    )
    for name, r in out["by_decision"].items():
        lines.append(
            f"    {name:<22} {int(r['mistakes']):>7,} mistakes, {int(r['near_ties']):>6,} near "
            f"ties in {int(r['decisions']):>8,} decisions  {r['loss_per_game']:6.2f}"
        )
    if out["mistakes"] and n > 1:
        lines.append("  costliest mistakes:")
        lines += [
            f"    game {m['game']}, turn {m['turn']}, {m['rolls_left']} left, dice "
            f"{m['dice']}: {m['move']} instead of {m['optimal_move']} (-{m['loss']:.2f})"
            for m in out["mistakes"]
        ]
    return "\n".join(lines)


def run_analyze(args: argparse.Namespace) -> int:
    """Grade recorded games against optimal play (:func:`analysis.coach.analyze`)."""
    # analysis loads pandas and every strategy: imported here so that --help stays fast.
    from yahtzee_sim.analysis.decisions.coach import analyze, plot_value_path

    res = analyze(args.file, args.rules, args.tie)
    games = res.games
    only = games["game"].iloc[0] if len(games) == 1 else None
    single = args.game if args.game is not None else only
    if single is not None and single not in set(games["game"]):
        raise opt.CliError(f"--game {single}: the file holds games {_span(games['game'])}")
    if args.plot is not None:
        check_file("--plot", args.plot, (".png",))
        save_plot(args.plot, lambda ax: plot_value_path(res, single, ax), (7, 3.0))
    out = res.summary(args.top)
    if single is not None:
        out["game"] = games[games["game"] == single].iloc[0].to_dict()
        out["decisions"] = res.decisions[res.decisions["game"] == single].to_dict(orient="records")
    if args.json:
        print(json.dumps(out, default=_json_default))
        return 0
    if single is not None:
        print(format_game(res, single))
    print(format_analysis(res, out))
    if args.plot is not None:
        print(f"value path written to {args.plot}")
    return 0

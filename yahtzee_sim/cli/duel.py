"""``yahtzee-sim duel``: the exact optimal two-player move and P(win) at an endgame."""

from __future__ import annotations

import argparse
import json

from yahtzee_sim.cli import options as opt


def add_duel_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``duel``."""
    p.add_argument("--me", required=True, metavar="SHEET", help="your score sheet: 'ones=3,...'")
    p.add_argument("--opponent", required=True, metavar="SHEET", help="the opponent's score sheet")
    opt.add_position(p)
    p.add_argument(
        "--max-open",
        type=opt.whole,
        default=None,
        metavar="K",
        help="most open boxes per score sheet (default: the endgame limit, "
        "yahtzee_sim.multiplayer.duel.ENDGAME_BOXES; more may take minutes)",
    )
    opt.add_rules(p, rolls_per_turn=False)
    opt.add_output(p, quiet=False)


def run_duel(args: argparse.Namespace) -> int:
    """The optimal two-player move and P(win) (:func:`yahtzee_sim.multiplayer.duel.duel`)."""
    from yahtzee_sim.multiplayer.duel import duel
    from yahtzee_sim.multiplayer.win_probability import ScoreSheet

    rules = opt.rules_from(args)
    if args.seat not in (0, 1):
        raise opt.CliError(f"--seat must be 0 or 1, got {args.seat}")
    if args.max_open is not None and args.max_open < 0:
        raise opt.CliError(f"--max-open must be >= 0, got {args.max_open}")
    if args.dice is None and args.rolls_left is not None:
        raise opt.CliError("--rolls-left needs --dice")
    dice = None if args.dice is None else opt.dice(args.dice)
    sheets = [ScoreSheet.parse(args.opponent, rules)]
    sheets.insert(args.seat, ScoreSheet.parse(args.me, rules))
    limit = {} if args.max_open is None else {"max_open": args.max_open}
    res = duel(sheets, rules, dice=dice, rolls_left=args.rolls_left, **limit)
    mine = res.p_win if res.seat == args.seat else 1.0 - res.p_win
    if args.json:
        print(json.dumps({**res.to_dict(), "seat_me": args.seat, "p_win_me": mine}))
        return 0
    who = "you" if res.seat == args.seat else "the opponent"
    print(f"rules {rules.name}: seat {res.seat} ({who}) to move")
    for i, s in enumerate(sheets):
        name = "you" if i == args.seat else "opponent"
        print(f"  {name:9s} score {s.score:4d}, open: {', '.join(res.open_boxes[i]) or '-'}")
    if res.keep is not None:
        print(f"best keep: {res.keep or 'nothing (reroll all)'}")
    if res.box is not None:
        print(f"best box: {res.box}")
    print(f"P(you win), both playing optimally, ties split: {mine:.6f}  ({res.seconds:.2f} s)")
    return 0

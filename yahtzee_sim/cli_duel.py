"""``yahtzee-sim duel``: the exact optimal two-player move and P(win) at an endgame.

The command's parser (:func:`add_parser`) and body (:func:`run`); the CLI package
registers both. Bad input prints one line and returns exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import YahtzeeSimError

EXIT_USAGE = 2


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``duel`` command to ``subparsers`` (of :mod:`argparse`); returns its parser."""
    from .duel import ENDGAME_BOXES
    from .rules import PRESETS

    p = subparsers.add_parser(
        "duel",
        help="exact optimal two-player move and P(win) at an endgame position",
        description=(
            "Solve the visible two-player game exactly from two score cards (each with at "
            f"most --max-open open boxes, default {ENDGAME_BOXES}): P(win) of the player to "
            "move when both maximize their own, and with --dice their best keep or box."
        ),
    )
    p.add_argument("--me", required=True, metavar="CARD", help="your card: 'ones=3,...'")
    p.add_argument("--opponent", required=True, metavar="CARD", help="the opponent's card")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first to play)")
    p.add_argument("--dice", default=None, help="dice of the player to move, e.g. 6,6,6,2,3")
    p.add_argument("--rolls-left", type=int, default=None, help="rerolls left with --dice")
    p.add_argument(
        "--max-open",
        type=int,
        default=ENDGAME_BOXES,
        metavar="K",
        help=f"most open boxes per card (default {ENDGAME_BOXES}; more may take minutes)",
    )
    p.add_argument(
        "--rules", default="yahtzee", metavar="PRESET", help=f"rule set: {', '.join(PRESETS)}"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _dice(text: str | None, rolls_left: int | None):
    if text is None:
        if rolls_left is not None:
            raise YahtzeeSimError("--rolls-left needs --dice")
        return None
    try:
        return [int(d) for d in text.replace(" ", ",").split(",") if d]
    except ValueError:
        raise YahtzeeSimError(f"--dice must be faces like 6,6,6,2,3, got {text!r}") from None


def run(args) -> int:
    """Run ``yahtzee-sim duel`` with parsed ``args``; returns the exit code."""
    try:
        return _run(args)
    except YahtzeeSimError as exc:
        print(f"yahtzee-sim duel: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _run(args) -> int:
    from .duel import duel
    from .rules import get_rules
    from .winprob import ScoreCard

    rules = get_rules(args.rules)
    if args.seat not in (0, 1):
        raise YahtzeeSimError(f"--seat must be 0 or 1, got {args.seat}")
    if args.max_open < 0:
        raise YahtzeeSimError(f"--max-open must be >= 0, got {args.max_open}")
    cards = [ScoreCard.parse(args.opponent, rules)]
    cards.insert(args.seat, ScoreCard.parse(args.me, rules))
    dice = _dice(args.dice, args.rolls_left)
    res = duel(cards, rules, dice=dice, rolls_left=args.rolls_left, max_open=args.max_open)
    mine = res.p_win if res.seat == args.seat else 1.0 - res.p_win
    if args.json:
        print(json.dumps({**res.to_dict(), "seat_me": args.seat, "p_win_me": mine}))
        return 0
    who = "you" if res.seat == args.seat else "the opponent"
    print(f"rules {rules.name}: seat {res.seat} ({who}) to move")
    for i, c in enumerate(cards):
        name = "you" if i == args.seat else "opponent"
        print(f"  {name:9s} score {c.score:4d}, open: {', '.join(res.open_boxes[i]) or '-'}")
    if res.keep is not None:
        print(f"best keep: {res.keep or 'nothing (reroll all)'}")
    if res.category is not None:
        print(f"best box: {res.category}")
    print(f"P(you win), both playing optimally, ties split: {mine:.6f}  ({res.seconds:.2f} s)")
    return 0

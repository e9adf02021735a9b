"""A terminal game with a coach: ``yahtzee-sim play``.

The program rolls (the engine's dice: game ``game`` of ``seed``) or, with
``dice="manual"``, asks for the dice of a real game; the person keeps and scores. After
each decision the coach shows the points it lost against optimal play, the best move and
a one-line reason; at the end, the luck/skill split of the game
(:mod:`yahtzee_sim.analysis.decisions.coach`). Input is read line by line, so the game also plays
over a pipe (``printf '5 5\\n...' | yahtzee-sim play``); at the end of the input (or
``quit``) the game stops and what was played is kept (``record``).

At any prompt ``help`` explains the moves (:data:`HELP`) and ``sheet`` (or ``card``) shows
the score sheet (:func:`sheet_lines`). A box is named by its name, a prefix or a common abbreviation
(``ss``, ``3k``, ``fh``, ``y``: :func:`~yahtzee_sim.game.boxnames.match_box`); the game shows
boxes by their labels ("Three of a kind") in score-sheet order.

The game itself (the position, the moves and the coach) is
:class:`~yahtzee_sim.apps.game.Game`; this module reads the lines, prints the screen and
runs the loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from yahtzee_sim.apps.game import Game, MoveError, holds
from yahtzee_sim.engine.records import write_records
from yahtzee_sim.errors import EndOfInput, YahtzeeSimError
from yahtzee_sim.game.rules import RuleSet

if TYPE_CHECKING:
    from yahtzee_sim.strategies import Strategy


def _parse_faces(text: str, rules: RuleSet) -> list[int] | None:
    """Face values from ``text`` ("5 5 6", "556", "5,5,6"), or None if it is not that."""
    s = text.replace(",", " ").split()
    if len(s) == 1 and s[0].isdigit() and rules.n_faces < 10:
        s = list(s[0])
    try:
        faces = [int(x) for x in s]
    except ValueError:
        return None
    return faces if all(1 <= f <= rules.n_faces for f in faces) else None


def summary_line(s: dict) -> str:
    """The luck/skill summary of a game as one line.

    Parameters
    ----------
    s : dict
        The summary (:meth:`~yahtzee_sim.apps.game.Game.summary`).

    Returns
    -------
    str
        ``"final score 250: luck +3.1, points lost to decisions 7.5 (3 mistakes); optimal
        play expects 254.6 from the start"`` (``"score so far"`` before the end).
    """
    head = "final score" if s["complete"] else "score so far"
    return (
        f"{head} {s['score']}: luck {s['luck']:+.1f}, points lost to decisions "
        f"{s['regret']:.1f} ({s['mistakes']} mistakes); optimal play expects "
        f"{s['start_value']:.1f} from the start"
    )


HELP = """\
  keep> type the dice to hold ("5 5 6", "556" or "5,5,6") and the others are rerolled;
        'all' (or 'a', 'stop') keeps every die and stops rolling; '-' (or 'none') rerolls
        every die
  box>  name the box for the roll: its name or a prefix ("small st", "fu"), any case,
        spaces, '_' or '-' alike, or an abbreviation: 1s..6s, 3k/toak/three, 4k/four,
        fh/full, ss/sm/small, ls/lg/large, y/yahtzee/yatzy, ch/chance, and in Yatzy
        1p/pair, 2p/tp
  dice> (manual dice) the dice of the roll just made, kept dice included
  odds  at the keep prompt, 'odds 2345' shows the plan odds of keeping those dice: the
        chance each open box is made by the end of the turn, chasing it
  at any prompt: 'undo' takes back the last move (the same dice come again), 'sheet'
        shows the score sheet, 'help' this text, 'quit' ends the game (the record keeps
        what was played)"""


def sheet_lines(game: Game) -> list[str]:
    """The score sheet so far as text.

    Parameters
    ----------
    game : Game
        The game.

    Returns
    -------
    list of str
        One line each: a heading, every box (its label, its points or blank), the upper
        total and the bonus outlook, the Yahtzee bonuses (rules that pay them) and the
        total.
    """
    st, rules = game.state(), game.rules
    width = max(map(len, rules.box_labels))
    lines = [f"  score sheet ({rules.name}), turn {st['turn']}:"]
    for i, c in enumerate(rules.boxes):
        pts = st["sheet"][c.name]
        lines.append(f"    {c.label:<{width}} {'' if pts is None else pts:>4}")
        if i == rules.n_upper - 1:
            lines.append(f"    {'upper total':<{width}} {st['upper_total']:>4}")
            if st["upper_outlook"]:
                lines.append(f"      {st['upper_outlook']}")
    if rules.yahtzee_bonus:
        paid = st["yahtzee_bonuses"]
        won = f"{paid * rules.yahtzee_bonus:>4} ({paid} x {rules.yahtzee_bonus})"
        lines.append(f"    {'Yahtzee bonuses':<{width}} {won}")
    lines.append(f"    {'total':<{width}} {st['score']:>4}")
    return lines


_COMMANDS = {
    "help": "help",
    "?": "help",
    "h": "help",
    "sheet": "sheet",
    "card": "sheet",
    "quit": "quit",
    "undo": "undo",
}


class _TakenBack(Exception):
    """The person took back the last move: the loop shows the position again."""


def _asker(
    game: Game, ask: Callable[[str], str], say: Callable[[str], None]
) -> Callable[[str], str]:
    """``ask`` that answers the commands (help, sheet, quit, undo) itself and returns any
    other line; after an undo it raises :class:`_TakenBack`."""

    def ask_move(prompt: str) -> str:
        while True:
            line = ask(prompt)
            command = _COMMANDS.get(line.strip().lower())
            if command is None:
                return line
            if command == "quit":
                raise EndOfInput("quit")
            if command == "undo":
                try:
                    game.undo()
                except MoveError as exc:
                    say(f"  {exc}")
                    continue
                say("  (the last move is taken back)")
                raise _TakenBack
            say(HELP if command == "help" else "\n".join(sheet_lines(game)))

    return ask_move


def odds_line(game: Game, keep: list[int]) -> str:
    """The plan odds of keeping ``keep`` now as one line: the open lower boxes it may make,
    likeliest first, then those the dice make already, e.g. ``"keep 2 3 4 5, 2 rerolls:
    Large straight 55.6%, ...; made already: Small straight, Chance"``."""
    rules = game.rules
    lower = {c.name for c in rules.boxes if not c.is_upper}  # an upper box is always made
    odds = {b: p for b, p in game.plan_odds(keep).items() if b in lower}
    labels = dict(zip(rules.box_names, rules.box_labels, strict=True))
    ranked = sorted(((-p, b) for b, p in odds.items() if 0 < p), key=lambda x: x[0])
    parts = [f"{labels[b]} {-q:.1%}" for q, b in ranked if -q < 1][:5]
    sure = [labels[b] for q, b in ranked if -q >= 1]
    text = ", ".join(parts) or "no open box"
    if sure:
        text += "; made already: " + ", ".join(sure)
    j = game.rolls_left
    head = "keep " + (" ".join(map(str, sorted(keep))) or "nothing")
    return f"  plan odds, {head} with {j} reroll{'s' if j > 1 else ''} left: {text}"


def _terminal(
    game: Game, ask: Callable[[str], str], say: Callable[[str], None], coach: bool
) -> None:
    """Drive ``game`` from lines of input until it ends (or the input does)."""
    ask = _asker(game, ask, say)
    say("  ('help' explains the moves, 'undo' takes one back, 'sheet' shows the score sheet)")
    while not game.over:
        try:
            _decision(game, ask, say, coach)
        except _TakenBack:
            continue


def _decision(game: Game, ask: Callable[[str], str], say: Callable[[str], None], coach: bool):
    """One decision of ``game`` (or the dice of a manual roll), asked and played."""
    rules, st = game.rules, game.state()
    if st["need_dice"]:
        turn = game.record["turns"][-1] if game.record["turns"] else None
        kept = turn["keeps"][-1] if turn and len(turn["keeps"]) == len(turn["rolls"]) else []
        held = f", with {' '.join(map(str, kept))}" if kept else ""
        faces = _parse_faces(ask(f"dice> (the {rules.n_dice} dice of this roll{held}) "), rules)
        try:
            game.set_dice(faces if faces is not None else [])
        except MoveError as exc:
            say(f"  {exc} (e.g. 1 3 5 5 6)")
        return
    dice = " ".join(map(str, st["dice"]))
    line = f"turn {st['turn']}, score {st['score']}, dice {dice}, rolls left {st['rolls_left']}"
    if rules.saved_roll_cap:  # Maxi Yatzy: the bank of rolls carried between turns
        line += f" (bank: {st['saved_before']} saved rolls brought to this turn"
        line += f"; this turn saves {st['saved_rolls']})" if not st["rolls_left"] else ")"
    say(line)
    says = game.compared()
    if says is not None:
        say("  " + says.line())
    if st["rolls_left"] > 0:
        word = _keep(game, st, ask, say)
    else:
        labels = st["labels"]
        say("  boxes: " + ", ".join(f"{labels[b]} {p}" for b, p in st["boxes"].items()))
        typed = ask("box> ")  # (outside the try: the end of the input ends the game)
        try:
            word = game.box(typed)
        except YahtzeeSimError as exc:
            say(f"  {exc}")
            return
    if word is None:
        return
    if coach:
        say("  " + word.line())
    if game.opponent is not None and st["rolls_left"] == 0:
        say("  " + opponent_line(game))


def _keep(game: Game, st: dict, ask: Callable[[str], str], say: Callable[[str], None]):
    """Ask for the dice to hold (or plan odds: 'odds DICE') and play the keep; ``None``
    when the answer was no keep."""
    dice = " ".join(map(str, st["dice"]))
    stop = "score now and save the rolls left" if game.rules.saved_roll_cap else "stop rolling"
    text = ask(f"keep> (dice to hold, 'all' to {stop}, '-' for none, 'odds DICE') ").strip()
    if text.lower().startswith("odds"):
        rest = text[4:].strip()
        faces = [] if rest in ("", "-") else _parse_faces(rest, game.rules)
        if faces is None or not holds(st["dice"], faces):
            say(f"  odds of a keep: 'odds' and some of {dice}, e.g. odds {dice[:3]}")
        else:
            say(odds_line(game, faces))
        return None
    if text.lower() in ("all", "stop", "a"):
        kept = st["dice"]
    elif text.lower() in ("-", "none", "0"):
        kept = []
    else:  # (an empty line is no answer: '-' rerolls every die)
        kept = _parse_faces(text, game.rules) if text else None
    if kept is None or not holds(st["dice"], kept):
        say(f"  hold some of {dice} (or 'all', or '-'; 'help' explains)")
        return None
    return game.keep(kept)


def opponent_line(game: Game) -> str:
    """The opponent's last turn and the scores, as one line.

    Parameters
    ----------
    game : Game
        A game with an opponent that has played a turn.

    Returns
    -------
    str
        ``"greedy: rolled 1 1 2 3 5, kept 3; rolled ... -> Threes (6 points); you 45,
        greedy 50"`` (and the winner at the end: ``": you win"``, ``": greedy wins"`` or
        ``": a tie"``).
    """
    st = game.state()
    opp = st["opponent"]
    turn, name = opp["last_turn"], opp["strategy"]
    parts = []
    for i, roll in enumerate(turn["rolls"]):
        part = "rolled " + " ".join(map(str, roll))
        if i < len(turn["keeps"]):
            part += ", kept " + (" ".join(map(str, turn["keeps"][i])) or "nothing")
        parts.append(part)
    box = st["labels"][turn["box"]]
    line = f"{name}: {'; '.join(parts)} -> {box} ({turn['points']} points); "
    line += f"you {st['score']}, {name} {opp['score']}"
    if "winner" in st:
        line += {"person": ": you win", "opponent": f": {name} wins", "tie": ": a tie"}[
            st["winner"]
        ]
    return line


def play(
    rules: str | RuleSet = "yahtzee",
    ask: Callable[[str], str] | None = None,
    say: Callable[[str], None] = print,
    seed: int = 0,
    game: int = 0,
    manual: bool = False,
    coach: bool = True,
    record: str | None = None,
    opponent: str | Strategy | None = None,
    compare: str | Strategy | None = None,
    tie: float | None = None,
) -> dict:
    """Play one game in the terminal (see the module docstring).

    Parameters
    ----------
    rules : str or RuleSet, default "yahtzee"
        The rules.
    ask : callable, optional
        Shows a prompt and returns the next line of input; raises :class:`EndOfInput` at
        the end of the input. Default: standard input (line by line when it is not a
        terminal, so the game also plays over a pipe).
    say : callable, default print
        Shows one message.
    seed, game : int, default 0
        The program's dice: game ``game`` of ``seed``.
    manual : bool, default False
        Ask for the dice of a real game instead.
    coach : bool, default True
        Show the coach's word after each decision (the summary is shown at the end
        either way).
    record : str, optional
        Write the game record there (JSON Lines, one line).
    opponent, compare : str or Strategy, optional
        As :class:`~yahtzee_sim.apps.game.Game` takes them; each opponent turn and each
        second opinion is shown.
    tie : float, optional
        The coach's near-tie threshold, points (a move within it of the best is not a
        mistake; default 0.1).

    Returns
    -------
    dict
        The game record of what was played
        (:meth:`~yahtzee_sim.apps.game.Game.record_so_far`).
    """
    if ask is None:
        ask = _stdin_reader()
    g = Game(
        rules, seed=seed, game=game, manual=manual, opponent=opponent, compare=compare, tie=tie
    )
    try:
        _terminal(g, ask, say, coach)
    except EndOfInput as exc:
        say("(the game stops here)" if str(exc) == "quit" else "(input ended: the game stops here)")
    s = g.summary()
    if s is not None:
        say(summary_line(s))
    out = g.record_so_far()
    if record is not None:
        write_records(record, [out])
    return out


def _stdin_reader() -> Callable[[str], str]:
    """An ``ask`` reading standard input: ``input()`` at a terminal, else line by line
    (each prompt printed on its own line); :class:`EndOfInput` at the end."""
    import sys

    lines: Iterator[str] = iter(sys.stdin.readline, "")
    interactive = sys.stdin.isatty()

    def ask(prompt: str) -> str:
        if interactive:
            try:
                return input(prompt)
            except EOFError:
                raise EndOfInput("end of input") from None
        print(prompt, flush=True)
        line = next(lines, None)
        if line is None:
            raise EndOfInput("end of input")
        return line.rstrip("\n")

    return ask

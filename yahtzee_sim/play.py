"""A terminal game with a coach: ``yahtzee-sim play``.

The program rolls (the engine's dice: game ``game`` of ``seed``) or, with
``dice="manual"``, asks for the dice of a real game; the person keeps and scores. After
each decision the coach shows the points it lost against optimal play, the best move and
a one-line reason; at the end, the luck/skill split of the game
(:mod:`yahtzee_sim.analysis.coach`). Input is read line by line, so the game also plays
over a pipe (``printf '5 5\\n...' | yahtzee-sim play``); at the end of the input the game
stops and what was played is kept (``record``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from .advisor import Option, advise
from .errors import YahtzeeSimError
from .records import FORMAT, check_record, write_records
from .rules import RuleSet, get_rules


class EndOfInput(YahtzeeSimError):
    """The input ended before the game did."""


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


def _hold(dice: list[int], kept: list[int]) -> bool:
    return not (Counter(kept) - Counter(dice))


def keep_reason(rules: RuleSet, keep: tuple[int, ...], open_boxes: list[str]) -> str:
    """A one-line reason for keeping ``keep``: the open boxes those dice feed most, by how
    much they raise the next roll's expected points in each box (against rerolling all)."""
    if not keep:
        return "nothing worth keeping: a fresh roll of every die"
    t = rules.tables
    lift = _box_means(rules)
    k = t.keep_from_faces(keep)
    gain = lift[k] - lift[0]
    names = rules.category_names
    feeds = sorted(
        (c for c, n in enumerate(names) if n in open_boxes and gain[c] > 0.5),
        key=lambda c: -gain[c],
    )
    dice = " ".join(map(str, keep))
    if not feeds:
        return f"keep {dice}"
    return f"keep {dice}: it feeds {', '.join(names[c] for c in feeds[:2])}"


def _box_means(rules: RuleSet) -> np.ndarray:
    """``(n_keeps, n_categories)``: the next roll's expected points in each box after each
    keep (the keep->roll law times the score table)."""
    got = rules.__dict__.get("_box_means")
    if got is None:
        t = rules.tables
        got = rules.__dict__["_box_means"] = t.dense_keep_roll() @ t.score_table
    return got


def upper_outlook(rules: RuleSet, used: list[str], upper_total: int) -> str:
    """The upper bonus outlook: points still needed and what par (three of each open
    face) would bring."""
    if not rules.upper_bonus:
        return ""
    need = rules.upper_bonus_threshold - upper_total
    if need <= 0:
        return f"upper bonus secured ({upper_total} of {rules.upper_bonus_threshold})"
    open_faces = [c.param for c in rules.categories if c.is_upper and c.name not in used]
    if not open_faces:
        return f"upper bonus missed ({upper_total} of {rules.upper_bonus_threshold})"
    par = 3 * sum(open_faces)
    return (
        f"upper bonus: {need} more needed from {len(open_faces)} open upper boxes "
        f"(par {par}: {'on track' if par >= need else 'behind par'})"
    )


class Game:
    """One person's game: the position, the record, and the coach's notes.

    ``ask(prompt) -> str`` reads a line (raising :class:`EndOfInput` at the end);
    ``say(text)`` writes one.
    """

    def __init__(self, rules, ask, say, seed=0, game=0, manual=False, coach=True):
        from .env import GameBatch  # the engine's rolling and scoring, one game

        self.rules = get_rules(rules)
        self.ask, self.say = ask, say
        self.manual, self.coach = manual, coach
        self.batch = GameBatch(self.rules, 1)
        self.batch.seed(seed)
        self.record = {"format": FORMAT, "rules": self.rules.name, "strategy": "person"}
        if not manual:
            self.record |= {"seed": seed, "game": game}
        self.turns: list[dict] = []
        self.game = game
        self.total_loss = 0.0

    # ----------------------------------------------------------------- state
    @property
    def used(self) -> list[str]:
        u = int(self.batch.used[0])
        return [n for c, n in enumerate(self.rules.category_names) if (u >> c) & 1]

    def dice(self) -> list[int]:
        return list(self.rules.tables.faces_from_counts(self.batch.counts[0]))

    def _options(self, rolls_left: int) -> list[Option]:
        b = self.batch
        flag = int(b.flag[0])
        return advise(
            self.dice(),
            rolls_left,
            self.used,
            int(b.upper_total[0]),
            yahtzee_bonus=flag >= 1,
            rules=self.rules,
            bonuses_paid=max(flag - 1, 0) if self.rules.yahtzee_bonus_limit else 0,
        )

    def _set_dice(self, faces: list[int]) -> None:
        b, t = self.batch, self.rules.tables
        counts = t.counts_from_faces(faces)
        b.counts[0] = counts
        b.roll_idx[0] = int(t.roll_index(counts))

    def _manual_roll(self, kept: list[int]) -> None:
        n = self.rules.n_dice
        held = f", with {' '.join(map(str, kept))}" if kept else ""
        while True:
            text = self.ask(f"dice> (the {n} dice of this roll{held}) ")
            faces = _parse_faces(text, self.rules)
            if faces is None or len(faces) != n:
                self.say(f"  enter {n} dice, faces 1..{self.rules.n_faces} (e.g. 1 3 5 5 6)")
            elif not _hold(faces, kept):
                self.say(f"  those dice lost the kept {' '.join(map(str, kept))}")
            else:
                self._set_dice(faces)
                return

    # ------------------------------------------------------------------ play
    def _show(self, rolls_left: int) -> None:
        b = self.batch
        self.say(
            f"turn {int(b.turn[0]) + 1}, score {int(b.score[0])}, dice "
            f"{' '.join(map(str, self.dice()))}, rolls left {rolls_left}"
        )

    def _coach(self, options: list[Option], chosen: Option, reason: str) -> None:
        best = options[0]
        loss = best.value - chosen.value
        self.total_loss += max(loss, 0.0)
        if not self.coach:
            return
        if loss <= 1e-9:
            self.say(f"  coach: best move ({reason})")
        else:
            what = best.category or ("keep " + " ".join(map(str, best.keep)) if best.keep
                                     else "reroll everything")  # fmt: skip
            self.say(f"  coach: -{loss:.2f} points; best was {what} ({reason})")

    def _keep(self, rolls_left: int) -> list[int] | None:
        """Ask for the dice to keep; None stops the rolling (every die kept)."""
        options = self._options(rolls_left)
        dice = self.dice()
        while True:
            text = self.ask("keep> (dice to hold, 'all' to stop rolling, '-' for none) ").strip()
            if text.lower() in ("all", "stop", "a"):
                kept = dice
            elif text in ("-", "none", "0"):
                kept = []
            else:
                kept = _parse_faces(text, self.rules)
                if kept is None or not _hold(dice, kept):
                    self.say(f"  hold some of {' '.join(map(str, dice))} (or 'all', or '-')")
                    continue
            break
        key = tuple(sorted(kept))
        chosen = next(o for o in options if o.keep == key)
        best = options[0]
        why = keep_reason(self.rules, best.keep, [n for n in self.rules.category_names
                                                   if n not in self.used])  # fmt: skip
        self._coach(options, chosen, why)
        return None if len(kept) == self.rules.n_dice else sorted(kept)

    def _box(self) -> str:
        options = self._options(0)
        legal = {o.category: o for o in options}
        pts = self._points()
        names = self.rules.category_names
        self.say("  boxes: " + ", ".join(f"{n} {pts[n]}" for n in names if n in legal))
        while True:
            text = self.ask("box> ").strip().lower()
            match = [n for n in legal if n == text] or [n for n in legal if n.startswith(text)]
            if text and len(match) == 1:
                break
            self.say(f"  name one box: {', '.join(n for n in names if n in legal)}")
        box, best = match[0], options[0].category
        reason = f"{best} takes {pts[best]} now"
        upper = [n for n in (box, best) if self.rules.categories[names.index(n)].is_upper]
        if upper:
            total = int(self.batch.upper_total[0]) + (pts[box] if upper[0] == box else 0)
            outlook = upper_outlook(self.rules, [*self.used, box], total)
            reason += f"; after {box}, {outlook}" if outlook else ""
        self._coach(options, legal[box], reason)
        return box

    def _points(self) -> dict[str, int]:
        from .view import TurnView

        b = self.batch
        view = TurnView(self.rules, b.games, b.counts, b.roll_idx, 0, int(b.turn[0]),
                        b.used, b.upper_total, b.flag, b.score, b.category_scores)  # fmt: skip
        p = view.category_points[0]
        return {n: int(p[c]) for c, n in enumerate(self.rules.category_names) if p[c] >= 0}

    def play(self) -> dict:
        """Play to the end (or the end of the input); returns the record."""
        rules, b, t = self.rules, self.batch, self.rules.tables
        try:
            b.start(np.array([0]), np.array([self.game]))
            for _ in range(rules.n_categories):
                turn = {"rolls": [], "keeps": []}
                self.turns.append(turn)
                if self.manual:
                    self._manual_roll([])
                rolls_left = rules.rolls_per_turn - 1
                turn["rolls"].append(self.dice())
                while rolls_left > 0:
                    self._show(rolls_left)
                    kept = self._keep(rolls_left)
                    if kept is None:
                        break
                    turn["keeps"].append(kept)
                    action = t.keep_from_faces(kept)
                    if self.manual:
                        self._manual_roll(kept)
                        b.rolls_left[0] -= 1
                    else:
                        b.step(np.array([action]), np.ones(1, dtype=bool))
                    rolls_left -= 1
                    turn["rolls"].append(self.dice())
                self._show(0)
                box = self._box()
                turn["box"] = box
                b.rolls_left[0] = 0
                c = rules.category_names.index(box)
                b.step(np.array([t.n_keeps + c]), np.ones(1, dtype=bool))
        except EndOfInput:
            self.say("(input ended: the game stops here)")
            if self.turns and "box" not in self.turns[-1]:
                last = self.turns[-1]
                last["rolls"] = last["rolls"][: len(last["keeps"]) + 1]
                if not last["rolls"]:
                    self.turns.pop()
        self.record["turns"] = self.turns
        self._summary()
        return self.record

    def _summary(self) -> None:
        from .analysis.coach import analyze_records

        if not any("box" in tr or tr.get("keeps") for tr in self.turns):
            return
        res = analyze_records([check_record(self.record)])
        row = res.games.iloc[0]
        head = "final score" if row["complete"] else "score so far"
        self.say(
            f"{head} {row['score']}: luck {row['luck']:+.1f}, points lost to decisions "
            f"{row['regret']:.1f} ({row['mistakes']} mistakes); optimal play expects "
            f"{res.start_value:.1f} from the start"
        )


def play(
    rules: str | RuleSet = "yahtzee",
    ask: Callable[[str], str] | None = None,
    say: Callable[[str], None] = print,
    seed: int = 0,
    game: int = 0,
    manual: bool = False,
    coach: bool = True,
    record: str | None = None,
) -> dict:
    """Play one game in the terminal (see the module docstring); returns its record and,
    with ``record``, writes it (JSON Lines, one line)."""
    if ask is None:
        ask = _stdin_reader()
    g = Game(rules, ask, say, seed=seed, game=game, manual=manual, coach=coach)
    out = g.play()
    if record is not None:
        write_records(record, [out])
    return out


def _stdin_reader() -> Callable[[str], str]:
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

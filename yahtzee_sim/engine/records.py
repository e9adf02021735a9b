"""Game records: what happened in a game, roll by roll, as JSON.

A record file is JSON Lines (``.jsonl``): one game per line, each an object

.. code-block:: json

    {"format": "yahtzee-sim/game-record-v1", "rules": "yahtzee",
     "strategy": "greedy", "seed": 0, "game": 17,
     "turns": [{"rolls": [[1, 3, 5, 5, 6], [2, 5, 5, 5, 6]], "keeps": [[5, 5]],
                "box": "fives"}, ...]}

* ``rules`` — a preset name (``yahtzee-sim rules`` lists them; ``"yatzy@4"`` for four rolls);
* ``turns`` — in order; each holds ``rolls``, the dice of every roll of the turn (face values,
  any order), ``keeps``, the dice kept before each reroll (one fewer than ``rolls``; a
  turn with fewer rolls than the rules allow stopped early, keeping every die; in games
  with saved rolls a turn may also use the rolls earlier turns saved), and
  ``box``, the box the last roll was written in (a name from ``rules.box_names``);
  the last turn may lack its ``box`` (a game stopped mid-turn);
* ``strategy``, ``seed``, ``game`` — optional: who played, and which game of which seed
  (the engine's dice) it was;
* ``score`` — optional: the points the game scored (so far, bonuses included), checked
  against what its dice and boxes score; other keys are kept and ignored.

A game need not be complete (a record of a game in progress). :func:`read_records` checks
every record against the rules and raises :class:`RecordError` naming the line, the turn and
what is wrong: dice that are not a roll, a keep the dice do not hold, a reroll that lost
kept dice, more rolls than the rules allow, an unknown, filled or (joker rules) illegal box,
unknown rules, rules other than those asked for, a ``score`` the game did not score. A file
is read line by line: a line longer than :data:`MAX_LINE_BYTES` (no game record is), bytes
that are not UTF-8 and a last line cut short are named by line and column, and a file too
large for the memory available is refused before it is read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from yahtzee_sim._core.rng import keys_from_seed
from yahtzee_sim.engine.atomic import atomic_path
from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.lockstep import play_block
from yahtzee_sim.engine.memory_budget import check_memory, records_bytes, size_text
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import RecordError, RulesError, quoted
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, check

FORMAT = "yahtzee-sim/game-record-v1"
#: A face value as a record holds it (its range is checked against the rules).
_FACE_VALUE = Integer()

#: The longest line of a record file: a complete game of the largest rule set takes a few
#: kB; a longer line is no game record (a binary or corrupt file), refused unread.
MAX_LINE_BYTES = 1_000_000

#: Peak bytes of memory per byte of a record file: its text, the JSON objects and the
#: checked decisions (about 10 kB per game of 1.5 kB: measured on greedy Yahtzee).
RECORD_MEMORY_PER_BYTE = 12


class Decision(NamedTuple):
    """One decision of a checked record: at roll ``roll`` (index in the dice tables) with
    ``rolls_left`` rerolls left in turn ``turn`` (0-based) from the turn-start state
    ``(used, upper_total, flag)`` with ``score`` points so far, the player took ``action``
    (the encoding of :mod:`yahtzee_sim.engine.observation`: a keep index, or ``n_keeps + box``).

    Games with saved rolls: ``bank`` is the rolls saved before the turn (the turn-start
    state's saved rolls; the turn has ``rolls_per_turn + bank`` rolls) and ``saved``, at a
    box decision, the rolls the turn leaves unused and saves for the next (at most the cap).
    Both are 0 in other games."""

    turn: int
    rolls_left: int
    roll: int
    used: int
    upper_total: int
    flag: int
    score: int
    action: int
    bank: int = 0
    saved: int = 0


@dataclass(frozen=True)
class GameRecord:
    """A checked game: its record (the JSON object) and its decisions in order of play.

    ``final`` is the points scored (bonuses included), ``state`` the ``(used,
    upper_total, flag)`` reached after the last complete turn and ``saved`` the rolls saved
    then (games with saved rolls)."""

    rules: RuleSet
    data: dict
    decisions: tuple[Decision, ...]
    final: int
    state: tuple[int, int, int]
    saved: int = 0

    @property
    def complete(self) -> bool:
        """Every box is filled."""
        return self.state[0] == (1 << self.rules.n_boxes) - 1


class _Index:
    """Per-rule-set lookups: the roll and keep index of sorted face tuples, and the set of
    keeps (sub-multisets) of every roll."""

    def __init__(self, rules: RuleSet) -> None:
        t = rules.tables
        faces = t.faces_from_counts
        self.roll = {faces(c): r for r, c in enumerate(t.roll_counts)}
        self.keep = {faces(c): k for k, c in enumerate(t.keep_counts)}
        self.subkeeps = [
            frozenset(t.roll_keep_keep[t.roll_keep_ptr[r] : t.roll_keep_ptr[r + 1]].tolist())
            for r in range(t.n_rolls)
        ]


def _index(rules: RuleSet) -> _Index:
    got = rules.__dict__.get("_record_index")
    if got is None:
        got = rules.__dict__["_record_index"] = _Index(rules)
    return got


def _faces(rules: RuleSet, dice, what: str) -> tuple[int, ...]:
    if not isinstance(dice, list) or not all(map(_FACE_VALUE.accepts, dice)):
        raise RecordError(f"{what} must be a list of face values, got {dice!r}")
    key = tuple(sorted(int(d) for d in dice))
    if key in _index(rules).keep or key in _index(rules).roll:  # the common case
        return key
    bad = [d for d in dice if not 1 <= d <= rules.n_faces]
    if bad:
        raise RecordError(f"{what}: face {bad[0]} is not a face of a {rules.n_faces}-sided die")
    return key


def _roll_moves(rules: RuleSet, where: str, rolls: list, keeps: list, allowed: int, boxed: bool):
    """The moves of one turn's rolls, checked: ``([(rolls_left, roll, action, stop)],
    faces, roll)`` with the last roll's faces and index (``allowed``: the rolls the turn
    may have; ``boxed``: the turn wrote a box, so fewer rolls mean it stopped early,
    keeping every die — ``stop`` marks that decision)."""
    t, index = rules.tables, _index(rules)
    kept: tuple[int, ...] = ()
    action, moves = -1, []
    for ri, dice in enumerate(rolls):
        faces = _faces(rules, dice, f"{where}, roll {ri + 1}")
        if len(faces) != rules.n_dice:
            raise RecordError(
                f"{where}, roll {ri + 1}: {len(faces)} dice, the rules roll {rules.n_dice}"
            )
        roll = index.roll[faces]
        if ri > 0 and action not in index.subkeeps[roll]:
            raise RecordError(
                f"{where}, roll {ri + 1}: the dice {list(faces)} lost some of the dice "
                f"kept, {list(kept)}"
            )
        rolls_left = allowed - 1 - ri
        if ri < len(rolls) - 1:
            kept = _faces(rules, keeps[ri], f"{where}, keep {ri + 1}")
            action = index.keep.get(kept, -1)
            if action not in index.subkeeps[roll]:
                raise RecordError(
                    f"{where}, keep {ri + 1}: the dice {list(faces)} do not hold {list(kept)}"
                )
            if len(kept) == rules.n_dice:
                raise RecordError(
                    f"{where}, keep {ri + 1}: keeping every die ends the rolling; "
                    "no roll can follow it"
                )
            moves.append((rolls_left, roll, action, False))
        elif rolls_left > 0 and boxed:  # stopped early: kept every die
            moves.append((rolls_left, roll, int(t.roll_keep_index[roll]), True))
    return moves, faces, roll


def _check_game(rules: RuleSet, data: dict) -> GameRecord:
    """The decisions of one record, or a :class:`RecordError` (without the line)."""
    t = rules.tables
    game = GameBatch(rules, 1)  # the card, scored by the engine's scoring step
    box_row, one = np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.bool_)
    turns = data.get("turns")
    if not isinstance(turns, list):
        raise RecordError("'turns' must be a list of turns")
    if len(turns) > rules.n_boxes:
        raise RecordError(f"{len(turns)} turns: the rules have {rules.n_boxes} boxes")
    used = upper = flag = score = bank = 0
    names = rules.box_names
    decisions: list[Decision] = []
    for ti, turn in enumerate(turns):
        where = f"turn {ti + 1}"
        if not isinstance(turn, dict):
            raise RecordError(f"{where}: a turn must be an object with rolls, keeps and box")
        rolls, keeps = turn.get("rolls"), turn.get("keeps", [])
        if not isinstance(rolls, list) or not rolls:
            raise RecordError(f"{where}: 'rolls' must list the dice of at least one roll")
        allowed = rules.rolls_per_turn + bank  # the rolls saved before the turn too
        if len(rolls) > allowed:
            held = f" ({rules.rolls_per_turn} and {bank} saved)" if bank else ""
            raise RecordError(f"{where}: {len(rolls)} rolls, the rules allow {allowed}{held}")
        if not isinstance(keeps, list) or len(keeps) != len(rolls) - 1:
            raise RecordError(
                f"{where}: 'keeps' must list the dice kept before each reroll "
                f"({len(rolls) - 1} for {len(rolls)} rolls)"
            )
        last = ti == len(turns) - 1
        if "box" not in turn and not last:
            raise RecordError(f"{where}: 'box' is missing (only the last turn may lack it)")
        state = (used, upper, flag, score)
        saved = min(allowed - len(rolls), rules.saved_roll_cap)  # saved when the box is written
        moves, faces, roll = _roll_moves(rules, where, rolls, keeps, allowed, "box" in turn)
        for rolls_left, r, action, stop in moves:
            decisions.append(Decision(ti, rolls_left, r, *state, action, bank, saved * stop))
        if "box" not in turn:
            break
        box = turn["box"]
        if box not in names:
            raise RecordError(f"{where}: unknown box {box!r}; expected one of: {', '.join(names)}")
        c = names.index(box)
        if (used >> c) & 1:
            raise RecordError(f"{where}: box {box!r} is already filled")
        game.roll_index[0], game.turn[0], box_row[0] = roll, ti, c
        if game.write_boxes(box_row, one) >= 0:
            raise RecordError(
                f"{where}: the rules do not allow {list(faces)} in {box!r} (joker rules)"
            )
        decisions.append(Decision(ti, 0, roll, *state, t.n_keeps + c, bank, saved))
        used, upper, flag = int(game.used[0]), int(game.upper_total[0]), int(game.flag[0])
        score, bank = int(game.score[0]), saved
    return GameRecord(rules, data, tuple(decisions), score, (used, upper, flag), bank)


def _record_rules(data: dict, rules: str | RuleSet | None) -> RuleSet:
    """The rules to check ``data`` against: ``rules`` if given (a record that names other
    rules is refused), else the record's own (``"yahtzee"`` if it names none)."""
    named = data.get("rules")
    try:
        asked = None if rules is None else get_rules(rules)
        same = asked is not None and named == asked.name  # a rule set of one's own too
        own = None if named is None or same else get_rules(named)
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    if asked is not None and own is not None and own.name != asked.name:
        raise RecordError(
            f"the record says rules {named!r}, not the rules asked for, {asked.name!r}"
        )
    return asked or own or get_rules("yahtzee")


def check_record(data: dict, rules: str | RuleSet | None = None) -> GameRecord:
    """Check one record (a JSON object) and return its decisions.

    ``rules`` defaults to the record's own ``rules`` (``"yahtzee"`` if it has none); a record
    that names other rules than ``rules`` is refused, as is one whose ``score`` differs
    from what its dice and boxes score.
    """
    if not isinstance(data, dict):
        raise RecordError(f"a game record must be a JSON object, got {quoted(data)}")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(f"unknown record format {quoted(fmt)}; this version reads {FORMAT!r}")
    for key in ("seed", "game", "score"):
        check(f"'{key}'", data.get(key, 0), Integer(0), RecordError)
    for key in ("rules", "strategy"):
        if not isinstance(data.get(key, ""), str):
            raise RecordError(f"'{key}' must be a string, got {quoted(data[key])}")
    record = _check_game(_record_rules(data, rules), data)
    claimed = data.get("score", record.final)
    if claimed != record.final:
        raise RecordError(
            f"'score' is {claimed}, but the dice and boxes of the record score {record.final}"
        )
    return record


def read_records(path: str | os.PathLike, rules: str | RuleSet | None = None) -> list[GameRecord]:
    """Read and check a record file (JSON Lines; a ``.json`` file may also hold one record
    or a list of them). Errors name the file, the line and the turn, and quote what was
    read; a file larger than the memory available (:data:`RECORD_MEMORY_PER_BYTE`) is
    refused before it is read."""
    path = Path(path)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise RecordError(f"record file {str(path)!r} {what}")
    size = path.stat().st_size
    check_memory(
        RECORD_MEMORY_PER_BYTE * size,
        f"checking the record file {str(path)!r} ({size_text(size)})",
        "split it into smaller files",
    )
    if path.suffix == ".json":
        items = _json(_text(path.read_bytes(), str(path)), str(path))
        items = items if isinstance(items, list) else [items]
        numbered = [(f"record {i + 1}", item) for i, item in enumerate(items)]
    else:
        numbered = list(_json_lines(path))
    if not numbered:
        raise RecordError(f"{path}: no game records")
    out = []
    for where, item in numbered:
        try:
            out.append(check_record(item, rules))
        except RecordError as exc:
            raise RecordError(f"{path}, {where}: {exc}") from None
    return out


def _json_lines(path: Path):
    """``("line n", JSON value)`` of each non-blank line of a JSON Lines file, read one
    line at a time; a line over :data:`MAX_LINE_BYTES` is refused before it is read whole."""
    with path.open("rb") as fh:
        for n, raw in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""), 1):
            where = f"{path}, line {n}"
            if len(raw) > MAX_LINE_BYTES:
                raise RecordError(
                    f"{where}: longer than {MAX_LINE_BYTES:,} bytes, starting "
                    f"{quoted(raw[:40])}; a game record takes a few kB"
                )
            line = _text(raw, where)
            if not line.strip():
                continue
            cut = "" if raw.endswith(b"\n") else "; the file ends in this line: cut short?"
            yield f"line {n}", _json(line, where, cut)


def _text(raw: bytes, where: str) -> str:
    """``raw`` decoded as UTF-8, or a one-line :class:`RecordError` naming the first byte
    that is not, and its column."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = raw[exc.start]
        near = quoted(raw[max(exc.start - 10, 0) : exc.start + 10])
        raise RecordError(
            f"{where}: not UTF-8 text: byte 0x{byte:02x} at column {exc.start + 1} (near {near})"
        ) from None


def _json(text: str, where: str, cut: str = ""):
    """The JSON value of ``text``, or a one-line :class:`RecordError` naming ``where``,
    the column and the text there (``cut``: a hint after it, for a last line)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        near = quoted(text[max(exc.pos - 20, 0) : exc.pos + 20])
        raise RecordError(
            f"{where}: not JSON ({exc.msg}, column {exc.colno}, near {near}){cut}"
        ) from None
    except RecursionError:
        raise RecordError(f"{where}: JSON nested too deeply") from None


def write_records(path: str | os.PathLike, records: list[dict]) -> Path:
    """Write records (JSON objects) as JSON Lines, keys in a fixed order, atomically
    (:func:`~yahtzee_sim.engine.atomic.atomic_path`: a process killed while writing leaves
    the old file or none)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise RecordError(f"record folder {str(path.parent)!r} does not exist")
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return path


class DecisionRecorder:
    """Plays ``strategy`` (the engine asks it, this records): every decision of the
    games that have it to make, as arrays ``game, turn, rolls_left, roll, used,
    upper_total, flag, score, action`` (:mod:`yahtzee_sim.engine.observation` encoding)
    and ``saved``: at a box decision the rolls the turn leaves saved for the next (games
    with saved rolls; 0 elsewhere)."""

    def __init__(self, strategy) -> None:
        self.strategy = strategy
        self.name = getattr(strategy, "name", "strategy")
        self.parts: list[dict] = []

    def _record(self, view: TurnView, actions: np.ndarray) -> None:
        rows = np.flatnonzero(view.active)
        self.parts.append(
            {
                "game": view.games[rows],
                "turn": np.full(len(rows), view.turn, dtype=np.int64),
                "rolls_left": np.full(len(rows), view.rolls_left, dtype=np.int64),
                "roll": view.roll_index[rows].astype(np.int64),
                "used": view.used[rows].copy(),
                "upper_total": view.upper_total[rows].copy(),
                "flag": view.flag[rows].copy(),
                "score": view.score[rows].copy(),
                "action": actions[rows],
                "saved": view.saved_rolls[rows].astype(np.int64),
            }
        )

    def keep(self, view: TurnView) -> np.ndarray:
        out = np.asarray(self.strategy.keep(view))
        t = view.tables
        counts = np.where(view.active[:, None], out, view.dice)  # ended turns: ignored
        self._record(view, t.keep_index(counts).astype(np.int64))
        return out

    def box(self, view: TurnView) -> np.ndarray:
        out = np.asarray(self.strategy.box(view))
        self._record(view, out.astype(np.int64) + view.tables.n_keeps)
        return out

    def decisions(self) -> dict:
        """The recorded arrays, concatenated (in the engine's order: turn by turn)."""
        return {k: np.concatenate([p[k] for p in self.parts]) for k in self.parts[0]}


def recorded_blocks(strategy, n_games: int, seed: int, rules: RuleSet, chunk_size: int):
    """Yield ``(first game, games, decisions)`` per block of the games ``simulate`` plays
    (same seed, same dice), recording every decision (one process)."""
    from yahtzee_sim.engine.scheduler import prepared_strategy

    strategy = prepared_strategy(get_strategy(strategy), rules)
    keys = keys_from_seed(seed)
    for first in range(0, n_games, chunk_size):
        n = min(chunk_size, n_games - first)
        recorder = DecisionRecorder(strategy)
        play_block(recorder, rules, first, n, keys[:2], keys[2:])
        yield first, n, recorder.decisions()


def check_records_fit(n_games: int) -> None:
    """Raise :class:`~yahtzee_sim.engine.memory_budget.MemoryBudgetError` if the records of
    ``n_games`` games would not fit in the available memory."""
    check_memory(records_bytes(n_games), f"records of {n_games:,} games", "record fewer games")


def record_games(strategy, n_games: int, seed: int = 0, rules: str | RuleSet = "yahtzee"):
    """Records (JSON objects) of the games ``simulate(strategy, n_games, seed, rules)``
    plays."""
    from yahtzee_sim.engine.simulate import DEFAULT_CHUNK
    from yahtzee_sim.engine.summary import strategy_label

    rules = get_rules(rules)
    check_records_fit(n_games)
    out = []
    for _, _, rec in recorded_blocks(strategy, n_games, seed, rules, DEFAULT_CHUNK):
        meta = {"strategy": strategy_label(strategy), "seed": seed}
        out.extend(records_from_decisions(rules, rec, meta))
    return out


def records_from_decisions(rules: RuleSet, rec: dict, meta: dict) -> list[dict]:
    """Records of games from their decisions (arrays ``game, turn, rolls_left, roll,
    action`` in order of play, as the dataset recorder keeps them)."""
    t = rules.tables
    names = rules.box_names
    faces = [list(t.faces_from_counts(c)) for c in t.roll_counts]
    order = np.lexsort((np.arange(len(rec["game"])), rec["game"]))
    games: dict[int, list] = {}
    for i in order.tolist():
        g, turn, j = int(rec["game"][i]), int(rec["turn"][i]), int(rec["rolls_left"][i])
        turns = games.setdefault(g, [])
        if turn == len(turns):
            turns.append({"rolls": [], "keeps": []})
        cur, a = turns[turn], int(rec["action"][i])
        if len(cur["rolls"]) == len(cur["keeps"]):  # a new roll (not after a stop)
            cur["rolls"].append(faces[int(rec["roll"][i])])
        if j == 0:
            cur["box"] = names[a - t.n_keeps]
        elif t.keep_size[a] < rules.n_dice:  # keeping every die stops the rolling
            cur["keeps"].append(list(t.faces_from_counts(t.keep_counts[a])))
    out = []
    for g in sorted(games):
        out.append({"format": FORMAT, "rules": rules.name, **meta, "game": g, "turns": games[g]})
    return out

"""Game analysis: grade every decision of recorded games and split each score into luck
and skill.

For a game, ``V0`` is the expected final score of optimal play from the empty card. Every
decision point has an optimal value ``W`` (the expected points still to come when play
is optimal from there) and the action taken has a value ``C`` (the same after the action);
values are the advisor's (:func:`yahtzee_sim.solving.advisor.advise`). Then

* a decision's **regret** (points lost) is ``W − C >= 0``;
* a roll's **luck** is ``W`` at the decision the roll leads to minus its expectation: ``C``
  of the keep before it, or the value of the turn-start state for a turn's first roll;

and, because the expectations telescope, exactly (up to rounding)::

    final score − V0 = total luck − total regret

(for a game in progress: points so far plus the value of the position reached, minus
``V0``). :func:`analyze_records` grades games; ``yahtzee-sim analyze FILE`` prints the
grades, ``--json`` and a figure of a game's value path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim.analysis.decisions.dataset import grade_decisions
from yahtzee_sim.analysis.decisions.regret import decision_layer_name
from yahtzee_sim.analysis.decisions.saved_options import grade_saved_decisions
from yahtzee_sim.analysis.ranking.stats import mean_ci
from yahtzee_sim.engine.observation import action_names, roll_names
from yahtzee_sim.engine.records import Decision, GameRecord, read_records
from yahtzee_sim.errors import AnalysisError, TableMissingError
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import compact_states, encode_state, n_states
from yahtzee_sim.solving.levels import TableFileError, open_table_file
from yahtzee_sim.solving.solver import TABLES, ValueTable, value_table
from yahtzee_sim.validation import Real, check

#: Default near-tie threshold (points): a move that loses at most this much against the
#: best is graded a near tie, not a mistake (its loss still counts in the regret). A
#: tenth of a point is far below what a person can tell apart at the table and above the
#: differences rounding makes.
NEAR_TIE = 0.1

DECISION_COLUMNS = (
    "game",
    "turn",
    "rolls_left",
    "dice",
    "move",
    "optimal_move",
    "luck",
    "loss",
    "grade",
    "expected_before",
    "expected_after",
)


#: Games with more turn-start states than this are not solved on demand by the analysis:
#: their table must be solved first (``yahtzee-sim solve``); the five-dice games have at
#: most 2.1 M states (seconds to solve), the six-dice games 89 M and more (many minutes).
SOLVE_ON_DEMAND_STATES = 10_000_000


def table_ready(rules: RuleSet) -> bool:
    """Whether the optimal table of ``rules`` is in memory or in the disk cache."""
    key = TABLES.key(rules)
    if key in TABLES.memory:
        return True
    paths = TABLES.paths(key)
    if not compact_states(rules):
        return all(p.is_file() for p in paths)
    try:
        open_table_file(rules, paths[0])
    except (OSError, TableFileError):
        return False
    return True


def solved_table(rules: RuleSet) -> ValueTable:
    """The optimal table of ``rules``: solved on demand when small
    (:data:`SOLVE_ON_DEMAND_STATES`), else from the cache.

    Raises
    ------
    TableMissingError
        For a large game whose table is not solved yet; the message names the command
        that solves it.
    """
    if n_states(rules) > SOLVE_ON_DEMAND_STATES and not table_ready(rules):
        raise TableMissingError(
            f"grading {rules.name} games needs its optimal table, which is not solved yet "
            f"({n_states(rules):,} states): run `yahtzee-sim solve --rules {rules.name}` first"
        )
    return value_table(rules)


@dataclass(eq=False)
class GameAnalysis:
    """Grades of recorded games.

    Attributes
    ----------
    rules : RuleSet
    start_value : float
        ``V0``: the expected final score of optimal play from the empty card.
    games : pandas.DataFrame
        One row per game: ``game`` (the record's number, else its position), ``strategy``,
        ``complete``, ``score`` (points so far), ``expected_final`` (score plus the value
        of the position reached; the final score for a complete game), ``luck``,
        ``regret``, ``decisions``, ``mistakes`` (moves that lost more than ``tie``).
    decisions : pandas.DataFrame
        One row per decision, in order of play (:data:`DECISION_COLUMNS`): the luck of the
        roll that led to it, the points lost by the move, its ``grade`` (``"best"``,
        ``"near tie"``: within ``tie`` of the best, or ``"mistake"``) and the expected final
        score before and after the move (points so far plus the value of the position).
    tie : float
        The near-tie threshold in points (:data:`NEAR_TIE` by default).
    """

    rules: RuleSet
    start_value: float
    games: pd.DataFrame
    decisions: pd.DataFrame
    tie: float = NEAR_TIE

    def identity_error(self) -> float:
        """Largest ``|expected_final − V0 − (luck − regret)|`` over the games."""
        g = self.games
        return float((g["expected_final"] - self.start_value - g["luck"] + g["regret"]).abs().max())

    def mistakes(self, top: int = 10) -> pd.DataFrame:
        """The ``top`` costliest mistakes (moves that lost more than the near-tie threshold)."""
        d = self.decisions
        return d[d["loss"] > self.tie].sort_values("loss", ascending=False, kind="stable").head(top)

    def by_decision(self) -> pd.DataFrame:
        """Mistakes, near ties and points lost per game by decision type (keeps by
        rerolls left, box)."""
        d, n = self.decisions, len(self.games)
        rows = {}
        for j in sorted(d["rolls_left"].unique(), reverse=True):
            sel = d[d["rolls_left"] == j]
            rows[decision_layer_name(int(j))] = {
                "decisions": len(sel),
                "mistakes": int((sel["loss"] > self.tie).sum()),
                "near_ties": int((sel["grade"] == "near tie").sum()),
                "loss_per_game": float(sel["loss"].sum() / n),
            }
        return pd.DataFrame(rows).T

    def summary(self, top: int = 5) -> dict:
        """JSON-ready: means with 95% intervals over the games, mistake types, worst
        mistakes."""
        g = self.games
        out = {
            "rules": self.rules.name,
            "games": len(g),
            "complete_games": int(g["complete"].sum()),
            "start_value": self.start_value,
            "near_tie": self.tie,
            "identity_max_error": self.identity_error(),
        }
        for col in ("expected_final", "luck", "regret"):
            out[col] = _mean_interval(g[col].to_numpy(dtype=float))
        out["by_decision"] = self.by_decision().to_dict(orient="index")
        out["mistakes"] = self.mistakes(top).to_dict(orient="records")
        return out


def _mean_interval(x: np.ndarray) -> dict:
    mean, _, lo, hi = mean_ci(x, 0.95)  # the project's t interval
    return {"mean": mean, "lo": lo, "hi": hi}


def _decision_arrays(games: list[GameRecord]) -> dict:
    """The decisions of ``games`` as columns (:class:`~yahtzee_sim.engine.records.Decision`'s
    fields and ``game``, the game's position)."""
    rows = [(gi, *d) for gi, rec in enumerate(games) for d in rec.decisions]
    names = ("game", *Decision._fields)
    table = np.array(rows, dtype=np.int64).reshape(len(rows), len(names))
    return {k: table[:, i] for i, k in enumerate(names)}


def analyze_records(records: list[GameRecord], tie: float = NEAR_TIE) -> GameAnalysis:
    """Grade checked game records (:func:`yahtzee_sim.engine.records.read_records`), all of one
    rule set, against the optimal value table; a move within ``tie`` points of the best is
    a near tie, not a mistake."""
    tie = check("tie (near-tie threshold, points)", tie, Real(0), AnalysisError)
    if not records:
        raise AnalysisError("no games to analyze")
    rules = records[0].rules
    other = next((g.rules.name for g in records if g.rules != rules), None)
    if other is not None:
        raise AnalysisError(f"the records mix rule sets ({rules.name!r} and {other!r})")
    table = solved_table(rules)
    values = table.values
    rec = _decision_arrays(records)
    n = len(rec["game"])
    if not n:
        raise AnalysisError("the records hold no decisions")
    if rules.saved_roll_cap:
        g = grade_saved_decisions(rules, rec, table)
    else:
        g = grade_decisions(rules, rec, upper_total_lanes(values))
    best, chosen = g["optimal_value"], g["value"]
    turn_start = encode_state(rules, rec["used"], rec["upper_total"], rec["flag"], rec["bank"])
    start = np.asarray(values[turn_start])
    first = np.ones(n, dtype=bool)
    first[1:] = (rec["game"][1:] != rec["game"][:-1]) | (rec["turn"][1:] != rec["turn"][:-1])
    prior = np.where(first, start, np.r_[0.0, chosen[:-1]])
    luck = best - prior
    loss = np.maximum(best - chosen, 0.0)
    faces, names = roll_names(rules), _move_names(rules, rec["rolls_left"])
    decisions = pd.DataFrame(
        {
            "game": rec["game"],
            "turn": rec["turn"] + 1,
            "rolls_left": rec["rolls_left"],
            "dice": faces[rec["roll"]],
            "move": names(rec["action"]),
            "optimal_move": names(g["optimal_action"]),
            "luck": luck,
            "loss": loss,
            "grade": grades(loss, tie),
            "expected_before": rec["score"] + best,
            "expected_after": rec["score"] + chosen,
        }
    )
    start_value = float(values[0])
    gid = rec["game"]
    after = decisions["expected_after"].to_numpy()
    rows = _game_rows(records, values, gid, luck, loss, after, tie)
    decisions["game"] = np.array([r["game"] for r in rows])[gid]
    return GameAnalysis(rules, start_value, pd.DataFrame(rows), decisions, tie)


def grades(loss: np.ndarray, tie: float = NEAR_TIE) -> np.ndarray:
    """The grade of moves that lost ``loss`` points: ``"best"``, ``"near tie"`` (within
    ``tie`` of the best) or ``"mistake"``."""
    loss = np.asarray(loss, dtype=float)
    return np.where(loss <= 1e-9, "best", np.where(loss <= tie, "near tie", "mistake"))


def _move_names(rules: RuleSet, rolls_left: np.ndarray):
    """``names(actions)``: the moves' names at decisions with ``rolls_left`` rerolls left;
    in a game with saved rolls keeping every die is "stop, save N"."""
    base = action_names(rules)
    if not rules.saved_roll_cap:
        return lambda actions: base[actions]
    t = rules.tables
    saves = np.minimum(rolls_left, rules.saved_roll_cap)

    def names(actions):
        out = base[actions].astype(object)
        stop = (rolls_left > 0) & (actions < t.n_keeps)
        stop[stop] = t.keep_size[actions[stop]] == rules.n_dice
        out[stop] = [f"stop, save {n}" for n in saves[stop]]
        return out

    return names


def _game_rows(records, values, gid, luck, loss, after, tie) -> list[dict]:
    """One row per game: its score, expected final score, luck, regret, decisions and
    mistakes, losses over ``tie`` (``gid``, ``luck``, ``loss``, ``after``: per decision,
    in order of play)."""
    rules = records[0].rules
    G = len(records)
    per_game = {
        "luck": np.bincount(gid, weights=luck, minlength=G),
        "regret": np.bincount(gid, weights=loss, minlength=G),
        "decisions": np.bincount(gid, minlength=G),
        "mistakes": np.bincount(gid, weights=loss > tie, minlength=G).astype(np.int64),
    }
    last = np.full(G, -1, dtype=np.int64)
    last[gid] = np.arange(len(gid))  # decisions are in order of play: the last one wins
    rows = []
    for gi, game in enumerate(records):
        used, upper, flag = game.state
        reached = 0.0
        if not game.complete:
            reached = float(values[encode_state(rules, used, upper, flag, game.saved)])
        partial = game.data["turns"] and "box" not in game.data["turns"][-1]
        expected = float(after[last[gi]]) if partial and last[gi] >= 0 else game.final + reached
        rows.append(
            {
                "game": game.data.get("game", gi),
                "strategy": game.data.get("strategy", ""),
                "complete": game.complete,
                "score": game.final,
                "expected_final": expected,
                "luck": float(per_game["luck"][gi]),
                "regret": float(per_game["regret"][gi]),
                "decisions": int(per_game["decisions"][gi]),
                "mistakes": int(per_game["mistakes"][gi]),
            }
        )
    return rows


def analyze(
    path: str | os.PathLike, rules: str | RuleSet | None = None, tie: float = NEAR_TIE
) -> GameAnalysis:
    """Read, check and grade a record file (:mod:`yahtzee_sim.engine.records`); a move
    within ``tie`` points of the best is a near tie, not a mistake."""
    return analyze_records(read_records(path, rules), tie)


def plot_value_path(analysis: GameAnalysis, game=None, ax=None):
    """A game's expected final score, decision by decision: rolls move it (luck), mistakes
    drop it (thick vermilion strokes). ``game``: the record's number (default: the first
    game). Draws on ``ax`` (default: a new full-width figure) and returns it."""
    from yahtzee_sim.analysis.style import FULL_WIDTH, HIGHLIGHT_COLORS, REFERENCE_COLOR

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(FULL_WIDTH, 3.0), layout="constrained")
    g = analysis.games
    game = g["game"].iloc[0] if game is None else game
    d = analysis.decisions[analysis.decisions["game"] == game]
    if d.empty:
        raise AnalysisError(f"no game {game!r} in the analysis")
    x = np.arange(len(d) + 1)
    path = np.r_[analysis.start_value, d["expected_after"].to_numpy()]
    before = d["expected_before"].to_numpy()
    ax.step(x, path, where="post", color=HIGHLIGHT_COLORS[0], label="expected final score")
    bad = np.flatnonzero(d["loss"].to_numpy() > 0.05)
    for i in bad:
        ax.plot([x[i + 1], x[i + 1]], [before[i], path[i + 1]], color=HIGHLIGHT_COLORS[1], lw=3)
    if len(bad):
        ax.plot([], [], color=HIGHLIGHT_COLORS[1], lw=3, label="points lost by a move")
    turns = d["turn"].to_numpy()
    starts = np.flatnonzero(np.r_[True, turns[1:] != turns[:-1]])
    ax.set_xticks(starts + 1, [str(t) for t in turns[starts]])
    ax.set_xlabel("turn (one step per decision)")
    ax.set_ylabel("points so far + value to come")
    row = g[g["game"] == game].iloc[0]
    ax.set_title(
        f"game {game}: {row['score']} points; luck {row['luck']:+.1f}, "
        f"regret {row['regret']:.1f} (start {analysis.start_value:.1f})"
    )
    ax.axhline(
        analysis.start_value, color=REFERENCE_COLOR, ls=":", lw=0.8, label="value at the start"
    )
    ax.legend(loc="best")
    return ax

"""Decision datasets: one row per decision a strategy makes, with every legal option
valued under optimal play — for imitation learning and error analysis.

A row holds the position (game, turn, rolls left, dice, filled boxes, upper total,
Yahtzee flag, points so far), the move the strategy made (``action``, in the encoding of
:mod:`yahtzee_sim.engine.observation`, and ``move``, readable), the best move, and every legal
option (``option_actions``, ``option_values``). A value is the expected number of points
still to come from the decision on when play is optimal afterwards (the advisor's
values, :func:`yahtzee_sim.solving.advisor.advise`); ``regret = optimal_value - value``.

The games are those ``simulate(strategy, n_games, seed, rules)`` plays.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from yahtzee_sim._core.options import decision_options
from yahtzee_sim._core.scoring import box_options
from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.analysis.decisions.regret import decision_layer_name
from yahtzee_sim.analysis.decisions.saved_options import grade_saved_decisions
from yahtzee_sim.engine.atomic import atomic_path
from yahtzee_sim.engine.memory_budget import check_memory, decisions_bytes
from yahtzee_sim.engine.observation import action_names, n_actions, roll_names
from yahtzee_sim.engine.records import recorded_blocks
from yahtzee_sim.engine.simulate import DEFAULT_CHUNK
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.errors import DatasetError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies import get_strategy
from yahtzee_sim.validation import Integer, validate_params

#: Position columns (one value per decision), in table order.
POSITION_COLUMNS = (
    "game",
    "turn",
    "rolls_left",
    "dice",
    "roll",
    "used",
    "upper_total",
    "flag",
    "score",
)
#: Move columns.
MOVE_COLUMNS = (
    "action",
    "move",
    "value",
    "optimal_action",
    "optimal_move",
    "optimal_value",
    "regret",
    "n_options",
)
#: List columns: every legal option's action and value.
OPTION_COLUMNS = ("option_actions", "option_values")
FORMATS = (".parquet", ".csv")


@dataclass(eq=False)
class DecisionDataset:
    """Recorded decisions: position and move columns (numpy arrays, one entry per
    decision, game by game in order of play) and the options in CSR form
    (``option_actions[option_ptr[i] : option_ptr[i + 1]]`` are decision ``i``'s)."""

    rules: RuleSet
    strategy: str
    seed: int
    n_games: int
    columns: dict
    option_ptr: np.ndarray
    option_actions: np.ndarray
    option_values: np.ndarray
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.option_ptr) - 1

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame (the option columns hold one array per row)."""
        df = pd.DataFrame(self.columns)
        cut = self.option_ptr[1:-1]
        df["option_actions"] = np.split(self.option_actions, cut)
        df["option_values"] = np.split(self.option_values, cut)
        return df

    def to_arrow(self):
        """A ``pyarrow.Table`` with list columns for the options (needs pyarrow)."""
        pa = _pyarrow()
        arrays = {k: pa.array(v) for k, v in self.columns.items()}
        offsets = pa.array(self.option_ptr.astype(np.int32))
        arrays["option_actions"] = pa.ListArray.from_arrays(offsets, pa.array(self.option_actions))
        arrays["option_values"] = pa.ListArray.from_arrays(offsets, pa.array(self.option_values))
        meta = {
            "rules": self.rules.name,
            "rules_fingerprint": self.rules.fingerprint(),
            "strategy": self.strategy,
            "seed": str(self.seed),
            "n_games": str(self.n_games),
            "n_keeps": str(self.rules.tables.n_keeps),
            "n_actions": str(n_actions(self.rules)),
        }
        return pa.table(arrays, metadata={f"yahtzee_sim.{k}": v for k, v in meta.items()})

    def write(self, path: str | os.PathLike) -> Path:
        """Write to ``.parquet`` (needs pyarrow) or ``.csv`` (options as space-separated
        lists), atomically (:func:`~yahtzee_sim.engine.atomic.atomic_path`: a process
        killed while writing leaves the old file or none); the same dataset gives
        byte-identical files."""
        path = _check_path(path)
        with atomic_path(path) as tmp:
            self._write_to(tmp, path.suffix)
        return path

    def _write_to(self, path: Path, suffix: str) -> None:
        """Write the dataset to ``path`` in the format of ``suffix``."""
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            pq.write_table(self.to_arrow(), path)
        else:
            df = pd.DataFrame(self.columns)
            cut = self.option_ptr[1:-1]
            df["option_actions"] = [
                " ".join(map(str, a)) for a in np.split(self.option_actions, cut)
            ]
            df["option_values"] = [
                " ".join(f"{v:.10g}" for v in a) for a in np.split(self.option_values, cut)
            ]
            df.to_csv(path, index=False)

    def summary(self) -> dict:
        """Decisions, games, mean regret per game and by decision type (JSON-ready)."""
        c = self.columns
        regret = c["regret"]
        kinds = {}
        for j in sorted(set(c["rolls_left"].tolist()), reverse=True):
            sel = c["rolls_left"] == j
            kinds[decision_layer_name(j)] = {
                "decisions": int(sel.sum()),
                "mistakes": int((regret[sel] > 1e-9).sum()),
                "regret_per_game": float(regret[sel].sum() / self.n_games),
            }
        return {
            "strategy": self.strategy,
            "rules": self.rules.name,
            "seed": self.seed,
            "games": self.n_games,
            "decisions": len(self),
            "regret_per_game": float(regret.sum() / self.n_games),
            "by_decision": kinds,
        }


def _pyarrow():
    try:
        import pyarrow
    except ImportError:  # pragma: no cover - pyarrow is in the dev extra
        raise DatasetError(
            "writing parquet needs pyarrow: pip install 'yahtzee-sim[parquet]' (or write .csv)"
        ) from None
    return pyarrow


def _check_path(path) -> Path:
    path = Path(path)
    if path.suffix not in FORMATS:
        raise DatasetError(f"output {str(path)!r}: the name must end in {' or '.join(FORMATS)}")
    if not path.parent.is_dir():
        raise DatasetError(f"output folder {str(path.parent)!r} does not exist")
    if path.suffix == ".parquet":
        _pyarrow()
    return path


def _options(rules: RuleSet, rec: dict, lanes) -> tuple:
    """Group decisions by turn-start state and value every option (kernel).

    Returns ``(order, n_options, option_ptr, out)``: the kernel visits the decisions in
    ``order`` (by state, then rerolls left) and ``out = (option_actions, option_values,
    value, best_action, best_value)``; the options are in ``rec``'s row order (row ``i``'s
    at ``option_ptr[i] .. option_ptr[i + 1] - 1``), the last three in ``order``'s.
    Games without saved rolls only (the kernel values a stop with no roll saved)."""
    if rules.saved_roll_cap:
        raise DatasetError(
            f"{rules.name!r} saves rolls: its decisions are graded by grade_saved_decisions"
        )
    kr = kernel_rules(rules)
    state = encode_state(rules, rec["used"], rec["upper_total"], rec["flag"])
    order = np.lexsort((rec["rolls_left"], state))  # by state, then rerolls left
    s = state[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    group_ptr = np.r_[starts, len(s)].astype(np.int64)
    first = order[starts]
    roll, rolls_left = rec["roll"], rec["rolls_left"]
    t = rules.tables
    n_opts = np.empty(len(order), dtype=np.int64)
    keeps = rolls_left > 0
    n_opts[keeps] = t.roll_keep_ptr[roll[keeps] + 1] - t.roll_keep_ptr[roll[keeps]]
    boxes = ~keeps
    pts = box_options(kr, roll[boxes], rec["used"][boxes], rec["flag"][boxes])
    n_opts[boxes] = (pts >= 0).sum(axis=1)
    opt_ptr = np.r_[0, np.cumsum(n_opts)].astype(np.int64)
    m, total = len(order), int(opt_ptr[-1])
    out = (
        np.empty(total, dtype=np.int64),
        np.empty(total),
        np.empty(m),
        np.empty(m, dtype=np.int64),
        np.empty(m),
    )
    upper_cap = np.minimum(rec["upper_total"][first], rules.upper_cap)
    decision_options(
        kr,
        lanes,
        np.ascontiguousarray(rec["used"][first]),
        np.ascontiguousarray(upper_cap),
        np.ascontiguousarray(rec["flag"][first]),
        group_ptr,
        np.ascontiguousarray(roll[order]),
        np.ascontiguousarray(rolls_left[order]),
        np.ascontiguousarray(rec["action"][order]),
        opt_ptr[order],
        opt_ptr[order + 1],
        out,
        get_threads(),
    )
    return order, n_opts, opt_ptr, out


def grade_decisions(rules: RuleSet, rec: dict, lanes=None) -> dict:
    """Every legal option of decisions ``rec`` (arrays ``turn, rolls_left, roll, used,
    upper_total, flag, action``) valued under optimal play, aligned with ``rec``'s rows:
    ``value`` (of the action taken), ``optimal_action``, ``optimal_value``, ``n_options``
    and the options in CSR form (``option_ptr``, ``option_actions``, ``option_values``).

    In a game with saved rolls ``rec`` also holds ``saved`` (at a box decision, the rolls
    the turn leaves saved) and the options are valued as the advisor values them, a stop
    with the rolls it saves (:func:`~yahtzee_sim.analysis.decisions.saved_options.
    grade_saved_decisions`; ``lanes`` is not used)."""
    if rules.saved_roll_cap:
        if "saved" not in rec:
            raise DatasetError(
                f"decisions of {rules.name!r} (a game with saved rolls) need the rolls each "
                "box decision saves (a 'saved' column)"
            )
        return grade_saved_decisions(rules, rec, value_table(rules))
    if lanes is None:
        lanes = upper_total_lanes(value_table(rules).values)
    order, n_opts, opt_ptr, (oa, ov, value, best_a, best_v) = _options(rules, rec, lanes)
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    return {
        "value": value[pos],
        "optimal_action": best_a[pos],
        "optimal_value": best_v[pos],
        "n_options": n_opts,
        "option_ptr": opt_ptr,
        "option_actions": oa,
        "option_values": ov,
    }


@validate_params({"n_games": Integer(1), "seed": Integer(0), "chunk_size": Integer(1)})
def decision_dataset(
    strategy,
    n_games: int,
    seed: int = 0,
    rules: str | RuleSet = "yahtzee",
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool | None = None,
) -> DecisionDataset:
    """Play ``n_games`` games of ``strategy`` and grade every decision against optimal.

    Parameters
    ----------
    strategy : str or Strategy
        Any strategy (random ones too: the decisions are those of the games played).
    n_games, seed, rules, chunk_size
        As :func:`yahtzee_sim.engine.simulate.simulate` (the same games).
    progress : bool, optional
        Progress bar over blocks; default: when stderr is a terminal.

    Returns
    -------
    DecisionDataset
    """
    import sys

    t0 = time.perf_counter()
    rules = get_rules(rules)
    check_memory(
        decisions_bytes(rules, n_games),
        f"a decision dataset of {n_games:,} games (one row per decision, every option valued)",
        "play fewer games",
    )
    label = strategy_label(get_strategy(strategy))
    bar = tqdm(
        total=n_games,
        unit="game",
        disable=not (sys.stderr.isatty() if progress is None else progress),
        desc=f"dataset {label}",
    )
    cols, ptrs, acts, vals = _graded_blocks(strategy, n_games, seed, rules, chunk_size, bar)
    columns = {k: np.concatenate([c[k] for c in cols]) for k in cols[0]}
    option_ptr = np.r_[0, np.concatenate(ptrs)].astype(np.int64)
    return DecisionDataset(
        rules=rules,
        strategy=label,
        seed=seed,
        n_games=n_games,
        columns=columns,
        option_ptr=option_ptr,
        option_actions=np.concatenate(acts),
        option_values=np.concatenate(vals),
        seconds=time.perf_counter() - t0,
    )


def _graded_blocks(strategy, n_games, seed, rules, chunk_size, bar):
    """``(columns, option pointers, option actions, option values)`` of each block of
    recorded games, every decision graded against optimal (``bar`` advanced, then closed)."""
    # saved-roll games are valued through the table itself (grade_decisions)
    lanes = None if rules.saved_roll_cap else upper_total_lanes(value_table(rules).values)
    faces, names = roll_names(rules), action_names(rules)
    cols, ptrs, acts, vals = [], [], [], []
    offset = 0
    for _, n, rec in recorded_blocks(strategy, n_games, seed, rules, chunk_size):
        play = np.lexsort((np.arange(len(rec["game"])), rec["game"]))  # game by game
        rec = {k: v[play] for k, v in rec.items()}
        g = grade_decisions(rules, rec, lanes)
        cols.append(_block_columns(rec, g, faces, names, bool(rules.saved_roll_cap)))
        acts.append(g["option_actions"].astype(np.int16))
        vals.append(g["option_values"])
        ptrs.append(g["option_ptr"][1:] + offset)
        offset += int(g["option_ptr"][-1])
        bar.update(n)
    bar.close()
    return cols, ptrs, acts, vals


def _block_columns(rec: dict, g: dict, faces, names, saving: bool = False) -> dict:
    """The dataset's columns of one block of decisions (``rec``, graded: ``g``) in compact
    dtypes; ``faces`` and ``names`` name the rolls and the actions. ``saving`` (a game with
    saved rolls) adds ``saved``: at a box decision, the rolls the turn leaves saved."""
    saved = {"saved": rec["saved"].astype(np.int8)} if saving else {}
    return {
        "game": rec["game"],
        "turn": (rec["turn"] + 1).astype(np.int8),
        "rolls_left": rec["rolls_left"].astype(np.int8),
        "dice": faces[rec["roll"]],
        "roll": rec["roll"].astype(np.int16),
        "used": rec["used"].astype(np.int32),
        "upper_total": rec["upper_total"].astype(np.int16),
        "flag": rec["flag"].astype(np.int8),
        "score": rec["score"].astype(np.int16),
        "action": rec["action"].astype(np.int16),
        "move": names[rec["action"]],
        "value": g["value"],
        "optimal_action": g["optimal_action"].astype(np.int16),
        "optimal_move": names[g["optimal_action"]],
        "optimal_value": g["optimal_value"],
        "regret": np.maximum(g["optimal_value"] - g["value"], 0.0),
        "n_options": g["n_options"].astype(np.int16),
    } | saved

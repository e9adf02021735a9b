"""Exact evaluation: the law of the final score of a deterministic strategy.

Glenn (2006, §7) computes the distribution of the final score of a strategy by a
forward pass over the state graph. Here:

1. **Turn outcomes.** Level by level (number of filled boxes), for every state the
   strategy can reach, its decisions at every roll are fetched *in batches* —
   all (state, roll) pairs of a chunk of states in one :class:`TurnView` per
   decision point — and one kernel turns them into the law of the turn's outcome
   (box, points, Yahtzee bonus) through the shared keep→roll table.
2. **Forward pass** (always): reach probabilities and the partial moments
   ``E[score so far; at s]``, ``E[score so far²; at s]`` are pushed along the
   outcomes, giving the exact mean and SD, the per-box means, zero rates and
   average fill turn, P(upper bonus) and the expected number of Yahtzee bonuses.
3. **Backward pass** (``distribution=True``): the law of the points still to
   come from every reached state, as arrays, fullest level first; the start
   state's law is the pmf of the final score.

Only strategies whose decisions depend on the position alone (state, dice,
rolls left) can be evaluated: random strategies and strategies that use the
running score are refused (:class:`ExactEvaluationError`). A sample of each
level's positions is asked twice, with different scores, box contents and game
numbers, to catch strategies that claim otherwise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from yahtzee_sim._kernels.decisions import keep_codes
from yahtzee_sim._kernels.exact import (
    compact_outcomes,
    forward_level,
    level_effects,
    new_moments,
    pmf_level,
    support_top,
    turn_outcomes,
)
from yahtzee_sim._kernels.memory import large_empty
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.decide import decide, prepare
from yahtzee_sim.engine.moves import (
    box_array,
    box_label,
    illegal_move,
    keep_array,
    keep_text,
    position_text,
)
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import capabilities_of
from yahtzee_sim.engine.summary import PERCENTILES, box_statistics, percentile_key, strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import IllegalMoveError, StrategyError
from yahtzee_sim.game.capabilities import FIXED_ROLLS, Feature
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import decode_state, known_box_scores, n_states

_ROWS_PER_CHUNK = 1 << 18  # (state, roll) pairs per batched strategy call
_STATES_PER_TABLE = 1 << 15  # states per call of a strategy's decision_table()
_CHECK_ROWS = 512  # rows re-asked per level by the position-only check


class ExactEvaluationError(StrategyError):
    """The strategy cannot be evaluated exactly (random, or uses more than the position),
    or the game is out of the evaluator's reach (saved rolls, too many states)."""


#: Most encoded states the exact score law takes on (it holds every level's outcomes in
#: memory: Yatzy's 2,097,152 states need a few GB; Maxi Yatzy's 89 million would not fit).
#: The moments alone (``distribution=False``) stream each level's outcomes instead.
EXACT_STATE_LIMIT = 1 << 23

#: Exact evaluation takes games without saved rolls.
EXACT_EVALUATION = Feature("exact evaluation", FIXED_ROLLS)
#: Memory the score law needs per encoded state (outcomes kept for the backward pass and
#: the laws of the points to come; measured on Yahtzee and Yatzy: 1.3 GB for 1 million).
LAW_BYTES_PER_STATE = 1300
#: Memory the moments pass needs per encoded state (reach and two partial moments, and
#: the next level's reached set).
MOMENTS_BYTES_PER_STATE = 3 * 8 + 1
#: States of one level whose outcomes the moments pass holds at a time.
STREAM_STATES = 1 << 17


@dataclass(eq=False)
class ExactResult:
    """Exact law of the final score of one strategy under one rule set.

    Attributes
    ----------
    strategy : str
        The strategy (:func:`~yahtzee_sim.engine.summary.strategy_label`).
    rules : RuleSet
    mean, sd : float
        Expected final score and its standard deviation.
    pmf : ndarray or None
        ``pmf[x]`` = P(final score = x), ``x = 0 .. max``; ``None`` when only the
        moments were asked for (``distribution=False``).
    box_means : ndarray (n_boxes,)
        Expected points written in each box.
    box_zero_rate : ndarray (n_boxes,)
        Probability that each box ends with 0 points.
    box_fill_turn : ndarray (n_boxes,)
        Expected turn (1-based) in which each box is filled.
    bonus_rate : float
        Probability of earning the upper-section bonus.
    yahtzee_bonuses_mean : float
        Expected number of Yahtzee bonuses.
    n_states : int
        Turn-start states the strategy reaches with positive probability.
    seconds : float
        Wall time of the evaluation.
    """

    strategy: str
    rules: RuleSet
    mean: float
    sd: float
    pmf: np.ndarray | None
    box_means: np.ndarray
    box_zero_rate: np.ndarray
    box_fill_turn: np.ndarray
    bonus_rate: float
    yahtzee_bonuses_mean: float
    n_states: int
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------- the law
    def _need_pmf(self) -> np.ndarray:
        if self.pmf is None:
            raise ExactEvaluationError(
                "this result holds the moments only; evaluate with distribution=True for the pmf"
            )
        return self.pmf

    @property
    def min(self) -> int:
        """Smallest final score with positive probability."""
        return int(np.flatnonzero(self._need_pmf() > 0)[0])

    @property
    def max(self) -> int:
        """Largest final score with positive probability."""
        return int(np.flatnonzero(self._need_pmf() > 0)[-1])

    def cdf(self) -> np.ndarray:
        """``cdf[x]`` = P(final score ≤ x)."""
        return np.cumsum(self._need_pmf())

    def survival(self) -> np.ndarray:
        """``survival[x]`` = P(final score ≥ x)."""
        pmf = self._need_pmf()
        return np.cumsum(pmf[::-1])[::-1]

    def percentile(self, q: float) -> int:
        """The ``q``-th percentile: the smallest score ``x`` with P(score ≤ x) ≥ q/100.

        The comparison allows 1e-12 of rounding, except that ``q = 100`` is the
        largest possible score however small its probability.
        """
        if not 0 <= q <= 100:
            raise ValueError(f"percentile q must be in [0, 100], got {q}")
        if q == 0:
            return self.min
        if q == 100:
            return self.max
        cdf = self.cdf()
        return max(self.min, int(np.searchsorted(cdf, q / 100.0 - 1e-12, side="left")))

    def percentiles(self, qs=PERCENTILES) -> dict[str, int]:
        """Percentiles as ``{"p10": ..., ...}``."""
        return {percentile_key(q): self.percentile(q) for q in qs}

    def pmf_series(self):
        """The pmf as a :class:`pandas.Series` indexed by score (positive entries only)."""
        import pandas as pd

        pmf = self._need_pmf()
        idx = np.flatnonzero(pmf > 0)
        return pd.Series(pmf[idx], index=pd.Index(idx, name="score"), name="probability")

    def box_frame(self):
        """Per-box expectations as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame(
            {
                "mean": self.box_means,
                "zero_rate": self.box_zero_rate,
                "fill_turn": self.box_fill_turn,
            },
            index=pd.Index(self.rules.box_names, name="box"),
        )

    def to_dict(self) -> dict:
        """JSON-ready summary in the shared vocabulary (:mod:`yahtzee_sim.engine.summary`);
        ``pmf`` is a list indexed by score (``min``, ``max``, ``percentiles`` and
        ``pmf`` are ``None`` for a moments-only result). The wall time is left out, so
        the same evaluation always gives the same dict."""
        out = {
            "strategy": self.strategy,
            "rules": self.rules.name,
            "mean": self.mean,
            "sd": self.sd,
            "min": None,
            "max": None,
            "percentiles": None,
            "bonus_rate": self.bonus_rate,
            "yahtzee_bonuses_mean": self.yahtzee_bonuses_mean,
            **box_statistics(
                self.rules.box_names,
                self.box_means,
                self.box_zero_rate,
                self.box_fill_turn,
            ),
            "n_states": self.n_states,
            "pmf": None,
        }
        if self.pmf is not None:
            out.update(
                min=self.min, max=self.max, percentiles=self.percentiles(), pmf=self.pmf.tolist()
            )
        return out


# ----------------------------------------------------------------- decisions
def _check_evaluable(strategy) -> None:
    name = strategy_label(strategy)
    caps = capabilities_of(strategy)
    if not caps.deterministic:
        raise ExactEvaluationError(
            f"strategy {name!r} is random: its decisions are not a function of the position, "
            "so it has no single exact score law here; use simulate() instead"
        )
    if caps.uses_total and not hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"strategy {name!r} uses the running score: exact evaluation covers strategies "
            "whose decisions depend on the position only (state, dice, rolls left) and "
            "score-dependent table strategies (target, win, utility); use simulate() instead"
        )


def _views(rules: RuleSet, states: np.ndarray, turn: int):
    """A factory of views over every (state, roll) pair of ``states``."""
    t = rules.tables
    n_rolls = t.n_rolls
    # decoded once per state, then one row per (state, roll)
    by_state = decode_state(rules, states)
    used, upper, flag = (np.repeat(a, n_rolls) for a in by_state)
    rolls = np.tile(np.arange(n_rolls, dtype=np.int32), len(states))
    dice = t.roll_counts[rolls]
    m = len(rolls)
    cat_scores = np.repeat(known_box_scores(rules, by_state[2]), n_rolls, axis=0)
    row_games = np.arange(m, dtype=np.int64)
    no_score = np.zeros(m, dtype=np.int64)

    def make(rolls_left: int, rows=slice(None), score=None, scores=None, game_ids=None, key=None):
        return TurnView(
            rules,
            row_games[rows] if game_ids is None else game_ids,
            dice[rows],
            rolls[rows],
            rolls_left,
            turn,
            used[rows],
            upper[rows],
            flag[rows],
            no_score[rows] if score is None else score,
            cat_scores[rows] if scores is None else scores,
            (np.uint64(1), np.uint64(2)) if key is None else key,
        )

    return make, used, cat_scores


def keep_indices(strategy, rules: RuleSet, view: TurnView, out) -> np.ndarray:
    """The keep index of each row's answer ``out`` (checked by :mod:`yahtzee_sim.engine.moves`)."""
    arr = keep_array(strategy, out, view, in_game=False)
    keep = np.empty(len(arr), dtype=np.int16)
    i = keep_codes(kernel_rules(rules), arr, np.ascontiguousarray(view.dice), keep)
    if i >= 0:
        raise illegal_move(strategy, "keep", view, i, keep_text(out, i), in_game=False)
    return keep


def box_indices(strategy, rules: RuleSet, view: TurnView, out) -> np.ndarray:
    """Each row's box (int8; -1 when out of range, refused where the box is written)."""
    arr = box_array(strategy, out, view, in_game=False)
    return np.where((arr < 0) | (arr >= rules.n_boxes), -1, arr).astype(np.int8)


def _check_position_only(strategy, rules, make, used, cat_scores, rolls_left, decided, rng):
    """Ask a sample of rows again with other scores, box contents, game numbers and
    strategy key; the decisions must not change."""
    m = len(used)
    rows = np.sort(rng.choice(m, size=min(m, _CHECK_ROWS), replace=False))
    tops = np.maximum(rules.tables.score_table.max(axis=0), 1).astype(np.int64)
    scores = cat_scores[rows].copy()
    bits = (used[rows, None] >> np.arange(rules.n_boxes)) & 1
    noise = rng.integers(0, tops + 1, size=scores.shape).astype(np.int16)
    yi = rules.yahtzee_index
    keep_cols = np.ones(rules.n_boxes, dtype=bool)
    if yi is not None and rules.has_yahtzee_flag:
        keep_cols[yi] = False  # the Yahtzee box's content is part of the state
    scores[:, keep_cols] = np.where(bits[:, keep_cols] == 1, noise[:, keep_cols], 0)
    view = make(
        rolls_left,
        rows,
        score=rng.integers(0, 400, size=len(rows)),
        scores=scores,
        game_ids=rng.integers(0, 2**40, size=len(rows)),
        key=(np.uint64(rng.integers(2**62)), np.uint64(rng.integers(2**62))),
    )
    if rolls_left:
        again = keep_indices(strategy, rules, view, decide(strategy, view))
    else:
        again = box_indices(strategy, rules, view, decide(strategy, view))
    if not np.array_equal(again, decided[rows]):
        name = strategy_label(strategy)
        raise ExactEvaluationError(
            f"strategy {name!r} made different decisions in the same position when the score, "
            "the box contents or the game number changed: exact evaluation needs decisions that "
            "depend on the position only (state, dice, rolls left); use simulate() instead"
        )


def decision_tables(strategy, rules: RuleSet, states: np.ndarray, turn: int, rng=None):
    """The strategy's decisions at every roll of every state in ``states`` (one level).

    Returns ``(keep, cat)``: ``keep[i, j - 1, r]`` (int16) is the keep index chosen
    at roll ``r`` of state ``states[i]`` with ``j`` rerolls left; ``cat[i, r]``
    (int8, -1 if out of range) the box chosen for final roll ``r``. Strategies
    may provide these directly through ``decision_table(rules, states)``;
    otherwise they are asked through their batched ``keep``/``box``.
    """
    t = rules.tables
    n, n_rolls = len(states), t.n_rolls
    fast = getattr(strategy, "decision_table", None)
    if fast is not None:
        got = fast(rules, states)
        if got is not None:
            return got
    layers = max(rules.rolls_per_turn - 1, 1)
    keep = np.zeros((n, layers, n_rolls), dtype=np.int16)
    cat = np.empty((n, n_rolls), dtype=np.int8)
    per_chunk = max(1, _ROWS_PER_CHUNK // n_rolls)
    for lo in range(0, n, per_chunk):
        hi = min(n, lo + per_chunk)
        make, used, cat_scores = _views(rules, states[lo:hi], turn)
        for j in range(1, rules.rolls_per_turn):
            view = make(j)
            got = keep_indices(strategy, rules, view, decide(strategy, view))
            if lo == 0 and rng is not None:
                _check_position_only(strategy, rules, make, used, cat_scores, j, got, rng)
            keep[lo:hi, j - 1] = got.reshape(hi - lo, n_rolls)
        view = make(0)
        got = box_indices(strategy, rules, view, decide(strategy, view))
        if lo == 0 and rng is not None:
            _check_position_only(strategy, rules, make, used, cat_scores, 0, got, rng)
        cat[lo:hi] = got.reshape(hi - lo, n_rolls)
    return keep, cat


# ------------------------------------------------------------------ outcomes
@dataclass
class LevelOutcomes:
    """Turn outcomes of the reached states of one level, CSR by state."""

    states: np.ndarray  # (n,) state indices
    ptr: np.ndarray  # (n + 1,)
    cat: np.ndarray  # box filled
    raw: np.ndarray  # points written in it
    yb: np.ndarray  # 1 if a Yahtzee bonus is earned
    prob: np.ndarray  # P(outcome | state)
    nxt: np.ndarray  # next state
    pts: np.ndarray  # points scored, bonuses included
    ub: np.ndarray  # 1 if the upper bonus is paid


def level_outcomes(
    strategy, rules: RuleSet, states: np.ndarray, turn: int, rng=None, on_decisions=None
):
    """The :class:`LevelOutcomes` of ``states`` (all with ``turn`` boxes filled).

    ``on_decisions(turn, states_chunk, keep, cat)``, when given, sees every chunk's
    decision tables (analyses that need them, such as regret, avoid a second pass).
    """
    t = rules.tables
    kr = kernel_rules(rules)
    n_rolls = t.n_rolls
    parts = []
    per_chunk = max(1, _ROWS_PER_CHUNK // n_rolls)
    if getattr(strategy, "decision_table", None) is not None:
        per_chunk = _STATES_PER_TABLE
    for lo in range(0, len(states), per_chunk):
        chunk = states[lo : lo + per_chunk]
        keep, cat = decision_tables(strategy, rules, chunk, turn, rng if lo == 0 else None)
        if on_decisions is not None:
            on_decisions(turn, chunk, keep, cat)
        used, upper, flag = decode_state(rules, chunk)
        m = len(chunk)
        out_cat = np.empty((m, n_rolls), dtype=np.int8)
        out_raw = np.empty((m, n_rolls), dtype=np.int16)
        out_yb = np.empty((m, n_rolls), dtype=np.int8)
        out_prob = np.empty((m, n_rolls))
        out_n = np.empty(m, dtype=np.int64)
        bad = np.empty(m, dtype=np.int64)
        turn_outcomes(
            kr, used, upper, flag, keep, cat, out_cat, out_raw, out_yb, out_prob, out_n, bad
        )
        if (bad >= 0).any():
            i = int(np.flatnonzero(bad >= 0)[0])
            c = int(cat[i, bad[i]])
            raise _illegal_box(strategy, rules, int(chunk[i]), int(bad[i]), c)
        k = int(out_n.sum())
        part = (np.empty(k, np.int8), np.empty(k, np.int16), np.empty(k, np.int8), np.empty(k))
        compact_outcomes(out_n, out_cat, out_raw, out_yb, out_prob, *part, 0)
        parts.append((out_n, *part))
    counts = np.concatenate([p[0] for p in parts])
    ptr = np.zeros(len(states) + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    if len(parts) == 1:
        cat, raw, yb, prob = parts[0][1:]
    else:
        cat, raw, yb, prob = (np.concatenate([p[k] for p in parts]) for k in range(1, 5))
    used, upper, flag = decode_state(rules, states)
    nxt = np.empty(len(cat), dtype=np.int64)
    pts = np.empty(len(cat), dtype=np.int64)
    ub = np.empty(len(cat), dtype=np.int8)
    level_effects(kr, used, upper, flag, ptr, cat, raw, yb, nxt, pts, ub)
    return LevelOutcomes(states, ptr, cat, raw, yb, prob, nxt, pts, ub)


def _illegal_box(strategy, rules, state, roll, c) -> IllegalMoveError:
    name = strategy_label(strategy)
    used, upper, _ = decode_state(rules, state)
    dice = DiceTables.faces_from_counts(rules.tables.roll_counts[roll])
    turn = bin(int(used)).count("1") + 1
    label = box_label(rules, c, int(used))
    return IllegalMoveError(
        f"strategy {name!r} made an illegal box choice with "
        f"{position_text(rules, int(used), int(upper))}: dice {list(dice)}, action {label}",
        strategy=name,
        turn=turn,
        dice=dice,
        action=label,
    )


# ---------------------------------------------------------------- evaluation
def _as_strategy(strategy):
    if isinstance(strategy, str):
        return get_strategy(strategy)
    return strategy


def evaluate(
    strategy,
    rules: str | RuleSet = "yahtzee",
    *,
    distribution: bool = True,
    progress: bool = False,
) -> ExactResult:
    """Exact law of the final score of a deterministic, position-only strategy.

    Parameters
    ----------
    strategy : Strategy or str
        A strategy instance or registry id / plugin spec.
    rules : str or RuleSet
    distribution : bool
        Compute the full pmf (default). ``False`` gives the moments and per-box
        statistics only (a forward pass, several times faster).
    progress : bool
        Show a progress bar over the levels.

    Returns
    -------
    ExactResult

    Raises
    ------
    ExactEvaluationError
        If the strategy is random or its decisions depend on more than the position.
    IllegalMoveError
        If the strategy makes an illegal decision in a reachable position.
    """
    t0 = time.perf_counter()
    strategy, rules = prepared(strategy, rules, moments_only=not distribution)
    if hasattr(strategy, "lane_play"):  # score-dependent: score-augmented states
        return _lane_result(strategy, rules, progress, t0)
    if not distribution:  # the moments: each level's outcomes streamed, none kept
        fw = _forward(strategy, rules, progress, keep_levels=False)[-1]
        return _result(strategy, rules, fw, None, t0, {"total_probability": fw["total"]})
    levels, fw = forward_pass(strategy, rules, progress)
    return exact_result(strategy, rules, levels, fw, distribution, progress, t0)


def exact_result(
    strategy,
    rules: RuleSet,
    levels,
    fw,
    distribution: bool = True,
    progress: bool = False,
    t0: float | None = None,
) -> ExactResult:
    """The :class:`ExactResult` of a :func:`forward_pass` (``distribution``: add the
    backward pass for the pmf)."""
    t0 = time.perf_counter() if t0 is None else t0
    pmf = backward_law(rules, levels, progress) if distribution else None
    return _result(strategy, rules, fw, pmf, t0, {"total_probability": fw["total"]})


def _result(strategy, rules: RuleSet, fw: dict, pmf, t0: float, meta: dict) -> ExactResult:
    """An :class:`ExactResult` from forward statistics (``mean``, ``second``, per-box
    sums, ``stats``, ``n_states``) and the pmf."""
    mean = fw["mean"]
    var = max(fw["second"] - mean * mean, 0.0)
    return ExactResult(
        strategy=strategy_label(strategy),
        rules=rules,
        mean=mean,
        sd=float(np.sqrt(var)),
        pmf=pmf,
        box_means=fw["cat_sum"],
        box_zero_rate=fw["cat_zero"],
        box_fill_turn=fw["cat_turn"],
        bonus_rate=float(fw["stats"][0]),
        yahtzee_bonuses_mean=float(fw["stats"][1]),
        n_states=fw["n_states"],
        seconds=time.perf_counter() - t0,
        meta=meta,
    )


def _lane_result(strategy, rules: RuleSet, progress: bool, t0: float) -> ExactResult:
    """The :class:`ExactResult` of a need-lane strategy
    (:mod:`yahtzee_sim.exact.score_dependent`)."""
    from yahtzee_sim.exact.score_dependent import lane_law

    fw = lane_law(strategy, rules, progress)
    pmf = fw["pmf"]
    x = np.arange(len(pmf), dtype=np.float64)
    fw["mean"] = float(pmf @ x)
    fw["second"] = float(pmf @ (x * x))
    meta = {"total_probability": float(pmf.sum()), "score_augmented": True}
    return _result(strategy, rules, fw, pmf, t0, meta)


def exact_rules(rules: str | RuleSet, moments_only: bool = False) -> RuleSet:
    """``rules`` resolved and checked for exact evaluation: fixed rolls
    (:data:`EXACT_EVALUATION`) and a size within reach (``moments_only``: for the streamed
    moments pass, which takes larger games)."""
    rules = get_rules(rules)
    EXACT_EVALUATION.check(rules, ExactEvaluationError)
    size = n_states(rules)
    if size > EXACT_STATE_LIMIT and not moments_only:
        raise ExactEvaluationError(
            f"the exact score law of {rules.name!r} is out of reach: its {size:,} states' "
            f"outcomes need about {size * LAW_BYTES_PER_STATE / 1e9:,.0f} GB of memory (the "
            f"law handles up to {EXACT_STATE_LIMIT:,} states); the exact mean and SD "
            f"(moments only) need {size * MOMENTS_BYTES_PER_STATE / 1e9:,.1f} GB"
        )
    return rules


def prepared(strategy, rules: str | RuleSet, moments_only: bool = False):
    """``(strategy, rules)`` resolved, checked for exact evaluation (:func:`exact_rules`)
    and prepared."""
    rules = exact_rules(rules, moments_only)
    strategy = _as_strategy(strategy)
    _check_evaluable(strategy)
    prepare(strategy, rules)
    return strategy, rules


def forward_pass(
    strategy, rules: RuleSet, progress: bool = False, on_decisions=None, turns: int | None = None
):
    """The forward pass alone, for analyses built on it (regret).

    Returns ``(levels, stats)``: the :class:`LevelOutcomes` of every level (turn
    ``t`` = ``levels[t]``) and a dict with ``reach`` (probability of reaching each
    encoded state), ``mean``, ``second`` (E[score²]) and the per-box sums.
    ``strategy`` must come from :func:`prepared`. ``on_decisions(turn, states,
    keep, cat, reach)`` is called with every chunk's decision tables; the reach
    probabilities of those states are final by then. ``turns`` stops after that many
    levels (the statistics then describe the partial game).
    """
    if hasattr(strategy, "lane_play"):
        raise ExactEvaluationError(
            f"strategy {strategy_label(strategy)!r} uses the running score: its exact law comes "
            "from evaluate() (score-augmented states); analyses built on the position-only "
            "forward pass (regret) do not cover it"
        )
    levels = _forward(strategy, rules, progress, on_decisions, turns)
    return levels[:-1], levels[-1]


def _forward(
    strategy, rules: RuleSet, progress: bool, on_decisions=None, turns=None, keep_levels=True
) -> list:
    """Level outcomes (fullest level last) followed by the forward statistics.

    ``keep_levels`` False streams each level's outcomes, :data:`STREAM_STATES` states at a
    time, and keeps none (the moments only): the same additions in the same order, so
    the same statistics bit for bit, in the memory of the moments arrays."""
    C = rules.n_boxes
    size = n_states(rules)
    acc = new_moments(size, C)
    rng = np.random.default_rng(20061)  # fixed: the position-only check is reproducible
    states = np.zeros(1, dtype=np.int64)
    levels = []
    n_reached = 0
    bar = tqdm(total=C, unit="level", desc="exact", disable=not progress, leave=False)
    hook = None
    if on_decisions is not None:

        def hook(turn, chunk, keep, cat):
            on_decisions(turn, chunk, keep, cat, acc.A)

    for turn in range(C if turns is None else min(turns, C)):
        n_reached += len(states)
        if not keep_levels:
            states = _stream_level(strategy, rules, states, turn, rng, hook, acc)
            bar.update(1)
            continue
        lv = level_outcomes(strategy, rules, states, turn, rng, hook)
        forward_level(
            states, lv.ptr, lv.cat, lv.raw, lv.yb, lv.nxt, lv.pts, lv.ub, lv.prob, turn, acc
        )
        levels.append(lv)
        states = unique_states(lv.nxt, size)
        bar.update(1)
    bar.close()
    levels.append(
        {
            "mean": float(acc.B[states].sum()),
            "second": float(acc.S2[states].sum()),
            "total": float(acc.A[states].sum()),
            "cat_sum": acc.cat_sum,
            "cat_zero": acc.cat_zero,
            "cat_turn": acc.cat_turn,
            "stats": acc.stats,
            "n_states": n_reached,
            "final_states": states,
            "reach": acc.A,
        }
    )
    return levels


def _stream_level(strategy, rules: RuleSet, states, turn: int, rng, hook, acc) -> np.ndarray:
    """Push one level forward a block of states at a time; returns the next level's
    reached states (increasing)."""
    seen = np.zeros(len(acc.A), dtype=np.bool_)
    for lo in range(0, len(states), STREAM_STATES):
        block = states[lo : lo + STREAM_STATES]
        lv = level_outcomes(strategy, rules, block, turn, rng if lo == 0 else None, hook)
        forward_level(
            block, lv.ptr, lv.cat, lv.raw, lv.yb, lv.nxt, lv.pts, lv.ub, lv.prob, turn, acc
        )
        seen[lv.nxt] = True
    return np.flatnonzero(seen)


def unique_states(nxt: np.ndarray, size: int) -> np.ndarray:
    """The distinct state indices of ``nxt`` (all below ``size``), in increasing order."""
    seen = np.zeros(size, dtype=np.bool_)
    seen[nxt] = True
    return np.flatnonzero(seen)


def backward_law(
    rules: RuleSet, levels: list[LevelOutcomes], progress: bool, all_rows: bool = False
) -> np.ndarray:
    """The law of the points to come from the first level's first state (``all_rows``:
    from each of its states, one row per state), fullest level first."""
    row_of = np.full(n_states(rules), -1, dtype=np.int64)
    final = unique_states(levels[-1].nxt, len(row_of))
    row_of[final] = np.arange(len(final))
    V_next = np.ones((len(final), 1))
    top_next = np.zeros(len(final), dtype=np.int64)
    bar = tqdm(total=len(levels), unit="level", desc="pmf", disable=not progress, leave=False)
    rows, tops = [], []  # each level's next rows and highest points to come, first
    for lv in reversed(levels):
        rows.append(row_of[lv.nxt])
        tops.append(support_top(lv.ptr, rows[-1], lv.pts, tops[-1] if tops else top_next))
        row_of[lv.states] = np.arange(len(lv.states))
    sizes = [len(top) * (int(top.max()) + 1) for top in tops]
    # two buffers in huge pages, used in turn by the levels' laws (a fresh array of
    # hundreds of MB per level costs a page fault per 4 KB)
    buffers = [large_empty(max(sizes[i::2], default=0)) for i in (0, 1)]
    for i, lv in enumerate(reversed(levels)):
        V = buffers[i % 2][: sizes[i]].reshape(len(lv.states), -1)
        pmf_level(lv.ptr, rows[i], lv.pts, lv.prob, V_next, top_next, V)
        V_next, top_next = V, tops[i]
        bar.update(1)
    bar.close()
    return V_next.copy() if all_rows else V_next[0].copy()

"""Win-seeking play in a visible match: ``win-target``, ``win-aware`` and ``chase``.

Sources: Tillius 2026, Theorem 4.1 (the last player to finish should play target
score with β = the best opponent total + 1); Pawlewicz 2010 ("A Nearly Optimal
Computer Player in Multi-player Yahtzee": a heuristic that summarizes the players'
futures by their max-EV play and was shown practically indistinguishable from optimal
two-player play). We could read only that paper's abstract in the stored copies, so
``win-aware`` is our own formulation in its spirit, not a transcription:

* every turn is played by the widget (one turn, all rolls) with each box valued by
  the probability of winning from the state it leads to;
* from that state on, every player (this one included) is assumed to play max-EV: a
  player's remaining score is summarized by the exact mean and SD of max-EV play from
  their turn-start state (:func:`yahtzee_sim.exact.points_to_come.future_moments`) and treated as
  normal; finished players count with their totals; ties split the win;
* so it is exact where nothing but this turn is left to decide: on the last seat's
  last turn it is ``chase``;
* moves that win equally often (a decided game) are ranked by max-EV (the expected final
  score, weighted 1e-9 per point, is added to P(win)).

``win-target``, the strongest of the three, plays every turn by the same widget but
values each box differently:

* the opponents' best final total is a law — exact once every opponent still playing
  has at most ``exact_open`` open boxes (their max-EV laws,
  :func:`yahtzee_sim.exact.points_to_come.future_laws`), before that normal finals with the exact
  mean and SD of max-EV play, as equal-weight quantiles;
* the player's own future is not max-EV play but the best response to each possible
  total: from the state a box leads to, the largest probability of scoring more than
  that total (the target-score table, :func:`yahtzee_sim.solving.target.target_table`, which
  holds it for every state and every number of points still needed); a box's value is
  its mean over the law (a tie counts half, or 1/(k+1) against k finished opponents
  tied at the best total), plus the same max-EV tie-break.

Valuing one's own future by the best response to each total separately is optimistic
(no single strategy reaches every total's best probability), but it keeps the player
adapting to the match to the end; against max-EV play it comes within 0.0004 of the
best response in the reduced game ``upper-3d4f`` and 0.006 in ``yahtzee-6box`` (docs:
the exact two-player game).

``chase`` plays max-EV (or ``fallback``) until every opponent has finished, then the
exact best last turn against the best total (win outright, or tie for a split).

Without a visible match (solitaire, blind tournaments) all three play max-EV.
"""

from __future__ import annotations

import threading

import numpy as np
from scipy.special import ndtri

from yahtzee_sim._core.batched import decision_buffers, lane_order, read_decisions, tile_rows
from yahtzee_sim._core.win_nodes import best_final_nodes, best_final_sizes
from yahtzee_sim._core.win_values import win_aware_decisions, win_reach_decisions
from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.registry import get_strategy
from yahtzee_sim.engine.strategy import Capabilities, Strategy
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.exact.points_to_come import future_laws, future_moments
from yahtzee_sim.game.capabilities import FIXED_ROLLS
from yahtzee_sim.game.state import encode_state
from yahtzee_sim.solving.target import max_score, target_table
from yahtzee_sim.validation import Integer, check


def node_buffers(local, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three float arrays of ``n`` entries (nodes, weights, weights below), views of
    buffers kept on ``local`` and grown geometrically (as :func:`decision_buffers`)."""
    buf = getattr(local, "nodes", None)
    if buf is None or buf.shape[1] < n:
        buf = np.empty((3, max(n, 2 * (0 if buf is None else buf.shape[1]))))
        local.nodes = buf
    return buf[0, :n], buf[1, :n], buf[2, :n]


def unfinished_sheets(view: TurnView) -> tuple[np.ndarray, np.ndarray]:
    """The encoded turn-start states and points so far of the opponents still playing,
    ``(m, k)`` each (``k`` opponents, the same in every game of ``view``)."""
    match = view.match
    live = match.turns < view.rules.n_boxes
    states = encode_state(
        view.rules, match.used[:, live], match.upper_total[:, live], match.flag[:, live]
    )
    m = len(view)
    score = np.asarray(match.score, dtype=np.int64)[:, live]
    return np.asarray(states, dtype=np.int64).reshape(m, -1), score.reshape(m, -1)


def finished_best(view: TurnView) -> tuple[np.ndarray, np.ndarray]:
    """Per game of ``view``: the finished opponents' best total and how many hold it
    (0 and 0 while none has finished)."""
    match = view.match
    done = match.turns >= view.rules.n_boxes
    m = len(view)
    if not done.any():
        return np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    fin = np.asarray(match.score, dtype=np.int64)[:, done]
    fin_best = fin.max(axis=1)
    return fin_best, (fin == fin_best[:, None]).sum(axis=1).astype(np.int64)


def opponents_summary(view: TurnView, moments) -> tuple:
    """Per game of ``view``: the finished opponents' best total and how many hold it,
    and the mean and SD of each unfinished opponent's final score under max-EV play
    (``(fin_best, fin_ties, um, usd, n_unf)``, unfinished first in each row of ``um``)."""
    fin_best, fin_ties = finished_best(view)
    states, score = unfinished_sheets(view)
    um = np.ascontiguousarray(score + moments.mean[states], dtype=np.float64)
    usd = np.ascontiguousarray(moments.sd[states], dtype=np.float64)
    return fin_best, fin_ties, um, usd, states.shape[1]


class _OpponentAware(Strategy):
    """Shared play: a turn's decisions for every game at its first decision, from the
    win-aware kernel, in the games where :meth:`_aware_rows` says so; ``fallback``
    elsewhere."""

    # decisions depend on both states and the score difference; max-EV futures solved
    capabilities = Capabilities(
        uses_total=True, solved_table=True, plays=FIXED_ROLLS, decision_key="match"
    )
    parallel_backend = "threads"  # shared tables; the kernel releases the GIL
    in_all = False  # plays max-EV without a visible match
    abstract = True

    def prepare(self, rules) -> None:
        if getattr(self, "_rules", None) == rules:
            return
        self.check_rules(rules)  # its capabilities: games without saved rolls
        self._fallback = get_strategy(getattr(self, "fallback", "optimal"))
        self._fallback.prepare(rules)
        self._moments = future_moments(rules)
        x, w = np.polynomial.hermite_e.hermegauss(int(getattr(self, "nodes", 8)))
        self._gh = (np.ascontiguousarray(x), np.ascontiguousarray(w / w.sum()))
        self._turns = threading.local()
        self._rules = rules

    def _aware_rows(self, view: TurnView) -> bool:
        raise NotImplementedError

    def _turn_decisions(self, view: TurnView):
        """``(keep, cat, which)`` of this turn (:func:`decision_buffers`), computed once:
        game ``i`` plays row ``which[i]``. On the first turn, games with the same
        inputs (every game of the first seat) share a row."""
        key = (view.turn, view.seat, view.games.tobytes(), view.score.tobytes())
        stash = getattr(self._turns, "stash", None)
        if stash is not None and stash[0] == key:
            return stash[1:]
        m = len(view)
        states = np.asarray(view.state_index, dtype=np.int64)
        score = np.asarray(view.score, dtype=np.int64)
        match = self._match_inputs(view)
        rows, which = np.arange(m), np.arange(m)
        if view.turn == 0:
            inputs = np.column_stack([states, score, *(a.reshape(m, -1) for a in match)])
            _, rows, which = np.unique(
                inputs.astype(np.float64), axis=0, return_index=True, return_inverse=True
            )
            which = which.reshape(-1)
        keep, cat = decision_buffers(self._turns, len(rows), view.rules)
        order = lane_order(states[rows])
        mine = tuple(
            np.ascontiguousarray(a[rows], dtype=np.int64)
            for a in (view.used, view.upper, view.flag, score)
        )
        match = tuple(np.ascontiguousarray(a[rows]) for a in match)
        self._run_kernel(kernel_rules(view.rules), order, mine, match, keep, cat)
        which = tile_rows(order)[which]  # the kernel wrote row order[p] in row p
        self._turns.stash = (key, keep, cat, which)
        return keep, cat, which

    def _match_inputs(self, view: TurnView) -> tuple:
        """Per game, the arrays (leading axis: games) the kernel reads about the match."""
        fb, ft, um, usd, k = opponents_summary(view, self._moments)
        return fb, ft, um, usd, np.full(len(view), k, dtype=np.int64)

    def _run_kernel(self, kr, order, mine, match, keep, cat) -> None:
        """Write the decisions of rows ``order`` (own score sheet ``mine``: used, upper, flag,
        score; :meth:`_match_inputs` rows ``match``) into ``keep``, ``cat``."""
        fb, ft, um, usd, n_unf = match
        win_aware_decisions(
            kr,
            order,
            *mine,
            self._moments.mean,
            self._moments.sd,
            fb,
            ft,
            um,
            usd,
            n_unf,
            *self._gh,
            keep,
            cat,
            get_threads(),
        )

    def _decide(self, view: TurnView, what: str) -> np.ndarray:
        self.prepare(view.rules)
        if view.match is None or view.n_players < 2 or not self._aware_rows(view):
            return getattr(self._fallback, what)(view)
        keep, cat, which = self._turn_decisions(view)
        d = read_decisions(keep, cat, which, view.rolls_left, view.roll_index)
        return d if view.rolls_left == 0 else view.tables.keep_counts[d]

    def keep(self, view: TurnView) -> np.ndarray:
        return self._decide(view, "keep")

    def box(self, view: TurnView) -> np.ndarray:
        return self._decide(view, "box")


class WinAware(_OpponentAware):
    """Maximizes P(win) in a visible match, every turn, against the opponents' current
    score sheets (max-EV futures summarized by their exact mean and SD; see the module).

    Parameters
    ----------
    nodes : int
        Gauss-Hermite nodes for P(win) against several opponents still playing.
    """

    references = ()  # no published figures to compare (docs/guide/matches.md: Results)

    def __init__(self, nodes: int = 8) -> None:
        self.nodes = nodes

    def _aware_rows(self, view: TurnView) -> bool:
        return True


class WinTarget(_OpponentAware):
    """Maximizes P(win) in a visible match, every turn, valuing its own future by its
    best chance of beating each possible opponent total (see the module).

    Each box written now leads to a turn-start state ``s2`` with ``base`` points. The
    opponents' best final total ``B`` is a law: exact (max-EV play from score sheets with at
    most ``exact_open`` open boxes, :func:`yahtzee_sim.exact.points_to_come.future_laws`) or
    equal-weight quantiles of normal finals (the exact mean and SD of max-EV play). The
    box's value is the mean over ``B`` of the largest probability of scoring more than
    ``B - base`` from ``s2`` (the target-score table,
    :func:`yahtzee_sim.solving.target.target_table`), plus its share of a tie (1/2; 1/(k + 1)
    with ``k`` finished opponents tied at the best total): the player's own future is a
    best response to each total, not max-EV play. A tie with several opponents still
    playing is counted as a tie with one.

    Sources: Pawlewicz 2010, as Tillius 2026 summarizes it (each state assigned the
    probability of reaching every score); our formulation, not a transcription.

    Parameters
    ----------
    nodes : int
        Equal-weight quantiles of one opponent's (normal) final while they have more
        than ``exact_open`` open boxes.
    quantiles : int
        Quantiles of the best final of several such opponents.
    cap : int
        Largest target of the target table (official Yahtzee: 400 holds 1.1 GB; Yatzy
        reaches 374 and is solved whole).
    exact_open : int
        Opponents' score sheets with at most this many open boxes are valued by their exact law.
    """

    references = ()  # no published figures to compare (docs/guide/matches.md: Results)

    def __init__(
        self, nodes: int = 8, quantiles: int = 8, cap: int = 400, exact_open: int = 3
    ) -> None:
        self.nodes = nodes
        self.quantiles = quantiles
        self.cap = cap
        self.exact_open = exact_open

    def prepare(self, rules) -> None:
        if getattr(self, "_rules", None) == rules:
            return
        for name in ("nodes", "quantiles", "cap", "exact_open"):
            check(f"win-target {name}", getattr(self, name), Integer(1), StrategyError)
        self._tables = None  # loaded at the first visible match (solitaire play needs none)
        self._lock = threading.Lock()
        super().prepare(rules)
        k = int(self.nodes)  # one opponent: equal-weight quantiles of a normal final
        self._z = (ndtri((np.arange(k) + 0.5) / k), np.full(k, 1.0 / k))

    def tables(self):
        """``(target table, future laws)`` of the prepared rules, loaded (or solved and
        cached on disk, with a progress bar on standard error: official Yahtzee about 2.5
        minutes, Yatzy about 6, on two cores) on first use."""
        with self._lock:
            if self._tables is None:
                rules = self._rules
                cap = min(int(self.cap), max_score(rules))
                target = target_table(rules, max_beta=cap, progress=True)  # a bar if solved
                self._tables = (target, future_laws(rules, int(self.exact_open)))
        return self._tables

    def _aware_rows(self, view: TurnView) -> bool:
        return True

    def _match_inputs(self, view: TurnView) -> tuple:
        fb, ft = finished_best(view)
        ost, osc = unfinished_sheets(view)
        return fb, ft, ost, osc, np.full(len(view), ost.shape[1], dtype=np.int64)

    def _run_kernel(self, kr, order, mine, match, keep, cat) -> None:
        tt, laws = self.tables()
        laws = (laws.pool, laws.offset, laws.length, laws.support)
        n = len(match[0])
        size = np.empty(n, dtype=np.int64)
        threads = get_threads()
        best_final_sizes(match, laws, len(self._z[0]), int(self.quantiles), size, threads)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(size, out=ptr[1:])
        nodes = (ptr, *node_buffers(self._turns, int(ptr[-1])), np.empty(n, dtype=np.int64))
        normal = (self._moments.mean, self._moments.sd, *self._z)
        best_final_nodes(match, laws, normal, nodes, threads)
        target = (tt.probs, tt.offset, tt.length)
        finished = (match[0], match[1])
        mean = self._moments.mean
        win_reach_decisions(kr, order, mine, finished, target, mean, nodes, keep, cat, threads)


class Chase(_OpponentAware):
    """Plays ``fallback`` until every opponent has finished, then the exact best last
    turn against the best total (Tillius 2026, Theorem 4.1; ties split the win).

    Parameters
    ----------
    fallback : str
        The strategy played before (a registry id; default max-EV).
    """

    references = ()  # Tillius 2026 states the theorem, no figures for it

    def __init__(self, fallback: str = "optimal") -> None:
        self.fallback = fallback

    def _aware_rows(self, view: TurnView) -> bool:
        return bool((view.match.turns >= view.rules.n_boxes).all())

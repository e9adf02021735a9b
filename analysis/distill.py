"""Distil optimal play into a short rule card, and the curve number of rules → exact mean.

The learner is a greedy search of our own (numpy and one numba kernel; no extra
dependency). It grows a :class:`~yahtzee_sim.strategies.card.Card` one rule at a time:

1. **Sample the card's own play.** ``n_games`` games of the current card are played
   (the same dice every step) and every decision is graded against optimal play:
   the exact optimal value of every move the card could make there (the solved
   table, as the decision datasets grade them). A decision's *gain* for a move is
   that move's value minus the value of the move the card made.
2. **Choose the rule that removes the most regret.** Every rule ``if A and B: MOVE``
   (conditions from the card vocabulary, at most two, then refined with a third when
   that helps) is scored by the sum of its gains over the decisions where it would
   decide — at the top of its section (it overrides every rule) or at the bottom
   (just above the ``otherwise`` line: only decisions no rule takes yet) — per game.
   The best of all is added. By the performance-difference identity the card's
   regret is the sum of its decisions' losses over its own games, so each rule
   lowers the regret estimated on the card's own state distribution (to first order:
   the rule also changes which positions arise); the games are played again after
   each rule, so the distribution stays the card's own. With ``validate=True`` a rule
   is kept only if the summed loss of the replayed games (the same dice) goes down,
   else the next best rule is tried.
3. **Prune.** On fresh games, rules whose removal costs less than ``min_gain`` are
   dropped, the least useful first; with ``prune_to``, the least useful rules are
   dropped until the card has at most ``prune_to`` rules (grow past a size, then keep
   the rules that matter most at that size).
4. **The curve.** The cards made of the first ``k`` rules learned (the card after
   ``k`` steps, before pruning) are evaluated exactly
   (:func:`yahtzee_sim.exact.laws.evaluate`) for ``k`` in ``curve_at``.

Deterministic for a seed: the games come from ``seed`` and the kernel sums in a fixed
order whatever the number of threads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from yahtzee_sim._kernels.widget import upper_total_lanes
from yahtzee_sim.analysis.dataset import grade_decisions
from yahtzee_sim.engine.atomic import atomic_path
from yahtzee_sim.engine.records import recorded_blocks
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies._card_language import KEEP_FALLBACK, CardLanguage, vocabulary
from yahtzee_sim.strategies.card import Card, CardStrategy, CompiledCard, Rule, filled_count
from yahtzee_sim.strategies.card import all_hold as holds
from yahtzee_sim.validation import Integer, validate_params

#: Card sizes evaluated exactly by default (those up to ``max_rules``, and ``max_rules``).
DEFAULT_CURVE = (0, 1, 2, 3, 5, 10, 15, 20, 30, 40, 50, 75, 100)
_MAX_PRUNED = 10  # rules pruned at most (each removal re-samples the card's games)
_CHUNKS = 4  # fixed partial sums of the kernel: the same result on any number of threads


class DistillError(YahtzeeSimError):
    """Bad arguments for :func:`distill` (sizes, games, seeds)."""


@dataclass(eq=False)
class DistillResult:
    """A distilled card and its curve.

    Attributes
    ----------
    rules : RuleSet
    card : Card
        The card after pruning (rules in card order).
    order : list of Rule
        The pruned card's rules in the order they were learned.
    grown : Card
        The card before pruning.
    learned : list of Rule
        Every rule learned, in order (:meth:`card_of` keeps the first ``k``).
    curve : list of dict
        ``{"n_rules", "mean", "sd", "regret"}`` of the card of the first ``n_rules``
        rules learned (the card as it was after ``n_rules`` steps), each evaluated
        exactly.
    steps : list of dict
        Per learned rule: ``section``, ``rule`` (text), ``where`` (``"top"`` or
        ``"bottom"``), ``gain`` (estimated points per game) and ``sampled_regret`` (the
        card's regret on its sampled games once the rule is added; it goes down rule by
        rule).
    optimal : float
        Optimal expected score of the rules.
    pruned_point : dict or None
        With ``prune_to``: ``{"n_rules", "mean", "sd", "regret"}`` of the pruned card,
        evaluated exactly (``None`` without ``prune_to`` or with an empty ``curve_at``).
    """

    rules: RuleSet
    card: Card
    order: list[Rule]
    curve: list[dict]
    steps: list[dict]
    optimal: float
    grown: Card
    learned: list[Rule]
    seed: int
    n_games: int
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)
    pruned_point: dict | None = None

    def card_of(self, n_rules: int, pruned: bool = False) -> Card:
        """The card of the first ``n_rules`` rules learned, in card order: the card as
        it was after ``n_rules`` steps (``pruned``: the first ``n_rules`` rules of the
        pruned card instead)."""
        if pruned:
            return prefix_card(self.card, self.order[:n_rules])
        return prefix_card(self.grown, self.learned[:n_rules])

    def to_dict(self) -> dict:
        """JSON-ready summary (no wall time: the same run gives the same dict)."""
        return {
            "rules": self.rules.name,
            "seed": self.seed,
            "n_games": self.n_games,
            "optimal": self.optimal,
            "n_rules": self.card.n_rules,
            "card": self.card.format(),
            "curve": self.curve,
            "pruned": self.pruned_point,
            "steps": self.steps,
        }

    def plot(self, path=None, ax=None):
        """The curve number of rules → exact mean, with optimal play as a line."""
        import matplotlib

        if ax is None:
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(6, 4))
        else:
            fig = ax.figure
        n = [p["n_rules"] for p in self.curve]
        m = [p["mean"] for p in self.curve]
        ax.plot(n, m, "o-", label="rule card (exact mean)")
        ax.axhline(self.optimal, color="k", ls="--", lw=1, label=f"optimal {self.optimal:.2f}")
        ax.set_xlabel("rules on the card")
        ax.set_ylabel("expected final score")
        ax.set_title(f"Distilled rule cards, {self.rules.name}")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        if path is not None:
            fig.tight_layout()
            with atomic_path(path) as tmp:
                fig.savefig(tmp, dpi=120)
        return fig


def prefix_card(card: Card, rules: list[Rule]) -> Card:
    """``card`` restricted to ``rules`` (card order kept)."""
    keep = set(rules)
    return Card(
        card.rules,
        [r for r in card.keeps if r in keep],
        [r for r in card.boxes if r in keep],
    )


# ------------------------------------------------------------------ sampling
@dataclass
class _Section:
    """The graded decisions of one section: conditions, gains of every move, and
    which decisions no rule of the section takes yet."""

    X: np.ndarray  # (P, L) bool, C order
    gain: np.ndarray  # (P, A) move value − value of the card's move (0: move illegal)
    bottom: np.ndarray  # (P,) bool
    value: np.ndarray  # (P, A) move values (NaN: illegal)
    fallback: np.ndarray  # (P,) the move of the section's "otherwise" line


def _sample(card: Card, rules: RuleSet, vocab: CardLanguage, lanes, n_games: int, seed: int):
    """Play ``n_games`` of ``card`` and grade every decision: one :class:`_Section` per
    card section, and ``"regret"``: the summed loss of the card's decisions per game
    (an unbiased estimate of its regret)."""
    strategy = CardStrategy(card=card)
    parts = []
    for _, _, rec in recorded_blocks(strategy, n_games, seed, rules, n_games):
        g = grade_decisions(rules, rec, lanes)
        parts.append((rec, g))
    rec = {k: np.concatenate([p[0][k] for p in parts]) for k in parts[0][0]}
    g = {
        k: np.concatenate([p[1][k] for p in parts]) for k in ("value", "n_options", "optimal_value")
    }
    ptr = np.r_[0, np.cumsum(g["n_options"])].astype(np.int64)
    acts = np.concatenate([p[1]["option_actions"] for p in parts])
    vals = np.concatenate([p[1]["option_values"] for p in parts])
    points = vocab.points(rec["roll"], rec["used"], rec["flag"])
    X = vocab.conditions(
        rec["roll"],
        rec["used"],
        rec["upper_total"],
        rec["rolls_left"],
        filled_count(rec["used"]),
        points,
    )
    X = np.ascontiguousarray(X)
    compiled = CompiledCard.build(card, rules)
    Xc = X[:, compiled.columns]
    t = rules.tables
    n_keeps = t.n_keeps
    keeps = rec["rolls_left"] > 0
    out = {}
    for name, rows in (("keep", np.flatnonzero(keeps)), ("box", np.flatnonzero(~keeps))):
        if name == "keep":
            actions = vocab.keep_table[rec["roll"][rows]]
        else:
            actions = n_keeps + vocab.box_table[rec["roll"][rows]]
        value = _option_values(ptr, acts, vals, rows, np.ascontiguousarray(actions))
        taken = g["value"][rows]
        gain = np.nan_to_num(value - taken[:, None], nan=0.0)
        rules_of = compiled.keeps if name == "keep" else compiled.boxes
        taken_any = np.zeros(len(rows), dtype=np.bool_)
        for idx, move in rules_of:
            h = holds(Xc[rows], idx)
            if name == "box":
                h &= ~np.isnan(value[:, move])
            taken_any |= h
        if name == "keep":
            fallback = np.full(len(rows), vocab.keep_index[KEEP_FALLBACK], dtype=np.int64)
        else:
            fallback = np.argmax(points[rows], axis=1).astype(np.int64)  # box = move
        out[name] = _Section(np.ascontiguousarray(X[rows]), gain, ~taken_any, value, fallback)
    out["regret"] = float(np.sum(g["optimal_value"] - g["value"])) / n_games
    return out


@njit(cache=True)
def _lookup(ptr, acts, vals, rows, actions, out):
    for i in range(rows.shape[0]):
        p = rows[i]
        for a in range(actions.shape[1]):
            out[i, a] = np.nan
            for e in range(ptr[p], ptr[p + 1]):
                if acts[e] == actions[i, a]:
                    out[i, a] = vals[e]
                    break


def _option_values(ptr, acts, vals, rows, actions) -> np.ndarray:
    """``(len(rows), A)``: the graded value of move ``actions[i, a]`` at decision
    ``rows[i]`` (NaN where it is not a legal option)."""
    out = np.empty(actions.shape)
    _lookup(ptr, acts.astype(np.int64), vals, rows.astype(np.int64), actions.astype(np.int64), out)
    return out


# ------------------------------------------------------------------- search
@njit(cache=True, parallel=True)
def _pair_gains(X, allowed, gain, bottom, n_chunks):
    """Summed gains of every rule ``if a and b: move`` over the decisions where it holds:
    ``G[w, a, b, move]``, ``w = 0`` at the top of the section, ``w = 1`` at its bottom
    (decisions no rule takes); ``a <= b``; index ``L`` stands for "no condition"."""
    P, L = X.shape
    A = gain.shape[1]
    parts = np.zeros((n_chunks, 2, L + 1, L + 1, A))
    for c in prange(n_chunks):
        G = parts[c]
        idx = np.empty(L + 1, dtype=np.int64)
        for p in range(c, P, n_chunks):
            n = 0
            for i in range(L):
                if X[p, i] and allowed[i]:
                    idx[n] = i
                    n += 1
            idx[n] = L
            n += 1
            for u in range(n):
                a = idx[u]
                for v in range(u, n):
                    b = idx[v]
                    for m in range(A):
                        G[0, a, b, m] += gain[p, m]
                    if bottom[p]:
                        for m in range(A):
                            G[1, a, b, m] += gain[p, m]
    out = np.zeros((2, L + 1, L + 1, A))
    for c in range(n_chunks):
        out += parts[c]
    return out


@dataclass
class _Candidate:
    section: str
    conds: tuple[int, ...]
    move: int
    where: str
    gain: float  # points per game
    key: tuple = ()  # entry of the pair search


def _best_in_section(name: str, sec: _Section, allowed: np.ndarray, n_games: int, cache, banned):
    """The best rule of section ``name`` on the sampled decisions ``sec``, skipping the
    pair-search entries in ``banned`` (the kernel's sums are kept in ``cache``)."""
    if len(sec.X) == 0:
        return None
    if name not in cache:
        cache[name] = _pair_gains(sec.X, allowed, sec.gain, sec.bottom, _CHUNKS)
    G = cache[name]
    for key in banned:
        G[key] = -np.inf
    L = sec.X.shape[1]
    flat = int(np.argmax(G))
    key = np.unravel_index(flat, G.shape)
    w, a, b, m = (int(k) for k in key)
    best = G[w, a, b, m]
    conds = tuple(sorted({int(c) for c in (a, b) if c < L}))
    where = "top" if w == 0 else "bottom"
    # refine: a third (and fourth) condition when it keeps more gain than it loses
    rows = np.ones(len(sec.X), dtype=np.bool_) if where == "top" else sec.bottom.copy()
    for c in conds:
        rows &= sec.X[:, c]
    while len(conds) < 4:
        g = sec.gain[rows, m]
        third = sec.X[rows].T.astype(np.float64) @ g
        third[~allowed] = -np.inf
        third[list(conds)] = -np.inf
        c = int(np.argmax(third))
        if not third[c] > best + 1e-9 * n_games:
            break
        best = third[c]
        conds = tuple(sorted((*conds, c)))
        rows &= sec.X[:, c]
    conds = _simplest(sec, conds, int(m), where, best)
    return _Candidate(name, conds, int(m), where, float(best) / n_games, (w, a, b, m))


def _simplest(sec: _Section, conds: tuple[int, ...], m: int, where: str, best: float):
    """``conds`` without the conditions whose removal loses no gain on the sample
    (e.g. "2 of a kind" beside "5 of a kind")."""
    for c in sorted(conds, reverse=True):
        rest = [k for k in conds if k != c]
        rows = np.ones(len(sec.X), dtype=np.bool_) if where == "top" else sec.bottom.copy()
        for k in rest:
            rows &= sec.X[:, k]
        if sec.gain[rows, m].sum() >= best - 1e-9 * max(1.0, abs(best)):
            conds = tuple(rest)
    return conds


def _insert(card: Card, rule: Rule, where: str) -> Card:
    keeps, boxes = list(card.keeps), list(card.boxes)
    target = keeps if rule.section == "keep" else boxes
    if where == "top":
        target.insert(0, rule)
    else:
        target.append(rule)
    return Card(card.rules, keeps, boxes)


def _as_rule(vocab: CardLanguage, cand: _Candidate) -> Rule:
    moves = vocab.keep_texts if cand.section == "keep" else vocab.box_texts
    conds = tuple(vocab.condition_texts[c] for c in cand.conds)
    return Rule(cand.section, conds, moves[cand.move])


def _removal_losses(card: Card, rules: RuleSet, data: dict) -> dict[Rule, float]:
    """Sum of value lost (per decision sampled) when each rule of ``card`` is removed:
    its decisions go to the next rule that holds, or the ``otherwise`` line."""
    vocab = vocabulary(rules)
    losses = {}
    for name in ("keep", "box"):
        sec = data[name]
        rules_ = card.section(name)
        if not rules_:
            continue
        idx = {
            "keep": vocab.keep_index,
            "box": vocab.box_index,
        }[name]
        moves = np.array([idx[r.move] for r in rules_])
        H = np.empty((len(sec.X), len(rules_) + 1), dtype=np.bool_)
        for k, r in enumerate(rules_):
            cols = np.array([vocab.condition_index[c] for c in r.conditions], dtype=np.int64)
            H[:, k] = holds(sec.X, cols)
            if name == "box":
                H[:, k] &= ~np.isnan(sec.value[:, moves[k]])
        H[:, -1] = True
        first = np.argmax(H, axis=1)
        H[np.arange(len(H)), first] = False
        second = np.argmax(H, axis=1)
        fallback = sec.fallback
        for k, r in enumerate(rules_):
            rows = np.flatnonzero(first == k)
            nxt = second[rows]
            nxt_move = np.where(
                nxt < len(rules_), moves[np.minimum(nxt, len(rules_) - 1)], fallback[rows]
            )
            v_now = sec.value[rows, moves[k]]
            v_next = sec.value[rows, nxt_move]
            losses[r] = float(np.sum(v_now - v_next))
    return losses


# ----------------------------------------------------------------- distill
@validate_params(
    {"max_rules": Integer(0), "seed": Integer(0), "n_games": Integer(1), "prune_to": Integer(0)},
    error=DistillError,
)
def distill(
    rules: str | RuleSet = "yahtzee",
    max_rules: int = 30,
    seed: int = 0,
    n_games: int = 3000,
    curve_at=None,
    min_gain: float = 0.01,
    max_rejected: int = 8,
    validate: bool = False,
    progress: bool = False,
    prune_to: int | None = None,
) -> DistillResult:
    """Learn a rule card of at most ``max_rules`` rules; evaluate its curve exactly.

    Parameters
    ----------
    rules : str or RuleSet
    max_rules : int
        Most rules on the card (keep and box rules together; the two ``otherwise``
        lines are not counted). Learning stops earlier when no rule gains
        ``min_gain`` points per game.
    seed : int
        Seed of the sampled games (same seed ⇒ same card).
    n_games : int
        Games of the card's own play sampled at each step.
    curve_at : sequence of int, optional
        Card sizes evaluated exactly (default: :data:`DEFAULT_CURVE` up to the card's
        size, and the card's size). Empty: no exact evaluation.
    min_gain : float
        Smallest estimated gain (points per game) for a rule to be added or kept.
    max_rejected : int
        With ``validate``, a chosen rule is kept only if the card's regret on its own
        sampled games (the same dice) goes down; learning stops after this many
        rejections in a row.
    validate : bool
        Check each rule as above. Default ``False``: keep every chosen rule (each check
        plays the card's games again, and a rejected rule costs one more round).
    progress : bool
        Print one line per learned rule to stderr.
    prune_to : int, optional
        After learning, drop the least useful rules (each removal judged on fresh games
        of the current card) until at most ``prune_to`` rules are left; then drop rules
        that gain less than ``min_gain`` as usual. Default: no size limit.

    Returns
    -------
    DistillResult
    """
    import sys

    t0 = time.perf_counter()
    rules = get_rules(rules)
    vocab = vocabulary(rules)
    lanes = upper_total_lanes(value_table(rules).values)
    learn_seed, prune_seed = (
        int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(2)
    )
    card = Card(rules.name)
    order: list[Rule] = []
    steps: list[dict] = []
    allowed = {"keep": vocab.keep_groups, "box": vocab.box_groups}
    data = _sample(card, rules, vocab, lanes, n_games, learn_seed)
    cache: dict = {}
    banned: dict = {"keep": set(), "box": set()}
    rejected = 0
    while card.n_rules < max_rules and rejected < max_rejected:
        cands = [
            _best_in_section(s, data[s], allowed[s], n_games, cache, banned[s])
            for s in ("keep", "box")
        ]
        cands = [c for c in cands if c is not None]
        best = max(cands, key=lambda c: c.gain) if cands else None
        if best is None or best.gain < min_gain:
            break
        rule = _as_rule(vocab, best)
        trial = _insert(card, rule, best.where)
        trial_data = _sample(trial, rules, vocab, lanes, n_games, learn_seed)
        worse = validate and trial_data["regret"] >= data["regret"]
        if rule in order or worse:
            # no gain on the card's own games (same dice): the estimate was noise or
            # the rule's side effects cost more; try the next best
            banned[best.section].add(best.key)
            rejected += 1
            continue
        card, data, cache, rejected = trial, trial_data, {}, 0
        banned = {"keep": set(), "box": set()}
        order.append(rule)
        steps.append(
            {
                "section": rule.section,
                "rule": rule.text(),
                "where": best.where,
                "gain": best.gain,
                "sampled_regret": data["regret"],
            }
        )
        if progress:
            print(f"distill {rules.name}: rule {len(order)}: +{best.gain:.3f} "
                  f"(sampled regret {data['regret']:.2f}) [{rule.section}] {rule.text()}",
                  file=sys.stderr)  # fmt: skip
    grown, learned = card, order
    card, order = _prune(
        card, order, rules, vocab, lanes, n_games, prune_seed, min_gain, prune_to, progress
    )
    n = grown.n_rules
    sizes = sorted({k for k in DEFAULT_CURVE if k <= n} | {n})
    sizes = sizes if curve_at is None else sorted({int(k) for k in curve_at if k <= n})
    optimal = float(value_table(rules).expected_value())
    curve = [_exact_point(prefix_card(grown, learned[:k]), rules, optimal) for k in sizes]
    pruned_point = None
    if prune_to is not None and (curve_at is None or len(curve_at)):
        pruned_point = _exact_point(card, rules, optimal)
    res = DistillResult(
        rules,
        card,
        order,
        curve,
        steps,
        optimal,
        grown,
        learned,
        seed,
        n_games,
        pruned_point=pruned_point,
    )
    res.seconds = time.perf_counter() - t0
    return res


def _exact_point(card: Card, rules: RuleSet, optimal: float) -> dict:
    """Exact mean, SD and regret of ``card``."""
    ex = evaluate(CardStrategy(card=card), rules, distribution=False)
    return {"n_rules": card.n_rules, "mean": ex.mean, "sd": ex.sd, "regret": optimal - ex.mean}


def _prune(card, order, rules, vocab, lanes, n_games, seed, min_gain, prune_to, progress):
    """Drop, one at a time, the rule whose removal costs least (on fresh games of the
    current card) while the card has more than ``prune_to`` rules, then while that
    cost is below ``min_gain`` points per game (at most :data:`_MAX_PRUNED` such)."""
    import sys

    small = 0
    while card.n_rules and small < _MAX_PRUNED:
        data = _sample(card, rules, vocab, lanes, n_games, seed)
        losses = _removal_losses(card, rules, data)
        worst = min(order, key=lambda r: (losses[r] / n_games, order.index(r)))
        cost = losses[worst] / n_games
        too_many = prune_to is not None and card.n_rules > prune_to
        if not too_many:
            if cost >= min_gain:
                break
            small += 1
        order = [r for r in order if r != worst]
        card = prefix_card(card, order)
        if progress:
            left = f"{card.n_rules} rules left, cost {cost:+.3f}"
            print(f"distill {rules.name}: pruned ({left}) {worst.text()}", file=sys.stderr)
    return card, order

"""Distil optimal play into a short rule card, and the curve number of rules → exact mean.

The learner is a greedy search of our own (numpy and one compiled kernel; no extra
dependency). It grows a :class:`~yahtzee_sim.strategies.cards.format.Card` one rule at a time:

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

from yahtzee_sim._kernels.lanes import upper_total_lanes
from yahtzee_sim.analysis.decisions.card_search import (
    as_rule,
    best_rule,
    insert_rule,
    removal_losses,
    sample_play,
)
from yahtzee_sim.engine.atomic import atomic_path
from yahtzee_sim.errors import DistillError
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.strategies.cards import Card, CardLanguage, CardStrategy, Rule, vocabulary
from yahtzee_sim.validation import Integer, validate_params

#: Card sizes evaluated exactly by default (those up to ``max_rules``, and ``max_rules``).
DEFAULT_CURVE = (0, 1, 2, 3, 5, 10, 15, 20, 30, 40, 50, 75, 100)
_MAX_PRUNED = 10  # rules pruned at most (each removal re-samples the card's games)


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
        """The curve number of rules → exact mean, with optimal play as a black line.

        Draws on ``ax`` (default: a new one-column figure in the paper style) and returns
        it; with ``path`` (``.png``, ``.pdf`` or ``.svg``) the figure is also saved there,
        byte-identical run to run."""
        from yahtzee_sim.analysis.style import (
            COLUMN_WIDTH,
            HIGHLIGHT_COLORS,
            REFERENCE_COLOR,
            figure_style,
            save_figure,
        )

        with figure_style():
            if ax is None:
                import matplotlib.pyplot as plt

                _, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.6), layout="constrained")
            n = [p["n_rules"] for p in self.curve]
            m = [p["mean"] for p in self.curve]
            ax.plot(n, m, "o-", color=HIGHLIGHT_COLORS[0], label="rule card (exact mean)")
            ax.axhline(
                self.optimal, color=REFERENCE_COLOR, ls="--", lw=1,
                label=f"optimal play {self.optimal:.2f}",
            )  # fmt: skip
            ax.set_xlabel("rules on the card")
            ax.set_ylabel("expected final score")
            ax.set_title(f"Distilled rule cards, {self.rules.name}")
            ax.grid(alpha=0.3, lw=0.5)
            ax.legend(loc="lower right")
            if path is not None:
                with atomic_path(path) as tmp:
                    save_figure(ax.figure, tmp)
        return ax


def prefix_card(card: Card, rules: list[Rule]) -> Card:
    """``card`` restricted to ``rules`` (card order kept)."""
    keep = set(rules)
    return Card(
        card.rules,
        [r for r in card.keeps if r in keep],
        [r for r in card.boxes if r in keep],
    )


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
    t0 = time.perf_counter()
    rules = get_rules(rules)
    vocab = vocabulary(rules)
    lanes = upper_total_lanes(value_table(rules).values)
    learn_seed, prune_seed = (
        int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(2)
    )
    search = _Search(rules, vocab, lanes, n_games, learn_seed)
    grown, learned, steps = _grow(search, max_rules, min_gain, max_rejected, validate, progress)
    card, order = _prune(
        grown, learned, rules, vocab, lanes, n_games, prune_seed, min_gain, prune_to, progress
    )
    curve, pruned_point = _curve(grown, learned, card, rules, curve_at, prune_to)
    res = DistillResult(
        rules,
        card,
        order,
        curve,
        steps,
        float(value_table(rules).expected_value()),
        grown,
        learned,
        seed,
        n_games,
        pruned_point=pruned_point,
    )
    res.seconds = time.perf_counter() - t0
    return res


@dataclass
class _Search:
    """What every step of the greedy search samples with: the rules, the card vocabulary,
    the optimal values' lanes, the games and their seed."""

    rules: RuleSet
    vocab: CardLanguage
    lanes: np.ndarray
    n_games: int
    seed: int

    def sample(self, card: Card) -> dict:
        """:func:`~yahtzee_sim.analysis.decisions.card_search.sample_play` of ``card``."""
        return sample_play(card, self.rules, self.vocab, self.lanes, self.n_games, self.seed)


def _grow(search: _Search, max_rules, min_gain, max_rejected, validate, progress):
    """``(card, rules in the order learned, steps)``: the greedy search, one rule at a
    time, each the one that removes the most regret on the card's own sampled games."""
    vocab, card = search.vocab, Card(search.rules.name)
    order: list[Rule] = []
    steps: list[dict] = []
    allowed = {"keep": vocab.keep_groups, "box": vocab.box_groups}
    data = search.sample(card)
    cache: dict = {}
    banned: dict = {"keep": set(), "box": set()}
    rejected = 0
    while card.n_rules < max_rules and rejected < max_rejected:
        cands = [
            best_rule(s, data[s], allowed[s], search.n_games, cache, banned[s])
            for s in ("keep", "box")
        ]
        cands = [c for c in cands if c is not None]
        best = max(cands, key=lambda c: c.gain) if cands else None
        if best is None or best.gain < min_gain:
            break
        rule = as_rule(vocab, best)
        trial = insert_rule(card, rule, best.where)
        trial_data = search.sample(trial)
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
        steps.append(_step(search.rules, rule, best, data["regret"], len(order), progress))
    return card, order, steps


def _step(rules: RuleSet, rule: Rule, best, regret: float, n: int, progress: bool) -> dict:
    """The record of learned rule number ``n`` (printed with ``progress``)."""
    import sys

    if progress:
        print(f"distill {rules.name}: rule {n}: +{best.gain:.3f} "
              f"(sampled regret {regret:.2f}) [{rule.section}] {rule.text()}",
              file=sys.stderr)  # fmt: skip
    return {
        "section": rule.section,
        "rule": rule.text(),
        "where": best.where,
        "gain": best.gain,
        "sampled_regret": regret,
    }


def _curve(grown, learned, card, rules: RuleSet, curve_at, prune_to):
    """``(curve, pruned point)``: the cards of the first ``k`` rules learned, evaluated
    exactly, and the pruned card with ``prune_to``."""
    n = grown.n_rules
    sizes = sorted({k for k in DEFAULT_CURVE if k <= n} | {n})
    sizes = sizes if curve_at is None else sorted({int(k) for k in curve_at if k <= n})
    optimal = float(value_table(rules).expected_value())
    curve = [_exact_point(prefix_card(grown, learned[:k]), rules, optimal) for k in sizes]
    pruned_point = None
    if prune_to is not None and (curve_at is None or len(curve_at)):
        pruned_point = _exact_point(card, rules, optimal)
    return curve, pruned_point


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
        data = sample_play(card, rules, vocab, lanes, n_games, seed)
        losses = removal_losses(card, rules, data)
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

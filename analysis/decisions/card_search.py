"""The search behind :func:`~yahtzee_sim.analysis.decisions.distill.distill`: a card's own
play sampled and graded (:func:`sample_play`), the best rule to add found by a compiled
kernel over every pair of conditions (:func:`pair_gains`, :func:`best_rule`), and what
removing a rule costs (:func:`removal_losses`).

Deterministic for a seed: the games come from the seed and the kernel sums in a fixed
order whatever the number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yahtzee_sim.analysis.decisions import card_search_kernels
from yahtzee_sim.analysis.decisions.dataset import grade_decisions
from yahtzee_sim.engine.records import recorded_blocks
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.strategies.cards import (
    KEEP_FALLBACK,
    Card,
    CardLanguage,
    CardStrategy,
    CompiledCard,
    Rule,
    filled_count,
    vocabulary,
)
from yahtzee_sim.strategies.cards import all_hold as holds

_CHUNKS = 4  # fixed partial sums of the kernel: the same result on any number of threads


@dataclass
class Section:
    """The graded decisions of one section: conditions, gains of every move, and
    which decisions no rule of the section takes yet."""

    X: np.ndarray  # (P, L) bool, C order
    gain: np.ndarray  # (P, A) move value − value of the card's move (0: move illegal)
    bottom: np.ndarray  # (P,) bool
    value: np.ndarray  # (P, A) move values (NaN: illegal)
    fallback: np.ndarray  # (P,) the move of the section's "otherwise" line


def sample_play(card: Card, rules: RuleSet, vocab: CardLanguage, lanes, n_games: int, seed: int):
    """Play ``n_games`` of ``card`` and grade every decision: one :class:`Section` per
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
        out[name] = Section(np.ascontiguousarray(X[rows]), gain, ~taken_any, value, fallback)
    out["regret"] = float(np.sum(g["optimal_value"] - g["value"])) / n_games
    return out


def _option_values(ptr, acts, vals, rows, actions) -> np.ndarray:
    """``(len(rows), A)``: the graded value of move ``actions[i, a]`` at decision
    ``rows[i]`` (NaN where it is not a legal option)."""
    return card_search_kernels.option_values(ptr, acts, vals, rows, actions)


def pair_gains(X, allowed, gain, bottom, n_chunks: int) -> np.ndarray:
    """Summed gains of every rule ``if a and b: move`` over the decisions where it holds:
    ``G[w, a, b, move]``, ``w = 0`` at the top of the section, ``w = 1`` at its bottom
    (decisions no rule takes); ``a <= b``; index ``L`` stands for "no condition".
    ``n_chunks`` fixed partial sums, on this thread's share of the cores."""
    return card_search_kernels.pair_gains(X, allowed, gain, bottom, n_chunks, get_threads())


@dataclass
class Candidate:
    """A rule found by :func:`best_rule`: its section, conditions (vocabulary indices),
    move, place (``"top"`` or ``"bottom"``), estimated gain and pair-search entry."""

    section: str
    conds: tuple[int, ...]
    move: int
    where: str
    gain: float  # points per game
    key: tuple = ()  # entry of the pair search


def best_rule(name: str, sec: Section, allowed: np.ndarray, n_games: int, cache, banned):
    """The best rule of section ``name`` on the sampled decisions ``sec``, skipping the
    pair-search entries in ``banned`` (the kernel's sums are kept in ``cache``)."""
    if len(sec.X) == 0:
        return None
    if name not in cache:
        cache[name] = pair_gains(sec.X, allowed, sec.gain, sec.bottom, _CHUNKS)
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
    return Candidate(name, conds, int(m), where, float(best) / n_games, (w, a, b, m))


def _simplest(sec: Section, conds: tuple[int, ...], m: int, where: str, best: float):
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


def insert_rule(card: Card, rule: Rule, where: str) -> Card:
    """``card`` with ``rule`` at the top or the bottom (``where``) of its section."""
    keeps, boxes = list(card.keeps), list(card.boxes)
    target = keeps if rule.section == "keep" else boxes
    if where == "top":
        target.insert(0, rule)
    else:
        target.append(rule)
    return Card(card.rules, keeps, boxes)


def as_rule(vocab: CardLanguage, cand: Candidate) -> Rule:
    """The card rule of a candidate, in the words of the vocabulary."""
    moves = vocab.keep_texts if cand.section == "keep" else vocab.box_texts
    conds = tuple(vocab.condition_texts[c] for c in cand.conds)
    return Rule(cand.section, conds, moves[cand.move])


def removal_losses(card: Card, rules: RuleSet, data: dict) -> dict[Rule, float]:
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

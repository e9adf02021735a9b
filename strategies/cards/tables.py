"""A rule card's decision tables for the exact evaluator (:func:`card_decision_tables`): the
keep and the box of every roll of many states in one compiled pass
(:func:`~yahtzee_sim.strategies.cards.card_kernels.card_tables`), the same as the card's
``keep``/``box`` there."""

from __future__ import annotations

import numpy as np

from yahtzee_sim._kernels.scoring import kernel_rules
from yahtzee_sim.engine.threads import get_threads
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.game.state import decode_state
from yahtzee_sim.strategies.cards.card_kernels import card_tables
from yahtzee_sim.strategies.cards.compiled import CompiledCard, filled_count
from yahtzee_sim.strategies.cards.keep_moves import KEEP_FALLBACK

#: Kinds of a rule's conditions on the roll (``card_kernels``' ``TERM_*``).
_TERM = {"dice": 0, "mixed": 1, "points": 2}


def _split(card: CompiledCard, rules_and_moves) -> tuple[list, list, list]:
    """Each rule's conditions on the roll (as terms), on the position (state conditions)
    and on the rerolls left."""
    terms, states, rolls = [], [], []
    for idx, _ in rules_and_moves:
        t, s, r = [], [], []
        for column in idx:
            kind = card.vocab.condition_kind(int(card.columns[column]))
            if kind[0] == "state":
                s.append(kind[1])
            elif kind[0] == "rolls":
                r.append(kind[1])
            else:
                t.append((_TERM[kind[0]], *kind[1:], 0, 0)[:3])
        terms.append(t)
        states.append(s)
        rolls.append(r)
    return terms, states, rolls


def _bits(holds: list[np.ndarray], n: int) -> np.ndarray:
    """``(n, words)`` uint64: bit ``j`` set where rule ``j`` holds (``holds[j]``, bool)."""
    words = np.zeros((n, max(1, -(-len(holds) // 64))), dtype=np.uint64)
    for j, ok in enumerate(holds):
        words[:, j // 64] |= ok.astype(np.uint64) << np.uint64(j % 64)
    return words


def _state_holds(card, state_conds, position_values, n) -> list[np.ndarray]:
    """Whether each rule's state conditions all hold, per position."""
    cache: dict[int, np.ndarray] = {}
    out = []
    for conds in state_conds:
        ok = np.ones(n, dtype=bool)
        for k in conds:
            if k not in cache:
                cache[k] = card.vocab.state_condition(k, *position_values)
            ok &= cache[k]
        out.append(ok)
    return out


def _keep_state(state_ok: list[np.ndarray], rolls: list[list[int]], layers: int, n: int):
    """``(n, layers, words)``: the keep rules whose conditions on the position and on the
    rerolls left (``layer + 1``) hold, as bits."""
    words = max(1, -(-len(state_ok) // 64))
    out = np.zeros((n, layers, words), dtype=np.uint64)
    for layer in range(layers):
        left = layer + 1
        holds = [ok & all(j == left for j in r) for ok, r in zip(state_ok, rolls, strict=True)]
        out[:, layer] = _bits(holds, n)
    return out


def card_decision_tables(
    card: CompiledCard, rules: RuleSet, states: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, cat)`` of :func:`~yahtzee_sim.exact.decision_tables.decision_tables` for
    the compiled ``card`` at ``states`` (one level, in the encoding's order)."""
    v = card.vocab
    used, upper, flag = decode_state(rules, np.asarray(states, dtype=np.int64))
    positions = np.ascontiguousarray(np.stack([used, upper, flag], axis=1), dtype=np.int64)
    n, n_rolls, layers = len(positions), rules.tables.n_rolls, rules.rolls_per_turn - 1
    values = (used, upper, filled_count(used))
    k_terms, k_states, k_rolls = _split(card, card.keeps)
    b_terms, b_states, _ = _split(card, card.boxes)  # (box rules read no rerolls left)
    keep_state = _keep_state(_state_holds(card, k_states, values, n), k_rolls, layers, n)
    box_state = _bits(_state_holds(card, b_states, values, n), n)
    all_terms = k_terms + b_terms
    ptr = np.cumsum([0] + [len(t) for t in all_terms])
    terms = np.array([t for ts in all_terms for t in ts] or np.zeros((0, 3)), dtype=np.int64)
    keep = np.zeros((n, max(layers, 1), n_rolls), dtype=np.int16)
    cat = np.empty((n, n_rolls), dtype=np.int8)
    card_tables(
        kernel_rules(rules),
        np.ascontiguousarray(v.dice_table, dtype=np.uint8),
        np.ascontiguousarray(v.keep_table, dtype=np.int64),
        np.ascontiguousarray(v.box_table, dtype=np.int64),
        np.ascontiguousarray(ptr[: len(k_terms) + 1], dtype=np.int64),
        np.array([move for _, move in card.keeps], dtype=np.int64),
        v.keep_index[KEEP_FALLBACK],
        np.ascontiguousarray(ptr[len(k_terms) :], dtype=np.int64),
        np.array([move for _, move in card.boxes], dtype=np.int64),
        terms,
        positions,
        keep_state,
        box_state,
        keep[:, :layers] if layers else np.zeros((n, 0, n_rolls), dtype=np.int16),
        cat,
        get_threads(),
    )
    return keep, cat

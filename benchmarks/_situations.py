"""Random decision situations and every option's value of them: shared by
``bench_peers.py`` (ours against the peer) and ``speed_guard.py`` (the CI speed guard).

A situation is a solved turn-start state (uniform over the states both our solver and the
peer's compute), uniform dice and 0 to ``rolls_per_turn - 1`` rerolls left.
"""

from __future__ import annotations

import numpy as np


def situations(rules, n: int, seed: int = 0) -> dict:
    """``n`` random situations as arrays: ``used, upper, flag`` (a solved state), ``dice``
    (sorted faces), ``rolls_left``."""
    from yahtzee_sim.game.state import decode_state, solved_states

    rng = np.random.default_rng(seed)
    states = rng.choice(solved_states(rules), n)
    used, upper, flag = decode_state(rules, states)
    dice = np.sort(rng.integers(1, rules.n_faces + 1, (n, rules.n_dice)), axis=1)
    rolls_left = rng.integers(0, rules.rolls_per_turn, n)
    return {"used": used, "upper": upper, "flag": flag, "dice": dice, "rolls_left": rolls_left}


def ours_options(rules, sit: dict) -> dict:
    """Every option's value of situations ``sit`` (:func:`grade_decisions`)."""
    from yahtzee_sim.analysis.decisions.dataset import grade_decisions

    counts = (sit["dice"][:, :, None] == np.arange(1, rules.n_faces + 1)).sum(axis=1)
    used = sit["used"]
    rec = {
        "turn": np.array([bin(int(u)).count("1") for u in np.unique(used)])[
            np.searchsorted(np.unique(used), used)
        ],
        "rolls_left": sit["rolls_left"].astype(np.int64),
        "roll": rules.tables.roll_index(counts).astype(np.int64),
        "used": used.astype(np.int64),
        "upper_total": sit["upper"].astype(np.int64),
        "flag": sit["flag"].astype(np.int64),
        "action": np.zeros(len(used), dtype=np.int64),
    }
    return grade_decisions(rules, rec)

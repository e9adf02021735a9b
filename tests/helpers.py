"""Shared helpers for the tests."""

from __future__ import annotations

import contextlib

import numpy as np

from yahtzee_sim import get_rules
from yahtzee_sim.view import TurnView


def view_for(rules, dice, used=(), flag=0, upper_total=0, rolls_left=0, turn=0):
    """A one-game TurnView for a hand-made position."""
    rules = get_rules(rules)
    t = rules.tables
    counts = t.counts_from_faces(dice)[None, :]
    mask = 0
    for name in used:
        mask |= 1 << rules.category_index(name)
    return TurnView(
        rules,
        games=np.array([0], dtype=np.int64),
        dice=counts,
        roll_index=t.roll_index(counts).astype(np.int32),
        rolls_left=rolls_left,
        turn=turn,
        used=np.array([mask], dtype=np.int64),
        upper_total=np.array([upper_total], dtype=np.int64),
        flag=np.array([flag], dtype=np.int64),
        score=np.array([0], dtype=np.int64),
        category_scores=np.zeros((1, rules.n_categories), dtype=np.int16),
    )


def options(rules, dice, used=(), flag=0, upper_total=0):
    """{category: points} of the legal boxes for a hand-made position."""
    v = view_for(rules, dice, used, flag, upper_total)
    names = v.rules.category_names
    return {n: int(p) for n, p in zip(names, v.category_points[0], strict=True) if p >= 0}


@contextlib.contextmanager
def dask_cluster():
    """A two-worker dask LocalCluster as the joblib backend; yields its client (the test
    is skipped without dask.distributed)."""
    import pytest

    distributed = pytest.importorskip("dask.distributed")
    from joblib import parallel_config

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
        parallel_config(backend="dask"),
    ):
        yield client

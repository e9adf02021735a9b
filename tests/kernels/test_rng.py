"""The dice stream: uniforms that are uniform and uncorrelated and depend only on the seed
and the counter."""

import numpy as np
from scipy.stats import chisquare

from yahtzee_sim._core.rng import keys_from_seed, uniforms


def test_uniforms_are_uniform_and_uncorrelated():
    k0, k1, _, _ = keys_from_seed(3)
    u = uniforms(k0, k1, np.arange(100_000, dtype=np.int64), 1000, 4)
    assert ((u >= 0) & (u < 1)).all()
    counts = np.histogram(u[:, 0], bins=50, range=(0, 1))[0]
    assert chisquare(counts).pvalue > 1e-4
    corr = np.corrcoef(u.T)
    assert np.abs(corr - np.eye(4)).max() < 0.02
    # neighbouring games are not correlated either
    assert abs(np.corrcoef(u[:-1, 0], u[1:, 0])[0, 1]) < 0.02


def test_streams_depend_on_seed_and_counter_only():
    k0, k1, _, _ = keys_from_seed(3)
    games = np.array([5, 6, 7], dtype=np.int64)
    a = uniforms(k0, k1, games, 10, 3)
    b = uniforms(k0, k1, games[::-1].copy(), 10, 3)
    np.testing.assert_array_equal(a, b[::-1])
    c = uniforms(*keys_from_seed(4)[:2], games, 10, 3)
    assert not np.array_equal(a, c)


def test_seed_keys_are_distinct():
    keys = keys_from_seed(0)
    assert len(set(int(k) for k in keys)) == 4

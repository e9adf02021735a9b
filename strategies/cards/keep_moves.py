"""The keep moves a rule card may name ("keep all 6s", "keep the longest run", ...), each
a function from rows of face counts to the counts kept, and the dice features they read
(the most common face, the longest run)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: The fallback line every card ends its keep section with.
KEEP_FALLBACK = "keep the most common face"

#: A keep move: ``(m, n_faces)`` face counts → the counts kept.
KeepMove = Callable[[np.ndarray], np.ndarray]


def most_common_face(c: np.ndarray) -> np.ndarray:
    """0-based face with the most dice, the highest face on ties, per row of counts."""
    F = c.shape[1]
    return F - 1 - np.argmax(c[:, ::-1], axis=1)


def longest_run(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and 0-based start of the longest run of consecutive faces shown
    (the highest run on ties)."""
    m, F = c.shape
    best_len = np.zeros(m, dtype=np.int64)
    best_start = np.zeros(m, dtype=np.int64)
    cur = np.zeros(m, dtype=np.int64)
    for f in range(F):
        cur = np.where(c[:, f] > 0, cur + 1, 0)
        better = cur >= best_len
        best_len = np.where(better, cur, best_len)
        best_start = np.where(better, f - cur + 1, best_start)
    return best_len, best_start


def keep_face(f: int) -> KeepMove:
    """Keep every die showing the 0-based face ``f``."""

    def fn(c):
        out = np.zeros_like(c)
        out[:, f] = c[:, f]
        return out

    return fn


def keep_most_common(c: np.ndarray) -> np.ndarray:
    """Keep every die of the most common face (the highest on ties)."""
    out = np.zeros_like(c)
    top = most_common_face(c)
    rows = np.arange(len(c))
    out[rows, top] = c[rows, top]
    return out


def keep_longest_run(c: np.ndarray) -> np.ndarray:
    """Keep one die of each face of the longest run."""
    length, start = longest_run(c)
    f = np.arange(c.shape[1])
    inside = (f >= start[:, None]) & (f < (start + length)[:, None])
    return np.where(inside, 1, 0).astype(c.dtype)


def keep_span(lo: int, hi: int) -> KeepMove:
    """Keep one die of each 0-based face ``lo .. hi - 1`` shown."""

    def fn(c):
        out = np.minimum(c, 1)
        out[:, :lo] = 0
        out[:, hi:] = 0
        return out

    return fn


def keep_sets(c: np.ndarray) -> np.ndarray:
    """Keep at most 3 of the most common face and 2 of the next, when at least pairs."""
    F = c.shape[1]
    order = np.argsort(-c * (F + 1) - np.arange(F), axis=1, kind="stable")
    rows = np.arange(len(c))
    out = np.zeros_like(c)
    for rank, cap in ((0, 3), (1, 2)):
        f = order[:, rank]
        n = c[rows, f]
        out[rows, f] = np.where(n >= 2, np.minimum(n, cap), 0)
    return out


def keep_pairs(n_pairs: int) -> KeepMove:
    """Keep the ``n_pairs`` highest pairs (two dice each)."""

    def fn(c):
        out = np.zeros_like(c)
        left = np.full(len(c), n_pairs)
        for f in range(c.shape[1] - 1, -1, -1):
            take = (c[:, f] >= 2) & (left > 0)
            out[:, f] = np.where(take, 2, 0)
            left -= take
        return out

    return fn


def keep_from(lo: int) -> KeepMove:
    """Keep every die showing the 0-based face ``lo`` or more."""

    def fn(c):
        out = c.copy()
        out[:, :lo] = 0
        return out

    return fn


def keep_moves(n_faces: int) -> list[tuple[str, KeepMove]]:
    """Every keep move of a game with ``n_faces`` faces and its line on a card, in card
    order (a move whose line another already has is left out: small dice sets make some
    coincide)."""
    F = n_faces
    moves = [(f"keep all {f + 1}s", keep_face(f)) for f in range(F)]
    moves += [
        (KEEP_FALLBACK, keep_most_common),
        ("keep the longest run, one die of each face", keep_longest_run),
        (f"keep one die of each face 1 to {F - 1}", keep_span(0, F - 1)),
        (f"keep one die of each face 2 to {F}", keep_span(1, F)),
        ("keep the most common face (up to 3) and a second pair", keep_sets),
        ("keep the highest pair", keep_pairs(1)),
        ("keep the two highest pairs", keep_pairs(2)),
        (f"keep all {F - 1}s and {F}s", keep_from(F - 2)),
        (f"keep all dice showing {F - 2} or more", keep_from(F - 3)),
        ("keep everything", np.copy),
        ("reroll everything", np.zeros_like),
    ]
    seen, out = set(), []
    for text, fn in moves:
        if text not in seen:
            seen.add(text)
            out.append((text, fn))
    return out

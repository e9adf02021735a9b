"""Compact letter display: strategies that share a letter cannot be told apart.

Piepho (2004), the insert-absorb algorithm: start with one letter shared by every
strategy; for each pair declared different, split every letter that holds both into
one without the first and one without the second; drop a letter whose strategies all
share another letter too. Letters are then named ``a``, ``b``, ... in the order of
their best strategy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from string import ascii_lowercase


def letter_display(names: Sequence[str], different: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The letters of each strategy: two strategies share a letter exactly when they are
    not declared different.

    Parameters
    ----------
    names : sequence of str
        The strategies in rank order (best first): ``a`` goes to the first's tier.
    different : iterable of (str, str)
        The pairs declared different.

    Returns
    -------
    dict of str to str
        Letters per strategy, e.g. ``{"optimal": "a", "greedy": "b", "random": "bc"}``;
        past 26 letters the names go on as ``a1``, ``b1``, ...

    Examples
    --------
    >>> letter_display(["x", "y", "z"], [("x", "z")])
    {'x': 'a', 'y': 'ab', 'z': 'b'}
    """
    position = {name: i for i, name in enumerate(names)}
    columns: list[frozenset[int]] = [frozenset(range(len(names)))] if names else []
    for first, second in different:
        i, j = position[first], position[second]
        split: list[frozenset[int]] = []
        for column in columns:
            if i in column and j in column:
                split += [column - {i}, column - {j}]
            else:
                split.append(column)
        columns = _absorb(split)
    columns.sort(key=lambda column: sorted(column))
    labels = {name: "" for name in names}
    for n, column in enumerate(columns):
        letter = ascii_lowercase[n % 26] + (str(n // 26) if n >= 26 else "")
        for i in sorted(column):
            labels[names[i]] += letter
    return labels


def _absorb(columns: list[frozenset[int]]) -> list[frozenset[int]]:
    """The columns without duplicates and without those inside another column."""
    unique = list(dict.fromkeys(c for c in columns if c))
    return [c for c in unique if not any(c < other for other in unique)]

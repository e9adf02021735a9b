"""A progress bar whose steps advance it by their work, not by one each.

tqdm estimates the time left from the rate so far: the share of the bar done over the
time taken. A bar that counts steps is honest only when its steps cost alike; the levels
of a solve or an exact evaluation differ in size by orders of magnitude, so a counting
bar's first estimate can be ten times the truth. :class:`WeightedBar` advances by each
step's work in units of work (the widget lanes of a solve's level, the states of an exact
evaluation's level, one per strategy of a report): the time tqdm shows left is then the
work still ahead at the pace measured so far.
"""

from __future__ import annotations

from collections.abc import Mapping

from tqdm.auto import tqdm

__all__ = ["WeightedBar"]

#: The bar's layout: percentage and times (its units of work, summed over kinds of steps,
#: mean little to a user).
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]"


class WeightedBar:
    """A tqdm bar over steps of several kinds, each advancing it by its weight.

    Parameters
    ----------
    weights : mapping
        The work of one step of each kind.
    counts : mapping
        How many steps of each kind the run has (the bar's total: their weighted sum).
    **options
        Passed to :class:`tqdm.tqdm` (``desc``, ``disable``, ``leave``, ``file``).

    Examples
    --------
    >>> bar = WeightedBar({"big": 20, "level": 1}, {"big": 1, "level": 3}, disable=True)
    >>> bar.total
    23.0
    >>> bar.step("big"); bar.step("level", 3); bar.close()
    """

    def __init__(self, weights: Mapping[str, float], counts: Mapping[str, int], **options):
        self.weights = dict(weights)
        #: Steps of each kind taken so far.
        self.taken: dict[str, int] = dict.fromkeys(self.weights, 0)
        #: The weight of the steps taken so far (the bar's position, shown or not).
        self.done = 0.0
        self.total = float(sum(self.weights[kind] * n for kind, n in counts.items()))
        self.bar = tqdm(total=self.total, bar_format=BAR_FORMAT, **options)

    def step(self, kind: str, n: int = 1) -> None:
        """Advance by ``n`` steps of ``kind``."""
        if n:
            self.taken[kind] += n
            self.done += self.weights[kind] * n
            self.bar.update(self.weights[kind] * n)

    def drop(self, kind: str, n: int = 1) -> None:
        """Take ``n`` steps of ``kind`` off the bar: done before this run (a resumed
        run's recorded levels), they are neither ahead nor part of its pace."""
        if n:
            self.total -= self.weights[kind] * n
            self.bar.total = self.total
            self.bar.refresh()

    def set_postfix_str(self, text: str) -> None:
        """Name the step under way."""
        self.bar.set_postfix_str(text)

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()

    def __enter__(self) -> WeightedBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

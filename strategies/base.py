"""The strategy interface: batched decisions over a :class:`~yahtzee_sim.view.TurnView`."""

from __future__ import annotations

import inspect
from typing import ClassVar

import numpy as np

from yahtzee_sim.view import TurnView


class Strategy:
    """Base class of every strategy.

    Subclasses implement two batched methods, each receiving a read-only
    :class:`~yahtzee_sim.view.TurnView` whose leading axis is the games:

    * :meth:`keep` (``view.rolls_left > 0``) returns the dice to keep as face
      counts, shape ``(m, n_faces)``; keeping all dice ends the turn;
    * :meth:`category` (``view.rolls_left == 0``) returns the box to fill,
      shape ``(m,)``, as category indices.

    Constructors store their parameters only (as attributes of the same
    name), so :func:`repr` and :meth:`clone` come from the signature.

    Attributes
    ----------
    name : str
        Registry id (set by :func:`~yahtzee_sim.strategies.register`).
    deterministic : bool
        Decisions depend only on the position (no randomness).
    uses_total : bool
        Decisions depend on the running score, not just the state.
    parallel_backend : {"processes", "threads"}
        How :func:`~yahtzee_sim.simulate` runs blocks with ``n_jobs > 1``.
        ``"threads"`` suits strategies whose decision caches are costly to
        build (one cache shared by all blocks) and whose kernels release the GIL.
    """

    name: ClassVar[str] = "strategy"
    deterministic: ClassVar[bool] = True
    uses_total: ClassVar[bool] = False
    parallel_backend: ClassVar[str] = "processes"

    def prepare(self, rules) -> None:
        """Called once per rule set before play (build tables, caches). Optional."""

    def keep(self, view: TurnView) -> np.ndarray:
        """Dice to keep, as face counts ``(m, n_faces)``."""
        raise NotImplementedError

    def category(self, view: TurnView) -> np.ndarray:
        """Category index to fill, ``(m,)``."""
        raise NotImplementedError

    # ---------------------------------------------------------- sklearn-like
    def get_params(self) -> dict:
        """Constructor parameters and their current values."""
        sig = inspect.signature(type(self).__init__)
        return {
            p: getattr(self, p)
            for p in sig.parameters
            if p != "self"
            and sig.parameters[p].kind
            not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        }

    def clone(self) -> Strategy:
        """A fresh, unprepared copy with the same parameters."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        parts = []
        for p, v in self.get_params().items():
            default = sig.parameters[p].default
            if default is inspect.Parameter.empty or v != default:
                parts.append(f"{p}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __getstate__(self) -> dict:
        # caches are rebuilt by prepare(); only parameters travel to workers
        return self.get_params()

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)

"""The strategy interface: batched decisions over a :class:`~yahtzee_sim.engine.view.TurnView`."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from yahtzee_sim.engine.summary import check_label, init_parameters, strategy_label
from yahtzee_sim.engine.view import TurnView
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.capabilities import GameNeeds
from yahtzee_sim.validation import OneOf, check

_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD

#: How close our figure must come to a published one to agree with it, beyond the sampling
#: error of both sides: one point of score (means, SDs, percentiles, extremes, counts per
#: game) or one percentage point of a rate (keys ending in ``_rate``).
AGREEMENT_POINTS = 1.0
AGREEMENT_RATE = 0.01


def agreement_bound(quantity: str) -> float:
    """The agreement bound of ``quantity`` (``"mean"``, ``"sd"``, ``"p10"``, ``"bonus_rate"``)."""
    return AGREEMENT_RATE if quantity.endswith("_rate") else AGREEMENT_POINTS


@dataclass(frozen=True)
class Gap:
    """A published figure we do not reproduce: our value and why it differs.

    Attributes
    ----------
    quantity : str
        ``"mean"``, ``"sd"`` or a key of :attr:`Reference.stats`.
    ours : float
        Our value, as the literature test computes it: exact for a deterministic strategy
        (the sample minimum and maximum: ``Reference.n_games`` simulated games, seed 2026),
        to the precision given. The test asserts it, so a change shows up.
    reason : str
        Why the figures differ, or what was tried.
    """

    quantity: str
    ours: float
    reason: str


@dataclass(frozen=True)
class Reference:
    """A figure a source published for a strategy, and how close we come to it.

    Every quantity (the mean, the SD, each of ``stats``) either agrees with the paper --
    within its stated precision (``tolerance``) or :func:`agreement_bound`, beyond sampling
    error -- or is a documented :class:`Gap` in ``gaps``.

    Attributes
    ----------
    source : str
        Author and year, as in ``docs/references.md`` (e.g. ``"Glenn 2006, Table 3"``).
    rules : str
        The rule-set preset the source played.
    mean : float
        Published mean final score.
    sd : float or None
        Published standard deviation.
    n_games : int or None
        Games the source simulated (``None``: an exact value).
    stats : dict
        Other published statistics in the summary vocabulary (``"min"``, ``"max"``,
        ``"p10"``, ``"bonus_rate"``...).
    tolerance : float
        How far our mean may be from ``mean`` beyond sampling error: the paper's
        precision (0.005 for two decimals) where ours matches to it, else
        :data:`AGREEMENT_POINTS` at most.
    sd_tolerance : float or None
        The same for the SD (``None``: ``tolerance``).
    stats_tolerance : dict
        The same for each entry of ``stats`` (default: :func:`agreement_bound`).
    note : str
        What the source is and how we read it.
    tables : dict
        Per-box figures the source published, keyed like the summary
        (``"box_means"``, ``"box_zero_rate"``, ``"box_fill_turn"``:
        ``{box: value}``; ``"upper_bonus_points"``, ``"yahtzee_bonus_points"``: scalars),
        as printed. ``yahtzee-sim reproduce`` sets them beside ours.
    gaps : tuple of Gap
        The quantities we do not reproduce, with our value and the reason.
    """

    source: str
    rules: str
    mean: float
    sd: float | None = None
    n_games: int | None = None
    stats: dict = field(default_factory=dict)
    tolerance: float = 0.005
    sd_tolerance: float | None = None
    stats_tolerance: dict = field(default_factory=dict)
    note: str = ""
    tables: dict = field(default_factory=dict)
    gaps: tuple[Gap, ...] = ()

    def quantities(self) -> dict[str, float]:
        """Every published quantity: ``{"mean": ..., "sd": ..., **stats}``."""
        out = {"mean": self.mean}
        if self.sd is not None:
            out["sd"] = self.sd
        return out | dict(self.stats)

    def bound(self, quantity: str) -> float:
        """How far ours may be from the paper's ``quantity`` to agree (beyond sampling error)."""
        if quantity == "mean":
            return self.tolerance
        if quantity == "sd":
            return self.tolerance if self.sd_tolerance is None else self.sd_tolerance
        return self.stats_tolerance.get(quantity, agreement_bound(quantity))

    def gap(self, quantity: str) -> Gap | None:
        """The documented gap of ``quantity``, if there is one."""
        return next((g for g in self.gaps if g.quantity == quantity), None)


#: What a strategy's decisions may depend on, as exact pair evaluation
#: (:func:`yahtzee_sim.exact.pairs.evaluate_pair`) keys them: its own state (``"state"``,
#: max-EV play), its own state and points (``"own"``, blind P(win) play), both states and
#: the score difference (``"match"``, win-aware play), or the whole position (``"full"``).
DECISION_KEYS: tuple[str, ...] = ("state", "own", "match", "full")


@dataclass(frozen=True)
class Capabilities:
    """What a strategy family is and which games it plays, declared once as data (as
    Gymnasium's ``EnvSpec`` and OpenSpiel's ``GameType`` declare environments and games).

    A family declares ``capabilities = Capabilities(...)``; the registry's listing, the
    report, exact evaluation and exact pair evaluation read it.
    :meth:`Strategy.supports` checks :attr:`plays` against the rule set's
    :class:`~yahtzee_sim.game.capabilities.GameType`.

    Attributes
    ----------
    deterministic : bool
        Decisions depend only on the position (no randomness).
    uses_total : bool
        Decisions depend on the running score, not just the state.
    solved_table : bool
        Play reads a solved table (the value table, a target, utility or risk table), solved
        once per rule set and kept in the table cache.
    plays : GameNeeds
        The games it plays: roll schemes, dice, faces, score sheets (default: every game).
    requires : str
        What it needs of the rules, in words, for the error when it is refused (default:
        :meth:`GameNeeds.describe <yahtzee_sim.game.capabilities.GameNeeds.describe>`).
    decision_key : str
        What its decisions depend on (:data:`DECISION_KEYS`): exact pair evaluation asks
        it once per distinct key. ``"full"`` is always right; less only saves work.
    """

    deterministic: bool = True
    uses_total: bool = False
    solved_table: bool = False
    plays: GameNeeds = field(default_factory=GameNeeds)
    requires: str = ""
    decision_key: str = "full"

    def __post_init__(self) -> None:
        check("decision_key", self.decision_key, OneOf(*DECISION_KEYS), StrategyError)

    @property
    def needs(self) -> str:
        """What the strategy needs of the rules, in words (``""``: any rule set)."""
        return self.requires or self.plays.describe()

    @property
    def exact(self) -> bool:
        """Whether the exact evaluator's forward pass takes it: deterministic and
        position-only (the report's exact columns, regret)."""
        return self.deterministic and not self.uses_total


def capabilities_of(strategy) -> Capabilities:
    """The :class:`Capabilities` of a strategy (an instance or a class); an object that
    only answers ``keep``/``box`` is taken at its flat ``deterministic`` and
    ``uses_total`` (default: deterministic, position-only)."""
    caps = getattr(strategy, "capabilities", None)
    if isinstance(caps, Capabilities):
        return caps
    return Capabilities(
        deterministic=bool(getattr(strategy, "deterministic", True)),
        uses_total=bool(getattr(strategy, "uses_total", False)),
    )


#: The flat class attributes that mirror :class:`Capabilities` (the short spelling:
#: ``deterministic = False`` in a class body is ``Capabilities(deterministic=False)``).
_MIRRORED = ("deterministic", "uses_total", "requires")


class Strategy:
    """Base class of every strategy.

    Subclasses implement two batched methods, each receiving a read-only
    :class:`~yahtzee_sim.engine.view.TurnView` whose leading axis is the games:

    * :meth:`keep` (``view.rolls_left > 0``) returns the dice to keep as face
      counts, shape ``(m, n_faces)``; keeping all dice ends the turn;
    * :meth:`box` (``view.rolls_left == 0``) returns the box to fill,
      shape ``(m,)``, as box indices.

    Constructors store their parameters only (as attributes of the same
    name), so :func:`repr` and :meth:`clone` come from the signature.

    Attributes
    ----------
    name : str
        Registry id (set by :func:`~yahtzee_sim.strategies.register`).
    version : int or None
        Registry version (set by :func:`~yahtzee_sim.strategies.register`).
    in_all : bool
        Part of ``"all"`` (report, select); ``False`` for strategies whose tables
        take minutes per rule set.
    capabilities : Capabilities
        What the strategy is and which games it plays (deterministic, uses the score,
        reads a solved table, the games it plays, its decision key), declared as data.
    requires : str
        What the strategy needs of the rules, for the error when :meth:`supports`
        says no (e.g. "the 13 Yahtzee boxes"): ``capabilities.needs``.
    references : tuple of Reference
        Published figures for the strategy (read by the literature test and
        ``tools/published_figures_table.py``).
    deterministic : bool
        Decisions depend only on the position (no randomness): ``capabilities.deterministic``.
    uses_total : bool
        Decisions depend on the running score, not just the state:
        ``capabilities.uses_total``.
    parallel_backend : {"processes", "threads"}
        How :func:`~yahtzee_sim.engine.simulate.simulate` runs blocks with ``n_jobs > 1``.
        ``"threads"`` suits strategies whose decision caches are costly to
        build (one cache shared by all blocks) and whose kernels release the GIL.
    """

    name: ClassVar[str] = "strategy"
    version: ClassVar[int | None] = None
    in_all: ClassVar[bool] = True
    capabilities: ClassVar[Capabilities] = Capabilities()
    deterministic: ClassVar[bool] = True
    uses_total: ClassVar[bool] = False
    parallel_backend: ClassVar[str] = "processes"
    requires: ClassVar[str] = ""
    references: ClassVar[tuple[Reference, ...]] = ()
    #: The label results give the strategy instead of its id (:meth:`labelled`).
    given_label: str | None = None

    def __init_subclass__(cls, **kwargs) -> None:
        """Keep :attr:`capabilities` and its flat mirrors (``deterministic``,
        ``uses_total``, ``requires``) in step: a class body that sets a mirror declares it
        (``deterministic = False``), and every mirror then reads the capabilities. A class
        whose capabilities depend on the instance (a property) keeps its own."""
        super().__init_subclass__(**kwargs)
        caps = inspect.getattr_static(cls, "capabilities")
        if not isinstance(caps, Capabilities):  # a descriptor: per instance
            return
        own = {
            name: value
            for name, value in vars(cls).items()
            if name in _MIRRORED and not isinstance(value, property)
        }
        if own:
            cls.capabilities = caps = replace(caps, **own)
        mirrors = {"deterministic": caps.deterministic, "uses_total": caps.uses_total}
        for name, value in {**mirrors, "requires": caps.needs}.items():
            if not isinstance(inspect.getattr_static(cls, name), property):
                setattr(cls, name, value)

    @classmethod
    def supports(cls, rules) -> bool:
        """Whether the strategy can play ``rules``: ``rules.game_type`` meets
        ``capabilities.plays`` (default: any rule set)."""
        return cls.capabilities.plays.admits(rules.game_type)

    def check_rules(self, rules) -> None:
        """Raise :class:`~yahtzee_sim.errors.StrategyError` unless :meth:`supports`."""
        if not self.supports(rules):
            raise StrategyError(
                f"{strategy_label(self)} needs {self.requires or 'other rules'}, "
                f"not rules {rules.name!r}"
            )

    def prepare(self, rules) -> None:
        """Called once per rule set before play (build tables, caches). Optional."""

    def keep(self, view: TurnView) -> np.ndarray:
        """Dice to keep, as face counts ``(m, n_faces)``."""
        raise NotImplementedError

    def box(self, view: TurnView) -> np.ndarray:
        """Box index to fill, ``(m,)``."""
        raise NotImplementedError

    # ---------------------------------------------------------- sklearn-like
    def get_params(self) -> dict:
        """Constructor parameters and their current values."""
        params = init_parameters(type(self))
        return {
            p: getattr(self, p)
            for p in params
            if p != "self"
            and params[p].kind
            not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        }

    def clone(self) -> Strategy:
        """A fresh, unprepared copy with the same parameters (and label)."""
        twin = type(self)(**self.get_params())
        if self.given_label is not None:
            twin.given_label = self.given_label
        return twin

    def labelled(self, label: str) -> Strategy:
        """A copy of the strategy that every result, table, figure, record and error
        names ``label`` (instead of its id or class name).

        The label travels with the strategy to worker processes. It must be one line
        of at most 40 printable characters.

        Examples
        --------
        >>> from yahtzee_sim.strategies import get_strategy
        >>> from yahtzee_sim.engine.summary import strategy_label
        >>> strategy_label(get_strategy("greedy").labelled("my baseline"))
        'my baseline'
        """
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)  # shares prepared caches: same decisions
        twin.given_label = check_label(label)
        return twin

    def __repr__(self) -> str:
        params = init_parameters(type(self))
        parts = []
        for p, v in self.get_params().items():
            default = params[p].default
            if default is inspect.Parameter.empty or v != default:
                parts.append(f"{p}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __getstate__(self) -> dict:
        # caches are rebuilt by prepare(); only parameters (and a label) travel to workers
        state = self.get_params()
        if self.given_label is not None:
            state["given_label"] = self.given_label
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        label = state.pop("given_label", None)
        self.__init__(**state)
        if label is not None:
            self.given_label = label

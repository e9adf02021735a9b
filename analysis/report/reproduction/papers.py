"""The published figures that no single strategy's ``references`` holds, as data.

"Simulating Yahtzee" (its rules, strategies, Tables 4–5, its per-box Tables 8–10 and its
Kim–Nelson Tables 3, 6 and 7), Tillius 2026 (Tables 3, 4–5, 13 and the four-player winning
score) and the exact-value web page. A strategy's own published figures are in its
``references`` (:mod:`~yahtzee_sim.analysis.report.reproduction.literature`). Every
table carries an identifier (``table_id``) by which the writer places what goes with it.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_GAMES = 100_000  # as every simulating source here
SY = '"Simulating Yahtzee"'
SY_RULES = "yahtzee-single-bonus"
SY_STRATEGIES = (
    "random",
    "tiered-random",
    "greedy",
    "glenn-2007-rules",
    "prioritize-upper",
    "prioritize-yahtzee",
)
#: "Simulating Yahtzee" Table 4 (Yahtzees per game, as its program counts them: 50 in the
#: box and the one bonus) and Table 5 (share of games with the upper bonus).
SY_TABLE_4 = dict(zip(SY_STRATEGIES, (0.00, 0.00, 0.30, 0.51, 0.45, 0.57), strict=True))
SY_TABLE_5 = dict(zip(SY_STRATEGIES, (0.0, 0.0, 0.033, 0.236, 0.144, 0.162), strict=True))
_G, _PU, _PY = "glenn-2007-rules", "prioritize-upper", "prioritize-yahtzee"
#: "Simulating Yahtzee" Tables 3, 6 and 7 (Kim–Nelson, single-game observations): metric
#: and, per δ, (winners for m = 1, observations needed, winners for m = 2, observations).
SY_KN_TABLES = {
    "Table 3": (
        "total",
        {
            0.1: (("greedy",), 84_859, ("greedy", _G), 10_364),
            0.2: (("greedy",), 30_803, ("greedy", _G), 5_359),
            0.5: (("greedy",), 14_958, ("greedy", _G), 2_021),
            1.0: (("greedy",), 3_429, ("greedy", _G), 931),
            2.0: (("greedy",), 1_337, ("greedy", _G), 461),
            3.0: (("greedy",), 1_114, ("greedy", _G), 324),
            4.0: (("greedy",), 850, ("greedy", _G), 217),
            5.0: (("greedy",), 593, ("greedy", _G), 181),
            6.0: (("greedy",), 450, ("greedy", _G), 137),
        },
    ),
    "Table 6": (
        "yahtzees",
        {
            0.01: ((_PY,), 14_067, (_G, _PY), 5_912),
            0.05: ((_PY,), 1_563, (_G, _PY), 921),
            0.1: ((_PY,), 730, (_G, _PY), 366),
            0.2: ((_PY,), 228, (_G, _PY), 162),
        },
    ),
    "Table 7": (
        "bonus",
        {
            0.01: ((_G,), 726, (_G, _PY), 550),
            0.05: ((_G,), 73, (_G, _PY), 68),
            0.1: ((_G,), 43, (_G, _PY), 35),
            0.2: ((_PY,), 50, (_PU, _PY), 12),
        },
    ),
}
KN_N0 = 10  # the first stage of the paper's constants (η 0.8591, h² 15.464)


def sy_table_id(number: str) -> str:
    """The identifier of "Simulating Yahtzee"'s table ``number`` (``"Table 8"`` →
    ``"sy-table-8"``): what the writer places a table's figure or runs by."""
    return "sy-" + number.lower().replace(" ", "-")


@dataclass(frozen=True)
class BoxTable:
    """One of "Simulating Yahtzee"'s per-box tables (8–10).

    Attributes
    ----------
    number : str
        ``"Table 8"``, ``"Table 9"`` or ``"Table 10"``.
    entry : str
        The summary entry it reports: ``"box_means"``, ``"box_zero_rate"`` or
        ``"box_fill_turn"`` (the key of the strategy's ``references`` tables, too).
    what : str
        What a figure of it is: ``"mean points"``, ``"share of zeros"``, ``"turn filled"``.
    """

    number: str
    entry: str
    what: str

    @property
    def table_id(self) -> str:
        """Its identifier (:func:`sy_table_id`)."""
        return sy_table_id(self.number)


#: "Simulating Yahtzee" Tables 8–10, in order: per-box mean points, share of zeros and
#: turn filled.
SY_BOX_TABLES = (
    BoxTable("Table 8", "box_means", "mean points"),
    BoxTable("Table 9", "box_zero_rate", "share of zeros"),
    BoxTable("Table 10", "box_fill_turn", "turn filled"),
)
#: The table Glenn's optimal per-box means are quoted in ("Simulating Yahtzee" Table 11).
SY_TABLE_11 = "Table 11"


@dataclass(frozen=True)
class Source:
    """Where one of our figures comes from.

    Attributes
    ----------
    how : {"exact", "simulated", "target", "best of 4"}
        The exact law of ``strategy`` on ``rules``; its simulated games; the target
        table of ``rules`` (quantity ``">= k"``: P(score ≥ k) of ``target:k`` play, the
        largest possible); the exact law of the best of four ``strategy`` players' scores.
    strategy : str
        A strategy id (``"target"`` for the target table).
    rules : str
        A rule set preset.
    """

    how: str
    strategy: str
    rules: str


@dataclass(frozen=True)
class Figure:
    """One published figure and how ours is computed: a row of :data:`TILLIUS`.

    Attributes
    ----------
    table : str
        The paper's table or section (``"Table 3"``, ``"§4.4"``...).
    item : str
        The row's label.
    paper : float
        The paper's figure.
    source : Source
        What ours is computed from.
    quantity : str
        ``"mean"``, ``"median"``, ``"sd"``, ``"min"``, ``"max"`` or ``">= k"``
        (P(score ≥ k)).
    note : str
        The row's note.
    """

    table: str
    item: str
    paper: float
    source: Source
    quantity: str
    note: str = ""


_EXACT_Y, _SIM_Y = Source("exact", "optimal", "yatzy"), Source("simulated", "optimal", "yatzy")
_EXACT_2, _SIM_2 = Source("exact", "optimal", "2-yatzy"), Source("simulated", "optimal", "2-yatzy")
_SIM_T5 = Source("simulated", "target:5", "2-yatzy")
_TARGET_2, _TARGET_Y = Source("target", "target", "2-yatzy"), Source("target", "target", "yatzy")
_BEST_4 = Source("best of 4", "optimal", "yatzy")
_SAMPLED = "the paper simulated 100,000 games"  # where ours is exact
_TIES = "ties among equally likely keeps broken differently (handbook: target play)"


def _summary_row(table: str, who: str, source: Source, paper: tuple) -> tuple[Figure, ...]:
    """The six figures of one row of Tillius's Table 4: mean, median, sd, min, max and
    P(score >= 5) of 2-Yatzy."""
    items = ("mean", "median", "sd", "min", "max", "P(score >= 5)")
    quantities = ("mean", "median", "sd", "min", "max", ">= 5")
    return tuple(
        Figure(table, f"{who}: {item}", value, source, quantity)
        for item, value, quantity in zip(items, paper, quantities, strict=True)
    )


#: Tillius 2026, in the order of the rows: Table 3 (max-EV Yatzy, 100,000 simulated
#: games), Tables 4 and 5 (2-Yatzy, 100,000 games; Table 5 exact), the four-player winning
#: score of §4.4 (100,000 games) and Table 13 (β → max P(final score >= β) in Yatzy).
TILLIUS = (
    Figure("Table 3", "optimal, Yatzy: mean", 248.4810, _EXACT_Y, "mean", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: median", 249, _EXACT_Y, "median", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: sd", 38.5504, _EXACT_Y, "sd", _SAMPLED),
    Figure("Table 3", "optimal, Yatzy: min", 100, _SIM_Y, "min"),
    Figure("Table 3", "optimal, Yatzy: max", 348, _SIM_Y, "max"),
    Figure("Table 3", "optimal, Yatzy: P(score >= 300)", 0.09973, _EXACT_Y, ">= 300", _SAMPLED),
    *_summary_row("Table 4", "optimal, 2-Yatzy", _SIM_2, (5.0009, 5, 1.1453, 1, 6, 0.7503)),
    *_summary_row("Table 4", "target:5, 2-Yatzy", _SIM_T5, (4.7298, 5, 1.3031, 2, 6, 0.7742)),
    Figure("Table 5", "optimal, 2-Yatzy: expected score", 5.0, _EXACT_2, "mean"),
    Figure("Table 5", "optimal, 2-Yatzy: P(score >= 5)", 0.75, _EXACT_2, ">= 5"),
    Figure("Table 5", "target:5, 2-Yatzy: expected score", 4.7266, _SIM_T5, "mean", _TIES),
    Figure("Table 5", "target:5, 2-Yatzy: P(score >= 5)", 0.7734, _TARGET_2, ">= 5"),
    Figure("§4.4", "four optimal players: median winning score", 289, _BEST_4, "median", _SAMPLED),
    Figure("§4.4", "four optimal players: mean winning score", 286.9367, _BEST_4, "mean"),
    Figure("Table 13", "max P(score >= 200), Yatzy", 0.9457, _TARGET_Y, ">= 200"),
    Figure("Table 13", "max P(score >= 249), Yatzy", 0.5710, _TARGET_Y, ">= 249"),
    Figure("Table 13", "max P(score >= 287), Yatzy", 0.2228, _TARGET_Y, ">= 287"),
    Figure("Table 13", "max P(score >= 289), Yatzy", 0.2080, _TARGET_Y, ">= 289"),
    Figure("Table 13", "max P(score >= 300), Yatzy", 0.1373, _TARGET_Y, ">= 300"),
    Figure("Table 13", "max P(score >= 330), Yatzy", 0.0114, _TARGET_Y, ">= 330"),
    Figure("Table 13", "max P(score >= 374), Yatzy", 1.3146626799340199e-12, _TARGET_Y, ">= 374"),
)
#: The table of :data:`TILLIUS` that needs the Yatzy target table (minutes): not in a
#: quick run.
TILLIUS_SLOW_TABLE = "Table 13"
#: Tillius 2026, Table 13: β → max P(final score >= β) in Yatzy.
TILLIUS_TABLE_13 = {int(f.quantity[2:]): f.paper for f in TILLIUS if f.table == TILLIUS_SLOW_TABLE}
#: The exact-value web page's optimal expected score ("Calculating the exact theoretical
#: outcome of the Yahtzee game").
WEB_PAGE_EV = 254.4067

"""The tables of the benchmark report, computed from its simulations and exact results.

:func:`~yahtzee_sim.analysis.report.build.build_report` calls each once; the writer only
writes what they return.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from yahtzee_sim.analysis import headtohead
from yahtzee_sim.game.boxnames import kind_box_plural
from yahtzee_sim.game.rules import RuleSet

#: The reference strategy of the per-box tables and of the regret analysis.
REFERENCE = "optimal"


def summary_table(ids: list[str], sims: dict, exact: dict, rules: RuleSet) -> pd.DataFrame:
    """One row per strategy, best simulated mean first: exact mean and SD (NaN for a
    strategy that is not deterministic), simulated mean, SD, the ends of the 95%
    confidence interval of the mean (``CI low``, ``CI high``), min, p10, median, max,
    bonus %, n-of-a-kind turns per game, named for the rules' box (``Yahtzees/game``,
    ``Yatzys/game``)."""
    kinds = f"{kind_box_plural(rules)}/game"
    rows = []
    for sid in ids:
        s = sims[sid].summary()
        e = exact.get(sid)
        rows.append(
            {
                "strategy": sid,
                "exact mean": e.mean if e else np.nan,
                "exact SD": e.sd if e else np.nan,
                "mean": s["mean"],
                "SD": s["sd"],
                "CI low": s["ci95"][0],
                "CI high": s["ci95"][1],
                "min": int(s["min"]),
                "p10": s["percentiles"]["p10"],
                "median": s["percentiles"]["p50"],
                "max": int(s["max"]),
                "bonus %": 100 * s["bonus_rate"],
                kinds: s["yahtzees_mean"],
            }
        )
    df = pd.DataFrame(rows).set_index("strategy")
    return df.sort_values("mean", ascending=False, kind="stable")


def ci_misses(summary: pd.DataFrame) -> list[str]:
    """The strategies of a :func:`summary_table` whose simulated 95% interval excludes
    their exact mean, in the table's order."""
    exact = summary["exact mean"]
    outside = (exact < summary["CI low"]) | (exact > summary["CI high"])
    return [sid for sid, out in outside.items() if out]


def ci_note(summary: pd.DataFrame, code: bool = False) -> str | None:
    """The note on the strategies of :func:`ci_misses`, marked ``†`` in the tables
    (``None`` when there is none): why an interval of simulated games may exclude the
    exact mean. ``code``: strategy ids in Markdown code spans."""
    missed = ci_misses(summary)
    if not missed:
        return None
    names = ", ".join(f"`{s}`" if code else s for s in missed)
    if len(missed) == 1:
        what = f"The 95% CI of the simulated mean of {names} excludes its exact mean."
    else:
        what = f"The 95% CIs of the simulated means of {names} exclude their exact means."
    return (
        f"† {what} An interval misses the true mean one time in twenty, and with common "
        "random numbers the misses come together: every strategy plays the same dice, so "
        "one lucky or unlucky seed moves all the simulated means at once. The exact mean is "
        "the true value."
    )


def summary_display(summary: pd.DataFrame) -> pd.DataFrame:
    """The :func:`summary_table` as the report shows it: the interval as ``[a, b]``
    (``†``: it excludes the exact mean, :func:`ci_note`) in place of its two ends."""
    missed = set(ci_misses(summary))
    shown = summary.drop(columns=["CI low", "CI high"])
    cis = [
        f"[{low:.2f}, {high:.2f}]" + (" †" if sid in missed else "")
        for sid, low, high in zip(summary.index, summary["CI low"], summary["CI high"], strict=True)
    ]
    shown.insert(shown.columns.get_loc("SD") + 1, "95% CI", cis)
    return shown


def box_tables(rules: RuleSet, ranked: list[str], sims: dict, exact: dict) -> dict:
    """The per-box tables, one column per strategy in ``ranked`` order, after
    ``optimal (exact)`` when known: ``mean`` (points), ``zero`` (% of games with 0
    points) and ``turn`` (average turn in which the box is filled)."""
    names = list(rules.box_names)
    tables = {}
    ref = exact.get(REFERENCE)
    summaries = {sid: sims[sid].summary() for sid in ranked}
    if ref is not None:
        summaries = {f"{REFERENCE} (exact)": ref.to_dict(), **summaries}
    for key, entry, scale in (
        ("mean", "box_means", 1.0),
        ("zero", "box_zero_rate", 100.0),
        ("turn", "box_fill_turn", 1.0),
    ):
        cols = {
            label: np.array([s[entry][n] for n in names], dtype=float) * scale
            for label, s in summaries.items()
        }
        tables[key] = pd.DataFrame(cols, index=pd.Index(names, name="box"))
    return tables


def survival_curves(ranked: list[str], sims: dict, laws: dict) -> dict[str, np.ndarray]:
    """P(final score ≥ x) of each strategy: exact where the law is known, else from the
    simulated histogram."""
    curves = {}
    for sid in ranked:
        if sid in laws:
            curves[sid] = laws[sid].survival()
        else:
            h = np.asarray(sims[sid].histogram, dtype=float)
            curves[sid] = np.cumsum(h[::-1])[::-1] / h.sum()
    return curves


def head_to_head(ranked: list[str], sims: dict, laws: dict) -> pd.DataFrame:
    """P(row strategy beats column strategy) in a blind two-player game (ties count
    half), from the exact laws where known, else the simulated histograms."""
    dists = {
        sid: (laws[sid].pmf if sid in laws else np.asarray(sims[sid].histogram)) for sid in ranked
    }
    return headtohead.win_matrix(dists)


def regret_table(regrets: dict) -> pd.DataFrame:
    """One row per strategy with a regret: the gap to optimal, the loss by decision type
    and their sum, fewest points lost first."""
    if not regrets:
        return pd.DataFrame(index=pd.Index([], name="strategy"))
    rows = {
        sid: {
            "optimal − strategy": r.optimal_value - r.strategy_value,
            **r.by_decision.to_dict(),
            "sum of losses": r.total,
        }
        for sid, r in regrets.items()
    }
    table = pd.DataFrame(rows).T
    table.index.name = "strategy"
    return table.sort_values("sum of losses", kind="stable")


def selection_table(kn, intervals: pd.DataFrame | None) -> pd.DataFrame:
    """The Kim–Nelson table: mean of observations, observations (int), the stage of
    elimination (blank for a winner) and, beside it, the MCB interval of each strategy."""
    stage = dict(kn.eliminated)
    table = pd.DataFrame(
        {
            "mean of observations": pd.Series(kn.means, dtype=float),
            "observations": pd.Series(kn.observations).astype(np.int64),
            "eliminated at stage": pd.Series(
                {s: (str(stage[s]) if s in stage else "winner") for s in kn.means}
            ),
        }
    )
    if intervals is not None:
        mcb = intervals.set_index("system")
        table["MCB interval"] = [
            f"[{mcb.loc[s, 'lower']:+.2f}, {mcb.loc[s, 'upper']:+.2f}]" for s in table.index
        ]
    table.index.name = "strategy"
    return table.sort_values("mean of observations", ascending=False, kind="stable")

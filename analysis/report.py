"""The benchmark report: every strategy simulated, evaluated exactly where possible,
ranked, compared head to head and against optimal play, in one folder.

``build_report()`` is what ``yahtzee-sim report`` runs. The folder holds
``report.md`` and ``report.html`` (the same content), PNG figures and the data
behind every table and figure as CSV.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from yahtzee_sim.errors import StrategyError
from yahtzee_sim.rules import get_rules
from yahtzee_sim.vocabulary import strategy_label

from .document import Document
from .headtohead import win_matrix
from .kim_nelson import SelectionError

DEFAULT_GAMES = 100_000
REFERENCE = "optimal"


class ReportError(StrategyError):
    """Bad arguments for a report (strategies, games, output folder)."""


@dataclass(eq=False)
class Report:
    """What :func:`build_report` wrote.

    Attributes
    ----------
    out : Path
        The report folder.
    files : list of str
        Files written, relative to ``out``.
    summary : pandas.DataFrame
        The main table (one row per strategy).
    skipped : dict
        Strategies left out, with the reason (e.g. rules they do not support).
    seconds : float
    """

    out: Path
    files: list[str]
    summary: pd.DataFrame
    skipped: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready description (no wall time: the same run gives the same dict)."""
        return {
            "out": str(self.out),
            "files": self.files,
            "summary": json.loads(self.summary.reset_index().to_json(orient="records")),
            "skipped": self.skipped,
        }


def _resolve(strategies) -> dict:
    """``{label: strategy}`` in the order given (ids, plugin specs or instances), the
    reference last; results are keyed by :func:`strategy_label`, never by a spec."""
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy
    from yahtzee_sim.strategies.plugins import split_strategy_list

    if strategies in (None, "all"):
        ids = default_strategy_ids()
    else:
        ids = split_strategy_list(strategies) if isinstance(strategies, str) else list(strategies)
        ids = [s for s in ids if not isinstance(s, str) or s.strip()]
        if not ids:
            raise ReportError("strategies: give 'all' or at least one strategy id")
    # unknown ids fail here, with the list of known ones
    labels = [strategy_label(get_strategy(s)) for s in ids]
    if len(set(labels)) != len(labels):
        raise ReportError(f"strategies must have distinct labels, got {labels}")
    specs = dict(zip(labels, ids, strict=True))
    if REFERENCE not in specs:
        specs[REFERENCE] = REFERENCE  # the reference column of the per-box tables
    return specs


def _check_games(games) -> int:
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 100:
        raise ReportError(f"games must be an integer >= 100, got {games!r}")
    return int(games)


def build_report(
    rules="yahtzee",
    strategies="all",
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    out: str | Path | None = None,
    n_jobs: int = 2,
    regret_top: int = 10,
    progress: bool = True,
) -> Report:
    """Simulate, evaluate, rank and compare strategies; write the report folder.

    Parameters
    ----------
    rules : str or RuleSet
    strategies : "all", str (comma-separated ids) or list
        ``optimal`` is always added: it is the reference of the per-box tables
        and of the regret analysis.
    games : int
        Simulated games per strategy (>= 100), seed ``seed`` (common random numbers:
        every strategy sees the same dice stream).
    out : path, optional
        Report folder (created); default ``reports/<rules>``.
    n_jobs : int
        Parallel jobs for the simulations and the exact evaluations (one strategy per job).
    regret_top : int
        Costliest situations listed per strategy in the regret section.
    progress : bool
        Show a progress bar over the steps.

    Returns
    -------
    Report
    """
    from yahtzee_sim import simulate
    from yahtzee_sim.strategies import strategy_class

    from .selection import select_best

    t0 = time.perf_counter()
    rules = get_rules(rules)
    games = _check_games(games)
    specs = _resolve(strategies)
    ids = list(specs)
    out = Path(out) if out is not None else Path("reports") / rules.name
    if out.exists() and not out.is_dir():
        raise ReportError(f"out: {str(out)!r} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)

    deterministic = [s for s in ids if _is_deterministic(strategy_class, specs[s])]
    steps = len(ids) + len(deterministic) + 2
    bar = tqdm(total=steps, desc="report", unit="step", disable=not progress)

    sims, exact, regrets, skipped = {}, {}, {}, {}
    for sid in ids:
        bar.set_postfix_str(f"simulate {sid}")
        try:
            sims[sid] = simulate(
                specs[sid],
                games,
                seed=seed,
                rules=rules,
                n_jobs=n_jobs,
                keep_games=False,
                progress=False,
            )
        except StrategyError as exc:
            skipped[sid] = str(exc)
        bar.update(1)
    if REFERENCE in skipped:
        raise ReportError(
            f"the reference strategy failed on rules {rules.name!r}: {skipped[REFERENCE]}"
        )
    ids = [s for s in ids if s in sims]
    todo = [s for s in deterministic if s in sims]
    bar.set_postfix_str(f"exact ({len(todo)} strategies)")
    jobs = (delayed(_exact_one)(specs[sid], rules, regret_top) for sid in todo)
    for sid, (_, result, regret_result, error) in zip(
        todo,
        Parallel(n_jobs=min(n_jobs, max(len(todo), 1)), return_as="generator")(jobs),
        strict=True,
    ):
        if error is not None:
            skipped[f"{sid} (exact)"] = error
        else:
            exact[sid] = result
            if regret_result is not None:
                regrets[sid] = regret_result
        bar.update(1)
    bar.update(len(deterministic) - len(todo))
    bar.set_postfix_str("Kim–Nelson")
    try:
        kn = select_best(
            [specs[s] for s in ids], delta=1.0, alpha=0.05, seed=seed, rules=rules, n_jobs=n_jobs
        )
    except SelectionError as exc:  # e.g. a single strategy
        kn, skipped["Kim–Nelson"] = None, str(exc)
    bar.update(1)
    bar.set_postfix_str("figures")
    files = _write(out, rules, ids, games, seed, sims, exact, regrets, kn, skipped)
    bar.update(1)
    bar.close()
    summary = _summary(ids, sims, exact)
    return Report(
        out=out, files=files, summary=summary, skipped=skipped, seconds=time.perf_counter() - t0
    )


def _exact_one(sid: str, rules, top: int):
    """Exact result (and regret, except for the reference) of one strategy; errors as text."""
    from yahtzee_sim.exact import ExactEvaluationError, evaluate

    from .regret import evaluate_with_regret

    try:
        if sid == REFERENCE:
            return sid, evaluate(sid, rules), None, None
        return (sid, *evaluate_with_regret(sid, rules, top=top), None)
    except ExactEvaluationError as exc:
        return sid, None, None, str(exc)


def _is_deterministic(strategy_class, sid: str) -> bool:
    try:
        cls = strategy_class(sid)
    except Exception:
        from yahtzee_sim.strategies import get_strategy

        cls = type(get_strategy(sid))
    return bool(getattr(cls, "deterministic", True)) and not getattr(cls, "uses_total", False)


# ------------------------------------------------------------------ tables
def _summary(ids, sims, exact) -> pd.DataFrame:
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
                "95% CI": f"[{s['ci95'][0]:.2f}, {s['ci95'][1]:.2f}]",
                "min": s["min"],
                "p10": s["percentiles"]["p10"],
                "median": s["percentiles"]["p50"],
                "max": s["max"],
                "bonus %": 100 * s["bonus_rate"],
                "Yahtzees/game": s["yahtzees_mean"],
            }
        )
    df = pd.DataFrame(rows).set_index("strategy")
    return df.sort_values("mean", ascending=False)


def _category_tables(rules, ids, sims, exact) -> dict[str, pd.DataFrame]:
    names = list(rules.category_names)
    tables = {}
    ref = exact.get(REFERENCE)
    summaries = {sid: sims[sid].summary() for sid in ids}
    if ref is not None:
        summaries = {f"{REFERENCE} (exact)": ref.to_dict(), **summaries}
    for key, entry, scale in (
        ("mean", "category_means", 1.0),
        ("zero", "category_zero_rate", 100.0),
        ("turn", "category_fill_turn", 1.0),
    ):
        cols = {
            label: np.array([s[entry][n] for n in names], dtype=float) * scale
            for label, s in summaries.items()
        }
        tables[key] = pd.DataFrame(cols, index=pd.Index(names, name="category"))
    return tables


# ----------------------------------------------------------------- writing
def _write(out: Path, rules, ids, games, seed, sims, exact, regrets, kn, skipped) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from . import plots

    files: list[str] = []

    def save_fig(fig, name, rect=(0, 0, 1, 1)):
        fig.tight_layout(rect=rect)
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        files.append(name)

    def save_csv(frame, name, index=True):
        frame.to_csv(out / name, index=index)
        files.append(name)

    doc = Document(f"Strategy report — {rules.name}")
    summary = _summary(ids, sims, exact)
    save_csv(summary, "summary.csv")
    doc.paragraph(
        f"Rules `{rules.name}`; {games:,} simulated games per strategy, seed {seed} (common "
        f"random numbers: every strategy sees the same dice). Exact figures come from the "
        f"exact evaluator (deterministic strategies only); `{REFERENCE}` is the reference."
    )
    doc.heading("Summary")
    doc.paragraph(
        "Exact mean and SD where the strategy is deterministic; simulated mean, SD, 95% "
        "confidence interval of the mean, minimum, 10th percentile, median, maximum, share "
        "of games with the upper bonus and Yahtzees (n-of-a-kind turns) per game."
    )
    doc.table(summary)

    # distributions
    det = [s for s in summary.index if s in exact]
    n = len(summary.index)
    ncol = 4 if n > 4 else n
    nrow = -(-n // ncol)
    height = 2.6 * nrow + 0.9  # room above the panels for the title and the one legend
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, height), squeeze=False)
    for ax, (i, sid) in zip(axes.ravel(), enumerate(summary.index), strict=False):
        plots.plot_score_histogram(
            sims[sid],
            exact.get(sid),
            ax=ax,
            label=sid,
            color=plots.PALETTE[i % len(plots.PALETTE)],
            legend=False,
        )
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.suptitle("Distribution of the final score", y=1 - 0.15 / height)
    fig.legend(
        handles=[
            Patch(color="0.55", alpha=0.6, label=f"simulated ({games:,} games, one colour each)"),
            Line2D([], [], color="black", lw=0.9, label="exact law (deterministic strategies)"),
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, 1 - 0.45 / height),
        ncol=2,
        frameon=False,
        fontsize="small",
    )
    save_fig(fig, "distributions.png", rect=(0, 0, 1, 1 - 0.8 / height))
    doc.heading("Score distributions")
    doc.figure(
        "distributions.png",
        "Histogram of simulated final scores with the exact distribution overlaid",
    )

    curves = {}
    for sid in summary.index:
        if sid in exact:
            curves[sid] = exact[sid].survival()
        else:
            h = np.asarray(sims[sid].histogram, dtype=float)
            curves[sid] = np.cumsum(h[::-1])[::-1] / h.sum()
    fig, ax = plt.subplots(figsize=(11, 5))
    plots.plot_survival(curves, ax=ax)
    save_fig(fig, "survival.png")
    doc.figure(
        "survival.png",
        "Survival curves P(final score ≥ x): exact for deterministic "
        "strategies, empirical otherwise",
    )
    pmf = pd.DataFrame({sid: pd.Series(exact[sid].pmf) for sid in det})
    pmf.index.name = "score"
    save_csv(pmf.fillna(0.0), "exact_pmf.csv")
    hist = pd.DataFrame({sid: pd.Series(np.asarray(sims[sid].histogram)) for sid in ids})
    hist.index.name = "score"
    save_csv(hist.fillna(0).astype(np.int64), "histograms.csv")

    # per-box tables
    tables = _category_tables(rules, list(summary.index), sims, exact)
    doc.heading("Per-box statistics")
    for key, title, fmt in (
        ("mean", "Mean points per box", ".2f"),
        ("zero", "% of games with 0 points in the box", ".1f"),
        ("turn", "Average turn in which the box is filled", ".2f"),
    ):
        doc.heading(title, 3)
        doc.table(tables[key], floatfmt=fmt)
        save_csv(tables[key], f"categories_{key}.csv")
    fig, ax = plt.subplots(figsize=(11, 0.38 * rules.n_categories + 1.5))
    plots.plot_category_means(
        tables["mean"],
        reference=f"{REFERENCE} (exact)" if f"{REFERENCE} (exact)" in tables["mean"] else REFERENCE,
        ax=ax,
    )
    save_fig(fig, "category_means.png")
    doc.figure("category_means.png", "Mean points per box; bars: optimal play (exact)")

    # ranking
    doc.heading("Kim–Nelson ranking")
    if kn is not None:
        p = kn.parameters
        stage = dict(kn.eliminated)
        kn_table = pd.DataFrame(
            {
                "mean of observations": pd.Series(kn.means),
                "observations": pd.Series(kn.observations),
                "eliminated at stage": pd.Series({s: stage.get(s, np.nan) for s in kn.means}),
            }
        )
        kn_table.index.name = "strategy"
        kn_table = kn_table.sort_values("mean of observations", ascending=False)
        doc.paragraph(
            f"Procedure KN (Kim & Nelson 2001), indifference zone δ = {p.get('delta', 1.0)}, "
            f"α = {p.get('alpha', 0.05)}; one observation = the mean of {p.get('batch')} games "
            f"(CRN). Winner: **{', '.join(kn.winners)}** after "
            f"{p.get('games', 0):,} games in all."
        )
        doc.table(kn_table)
        save_csv(kn_table, "kim_nelson.csv")
        save_csv(kn.trace, "kim_nelson_trace.csv", index=False)
        fig, ax = plt.subplots(figsize=(11, 5))
        plots.plot_kn_trace(kn, ax=ax)
        save_fig(fig, "kn_trace.png")
        doc.figure("kn_trace.png", "Kim–Nelson elimination trace")
    else:
        doc.paragraph(f"Not run: {skipped.get('Kim–Nelson', '')}")

    # head to head
    dists = {
        sid: (exact[sid].pmf if sid in exact else np.asarray(sims[sid].histogram))
        for sid in summary.index
    }
    wm = win_matrix(dists)
    save_csv(wm, "win_matrix.csv")
    doc.heading("Head to head")
    doc.paragraph(
        "Probability that the row strategy beats the column strategy in a blind two-player "
        "game (each on its own dice, ties count half), from the exact distributions where "
        "available, else the simulated ones."
    )
    doc.table(wm, floatfmt=".3f")
    fig, ax = plt.subplots(figsize=(0.55 * n + 3, 0.5 * n + 2))
    plots.plot_win_matrix(wm, ax=ax)
    save_fig(fig, "win_matrix.png")
    doc.figure("win_matrix.png", "P(row beats column)")

    # regret
    if regrets:
        doc.heading("Regret: where the points are lost against optimal play")
        doc.paragraph(
            "Exact expected points lost at each kind of decision, from the strategy's reach "
            "probabilities and the optimal value of every option; the losses add up to the "
            "gap between optimal and the strategy's exact mean."
        )
        rows = {}
        for sid, r in regrets.items():
            rows[sid] = {
                "optimal − strategy": r.optimal_value - r.strategy_value,
                **r.by_decision.to_dict(),
                "sum of losses": r.total,
            }
        rtab = pd.DataFrame(rows).T
        rtab.index.name = "strategy"
        rtab = rtab.sort_values("sum of losses")
        doc.table(rtab)
        save_csv(rtab, "regret.csv")
        by_turn = pd.DataFrame({sid: r.by_turn for sid, r in regrets.items()})
        save_csv(by_turn, "regret_by_turn.csv")
        fig, ax = plt.subplots(figsize=(11, 5))
        plots.plot_regret_by_turn(by_turn, ax=ax)
        save_fig(fig, "regret_by_turn.png")
        doc.figure("regret_by_turn.png", "Expected loss against optimal play by turn")
        situations = []
        for sid in rtab.index[:3]:
            r = regrets[sid]
            doc.heading(f"Costliest situations of `{sid}`", 3)
            s = r.situations.copy()
            doc.table(s.drop(columns=["yahtzee_scored"]), floatfmt=".4g", index=False)
            situations.append(s.assign(strategy=sid))
        if situations:
            save_csv(pd.concat(situations), "regret_situations.csv", index=False)

    if skipped:
        doc.heading("Left out")
        for what, why in skipped.items():
            doc.paragraph(f"`{what}`: {why}")

    (out / "report.md").write_text(doc.to_markdown(), encoding="utf-8")
    (out / "report.html").write_text(doc.to_html(), encoding="utf-8")
    return ["report.md", "report.html", *files]

"""The benchmark report: every strategy simulated, evaluated exactly where possible,
ranked, compared head to head and against optimal play, in one folder.

``build_report()`` is what ``yahtzee-sim report`` runs. The folder holds
``report.md`` and ``report.html`` (the same content), PNG figures and the data
behind every table and figure as CSV.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from yahtzee_sim.analysis import exact_cache, plots, warmup
from yahtzee_sim.analysis.document import Document
from yahtzee_sim.analysis.headtohead import win_matrix
from yahtzee_sim.analysis.kim_nelson import SelectionError
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.errors import StrategyError
from yahtzee_sim.game.rules import RuleSet, get_rules

DEFAULT_GAMES = 100_000
QUICK_GAMES = 10_000
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
        Wall time of the whole report.
    timings : dict
        Wall seconds of each step: ``tables`` (value table solved or loaded),
        ``simulations``, ``exact`` (exact laws and regret, cached results
        included), ``kim_nelson``, ``figures``; and ``exact_cpu``/``regret_cpu``,
        the evaluation time summed over strategies, split between the exact law and
        the charging of the regret.
    """

    out: Path
    files: list[str]
    summary: pd.DataFrame
    skipped: dict = field(default_factory=dict)
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

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
    from yahtzee_sim.engine.plugins import split_strategy_list
    from yahtzee_sim.strategies import default_strategy_ids, get_strategy

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


def _check_games(games, quick: bool) -> int:
    if games is None:
        return QUICK_GAMES if quick else DEFAULT_GAMES
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 100:
        raise ReportError(f"games must be an integer >= 100, got {games!r}")
    return int(games)


def build_report(
    rules="yahtzee",
    strategies="all",
    games: int | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    n_jobs: int = 2,
    regret_top: int = 10,
    progress: bool = True,
    quick: bool = False,
) -> Report:
    """Simulate, evaluate, rank and compare strategies; write the report folder.

    Parameters
    ----------
    rules : str or RuleSet
    strategies : "all", str (comma-separated ids) or list
        ``optimal`` is always added: it is the reference of the per-box tables
        and of the regret analysis.
    games : int, optional
        Simulated games per strategy (>= 100), seed ``seed`` (common random numbers:
        every strategy sees the same dice stream). Default :data:`DEFAULT_GAMES`,
        or :data:`QUICK_GAMES` with ``quick``.
    out : path, optional
        Report folder (created); default ``reports/<rules>``.
    n_jobs : int
        Parallel jobs: blocks of games in the simulations, strategies (threads of this
        process, sharing the value table) in the exact evaluations.
    regret_top : int
        Costliest situations listed per strategy in the regret section.
    progress : bool
        Show a progress bar over the steps (and a line when the kernels must be compiled).
    quick : bool
        A first look in seconds: :data:`QUICK_GAMES` games unless ``games`` is given,
        the exact evaluation of the strategies limited to their regret against optimal
        (max-EV) play and the exact mean, SD and per-box figures it brings (no exact
        score laws except optimal play's), no Kim–Nelson ranking.

    Returns
    -------
    Report

    Notes
    -----
    The exact law and the regret of a built-in strategy are kept in the table cache
    (:mod:`yahtzee_sim.analysis.exact_cache`): a second report on the same rules reads
    them back, bit for bit, instead of evaluating again.
    """
    t0 = time.perf_counter()
    rules = get_rules(rules)
    games = _check_games(games, quick)
    specs = _resolve(strategies)
    out = Path(out) if out is not None else Path("reports") / rules.name
    if out.exists() and not out.is_dir():
        raise ReportError(f"out: {str(out)!r} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    if progress:
        _compile_notice()
    # a first run on this machine: the exact stage's kernels compile in a second process
    # while the value table and the simulations (which compile on one core) run
    warming = warmup.start(rules)
    try:
        return _build(rules, games, seed, specs, out, n_jobs, regret_top, progress, quick,
                      warming, t0)  # fmt: skip
    finally:
        warmup.finish(warming, timeout=0.0)  # only still running if a step failed


def _build(rules, games, seed, specs, out, n_jobs, regret_top, progress, quick, warming, t0):
    """The steps of :func:`build_report` (arguments checked; ``warming``: the
    :mod:`~yahtzee_sim.analysis.warmup` process, or ``None``)."""
    from yahtzee_sim.analysis.selection import select_best
    from yahtzee_sim.engine.simulate import simulate
    from yahtzee_sim.solving.solver import value_table

    ids = list(specs)
    deterministic = [s for s in ids if is_deterministic(specs[s])]
    bar = tqdm(
        total=len(ids) + len(deterministic) + 3, desc="report", unit="step", disable=not progress
    )
    timings: dict[str, float] = {}
    clock = _Clock(timings, bar)

    with clock("tables", "value table"):
        value_table(rules)  # solved or loaded once, shared by every step below
    sims, skipped = {}, {}
    with clock("simulations"):
        for sid in ids:
            bar.set_postfix_str(f"simulate {sid}")
            try:
                sims[sid] = simulate(
                    specs[sid], games, seed=seed, rules=rules, n_jobs=n_jobs, keep_games=False,
                    progress=False,
                )  # fmt: skip
            except StrategyError as exc:
                skipped[sid] = str(exc)
            bar.update(1)
    if REFERENCE in skipped:
        raise ReportError(
            f"the reference strategy failed on rules {rules.name!r}: {skipped[REFERENCE]}"
        )
    ids = [s for s in ids if s in sims]
    todo = [s for s in deterministic if s in sims]
    with clock("exact", f"exact ({len(todo)} strategies)"):
        warmup.finish(warming)
        exact, regrets = _exact_stage(todo, specs, rules, regret_top, n_jobs, quick, skipped, bar)
    bar.update(len(deterministic) - len(todo))
    kn = None
    with clock("kim_nelson", "Kim–Nelson"):
        if quick:
            skipped["Kim–Nelson"] = "quick report (run without --quick for the ranking)"
        else:
            try:
                kn = select_best(
                    [specs[s] for s in ids],
                    delta=1.0,
                    alpha=0.05,
                    seed=seed,
                    rules=rules,
                    n_jobs=n_jobs,
                )
            except SelectionError as exc:  # e.g. a single strategy
                skipped["Kim–Nelson"] = str(exc)
    data = ReportData(rules, ids, games, seed, sims, exact, regrets, kn, skipped)
    with clock("figures", "figures"):
        files = _write(out, data)
    bar.close()
    timings["exact_cpu"] = sum(e.seconds for e in exact.values() if not e.meta.get("cached"))
    timings["regret_cpu"] = sum(r.meta.get("charge_seconds", 0.0) for r in regrets.values())
    timings["exact_cpu"] -= timings["regret_cpu"]
    return Report(
        out=out,
        files=files,
        summary=data.summary,
        skipped=skipped,
        seconds=time.perf_counter() - t0,
        timings={k: round(v, 3) for k, v in timings.items()},
    )


class _Clock:
    """``with clock(step, label):`` times a step into ``timings`` and advances the bar."""

    def __init__(self, timings: dict, bar):
        self.timings, self.bar = timings, bar

    def __call__(self, step: str, label: str | None = None):
        from contextlib import contextmanager

        @contextmanager
        def timed():
            if label is not None:
                self.bar.set_postfix_str(label)
            t = time.perf_counter()
            yield
            self.timings[step] = time.perf_counter() - t
            if label is not None:
                self.bar.update(1)

        return timed()


def _compile_notice() -> None:
    """One line on stderr when the numba kernels are not compiled yet on this machine."""
    from yahtzee_sim._kernels.exact import forward_level

    try:
        compiled = forward_level._cache._cache_file._index_path
        cold = not Path(compiled).exists()
    except AttributeError:  # numba internals changed: say nothing
        return
    if cold:
        print(
            "compiling kernels once (first run on this machine), ~1–2 min; "
            "later runs load them from the cache",
            file=sys.stderr,
        )


def _exact_stage(todo, specs, rules: RuleSet, top: int, n_jobs: int, quick: bool, skipped, bar):
    """Exact results and regrets of ``todo`` (labels; ``specs`` maps them to what to play):
    read from the cache or evaluated, several strategies at a time in threads of this
    process (the kernels release the GIL)."""
    exact, regrets, results = {}, {}, {}
    keys = {sid: exact_cache.result_key(specs[sid], rules, top) for sid in todo}
    for sid, key in keys.items():
        got = exact_cache.load(key, rules) if key is not None else None
        if got is not None:
            ex, reg = got
            if quick and sid != REFERENCE:  # what a quick evaluation gives, whatever the cache
                ex = replace(ex, pmf=None)
            results[sid] = (ex, reg, None)
            bar.update(1)
    left = [s for s in todo if s not in results]
    workers = max(1, min(n_jobs if n_jobs > 0 else len(left), len(left)))
    threads = max(1, numba.get_num_threads() // workers)

    def one(sid):
        numba.set_num_threads(threads)
        return _exact_one(specs[sid], rules, top, quick)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for sid, result in zip(left, pool.map(one, left), strict=True):
            results[sid] = result
            if result[2] is None and keys[sid] is not None and (not quick or sid == REFERENCE):
                exact_cache.save(keys[sid], result[0], result[1])
            bar.update(1)
    for sid in todo:  # in the order asked, whichever finished first
        result, regret_result, error = results[sid]
        if error is not None:
            skipped[f"{sid} (exact)"] = error
            continue
        if result is not None:
            exact[sid] = result
        if regret_result is not None:
            regrets[sid] = regret_result
    return exact, regrets


def _exact_one(sid: str, rules, top: int, quick: bool = False):
    """``(exact result, regret, error text)`` of one strategy: the regret (except for
    the reference) and the exact law from one forward pass; with ``quick`` no law
    except the reference's, and moments from the regret pass."""
    from yahtzee_sim.analysis.regret import evaluate_with_regret
    from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate

    try:
        if sid == REFERENCE:
            return evaluate(sid, rules), None, None
        return (*evaluate_with_regret(sid, rules, top=top, distribution=not quick), None)
    except ExactEvaluationError as exc:
        return None, None, str(exc)


def is_deterministic(sid: str) -> bool:
    """Whether the strategy id names a deterministic strategy (one the exact evaluator
    can evaluate)."""
    from yahtzee_sim.strategies import get_strategy, strategy_class

    try:
        cls = strategy_class(sid)
    except Exception:
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
@dataclass(eq=False)
class ReportData:
    """Everything the report folder is written from.

    Attributes
    ----------
    rules : RuleSet
    ids : list of str
        Strategies simulated, in the order asked (``optimal`` included).
    games, seed : int
        Simulated games per strategy and master seed.
    sims : dict
        Simulation result (``Aggregate``) per strategy id.
    exact : dict
        :class:`~yahtzee_sim.exact.laws.ExactResult` per deterministic strategy id.
    regrets : dict
        :class:`~yahtzee_sim.analysis.regret.RegretResult` per strategy id (not the reference).
    kn : KNResult or None
        The Kim–Nelson selection (``None`` if it could not run).
    skipped : dict
        What was left out, with the reason.
    """

    rules: RuleSet
    ids: list[str]
    games: int
    seed: int
    sims: dict
    exact: dict
    regrets: dict
    kn: object
    skipped: dict

    @cached_property
    def summary(self) -> pd.DataFrame:
        """The main table, best simulated mean first (:func:`_summary`)."""
        return _summary(self.ids, self.sims, self.exact)

    @cached_property
    def laws(self) -> dict:
        """The exact results that hold a score law (a quick report has moments only)."""
        return {sid: e for sid, e in self.exact.items() if e.pmf is not None}

    @property
    def ranked(self) -> list[str]:
        """Strategy ids, best simulated mean first."""
        return list(self.summary.index)


class _Folder:
    """The report folder being written: figures, CSV files and the document."""

    def __init__(self, out: Path, title: str):
        self.out, self.files, self.doc = out, [], Document(title)

    def figure(self, fig, name: str, caption: str, rect=(0, 0, 1, 1)) -> None:
        """Save ``fig`` as ``name`` (PNG), close it and show it in the document."""
        import matplotlib.pyplot as plt

        fig.tight_layout(rect=rect)
        fig.savefig(self.out / name, dpi=110)
        plt.close(fig)
        self.files.append(name)
        self.doc.figure(name, caption)

    def csv(self, frame: pd.DataFrame, name: str, index: bool = True) -> None:
        """Write ``frame`` as ``name``."""
        frame.to_csv(self.out / name, index=index)
        self.files.append(name)

    def finish(self) -> list[str]:
        """Write ``report.md`` and ``report.html``; every file written, documents first."""
        (self.out / "report.md").write_text(self.doc.to_markdown(), encoding="utf-8")
        (self.out / "report.html").write_text(self.doc.to_html(), encoding="utf-8")
        return ["report.md", "report.html", *self.files]


def _write(out: Path, data: ReportData) -> list[str]:
    """Write the report folder from ``data``; returns the files written (relative to ``out``).

    The sections come in this order: summary, score distributions, per-box
    statistics, Kim–Nelson ranking, head to head, regret, what was left out.
    """
    import matplotlib

    matplotlib.use("Agg")
    folder = _Folder(out, f"Strategy report — {data.rules.name}")
    for section in (
        _write_summary,
        _write_distributions,
        _write_categories,
        _write_ranking,
        _write_head_to_head,
        _write_regret,
        _write_skipped,
    ):
        section(folder, data)
    return folder.finish()


def _write_summary(folder: _Folder, data: ReportData) -> None:
    """``summary.csv`` and the summary table, after the paragraph on how it was made."""
    folder.csv(data.summary, "summary.csv")
    doc = folder.doc
    doc.paragraph(
        f"Rules `{data.rules.name}`; {data.games:,} simulated games per strategy, seed "
        f"{data.seed} (common random numbers: every strategy sees the same dice). Exact figures "
        f"come from the exact evaluator (deterministic strategies only); `{REFERENCE}` is the "
        "reference."
    )
    doc.heading("Summary")
    doc.paragraph(
        "Exact mean and SD where the strategy is deterministic; simulated mean, SD, 95% "
        "confidence interval of the mean, minimum, 10th percentile, median, maximum, share "
        "of games with the upper bonus and Yahtzees (n-of-a-kind turns) per game."
    )
    doc.table(data.summary)


def _write_distributions(folder: _Folder, data: ReportData) -> None:
    """Histogram panels, survival curves, ``exact_pmf.csv`` and ``histograms.csv``."""
    folder.doc.heading("Score distributions")
    _histogram_panels(folder, data)
    curves = {sid: _survival(data, sid) for sid in data.ranked}
    fig, ax = _plt().subplots(figsize=(11, 5))
    plots.plot_survival(curves, ax=ax)
    folder.figure(
        fig,
        "survival.png",
        "Survival curves P(final score ≥ x): exact for deterministic "
        "strategies, empirical otherwise",
    )
    det = [s for s in data.ranked if s in data.laws]
    pmf = pd.DataFrame({sid: pd.Series(data.laws[sid].pmf) for sid in det})
    pmf.index.name = "score"
    folder.csv(pmf.fillna(0.0), "exact_pmf.csv")
    hist = pd.DataFrame({sid: pd.Series(np.asarray(data.sims[sid].histogram)) for sid in data.ids})
    hist.index.name = "score"
    folder.csv(hist.fillna(0).astype(np.int64), "histograms.csv")


def _histogram_panels(folder: _Folder, data: ReportData) -> None:
    """One histogram panel per strategy (exact law overlaid), one shared legend."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    n = len(data.ranked)
    ncol = 4 if n > 4 else n
    nrow = -(-n // ncol)
    height = 2.6 * nrow + 0.9  # room above the panels for the title and the one legend
    fig, axes = _plt().subplots(nrow, ncol, figsize=(3.6 * ncol, height), squeeze=False)
    for i, (ax, sid) in enumerate(zip(axes.ravel(), data.ranked, strict=False)):
        color = plots.PALETTE[i % len(plots.PALETTE)]
        plots.plot_score_histogram(
            data.sims[sid], data.laws.get(sid), ax=ax, label=sid, color=color, legend=False
        )
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.suptitle("Distribution of the final score", y=1 - 0.15 / height)
    simulated = f"simulated ({data.games:,} games, one colour each)"
    fig.legend(
        handles=[
            Patch(color="0.55", alpha=0.6, label=simulated),
            Line2D([], [], color="black", lw=0.9, label="exact law (deterministic strategies)"),
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, 1 - 0.45 / height),
        ncol=2,
        frameon=False,
        fontsize="small",
    )
    folder.figure(
        fig,
        "distributions.png",
        "Histogram of simulated final scores with the exact distribution overlaid",
        rect=(0, 0, 1, 1 - 0.8 / height),
    )


def _survival(data: ReportData, sid: str) -> np.ndarray:
    """P(final score ≥ x): exact where known, else from the simulated histogram."""
    if sid in data.laws:
        return data.laws[sid].survival()
    h = np.asarray(data.sims[sid].histogram, dtype=float)
    return np.cumsum(h[::-1])[::-1] / h.sum()


def _write_categories(folder: _Folder, data: ReportData) -> None:
    """The three per-box tables (and their CSV files) and the per-box means figure."""
    tables = _category_tables(data.rules, data.ranked, data.sims, data.exact)
    doc = folder.doc
    doc.heading("Per-box statistics")
    for key, title, fmt in (
        ("mean", "Mean points per box", ".2f"),
        ("zero", "% of games with 0 points in the box", ".1f"),
        ("turn", "Average turn in which the box is filled", ".2f"),
    ):
        doc.heading(title, 3)
        doc.table(tables[key], floatfmt=fmt)
        folder.csv(tables[key], f"categories_{key}.csv")
    exact_ref = f"{REFERENCE} (exact)"
    fig, ax = _plt().subplots(figsize=(11, 0.38 * data.rules.n_categories + 1.5))
    plots.plot_category_means(
        tables["mean"], reference=exact_ref if exact_ref in tables["mean"] else REFERENCE, ax=ax
    )
    folder.figure(fig, "category_means.png", "Mean points per box; bars: optimal play (exact)")


def _write_ranking(folder: _Folder, data: ReportData) -> None:
    """The Kim–Nelson table, its CSV files and trace figure (or why it did not run)."""
    doc, kn = folder.doc, data.kn
    doc.heading("Kim–Nelson ranking")
    if kn is None:
        doc.paragraph(f"Not run: {data.skipped.get('Kim–Nelson', '')}")
        return
    p = kn.parameters
    stage = dict(kn.eliminated)
    table = pd.DataFrame(
        {
            "mean of observations": pd.Series(kn.means),
            "observations": pd.Series(kn.observations),
            "eliminated at stage": pd.Series({s: stage.get(s, np.nan) for s in kn.means}),
        }
    )
    table.index.name = "strategy"
    table = table.sort_values("mean of observations", ascending=False)
    doc.paragraph(
        f"Procedure KN (Kim & Nelson 2001), indifference zone δ = {p.get('delta', 1.0)}, "
        f"α = {p.get('alpha', 0.05)}; one observation = the mean of {p.get('batch')} games "
        f"(CRN). Winner: **{', '.join(kn.winners)}** after "
        f"{p.get('games', 0):,} games in all."
    )
    doc.table(table)
    folder.csv(table, "kim_nelson.csv")
    folder.csv(kn.trace, "kim_nelson_trace.csv", index=False)
    fig, ax = _plt().subplots(figsize=(11, 5))
    plots.plot_kn_trace(kn, ax=ax)
    folder.figure(fig, "kn_trace.png", "Kim–Nelson elimination trace")


def _write_head_to_head(folder: _Folder, data: ReportData) -> None:
    """``win_matrix.csv``, its table and its figure."""
    dists = {
        sid: (data.laws[sid].pmf if sid in data.laws else np.asarray(data.sims[sid].histogram))
        for sid in data.ranked
    }
    wm = win_matrix(dists)
    folder.csv(wm, "win_matrix.csv")
    doc = folder.doc
    doc.heading("Head to head")
    doc.paragraph(
        "Probability that the row strategy beats the column strategy in a blind two-player "
        "game (each on its own dice, ties count half), from the exact distributions where "
        "available, else the simulated ones."
    )
    doc.table(wm, floatfmt=".3f")
    n = len(data.ranked)
    fig, ax = _plt().subplots(figsize=(0.55 * n + 3, 0.5 * n + 2))
    plots.plot_win_matrix(wm, ax=ax)
    folder.figure(fig, "win_matrix.png", "P(row beats column)")


def _write_regret(folder: _Folder, data: ReportData) -> None:
    """Loss by decision type and by turn, and the costliest situations of the three
    strategies that lose the fewest points (nothing without regret results)."""
    if not data.regrets:
        return
    doc = folder.doc
    doc.heading("Regret: where the points are lost against optimal play")
    doc.paragraph(
        "Exact expected points lost at each kind of decision, from the strategy's reach "
        "probabilities and the optimal value of every option; the losses add up to the "
        "gap between optimal and the strategy's exact mean."
    )
    table = _regret_table(data.regrets)
    doc.table(table)
    folder.csv(table, "regret.csv")
    by_turn = pd.DataFrame({sid: r.by_turn for sid, r in data.regrets.items()})
    folder.csv(by_turn, "regret_by_turn.csv")
    fig, ax = _plt().subplots(figsize=(11, 5))
    plots.plot_regret_by_turn(by_turn, ax=ax)
    folder.figure(fig, "regret_by_turn.png", "Expected loss against optimal play by turn")
    situations = []
    for sid in table.index[:3]:
        doc.heading(f"Costliest situations of `{sid}`", 3)
        s = data.regrets[sid].situations.copy()
        doc.table(s.drop(columns=["yahtzee_scored"]), floatfmt=".4g", index=False)
        situations.append(s.assign(strategy=sid))
    if situations:
        folder.csv(pd.concat(situations), "regret_situations.csv", index=False)


def _regret_table(regrets: dict) -> pd.DataFrame:
    """One row per strategy: the gap to optimal, the loss by decision type and their sum,
    fewest points lost first."""
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
    return table.sort_values("sum of losses")


def _write_skipped(folder: _Folder, data: ReportData) -> None:
    """One paragraph per strategy or step left out, with the reason."""
    if not data.skipped:
        return
    folder.doc.heading("Left out")
    for what, why in data.skipped.items():
        folder.doc.paragraph(f"`{what}`: {why}")


def _plt():
    """``matplotlib.pyplot`` (imported on first use: the Agg backend is chosen first)."""
    import matplotlib.pyplot as plt

    return plt

"""Every figure judged at its printed size: each public plot function and each figure of a
report, drawn with a few close strategies in one column and with many strategies at the
full text width, has no text on other text, on the plotted data or past the figure's
edge, whole-number ticks on an axis of a count, no title, and strategies that differ in
more than hue (the checks: ``figure_layout.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from figure_layout import (
    GREY_MARGIN,
    data_problems,
    figure_problems,
    look_problems,
    text_problems,
    tick_problems,
)

from yahtzee_sim.analysis import plots
from yahtzee_sim.analysis.report.document import DocumentFolder
from yahtzee_sim.analysis.style import (
    BUILT_IN_ORDER,
    COLUMN_WIDTH,
    FULL_WIDTH,
    figure_style,
    strategy_styles,
)
from yahtzee_sim.game.rules import get_rules

#: A few strategies, two of them own (not built in), with means close together.
CLOSE = ["optimal", "greedy", "perFirst"]
#: The default report's strategies and two own ones.
MANY = ["optimal", *BUILT_IN_ORDER[:13], "my-bot", "perFirst-with-a-long-name"]
BOXES = get_rules("yahtzee").box_names


@dataclass
class Law:
    """The parts of an ExactResult a plot reads."""

    strategy: str
    pmf: np.ndarray
    rules: object = None

    @property
    def mean(self) -> float:
        return float(np.arange(len(self.pmf)) @ self.pmf)

    def survival(self) -> np.ndarray:
        return np.cumsum(self.pmf[::-1])[::-1]

    def percentile(self, q: float) -> int:
        return int(np.searchsorted(np.cumsum(self.pmf), q / 100))


def laws(ids, spread: float) -> dict[str, Law]:
    """A law per strategy, means ``spread`` points apart, best first."""
    x = np.arange(500)
    out = {}
    for i, sid in enumerate(ids):
        pmf = np.exp(-0.5 * ((x - 250 + spread * i) / 45) ** 2)
        out[sid] = Law(sid, pmf / pmf.sum())
    return out


def sims(ids, spread: float) -> dict:
    rng = np.random.default_rng(0)
    return {
        sid: SimpleNamespace(histogram=np.bincount(rng.choice(500, 4000, p=law.pmf), minlength=500))
        for sid, law in laws(ids, spread).items()
    }


def frame(ids, index, spread: float) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    base = rng.uniform(2, 30, len(index))
    return pd.DataFrame(
        {sid: base + spread * i * rng.uniform(-1, 1, len(index)) for i, sid in enumerate(ids)},
        index=index,
    )


def kn_result(ids, first_stage_only: bool = False):
    rng = np.random.default_rng(2)
    rows = []
    for i, sid in enumerate(ids):
        last = 20 if first_stage_only else 20 + 8 * (len(ids) - i) ** 2
        for stage in range(20, last + 1):
            rows.append({"system": sid, "stage": stage, "mean": 250 - 5 * i + rng.normal()})
    return SimpleNamespace(trace=pd.DataFrame(rows), winners=[ids[0]])


def ranking(ids, gap: float, exact: bool) -> pd.DataFrame:
    means = 254.6 - gap * np.arange(len(ids)) ** 1.6
    half = np.where(exact, 0.0, 0.8)
    return pd.DataFrame(
        {
            "mean": means,
            "low": means - half,
            "high": means + half,
            "tier": [chr(97 + i) for i in range(len(ids))],
            "exact": [exact or i < 3 for i in range(len(ids))],
        },
        index=ids,
    )


def win_matrix(ids, spread: float) -> pd.DataFrame:
    n = len(ids)
    strength = -spread * np.arange(n)
    m = 1 / (1 + np.exp(-(strength[:, None] - strength[None, :])))
    np.fill_diagonal(m, np.nan)
    return pd.DataFrame(m, index=ids, columns=ids)


def regret(sid: str):
    turns = pd.Series(np.linspace(0.5, 2.0, 13), index=range(1, 14))
    return SimpleNamespace(strategy=sid, by_turn=turns, total=float(turns.sum()))


def drawings(ids, spread: float):
    """``(name, height, draw(ax))`` for every public plot function."""
    thetas = (-0.5, 0, 0.5, 1)
    rows = [
        {"theta": t, "mean": 250 - 40 * t, "sd": 60 - 30 * t, "p10": 190 + 5 * t} for t in thetas
    ]
    sweep = [{"players": n, "win_probability": 1.3 / n} for n in (2, 3, 4, 6, 8)]
    n, ls, two = len(ids), laws(ids, spread), laws(ids[:2], 40 * spread)
    curve = ls[ids[0]].survival()
    boxes, turns = frame(ids, BOXES, spread), frame(ids[1:], range(1, 14), spread)
    exact, mixed = ranking(ids, 0.46 * spread, True), ranking(ids, 0.46 * spread, False)
    return [
        ("pmf", 2.6, lambda ax: plots.plot_pmf(ls, ax=ax)),
        ("pmf survival", 2.6, lambda ax: plots.plot_pmf(ls, ax=ax, survival=True)),
        (
            "histogram",
            2.6,
            lambda ax: plots.plot_score_histogram(sims(ids[:2], 40 * spread), two, ax=ax),
        ),
        ("survival", 2.6, lambda ax: plots.plot_survival(ls, ax=ax)),
        ("survival highlight", 2.6, lambda ax: plots.plot_survival(ls, ax=ax, highlight=ids[1:2])),
        ("box means", 0.2 * 13 + 1.2, lambda ax: plots.plot_box_means(boxes, ax=ax)),
        ("regret by turn", 3.2, lambda ax: plots.plot_regret_by_turn(turns, ax=ax)),
        ("regret", 2.6, lambda ax: plots.plot_regret(regret(ids[1]), ax=ax)),
        ("regrets", 3.2, lambda ax: plots.plot_regret({s: regret(s) for s in ids[1:]}, ax=ax)),
        ("kn trace", 3.2, lambda ax: plots.plot_kn_trace(kn_result(ids), ax=ax)),
        ("kn first stage", 3.2, lambda ax: plots.plot_kn_trace(kn_result(ids, True), ax=ax)),
        ("ranking exact", 0.22 * n + 1.0, lambda ax: plots.plot_ranking(exact, ax=ax)),
        ("ranking mixed", 0.22 * n + 1.0, lambda ax: plots.plot_ranking(mixed, ax=ax)),
        ("win matrix", None, lambda ax: plots.plot_win_matrix(win_matrix(ids, spread / 10), ax=ax)),
        ("target curve", 2.6, lambda ax: plots.plot_target_curve(curve, curve * 0.95, ax=ax)),
        ("win sweep", 2.6, lambda ax: plots.plot_win_sweep(sweep, ax=ax)),
        ("risk frontier", 2.6, lambda axes: plots.plot_risk_frontier(rows, axes)),
    ]


def draw(name, height, fn, width, n):
    """The figure of one drawing at ``width`` inches (the win matrix at its report size)."""
    if height is None:
        height = min(0.3 * n + 2.0, 0.8 * width)
    ncols = 2 if name == "risk frontier" else 1
    width = FULL_WIDTH if name == "risk frontier" else width  # as the command draws it
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), layout="constrained")
    fn(axes)
    return fig


CASES = [("close", CLOSE, 1.0, COLUMN_WIDTH), ("many", MANY, 3.0, FULL_WIDTH)]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_plot_function_holds_at_its_printed_size(case):
    _, ids, spread, width = case
    found = {}
    with figure_style():
        for name, height, fn in drawings(ids, spread):
            fig = draw(name, height, fn, width, len(ids))
            if problems := figure_problems(fig):
                found[name] = problems
            plt.close(fig)
    assert found == {}


def test_the_win_matrix_labels_fit_their_cells_at_one_column():
    ids = ["optimal", "glenn-better-heuristic", "greedy", "my-own-heuristic", "perFirst"]
    with figure_style():
        fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.8), layout="constrained")
        plots.plot_win_matrix(win_matrix(ids, 1.0), ax=ax)
        assert text_problems(fig) == []
        cells = [t for t in ax.texts]
        assert len(cells) == 20 and cells[0].get_text().startswith(".")
        plt.close(fig)


def test_exact_means_are_drawn_as_gaps_to_the_best_that_show_half_a_point():
    table = ranking(["optimal", "mine", "greedy", "random"], 1.0, True)
    table["mean"] = [248.63, 248.17, 241.0, 75.2]
    table["low"] = table["high"] = table["mean"]
    with figure_style():
        fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.2), layout="constrained")
        plots.plot_ranking(table, ax=ax)
        fig.draw_without_rendering()
        x = [ax.transData.transform((line.get_xdata()[0], 0))[0] for line in ax.lines]
        assert ax.get_xscale() == "symlog" and "behind optimal" in ax.get_xlabel()
        assert x[1] - x[0] > 10  # 0.46 points: more than 10 pixels at 100 dpi
        assert "0.46" in [t.get_text() for t in ax.texts]
        plt.close(fig)


def test_strategies_of_one_figure_differ_in_line_style_or_marker():
    styles = strategy_styles([*MANY, *BUILT_IN_ORDER[13:]], highlight=["greedy"])
    looks = [(s.linestyle, s.marker, s.filled) for s in styles.values()]
    markers = [(s.marker, s.filled) for s in styles.values()]
    assert len(set(markers)) == len(markers)  # points alone (box means) stay apart
    assert len(set(looks)) == len(looks)
    assert styles["greedy"].marker == strategy_styles(["greedy"])["greedy"].marker


def test_the_checks_find_what_they_look_for():
    with figure_style():
        fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 2.0), layout="constrained")
        ax.plot([0, 1], [0, 1], color="#0072b2", label="a")
        ax.plot([0, 1], [1, 0], color="#d55e00", label="b")  # the same line, other hue
        ax.legend()
        ax.text(0.5, 0.5, "on the lines")
        ax.text(0.5, 0.5, "on the lines too")
        ax.text(1.5, 0.5, "past the edge", transform=ax.transAxes)
        ax.set_xlabel("turn")
        ax.set_xticks([0.5, 1.0])
        texts = text_problems(fig)
        assert "'on the lines' overlaps 'on the lines too'" in texts
        assert "'past the edge' reaches past the figure's edge" in texts
        assert any(p.startswith("'on the lines' lies on") for p in data_problems(fig))
        assert tick_problems(fig) == ["tick '0.5' on 'turn'", "tick '1.0' on 'turn'"]
        assert look_problems(fig) == ["'a' and 'b' differ only in hue"] * 2
        assert abs(GREY_MARGIN - 0.25) < 1e-12
        plt.close(fig)


# ------------------------------------------------------------------ the report's figures
@pytest.fixture(scope="module")
def report_figures(tmp_path_factory):
    """Every figure ``write_report`` draws, checked before it is saved, for a report of
    few strategies and one of many."""
    from yahtzee_sim.analysis.report.build import build_report
    from yahtzee_sim.analysis.report.write import write_report

    found = {}
    original = DocumentFolder.figure

    def checked(self, fig, name, caption, data=None):
        found[f"{self.out.name}/{name}"] = figure_problems(fig)
        return original(self, fig, name, caption, data)

    DocumentFolder.figure = checked
    try:
        for label, strategies in (("few", "greedy,random"), ("many", "all")):
            report = build_report(
                rules="2-yatzy", strategies=strategies, n_games=600, seed=3, progress=False
            )
            write_report(report, tmp_path_factory.mktemp(label))
    finally:
        DocumentFolder.figure = original
    return found


@pytest.mark.slow
def test_every_report_figure_holds_at_its_printed_size(report_figures):
    assert len(report_figures) >= 10
    assert {k: v for k, v in report_figures.items() if v} == {}


def test_the_regret_command_figure_names_boxes_and_turns_as_a_reader_reads_them():
    from yahtzee_sim.cli.regret import draw_regret

    rules = get_rules("yatzy")
    turns = pd.Series(np.linspace(6.0, 0.8, rules.n_boxes), index=range(1, rules.n_boxes + 1))
    result = SimpleNamespace(
        strategy="perFirst:with-a-long-label",
        rules=rules,
        by_turn=turns,
        total=float(turns.sum()),
        by_box=pd.Series(np.linspace(0.1, 3.0, rules.n_boxes), index=rules.box_names),
    )
    with figure_style():
        fig, axes = plt.subplots(1, 2, figsize=(FULL_WIDTH, 3.4), layout="constrained")
        draw_regret(result, axes)
        assert figure_problems(fig) == []
        boxes = [t.get_text() for t in axes[1].get_yticklabels()]
        assert "Three of a kind" in boxes and "Yatzy" in boxes
        assert 0 not in axes[0].get_xticks()[(axes[0].get_xticks() >= axes[0].get_xlim()[0])]
        plt.close(fig)

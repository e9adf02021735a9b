"""Plots and the report's figures: one style per strategy everywhere, histograms binned
by the number of games with the exact law on the same bins, paper sizes and formats."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.patches import StepPatch
from PIL import Image

from yahtzee_sim.analysis import plots
from yahtzee_sim.analysis.bins import binned, freedman_diaconis_width, score_bins
from yahtzee_sim.analysis.report.build import build_report
from yahtzee_sim.analysis.report.figures import (
    box_means_figure,
    distributions_figure,
    report_styles,
    survival_figure,
)
from yahtzee_sim.analysis.report.write import write_report
from yahtzee_sim.analysis.style import (
    BUILT_IN_ORDER,
    COLUMN_WIDTH,
    FIGURE_FORMATS,
    FULL_WIDTH,
    PNG_DPI,
    FigureFormatError,
    figure_style,
    parse_figure_formats,
    strategy_styles,
)
from yahtzee_sim.cli import main

IDS = ["optimal", "greedy", "glenn-heuristic", "random", "my-bot"]


@dataclass
class Rules:
    name: str = "toy"


@dataclass
class Law:
    """The parts of an ExactResult a plot reads."""

    strategy: str
    pmf: np.ndarray
    rules: Rules

    @property
    def mean(self) -> float:
        return float(np.arange(len(self.pmf)) @ self.pmf)

    def survival(self) -> np.ndarray:
        return np.cumsum(self.pmf[::-1])[::-1]

    def percentile(self, q: float) -> int:
        return int(np.searchsorted(np.cumsum(self.pmf), q / 100))


@dataclass
class Sim:
    histogram: np.ndarray


def law(i: int) -> Law:
    x = np.arange(300)
    pmf = np.exp(-0.5 * ((x - 150 - 10 * i) / (30 + i)) ** 2)
    return Law(IDS[i], pmf / pmf.sum(), Rules())


def games(pmf: np.ndarray, n: int, seed: int = 0) -> Sim:
    draws = np.random.default_rng(seed).choice(len(pmf), size=n, p=pmf)
    return Sim(np.bincount(draws, minlength=len(pmf)))


def colour(artist) -> str:
    if isinstance(artist, StepPatch):
        return to_hex(artist.get_facecolor() if artist.get_fill() else artist.get_edgecolor())
    return to_hex(artist.get_color())


def labelled_colours(ax) -> dict[str, str]:
    """Colour of each labelled line or patch of ``ax``, by label's strategy."""
    out = {}
    for artist in [*ax.lines, *ax.patches]:
        label = artist.get_label()
        if label and not label.startswith("_"):
            out[re.split(r" \(|, ", label)[0]] = colour(artist)
    return out


@pytest.fixture
def ax():
    with figure_style():
        fig, ax = plt.subplots()
        yield ax
    plt.close(fig)


# ------------------------------------------------------------------ styles
def test_styles_are_fixed_distinct_and_mark_reference_and_own_strategies():
    alone = strategy_styles(["greedy"])
    crowd = strategy_styles(["optimal", *BUILT_IN_ORDER, "my-bot"], highlight=["random"])
    assert alone["greedy"] == crowd["greedy"]  # whatever else is drawn
    assert crowd["optimal"].color == "#000000" and crowd["optimal"].role == "reference"
    assert crowd["my-bot"].role == crowd["random"].role == "highlight"
    assert crowd["my-bot"].color != crowd["random"].color
    looks = {(s.color, s.linestyle, s.marker) for s in crowd.values()}
    assert len(looks) == len(crowd)
    assert strategy_styles(["greedy-v1"])["greedy-v1"] == alone["greedy"]


def test_figure_formats_are_checked():
    assert parse_figure_formats("pdf, PNG,pdf") == ("pdf", "png")
    assert parse_figure_formats(["svg"]) == ("svg",)
    for bad in ("jpg", "png,", ""):
        with pytest.raises(FigureFormatError, match="png, pdf, svg"):
            parse_figure_formats(bad)


# ------------------------------------------------------------------ every plot function
def test_every_plot_function_draws_each_strategy_in_its_own_colour(ax):
    laws = {IDS[i]: law(i) for i in range(4)}
    sims = {k: games(v.pmf, 5000, i) for i, (k, v) in enumerate(laws.items())}
    expected = {k: s.color for k, s in strategy_styles(IDS[:4]).items()}
    box_frame = pd.DataFrame({k: np.arange(3.0) + i for i, k in enumerate(IDS[:4])})
    trace = pd.DataFrame(
        [
            {"system": k, "stage": s, "mean": 200.0 - i + s}
            for i, k in enumerate(IDS[:4])
            for s in (2, 4)
        ]
    )
    ranking = pd.DataFrame(
        {
            "mean": [254.6, 215.0, 200.0, 87.0],
            "low": [254.6, 215.0, 198.0, 86.0],
            "high": [254.6, 215.0, 202.0, 88.0],
            "tier": ["a", "b", "bc", "c"],
            "exact": [True, True, False, False],
        },
        index=IDS[:4],
    )
    draws = [
        lambda a: plots.plot_pmf(list(laws.values()), ax=a),
        lambda a: plots.plot_pmf(laws, ax=a, survival=True),
        lambda a: plots.plot_score_histogram(sims, laws, ax=a),
        lambda a: plots.plot_survival(laws, ax=a),
        lambda a: plots.plot_box_means(box_frame, reference=None, ax=a),
        lambda a: plots.plot_regret_by_turn(box_frame, ax=a),
        lambda a: plots.plot_kn_trace(
            type("KN", (), {"trace": trace, "winners": ["optimal"]}), ax=a
        ),
    ]
    for draw in draws:
        ax.clear()
        assert draw(ax) is ax
        seen = labelled_colours(ax)
        assert seen == expected, draw
        assert ax.get_legend() is not None
    ax.clear()
    assert plots.plot_ranking(ranking, ax=ax) is ax
    points = [to_hex(line.get_color()) for line in ax.lines if line.get_marker() in ("o", "D")]
    assert set(points) == set(expected.values())


def test_a_callers_colour_wins(ax):
    plots.plot_pmf([law(0), law(1)], ax=ax, color="#123456")
    assert {to_hex(line.get_color()) for line in ax.lines} == {"#123456"}


def test_highlight_draws_the_others_in_grey(ax):
    plots.plot_survival({IDS[i]: law(i) for i in range(4)}, ax=ax, highlight=["greedy"])
    seen = {line.get_label(): to_hex(line.get_color()) for line in ax.lines}
    assert seen["greedy"] == strategy_styles(["greedy"], highlight=["greedy"])["greedy"].color
    assert seen["optimal"] == "#000000"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["optimal", "greedy", "other strategies"]


# ------------------------------------------------------------------ bins
def test_bins_follow_the_number_of_games_and_the_exact_law_uses_them(ax):
    pmf = law(0).pmf
    widths = [freedman_diaconis_width(games(pmf, n).histogram) for n in (500, 5000, 100_000)]
    assert widths[0] > widths[1] > widths[2] >= 1
    sim = games(pmf, 2000)
    plots.plot_score_histogram(sim, law(0), ax=ax)
    steps = [p for p in ax.patches if isinstance(p, StepPatch)]
    edges = {tuple(p.get_data().edges) for p in steps}
    assert len(edges) == 1  # simulated (fill and outline) and exact on the same bins
    (e,) = edges
    width = freedman_diaconis_width(sim.histogram)
    assert np.allclose(np.diff(e), width) and e[0] % width == width - 0.5
    exact = steps[-1].get_data().values
    assert len(steps) == 2 and to_hex(steps[-1].get_edgecolor()) == "#000000"
    np.testing.assert_allclose(exact * width, binned(pmf, np.array(e)), rtol=1e-12)
    assert ax.get_xlabel() == f"final score ({width}-point bins)"


def test_binned_sums_each_whole_point_bin():
    edges = score_bins(np.array([0, 0, 3, 1, 0, 2, 5]), width=2)
    assert list(edges) == [1.5, 3.5, 5.5, 7.5]
    assert list(binned(np.arange(7.0), edges)) == [2 + 3, 4 + 5, 6]


# ------------------------------------------------------------------ the report
@pytest.fixture(scope="module")
def small_report():
    return build_report(
        rules="2-yatzy", strategies="greedy,random", n_games=1000, seed=1, progress=False
    )


@pytest.mark.slow
def test_one_strategy_one_colour_in_every_report_figure(small_report):
    rep = small_report
    styles = report_styles(rep)
    with figure_style():
        dist, drawn, width = distributions_figure(rep)
        surv, curves = survival_figure(rep)
        boxes = box_means_figure(rep)
    for fig in (dist, surv):
        panels = [ax for ax in fig.axes if ax.get_visible()]
        assert [ax.get_label() for ax in panels] == rep.ranked  # each panel named
        for ax in panels:
            sid = ax.get_label()
            own = [colour(a) for a in [*ax.lines, *ax.patches] if colour(a) == styles[sid].color]
            assert own, (fig, sid)
    box_colours = labelled_colours(boxes.axes[0])
    for sid in rep.ranked:
        if sid != "optimal":
            assert box_colours[sid] == styles[sid].color
    assert set(drawn["strategy"]) == set(rep.ranked)
    assert (drawn["high"] - drawn["low"] + 1 == width).all()
    assert list(curves.columns) == rep.ranked
    for fig in (dist, surv, boxes):
        assert fig.get_size_inches()[0] == FULL_WIDTH
        plt.close(fig)


@pytest.mark.slow
def test_report_figures_in_every_format_byte_identical(small_report, tmp_path):
    first = write_report(small_report, tmp_path / "a", ("pdf", "png", "svg"))
    second = write_report(small_report, tmp_path / "b", ("pdf", "png", "svg"))
    assert first == second
    for stem in ("distributions", "survival", "box_means", "win_matrix", "regret_by_turn"):
        for fmt in FIGURE_FORMATS:
            name = f"{stem}.{fmt}"
            assert name in first
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    for name in ("distributions.csv", "survival.csv"):
        assert name in first
    md = (tmp_path / "a" / "report.md").read_text()
    assert "point bins" in md and "Data: survival.csv." in md


@pytest.mark.slow
def test_cli_report_writes_pdf_and_png_at_paper_sizes(capsys, tmp_path):
    out = tmp_path / "toy"
    args = ["report", "--rules", "2-yatzy", "--strategies", "greedy", "--games", "500"]
    code = main([*args, "--out", str(out), "--quiet", "--figure-format", "pdf,png"])
    assert code == 0
    sizes = {"distributions": FULL_WIDTH, "survival": FULL_WIDTH, "box_means": FULL_WIDTH}
    sizes["win_matrix"] = COLUMN_WIDTH  # two strategies: one column
    for stem, inches in sizes.items():
        width, _ = Image.open(out / f"{stem}.png").size
        assert width == round(inches * PNG_DPI)
        pdf = (out / f"{stem}.pdf").read_bytes()
        assert f"/MediaBox [ 0 0 {inches * 72:g} ".encode() in pdf  # 72 points an inch
    assert not list(out.glob("*.svg"))
    capsys.readouterr()
    code = main([*args, "--out", str(tmp_path / "bad"), "--figure-format", "png,jpg"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and "jpg" in err
    assert not (tmp_path / "bad").exists()


# ------------------------------------------------------------------ the handbook
@pytest.mark.slow
def test_handbook_figures_are_what_its_examples_draw(tmp_path):
    from matplotlib.testing.compare import compare_images

    root = Path(__file__).resolve().parents[2]
    script = root / ".ci" / "doc_figures.py"
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    drawn = sorted(p.name for p in tmp_path.glob("*.png"))
    assert drawn == ["histogram.png", "laws.png", "ranking.png"]
    for name in drawn:
        committed = root / "docs" / "img" / name
        assert Image.open(committed).size == Image.open(tmp_path / name).size, name
        # a small tolerance: text rendering differs between FreeType builds
        assert compare_images(str(committed), str(tmp_path / name), tol=3) is None, (
            f"docs/img/{name} is stale: regenerate with python .ci/doc_figures.py"
        )

"""The rule-card learner (on the tiny 2-yatzy rules) and ``yahtzee-sim distill``."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from yahtzee_sim.analysis.decisions.card_search import pair_gains
from yahtzee_sim.analysis.decisions.distill import DistillError, distill
from yahtzee_sim.cli import main
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.strategies.cards import CardStrategy, load_card


@pytest.fixture(scope="module")
def tiny():
    return distill("2-yatzy", max_rules=6, seed=3, n_games=400, validate=True)


def test_distill_is_deterministic_for_a_seed(tiny):
    again = distill("2-yatzy", max_rules=6, seed=3, n_games=400, validate=True)
    assert again.card == tiny.card
    assert again.curve == tiny.curve
    assert again.steps == tiny.steps


def test_regret_decreases_rule_by_rule(tiny):
    assert tiny.card.n_rules >= 1
    assert all(s["gain"] > 0 for s in tiny.steps)
    sampled = [s["sampled_regret"] for s in tiny.steps]
    assert all(b < a for a, b in itertools.pairwise(sampled))
    regrets = [p["regret"] for p in tiny.curve]
    assert [p["n_rules"] for p in tiny.curve] == list(range(tiny.grown.n_rules + 1))
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(regrets))
    assert regrets[-1] < regrets[0]


def test_curve_points_are_exact(tiny):
    k = tiny.grown.n_rules
    ex = evaluate(CardStrategy(card=tiny.card_of(k)), "2-yatzy", distribution=False)
    assert tiny.curve[-1]["mean"] == ex.mean
    assert tiny.curve[-1]["regret"] == pytest.approx(tiny.optimal - ex.mean)


@pytest.mark.slow
def test_prune_to_keeps_the_most_useful_learned_rules():
    res = distill("yahtzee", max_rules=6, seed=1, n_games=300, curve_at=[], prune_to=3)
    assert res.grown.n_rules == 6
    assert res.card.n_rules <= 3
    assert set(res.order) <= set(res.learned)
    assert res.card == res.card_of(len(res.order), pruned=True)


def test_distill_refuses_bad_arguments():
    with pytest.raises(DistillError, match="prune_to"):
        distill("2-yatzy", prune_to=-1)
    with pytest.raises(DistillError, match="max_rules"):
        distill("2-yatzy", max_rules=-1)
    with pytest.raises(DistillError, match="n_games"):
        distill("2-yatzy", n_games=0)
    with pytest.raises(ValueError, match="unknown rules"):
        distill("nope")


def test_pair_gains_kernel_matches_brute_force():
    rng = np.random.default_rng(0)
    P, L, A = 60, 5, 3
    X = rng.random((P, L)) < 0.5
    allowed = np.array([True, True, False, True, True])
    gain = rng.normal(size=(P, A))
    bottom = rng.random(P) < 0.4
    G = pair_gains(X, allowed, gain, bottom, 4)
    Xa = np.c_[X & allowed, np.ones(P, dtype=bool)]
    for a in range(L + 1):
        for b in range(a, L + 1):
            rows = Xa[:, a] & Xa[:, b]
            np.testing.assert_allclose(G[0, a, b], gain[rows].sum(axis=0), atol=1e-12)
            np.testing.assert_allclose(G[1, a, b], gain[rows & bottom].sum(axis=0), atol=1e-12)


def _argv(*extra: str) -> list[str]:
    options = "--rules 2-yatzy --max-rules 4 --seed 1 --games 300 --quiet"
    return ["distill", *options.split(), *extra]


def test_cli_writes_card_plot_and_json(tmp_path, capsys):
    out, plot = tmp_path / "card.md", tmp_path / "curve.png"
    assert main(_argv("--out", str(out), "--plot", str(plot), "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "2-yatzy" and data["curve"][0]["n_rules"] == 0
    card = load_card(out)
    assert card.n_rules == data["n_rules"]
    assert plot.stat().st_size > 0


def test_cli_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    assert main(_argv("--out", str(tmp_path / "no" / "card.md"))) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    with pytest.raises(SystemExit) as exc:
        main(_argv("--max-rules", "-2"))
    assert exc.value.code == 2
    assert main(_argv("--plot", str(tmp_path / "x.txt"))) == 2


def test_curve_plot_in_the_paper_style_and_byte_identical(tmp_path):
    """The card's curve in the first strong colour, optimal play black; one column wide;
    the same file twice."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from yahtzee_sim.analysis.decisions.distill import DistillResult
    from yahtzee_sim.analysis.style import COLUMN_WIDTH, HIGHLIGHT_COLORS, REFERENCE_COLOR
    from yahtzee_sim.game.rules import get_rules

    curve = [{"n_rules": k, "mean": 100.0 + 20 * k, "sd": 1.0, "regret": 1.0} for k in range(4)]
    res = DistillResult(get_rules("2-yatzy"), None, [], curve, [], 180.0, None, [], 0, 10)
    files = []
    for name in ("a.svg", "b.svg"):
        ax = res.plot(tmp_path / name)
        files.append((tmp_path / name).read_bytes())
        colors = [matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()]
        assert colors == [HIGHLIGHT_COLORS[0], REFERENCE_COLOR]
        assert ax.figure.get_size_inches()[0] == COLUMN_WIDTH
        plt.close(ax.figure)
    assert files[0] == files[1]

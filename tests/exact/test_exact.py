"""Exact evaluation: published figures, an independent game-tree enumeration,
agreement with simulation, and the refusals."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_sim import get_rules, simulate_aggregate
from yahtzee_sim.cli import main
from yahtzee_sim.engine.summary import SUMMARY_KEYS
from yahtzee_sim.errors import IllegalMoveError
from yahtzee_sim.exact.decision_tables import decision_tables
from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate
from yahtzee_sim.game.state import decode_state, n_states
from yahtzee_sim.strategies import get_strategy, strategy_class, strategy_ids
from yahtzee_sim.strategies.optimal import GLENN_BOX_MEANS

from helpers import BatchedOnly, bonus_limit_game, exact_law, view_for

# "Simulating Yahtzee", Table 11, optimal column (yahtzee with free-choice joker), as the
# optimal strategy's module declares it.
TABLE_11_OPTIMAL = GLENN_BOX_MEANS["box_means"]


@pytest.fixture(scope="module")
def optimal_free_joker():
    return exact_law("optimal", "yahtzee-free-joker")


# ------------------------------------------------------------ published figures
@pytest.mark.slow
def test_optimal_free_joker_matches_the_literature(optimal_free_joker):
    r = optimal_free_joker
    assert r.mean == pytest.approx(254.5896095, abs=5e-7)  # Verhoeff / Glenn
    assert r.sd == pytest.approx(59.61, abs=0.005)  # Verhoeff 59.6117 (see README: ties)
    names = r.rules.box_names
    for name, published in TABLE_11_OPTIMAL.items():
        assert round(r.box_means[names.index(name)], 2) == pytest.approx(published)
    assert round(35 * r.bonus_rate, 2) == pytest.approx(23.84)  # Table 11 bonus row
    assert round(100 * r.yahtzee_bonuses_mean, 2) == pytest.approx(9.58)
    assert r.bonus_rate == pytest.approx(0.68, abs=0.005)


@pytest.mark.slow
def test_pmf_is_a_law_with_the_forward_moments(optimal_free_joker):
    r = optimal_free_joker
    x = np.arange(len(r.pmf))
    assert r.pmf.min() >= 0
    assert abs(r.pmf.sum() - 1) < 1e-12
    mean = r.pmf @ x
    assert mean == pytest.approx(r.mean, rel=1e-12)
    assert np.sqrt(r.pmf @ (x - mean) ** 2) == pytest.approx(r.sd, rel=1e-9)
    assert r.min >= 5 and r.max == 1575  # 13 Yahtzees: 50 + 12 × 100 + upper 30 + 35 + 30 + 40
    assert r.percentile(0) == r.min and r.percentile(100) == r.max
    assert r.cdf()[-1] == pytest.approx(1) and r.survival()[0] == pytest.approx(1)


@pytest.mark.slow
def test_optimal_yahtzee_and_yatzy_means():
    y = exact_law("optimal", "yahtzee", distribution=False)
    assert y.mean == pytest.approx(254.5877287, abs=5e-7)
    moments = evaluate("optimal", "2-yatzy", distribution=False)  # without the pmf
    assert moments.pmf is None
    with pytest.raises(ExactEvaluationError, match="distribution=True"):
        _ = moments.min
    z = exact_law("optimal", "yatzy")
    assert z.mean == pytest.approx(248.4400, abs=5e-5)  # Tillius / Larsson–Sjöberg


def test_two_yatzy_pmf_by_hand():
    """Tillius §3.1–3.2: max-EV play of 2-Yatzy scores 0..6 with these 64ths."""
    r = evaluate("optimal", "2-yatzy")
    np.testing.assert_allclose(r.pmf * 64, [0, 1, 1, 6, 8, 21, 27], atol=1e-12)
    assert r.mean == pytest.approx(5.0)
    assert r.survival()[5] == pytest.approx(0.75)


# ---------------------------------------------- independent game-tree enumeration
def _tree_law(strategy, rules) -> dict[int, Fraction]:
    """Law of the final score by enumerating every dice sequence and asking the
    strategy one position at a time (exact fractions, no shared code with the
    evaluator besides the box scores of the view)."""
    rules = get_rules(rules)
    strategy.prepare(rules)
    F, N = rules.n_faces, rules.n_dice
    names = rules.box_names
    law: dict[int, Fraction] = {}

    def rolls(k):
        for faces in itertools.product(range(1, F + 1), repeat=k):
            yield list(faces), Fraction(1, F**k)

    def turn(used, upper, total, p):
        if len(used) == rules.n_boxes:
            law[total] = law.get(total, Fraction(0)) + p
            return
        for dice, q in rolls(N):
            play(used, upper, total, p * q, dice, rules.rolls_per_turn - 1)

    def play(used, upper, total, p, dice, left):
        v = view_for(
            rules,
            dice,
            used=used,
            upper_total=min(upper, rules.upper_cap),
            rolls_left=left,
            turn=len(used),
        )
        if left:
            kept = np.asarray(strategy.keep(v))[0]
            keep = [f + 1 for f in range(F) for _ in range(int(kept[f]))]
            for extra, q in rolls(N - len(keep)):
                play(used, upper, total, p * q, keep + extra, left - 1)
            return
        c = int(np.asarray(strategy.box(v))[0])
        pts = int(v.box_points[0, c])
        assert pts >= 0
        cat = rules.boxes[c]
        up = upper + pts if cat.kind == "upper" else upper
        bonus = (
            rules.upper_bonus
            if rules.upper_bonus and upper < rules.upper_bonus_threshold <= up
            else 0
        )
        turn((*used, names[c]), up, total + pts + bonus, p)

    turn((), 0, 0, Fraction(1))
    return law


@pytest.mark.parametrize("rules", ["2-yatzy", "2-yatzy@3", "2-yatzy@4"])
@pytest.mark.parametrize("strategy", ["optimal", "greedy"])
def test_pmf_equals_game_tree_enumeration(strategy, rules):
    law = _tree_law(get_strategy(strategy), rules)
    r = evaluate(strategy, rules)
    expected = np.zeros(max(law) + 1)
    for x, p in law.items():
        expected[x] = float(p)
    np.testing.assert_allclose(r.pmf[: len(expected)], expected, atol=1e-14)
    assert not r.pmf[len(expected) :].any()


# ------------------------------------------------- fast path = generic protocol
@pytest.mark.slow
@pytest.mark.parametrize(
    ("strategy", "rules"),
    [("optimal", r) for r in ("yahtzee", "yahtzee-no-bonus", "yatzy", "2-yatzy", "yahtzee@4")]
    + [("glenn-heuristic", "yahtzee"), ("glenn-better-heuristic", "yahtzee-free-joker")]
    + [("greedy", r) for r in ("yahtzee", "yatzy", "2-yatzy@4")],
)
def test_decision_table_fast_path_equals_batched_views(strategy, rules):
    rules = get_rules(rules)
    s = get_strategy(strategy)
    s.prepare(rules)
    rng = np.random.default_rng(7)
    states = np.unique(rng.integers(0, n_states(rules), size=300))
    used, _, _ = decode_state(rules, states)
    states = states[used != (1 << rules.n_boxes) - 1]  # someplace to write
    k_fast, c_fast = s.decision_table(rules, states[::-1].copy())
    k_gen, c_gen = decision_tables(BatchedOnly(s), rules, states[::-1].copy(), turn=0)
    np.testing.assert_array_equal(k_fast, k_gen)
    np.testing.assert_array_equal(c_fast, c_gen)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["yacht", "small-limit"])
def test_generic_path_gives_the_same_law_as_the_fast_path(rules):
    """The whole evaluation through batched views (many chunks a level on Yacht; a Yahtzee
    flag and a bonus limit on the small game) gives the fast path's law."""
    rules = bonus_limit_game(2) if rules == "small-limit" else rules
    fast = evaluate("optimal", rules, distribution=False)
    slow = evaluate(BatchedOnly(get_strategy("optimal")), rules, distribution=False)
    assert slow.mean == pytest.approx(fast.mean, abs=1e-9)
    assert slow.sd == pytest.approx(fast.sd, abs=1e-9)
    np.testing.assert_allclose(slow.box_means, fast.box_means, atol=1e-9)


# ----------------------------------------------------- exact = simulated (CRN)
def _within_4_se(exact, n_games, strategy, rules, seed=11):
    # one process: the same games for any n_jobs, and the suite's workers use every core
    sim = simulate_aggregate(strategy, n_games, seed=seed, rules=rules, n_jobs=1)
    s = sim.summary()
    se_mean = exact.sd / np.sqrt(n_games)
    assert abs(s["mean"] - exact.mean) < 4 * se_mean, (strategy, s["mean"], exact.mean)
    # SE of the sample SD ≈ sd·sqrt((kurtosis - 1) / 4n); kurtosis from the exact pmf
    # when available, else a generous 9 (heavy Yahtzee-bonus tail)
    if exact.pmf is not None:
        x = np.arange(len(exact.pmf))
        kurt = exact.pmf @ ((x - exact.mean) / exact.sd) ** 4
    else:
        kurt = 9.0
    se_sd = exact.sd * np.sqrt((kurt - 1) / (4 * n_games))
    assert abs(s["sd"] - exact.sd) < 4 * se_sd, (strategy, s["sd"], exact.sd)
    return sim


@pytest.mark.slow
def test_greedy_exact_law_agrees_with_simulation():
    exact = exact_law("greedy")
    sim = _within_4_se(exact, 200_000, "greedy", "yahtzee")
    # the simulated histogram against the exact pmf: chi-square over pooled bins
    h = sim.histogram.astype(float)
    n = h.sum()
    p = np.zeros(max(len(h), len(exact.pmf)))
    p[: len(exact.pmf)] = exact.pmf
    h = np.pad(h, (0, len(p) - len(h)))
    edges = np.searchsorted(np.cumsum(p), np.linspace(0, 1, 41)[1:-1])
    obs = np.add.reduceat(h, np.r_[0, edges])
    exp = np.add.reduceat(p, np.r_[0, edges]) * n
    keep = exp > 0
    chi2 = ((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum()
    assert chi2 < 80  # ~40 bins; P(χ²₃₉ > 80) < 1e-4


DETERMINISTIC = [
    s
    for s in strategy_ids()
    if strategy_class(s).deterministic
    and not strategy_class(s).uses_total
    and s not in ("optimal",)
    # one card: the cards share one class and differ only in their rules (every shipped
    # card's stated mean is checked against simulation in test_cards)
    and not (s.startswith("card") and s != "card-10")
]


@pytest.mark.slow
@pytest.mark.parametrize("strategy", DETERMINISTIC)
def test_exact_moments_agree_with_simulation(strategy):
    """Exact mean and SD within 4 SE of 100,000 simulated games, and every box's mean and
    the bonus rate within 4 SE too.

    Sample size: 100,000 games put 4 SE of the mean at 0.5–0.8 points (SD ≈ 40–60), so a
    disagreement between the engine and the exact evaluator of a point or more fails; the
    per-box and bonus comparisons catch a wrong box (the usual bug) with far more power
    than the total's mean at a million games (4 SE ≤ 0.32 points per box, ≤ 0.0064 for the
    bonus rate), at a tenth of the games.
    """
    n = 100_000
    exact = exact_law(strategy, distribution=False)
    s = _within_4_se(exact, n, strategy, "yahtzee", seed=3).summary()
    rules = get_rules("yahtzee")
    # a box's points lie in [0, max]: SD <= max / 2
    se_box = rules.tables.score_table.max(axis=0) / 2 / np.sqrt(n)
    got = np.array([s["box_means"][c] for c in rules.box_names])
    assert (np.abs(got - exact.box_means) < 4 * se_box).all(), (strategy, got)
    se_bonus = np.sqrt(max(exact.bonus_rate * (1 - exact.bonus_rate), 1e-4) / n)
    assert abs(s["bonus_rate"] - exact.bonus_rate) < 4 * se_bonus, (strategy, s["bonus_rate"])


# ------------------------------------------------------------------ refusals
def test_random_strategies_are_refused():
    with pytest.raises(ExactEvaluationError, match="random"):
        evaluate("random", "yahtzee")


class _UsesTotal(BatchedOnly):
    uses_total = True


class _Sneaky(BatchedOnly):
    """Says it is position-only but looks at the running score."""

    def box(self, view):
        out = np.asarray(self.inner.box(view)).copy()
        legal = view.legal_boxes
        alt = np.argmax(legal[:, ::-1], axis=1)
        alt = legal.shape[1] - 1 - alt  # the last legal box
        return np.where(view.score > 100, alt, out)


def test_strategies_using_the_score_are_refused():
    with pytest.raises(ExactEvaluationError, match="running score"):
        evaluate(_UsesTotal(get_strategy("greedy")), "yahtzee")
    with pytest.raises(ExactEvaluationError, match="position only"):
        evaluate(_Sneaky(get_strategy("greedy")), "yahtzee", distribution=False)


class _Illegal(BatchedOnly):
    def box(self, view):
        return np.zeros(len(view), dtype=np.int64)  # always "ones", even when filled


def test_illegal_box_is_reported_with_the_position():
    with pytest.raises(IllegalMoveError, match="illegal box choice with filled \\['ones'\\]"):
        evaluate(_Illegal(get_strategy("greedy")), "yahtzee", distribution=False)


# ------------------------------------------------------------ properties
@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(q=st.floats(0, 100))
def test_percentile_is_the_smallest_score_with_cdf_at_least_q(optimal_free_joker, q):
    r = optimal_free_joker
    x = r.percentile(q)
    cdf = r.cdf()
    assert r.pmf[x] > 0 or q == 0
    assert cdf[x] >= q / 100 - 1e-12
    if x > r.min:
        assert cdf[x - 1] < q / 100


@settings(max_examples=15, deadline=None)
@given(rolls=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_two_yatzy_laws_sum_to_one_for_any_roll_count(rolls, seed):
    rules = f"2-yatzy@{rolls}"
    r = evaluate("greedy", rules)
    assert abs(r.pmf.sum() - 1) < 1e-12
    sim = simulate_aggregate("greedy", 2000, seed=seed, rules=rules)
    assert sim.summary()["max"] <= r.max and sim.summary()["min"] >= r.min


# ----------------------------------------------------------------------- CLI
def test_cli_exact_json_and_plot(capsys, tmp_path):
    png = tmp_path / "law.png"
    code = main(
        ["exact", "--strategy", "greedy", "--rules", "2-yatzy", "--json", "--plot", str(png)]
    )
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert {*SUMMARY_KEYS, "pmf", "n_states"} <= set(data)
    assert data["strategy"] == "greedy" and data["rules"] == "2-yatzy"
    assert sum(data["pmf"]) == pytest.approx(1) and len(data["pmf"]) == data["max"] + 1
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--strategy", "random"], "random"),
        (["--strategy", "nope"], "unknown strategy"),
        (["--plot", "x.txt"], "--plot"),
        (["--moments-only", "--plot", "x.png"], "--moments-only"),
        (["--rules", "nope"], "unknown rules"),
    ],
)
def test_cli_exact_errors_are_one_line(capsys, args, needle):
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(["exact", "--quiet", *args]))
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err

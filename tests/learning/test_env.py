"""Gymnasium environments, the observation/action encoding and policy wrappers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from yahtzee_sim import simulate  # noqa: E402
from yahtzee_sim.engine.observation import (  # noqa: E402
    action_masks,
    describe_action,
    n_actions,
    observation_layout,
    random_legal_actions,
)
from yahtzee_sim.errors import IllegalMoveError, YahtzeeSimError  # noqa: E402
from yahtzee_sim.exact.laws import ExactEvaluationError, evaluate  # noqa: E402
from yahtzee_sim.game.rules import get_rules  # noqa: E402
from yahtzee_sim.learning.env import YahtzeeEnv, YahtzeeVectorEnv  # noqa: E402
from yahtzee_sim.strategies import PolicyStrategy, as_policy  # noqa: E402


def _play_vector(rules, strategy, n, seed):
    """Final score of games 0..n-1 in a vector env driven by ``strategy``."""
    envs = YahtzeeVectorEnv(n, rules=rules)
    policy = as_policy(strategy, rules)
    obs, info = envs.reset(seed=seed)
    finals, returns = {}, np.zeros(n)
    while len(finals) < n:
        obs, reward, term, trunc, info = envs.step(policy(obs, info["action_mask"]))
        assert not trunc.any()
        returns += reward
        for i in np.flatnonzero(term):
            finals.setdefault(int(info["game"][i]), (int(info["final_score"][i]), returns[i]))
        returns[term] = 0
    return finals


@pytest.mark.parametrize(("rules", "strategy"), [("yahtzee", "greedy"), ("yatzy", "optimal")])
def test_vector_env_deals_simulate_dice(rules, strategy):
    n = 200
    finals = _play_vector(rules, strategy, n, seed=11)
    sim = simulate(strategy, n, seed=11, rules=rules)
    got = np.array([finals[g][0] for g in range(n)])
    np.testing.assert_array_equal(got, sim.total)
    # the rewards add up to the final score
    np.testing.assert_array_equal([finals[g][1] for g in range(n)], sim.total)


def test_single_env_plays_consecutive_games_of_its_seed():
    env = gymnasium.make("YahtzeeSim/Yahtzee-v0")
    policy = as_policy("greedy", "yahtzee")
    sim = simulate("greedy", 4, seed=5)
    totals = []
    for k in range(4):
        obs, info = env.reset(seed=5) if k == 0 else env.reset()
        assert info["game"] == k
        done, ret = False, 0.0
        while not done:
            obs, r, done, _, info = env.step(int(policy(obs[None], None)[0]))
            ret += r
        assert info["final_score"] == ret
        totals.append(ret)
    np.testing.assert_array_equal(totals, sim.total)
    # options pick a game: the same game again
    obs, info = env.reset(options={"game": 2})
    assert info["game"] == 2


@pytest.mark.parametrize("env_id", ["YahtzeeSim/Yahtzee-v0", "YahtzeeSim/Yatzy-v0"])
def test_gymnasium_checker_passes_with_the_defaults(env_id):
    """Gymnasium's checker, called as its documentation says, on each registered id."""
    env = gymnasium.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("env_id", ["YahtzeeSim/Yahtzee-v0", "YahtzeeSim/Yatzy-v0"])
def test_vector_env_takes_unmasked_samples_with_the_defaults(env_id):
    """Gymnasium has no checker for vector environments: the same checks by hand (spaces
    hold what reset/step return; unmasked sampled actions are penalized, not raised)."""
    envs = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    envs.action_space.seed(0)
    obs, info = envs.reset(seed=0)
    rules = envs.unwrapped.rules
    assert obs.shape == (3, observation_layout(rules)["score"].stop)
    assert info["action_mask"].shape == (3, n_actions(rules))
    assert envs.observation_space.contains(obs)
    illegal = 0
    for _ in range(50):
        before = obs.copy()
        a = envs.action_space.sample()
        obs, r, term, _, info = envs.step(a)
        assert envs.observation_space.contains(obs)
        bad = info["illegal"]
        illegal += int(bad.sum())
        np.testing.assert_array_equal(obs[bad], before[bad])
        assert (r[bad] == -1.0).all() and not term[bad].any()
    assert illegal > 0


def test_yatzy_observation_space_has_no_constant_entry():
    env = gymnasium.make("YahtzeeSim/Yatzy-v0").unwrapped
    space = env.observation_space
    assert (space.low < space.high).all()
    obs, _ = env.reset(seed=0)
    assert obs[observation_layout(env.rules)["flag"]][0] == 0 and space.contains(obs)


def test_observation_fields_and_render():
    env = YahtzeeEnv(render_mode="ansi")
    obs, _ = env.reset(seed=1)
    rules = env.rules
    lay = observation_layout(rules)
    assert obs[lay["dice"]].sum() == 5 and obs[lay["rolls_left"]][0] == 2
    assert obs[lay["used"]].sum() == 0 and obs[lay["score"]][0] == 0
    # keep everything: the turn's rolling ends, the next decision is the box
    everything = int(rules.tables.keep_index(obs[lay["dice"]]))
    obs, r, *_ = env.step(everything)
    assert r == 0 and obs[lay["rolls_left"]][0] == 0
    mask = env.unwrapped._batch.action_mask()[0]
    assert mask[: rules.tables.n_keeps].sum() == 0 and mask[rules.tables.n_keeps :].all()
    faces = np.arange(1, 7) @ obs[lay["dice"]]
    obs, r, *_ = env.step(rules.tables.n_keeps + rules.box_index("chance"))
    assert r == faces and obs[lay["used"]][rules.box_index("chance")] == 1
    assert "turn 2" in env.render()


def test_illegal_actions_raise_or_penalize():
    env = YahtzeeEnv(illegal_action="raise")
    obs, info = env.reset(seed=2)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError, match=r"illegal action \d+ \(.*\) in game 0, turn 1"):
        env.step(bad)
    soft = YahtzeeEnv(illegal_penalty=-5)  # the default mode: penalty
    obs, info = soft.reset(seed=2)
    obs2, r, term, _, info2 = soft.step(bad)
    assert r == -5 and info2["illegal"] and not term
    np.testing.assert_array_equal(obs, obs2)
    envs = YahtzeeVectorEnv(4, illegal_action="raise")
    _, info = envs.reset(seed=0)
    a = random_legal_actions(info["action_mask"], np.random.default_rng(0))
    a[2] = n_actions(envs.rules) + 7
    before = envs._batch.dice.copy()
    with pytest.raises(IllegalMoveError, match="out of range"):
        envs.step(a)
    np.testing.assert_array_equal(envs._batch.dice, before)  # nothing moved


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"rules": "monopoly"}, "monopoly"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"illegal_penalty": "lots"}, "illegal_penalty"),
    ],
)
def test_environments_refuse_bad_arguments(kwargs, match):
    with pytest.raises(YahtzeeSimError, match=match):
        YahtzeeVectorEnv(**{"num_envs": 2, **kwargs})


def test_vector_env_autoresets_next_step():
    n = 3
    envs = YahtzeeVectorEnv(n, rules="2-yatzy")
    rng = np.random.default_rng(1)
    obs, info = envs.reset(seed=4)
    seen = set(info["game"].tolist())
    ended = 0
    for _ in range(200):
        obs, r, term, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
        if term.any():
            ended += 1
            i = int(np.flatnonzero(term)[0])
            game = int(info["game"][i])
            obs, r, term2, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
            assert r[i] == 0 and not term2[i]
            assert info["game"][i] == game + n and info["turn"][i] == 1
            assert obs[i, observation_layout(envs.rules)["score"]][0] == 0
            seen.update(info["game"].tolist())
    assert ended > 5 and seen <= set(range(0, 200 * n))
    with pytest.raises(YahtzeeSimError, match="shape"):
        envs.step(np.zeros(n + 1, dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_masks_mark_exactly_the_legal_moves(data):
    rules = get_rules(data.draw(st.sampled_from(["yahtzee", "yatzy", "yahtzee-free-joker"])))
    t = rules.tables
    r = data.draw(st.integers(0, t.n_rolls - 1))
    used = data.draw(st.integers(0, (1 << rules.n_boxes) - 2))
    flag = data.draw(st.integers(0, 1)) if rules.has_yahtzee_flag else 0
    rl = data.draw(st.integers(0, rules.rolls_per_turn - 1))
    mask = action_masks(rules, [r], rl, [used], [flag])[0]
    if rl:
        keeps = np.flatnonzero(mask)
        assert (t.keep_counts[keeps] <= t.roll_counts[r]).all()
        n_sub = np.prod(t.roll_counts[r].astype(int) + 1)  # every sub-multiset
        assert len(keeps) == n_sub and not mask[t.n_keeps :].any()
    else:
        from yahtzee_sim.engine.view import TurnView

        view = TurnView(
            rules,
            np.zeros(1, dtype=np.int64),
            t.roll_counts[[r]],
            np.array([r], dtype=np.int32),
            0,
            bin(used).count("1"),
            np.array([used]),
            np.zeros(1, dtype=np.int64),
            np.array([flag]),
            np.zeros(1, dtype=np.int64),
            np.zeros((1, rules.n_boxes), dtype=np.int16),
        )
        np.testing.assert_array_equal(mask[t.n_keeps :] == 1, view.legal_boxes[0])
        assert not mask[: t.n_keeps].any()


def test_random_legal_actions_are_legal_and_uniform():
    rules = get_rules("yahtzee")
    roll = int(rules.tables.roll_index(rules.tables.counts_from_faces((1, 2, 2, 5, 6))))
    mask = action_masks(rules, np.full(24_000, roll), 1, np.zeros(24_000), np.zeros(24_000))
    a = random_legal_actions(mask, np.random.default_rng(3))
    legal = np.flatnonzero(mask[0])
    assert np.isin(a, legal).all()
    counts = np.array([(a == k).sum() for k in legal])
    assert chisquare(counts).pvalue > 1e-4
    assert describe_action(rules, int(legal[0])) == "keep nothing"
    assert random_legal_actions(np.zeros((2, 5), dtype=np.int8), np.random.default_rng())[0] == -1


def test_policy_strategy_is_simulated_and_evaluated_exactly():
    rules = get_rules("2-yatzy")
    expert = as_policy("optimal", rules)
    agent = PolicyStrategy(expert, label="agent")
    assert agent.name == "agent"
    got, want = evaluate(agent, rules), evaluate("optimal", rules)
    assert got.mean == pytest.approx(want.mean, abs=1e-12)
    np.testing.assert_allclose(got.pmf, want.pmf, atol=1e-12)
    a = simulate(agent, 500, seed=3, rules=rules)
    np.testing.assert_array_equal(a.total, simulate("optimal", 500, seed=3, rules=rules).total)


def test_policy_errors():
    rules = get_rules("yahtzee")
    lay = observation_layout(rules)

    def box_at_once(obs, mask):  # scores before rolling is over
        return np.full(len(obs), rules.tables.n_keeps, dtype=np.int64)

    with pytest.raises(IllegalMoveError, match=r"policy 'eager' chose illegal action 462 \(ones\)"):
        simulate(PolicyStrategy(box_at_once, label="eager"), 10)

    def floats(obs, mask):
        return np.zeros(len(obs))

    with pytest.raises(IllegalMoveError, match="integer actions of shape"):
        simulate(PolicyStrategy(floats), 10)

    first_legal = as_policy("greedy", rules)

    def score_reader(obs, mask):  # plays differently when ahead: not position-only
        a = first_legal(obs, mask)
        ahead = (obs[:, lay["score"].start] > 100) & (obs[:, lay["rolls_left"].start] > 0)
        return np.where(ahead, rules.tables.keep_index(obs[:, lay["dice"]]), a)

    with pytest.raises(ExactEvaluationError, match="different decisions"):
        evaluate(PolicyStrategy(score_reader, label="reader"), rules)

"""The Gymnasium environment on games with saved rolls: stopping banks the rolls left."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from yahtzee_sim import get_rules, simulate  # noqa: E402
from yahtzee_sim.engine.observation import observation_bounds, observation_layout  # noqa: E402
from yahtzee_sim.learning.env import YahtzeeEnv, YahtzeeVectorEnv  # noqa: E402
from yahtzee_sim.strategies import PolicyStrategy, as_policy  # noqa: E402

from helpers import small_saved_game  # noqa: E402


@pytest.mark.parametrize("rules", [small_saved_game(cap=2), "maxi-yatzy"], ids=str)
def test_gymnasium_checker_passes_on_saved_rolls(rules):
    env = YahtzeeEnv(rules)
    check_env(env, skip_render_check=True)
    lay, high = observation_layout(env.rules), observation_bounds(env.rules)[1]
    assert high[lay["saved"]][0] == env.rules.saved_roll_cap
    assert high[lay["rolls_left"]][0] == env.rules.max_rolls - 1


def test_stopping_banks_the_rolls_left_in_the_observation():
    rules = small_saved_game(cap=2)
    env = YahtzeeEnv(rules)
    obs, info = env.reset(seed=3)
    lay = observation_layout(rules)
    assert obs[lay["rolls_left"]][0] == 1 and obs[lay["saved"]][0] == 0
    stop = int(rules.tables.roll_keep_index[rules.tables.roll_index(obs[lay["dice"]])])
    assert info["action_mask"][stop] == 1  # keeping every die: stop and bank
    obs, reward, _, _, info = env.step(stop)
    assert reward == 0 and obs[lay["rolls_left"]][0] == 0 and obs[lay["saved"]][0] == 1
    box = int(np.flatnonzero(info["action_mask"])[0])
    obs, *_ = env.step(box)
    assert obs[lay["rolls_left"]][0] == 2 and obs[lay["saved"]][0] == 0  # 1 + the bank


@pytest.mark.parametrize("strategy", ["greedy", "optimal"])
def test_policies_of_saved_roll_games_play_the_engines_games(strategy):
    rules = small_saved_game(cap=2)
    n = 60
    envs = YahtzeeVectorEnv(n, rules=rules)
    policy = as_policy(strategy, rules)
    obs, info = envs.reset(seed=7)
    finals = {}
    while len(finals) < n:
        obs, _, term, _, info = envs.step(policy(obs, info["action_mask"]))
        for i in np.flatnonzero(term):
            finals.setdefault(int(info["game"][i]), int(info["final_score"][i]))
    sim = simulate(strategy, n, seed=7, rules=rules)
    np.testing.assert_array_equal([finals[g] for g in range(n)], sim.total)
    # the policy as a strategy is simulated: the same games
    agent = PolicyStrategy(as_policy(strategy, rules), label="agent")
    np.testing.assert_array_equal(simulate(agent, n, seed=7, rules=rules).total, sim.total)


def test_maxi_yatzy_policy_is_simulated():
    rules = get_rules("maxi-yatzy+cap2")
    agent = PolicyStrategy(as_policy("greedy", rules), label="agent")
    np.testing.assert_array_equal(
        simulate(agent, 20, seed=1, rules=rules).total,
        simulate("greedy", 20, seed=1, rules=rules).total,
    )

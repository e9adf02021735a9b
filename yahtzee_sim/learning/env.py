"""Gymnasium environments: one game (:class:`YahtzeeEnv`) or many in lockstep
(:class:`YahtzeeVectorEnv`), on the engine's own kernels.

Needs the optional extra ``rl`` (``pip install "yahtzee-sim[rl]"``, which brings
``gymnasium``). Importing this module registers the environment ids

* ``YahtzeeSim/Yahtzee-v0`` — official Yahtzee (``rules="yahtzee"``),
* ``YahtzeeSim/Yatzy-v0`` — Scandinavian Yatzy (``rules="yatzy"``),

and any preset plays through the ``rules`` argument::

    import gymnasium as gym
    import yahtzee_sim.learning.env  # registers the ids

    env = gym.make("YahtzeeSim/Yahtzee-v0")
    envs = gym.make_vec("YahtzeeSim/Yatzy-v0", num_envs=4096,
                        vectorization_mode="vector_entry_point")

Observations, actions and the action mask (``info["action_mask"]``) are those of
:mod:`yahtzee_sim.engine.observation`. The reward of a step is the points it scored, bonuses
included (0 for a keep), so an episode's return is the game's final score.

**Seeding follows the engine's dice.** ``reset(seed=s)`` starts game 0 of seed ``s``;
each later ``reset()`` the next game (``options={"game": g}`` picks one). The vector
environment plays game ``i`` in copy ``i`` and, when copy ``i`` starts a new game, the
game ``num_envs`` further on. The dice of game ``g`` are those ``simulate(..., seed=s)``
deals game ``g``: the same seed and the same decisions give the same games.

**Illegal actions** (those ``info["action_mask"]`` marks 0, e.g. an unmasked
``action_space.sample()``) by default (``illegal_action="penalty"``) leave the position
as it was (same dice, rolls left, card and score; the game does not end), give the
reward ``illegal_penalty`` (default ``-1.0``) and set ``info["illegal"]`` (``True``;
in the vector environment a bool array, one entry per copy). This is what Gymnasium's
own checker expects of an environment with the documented defaults::

    from gymnasium.utils.env_checker import check_env
    check_env(gym.make("YahtzeeSim/Yahtzee-v0").unwrapped)

With ``illegal_action="raise"`` they raise :class:`~yahtzee_sim.errors.IllegalMoveError`
instead (naming the game, the turn, the dice and the action), changing nothing — the
strict mode for an agent that should only ever play masked actions.

**Saved rolls** (``maxi-yatzy``, a ``+capN`` variant): keeping every die with rerolls left
stops the turn and banks the rolls left for the next (up to the cap) — the real action
set, no action of its own; a turn then has its rules' rolls plus the bank, so
``rolls_left`` counts the bank, and the observation's ``saved`` entry holds, at a box
decision, the rolls the turn saves (:mod:`yahtzee_sim.engine.observation`).

Every observation entry has ``low < high``: an entry a rule set holds constant (Yatzy's
Yahtzee-bonus flag, always 0) has the bounds ``[0, 1]``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "yahtzee_sim.learning.env needs gymnasium: pip install 'yahtzee-sim[rl]'"
    ) from exc

from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.observation import describe_action, n_actions, observation_bounds
from yahtzee_sim.errors import IllegalMoveError, YahtzeeSimError
from yahtzee_sim.game.dice import DiceTables
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.validation import Integer, OneOf, Real, check

ILLEGAL_MODES = ("penalty", "raise")


def _space(rules: RuleSet) -> spaces.Box:
    """The observation space: :func:`observation_bounds`, with ``high = low + 1`` for an
    entry the rules hold constant (a Box dimension with ``low == high`` is degenerate)."""
    low, high = observation_bounds(rules)
    return spaces.Box(low, np.maximum(high, low + 1), dtype=np.int16)


def _illegal_rows(mask: np.ndarray, actions: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Which of ``rows`` (bool) the ``actions`` are illegal for, by the action ``mask``."""
    a = np.clip(actions, 0, mask.shape[1] - 1)
    ok = (actions >= 0) & (actions < mask.shape[1])
    ok &= mask[np.arange(len(mask)), a] == 1
    return rows & ~ok


def _illegal_action(batch: GameBatch, i: int, action) -> IllegalMoveError:
    """The error for the illegal ``action`` of row ``i`` of ``batch``."""
    rules = batch.rules
    dice = DiceTables.faces_from_counts(batch.dice[i])
    a = int(action)
    what = describe_action(rules, a)
    rl = int(batch.rolls_left[i])
    allowed = (
        f"keeps 0..{rules.tables.n_keeps - 1} that the dice hold"
        if rl
        else f"boxes {rules.tables.n_keeps}..{n_actions(rules) - 1} the rules allow"
    )
    game, turn = int(batch.games[i]), int(batch.turn[i]) + 1
    return IllegalMoveError(
        f"illegal action {a} ({what}) in game {game}, turn {turn}, rolls left {rl}, "
        f"dice {list(dice)}: legal are {allowed} (see info['action_mask'])",
        strategy="env",
        game=game,
        turn=turn,
        dice=dice,
        action=a,
    )


def _check_rules(rules) -> RuleSet:
    return get_rules(rules)


def _check_illegal(mode: str, penalty) -> tuple[str, float]:
    mode = check("illegal_action", mode, OneOf(*ILLEGAL_MODES))
    return mode, check("illegal_penalty", penalty, Real())


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().entropy % (2**63))


class YahtzeeEnv(gymnasium.Env):
    """One game of Yahtzee or Yatzy as a Gymnasium environment.

    Parameters
    ----------
    rules : str or RuleSet
        A preset name (see :data:`yahtzee_sim.game.rules.PRESETS`) or a rule set.
    illegal_action : {"penalty", "raise"}
        What an illegal action does (see the module docstring): ``"penalty"`` (the
        default) changes nothing and rewards ``illegal_penalty``; ``"raise"`` raises
        :class:`~yahtzee_sim.errors.IllegalMoveError`.
    illegal_penalty : float
        Reward of an illegal action in ``"penalty"`` mode (default ``-1.0``).
    render_mode : {None, "ansi"}
        ``"ansi"``: :meth:`render` returns the position as text.
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: str | RuleSet = "yahtzee",
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.rules = _check_rules(rules)
        self.illegal_action, self.illegal_penalty = _check_illegal(illegal_action, illegal_penalty)
        self.render_mode = check(
            "render_mode", render_mode, OneOf(None, "ansi", description="None or 'ansi'")
        )
        self.observation_space = _space(self.rules)
        self.action_space = spaces.Discrete(n_actions(self.rules))
        self._batch = GameBatch(self.rules, 1)
        self._mask = self._batch.action_mask()
        self._next_game = 0
        self._over = True

    def _info(self) -> dict:
        """The info of the position now (refreshes the action mask legality is checked by)."""
        b = self._batch
        self._mask = b.action_mask()
        return {
            "action_mask": self._mask[0].copy(),
            "game": int(b.games[0]),
            "turn": int(b.turn[0]) + 1,
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._batch.seed(check("seed", seed, Integer(0)))
            self._next_game = 0
        elif not self._batch.seeded:
            self._batch.seed(_fresh_seed())
        game = check("options['game']", (options or {}).get("game", self._next_game), Integer(0))
        self._batch.start(np.array([0]), np.array([game]))
        self._next_game = game + 1
        self._over = False
        return self._batch.observation()[0], self._info()

    def step(self, action):
        if self._over:
            raise YahtzeeSimError("the game is over: call reset() before step()")
        b = self._batch
        a = np.array([int(np.asarray(action).item())], dtype=np.int64)
        one = np.ones(1, dtype=np.bool_)
        if _illegal_rows(self._mask, a, one)[0]:
            if self.illegal_action == "raise":
                raise _illegal_action(b, 0, a[0])
            info = self._info()
            info["illegal"] = True
            return b.observation()[0], self.illegal_penalty, False, False, info
        reward, over = b.step(a, one)
        self._over = bool(over[0])
        info = self._info()
        if self._over:
            info["final_score"] = int(b.score[0])
        return b.observation()[0], float(reward[0]), self._over, False, info

    def render(self):
        if self.render_mode != "ansi":
            return None
        b, rules = self._batch, self.rules
        dice = " ".join(map(str, DiceTables.faces_from_counts(b.dice[0])))
        card = ", ".join(
            f"{name} {int(b.box_scores[0, c])}"
            for c, name in enumerate(rules.box_names)
            if (int(b.used[0]) >> c) & 1
        )
        return (
            f"game {int(b.games[0])}, turn {int(b.turn[0]) + 1}, dice {dice}, "
            f"rolls left {int(b.rolls_left[0])}, score {int(b.score[0])}; filled: {card or '-'}"
        )


class YahtzeeVectorEnv(VectorEnv):
    """``num_envs`` games in lockstep on the engine's kernels (no Python loop per game).

    Autoreset is Gymnasium's default, ``NEXT_STEP``: the step after a game ends starts
    the copy's next game (its action is ignored; reward 0). ``info`` holds arrays:
    ``action_mask`` ``(num_envs, n_actions)`` int8, ``game`` and ``turn``; at a game's
    last step also ``final_score`` (with ``_final_score`` marking the copies).

    Parameters
    ----------
    num_envs : int
        Games played at once (>= 1).
    rules, illegal_action, illegal_penalty
        As :class:`YahtzeeEnv`. In ``"penalty"`` mode a copy whose action is illegal
        stays where it was (reward ``illegal_penalty``, ``info["illegal"]`` marks it)
        while the others move; in ``"raise"`` mode an illegal action of any copy raises
        before any copy moves.
    """

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        rules: str | RuleSet = "yahtzee",
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
    ) -> None:
        self.num_envs = check("num_envs", num_envs, Integer(1))
        self.rules = _check_rules(rules)
        self.illegal_action, self.illegal_penalty = _check_illegal(illegal_action, illegal_penalty)
        self.single_observation_space = _space(self.rules)
        self.single_action_space = spaces.Discrete(n_actions(self.rules))
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self._batch = GameBatch(self.rules, self.num_envs)
        self._mask = self._batch.action_mask()
        self._next = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False

    def _info(self) -> dict:
        """The info of the position now (refreshes the action mask legality is checked by)."""
        b = self._batch
        self._mask = b.action_mask()
        return {"action_mask": self._mask.copy(), "game": b.games.copy(), "turn": b.turn + 1}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._batch.seed(check("seed", seed, Integer(0)))
        elif not self._started:
            self._batch.seed(_fresh_seed())
        n = self.num_envs
        rows = np.arange(n)
        if seed is not None or not self._started:
            self._next = rows.copy()
        self._batch.start(rows, self._next)
        self._next = self._next + n
        self._autoreset[:] = False
        self._started = True
        return self._batch.observation(), self._info()

    def step(self, actions):
        if not self._started:
            raise YahtzeeSimError("call reset() before step()")
        b = self._batch
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise YahtzeeSimError(
                f"actions must be integers of shape ({self.num_envs},), "
                f"got {a.dtype} array of shape {a.shape}"
            )
        a = a.astype(np.int64)
        restart = self._autoreset.copy()
        live = ~restart
        bad = _illegal_rows(self._mask, a, live)
        rewards = np.zeros(self.num_envs)
        if bad.any():
            if self.illegal_action == "raise":
                i = int(np.flatnonzero(bad)[0])
                raise _illegal_action(b, i, a[i])
            live &= ~bad
            rewards[bad] = self.illegal_penalty
        got, over = b.step(a, live)
        rewards += got
        final = {}
        if over.any():
            final = {"final_score": np.where(over, b.score, 0), "_final_score": over.copy()}
        if restart.any():
            rows = np.flatnonzero(restart)
            b.start(rows, self._next[rows])
            self._next[rows] += self.num_envs
        info = self._info() | final
        if self.illegal_action == "penalty":
            info["illegal"] = bad
        self._autoreset = over
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return b.observation(), rewards, over.copy(), truncated, info


def _register() -> None:
    ids = {"YahtzeeSim/Yahtzee-v0": "yahtzee", "YahtzeeSim/Yatzy-v0": "yatzy"}
    for env_id, preset in ids.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="yahtzee_sim.learning.env:YahtzeeEnv",
            vector_entry_point="yahtzee_sim.learning.env:YahtzeeVectorEnv",
            kwargs={"rules": preset},
        )


_register()

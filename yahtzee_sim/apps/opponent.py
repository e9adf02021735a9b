"""An opponent for a person's game: a strategy in the second seat of a visible match.

The person (:class:`~yahtzee_sim.apps.game.Game`) sits in seat 0 and plays first in every
round; after each of the person's turns the opponent plays its whole turn, as a seat of a
tournament's visible match does (:func:`yahtzee_sim.engine.lockstep.play_turn` with the
:class:`~yahtzee_sim.engine.view.MatchInfo` of
:func:`yahtzee_sim.multiplayer.matches.match_info`), so opponent-aware strategies
(``win-aware``, ``chase``, ``win:2``) see the person's score sheet. Its dice are those
seat 1 rolls in a tournament of the game's seed (the stream of
:func:`~yahtzee_sim.multiplayer.matches.seat_seed` ``(seed, 1)``): the same seed and the
same moves of the person give the same opponent turns.
"""

from __future__ import annotations

import numpy as np

from yahtzee_sim.apps.score_sheet import sheet_state
from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.engine.decide import prepare
from yahtzee_sim.engine.lockstep import play_turn
from yahtzee_sim.engine.records import FORMAT, DecisionRecorder, records_from_decisions
from yahtzee_sim.engine.summary import strategy_label
from yahtzee_sim.game.rules import RuleSet
from yahtzee_sim.multiplayer.matches import match_info, seat_keys, seat_seed


class Opponent:
    """A strategy playing seat 1 against the person's game ``person`` (seat 0).

    Parameters
    ----------
    rules : RuleSet
    strategy : Strategy
        The opponent (checked against the rules and prepared here).
    seed, game : int
        The person's game: the opponent rolls game ``game`` of seat 1's stream of ``seed``.
    person : GameBatch
        The person's game (one row), whose score sheet the opponent sees.

    Attributes
    ----------
    record : dict
        The opponent's game record so far (:mod:`yahtzee_sim.engine.records`), with ``seat``.
    last_points : int or None
        Points its last turn scored (bonuses included).
    """

    def __init__(self, rules: RuleSet, strategy, seed: int, game: int, person: GameBatch):
        strategy.check_rules(rules)
        prepare(strategy, rules)
        self.rules = rules
        self.strategy = strategy
        self.label = strategy_label(strategy)
        self.person = person
        self.batch = GameBatch(rules, 1, game, *seat_keys(seed, 2)[1])
        self.record = {
            "format": FORMAT,
            "rules": rules.name,
            "strategy": self.label,
            "seed": seat_seed(seed, 1),
            "game": game,
            "seat": 1,
            "turns": [],
        }
        self.last_points: int | None = None

    def play(self, turn: int) -> None:
        """Play the opponent's turn ``turn`` (0-based), the person's turn ``turn`` done."""
        recorder = DecisionRecorder(self.strategy)
        before = int(self.batch.score[0])
        play_turn(self.batch, recorder, turn, match_info([self.person, self.batch], 1, turn))
        rec = recorder.decisions()
        rec["turn"] = np.zeros_like(rec["turn"])  # this turn alone
        self.record["turns"] += records_from_decisions(self.rules, rec, {})[0]["turns"]
        self.last_points = int(self.batch.score[0]) - before

    def state(self) -> dict:
        """JSON-ready: the strategy, its score sheet
        (:func:`~yahtzee_sim.apps.score_sheet.sheet_state`), turns played and its last turn
        (rolls, keeps, box, points) or ``None``."""
        turns = self.record["turns"]
        last = None if not turns else turns[-1] | {"points": self.last_points}
        return {
            "strategy": self.label,
            **sheet_state(self.rules, self.batch),
            "turns": len(turns),
            "last_turn": last,
        }

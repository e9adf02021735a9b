"""One generic battery of checks for any rule set: :func:`check_rules`.

Like Gymnasium's ``check_env`` for an environment (or OpenSpiel's random-simulation test,
run on every game), :func:`check_rules` takes any :class:`~yahtzee_sim.game.rules.RuleSet`
— a preset, a preset with house-rule switches, or one written by hand — and checks what
every rule set must satisfy, whatever its boxes:

* **dice tables**: every roll has ``n_dice`` dice, every keep→roll row is a probability
  law over the rolls that contain the keep, and a first roll's chance is the multinomial
  law of ``n_dice`` fair dice;
* **box scores**: on every roll every box scores between 0 and the most its kind declares
  (:meth:`Box.most <yahtzee_sim.game.scoring.Box.most>`, as a joker
  :meth:`~yahtzee_sim.game.scoring.Box.most_as_joker`), and every box scores on some roll;
* **state encoding**: a sample of state indices decodes into fields in range and encodes
  back to itself;
* **play**: games of the ``random`` and ``greedy`` strategies fill every box once (in score-sheet
  order under forced order), their boxes score within range, the upper bonus is paid
  exactly when the upper total reaches its threshold, Yahtzee bonuses stay within their
  rules, and each total is the sum of its boxes and bonuses;
* **solver** (``solve=True``): the optimal value of the empty sheet is finite, at most
  the most a game can score and at least ``greedy``'s simulated mean (within noise), and
  optimal play's simulated mean agrees with it (within noise).

It sits with the strategy checks in :mod:`yahtzee_sim.checks` but one layer higher, above
:mod:`yahtzee_sim.strategies`: it plays built-in strategies by id (no layer below the
strategies names one), besides the dice tables and the state encoding
(:mod:`yahtzee_sim.game`), the engine's simulation and the solver.
"""

from __future__ import annotations

from math import comb, factorial, prod

import numpy as np

from yahtzee_sim.engine.results import Results
from yahtzee_sim.engine.simulate import simulate
from yahtzee_sim.errors import RuleCheckError, RulesError
from yahtzee_sim.game.rules import RuleSet, get_rules
from yahtzee_sim.game.state import decode_state, encode_state, n_states, saved_rolls_of
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.validation import Boolean, Integer, validate_params

#: The checks :func:`check_rules` runs, in order (``"solver"`` only with ``solve=True``).
CHECKS: tuple[str, ...] = ("dice tables", "box scores", "state encoding", "play", "solver")
#: The strategies the play check plays: any legal move, and the best box for each roll.
PLAYERS: tuple[str, ...] = ("random", "greedy")
#: State indices the state-encoding check samples (all of them in smaller games).
STATE_SAMPLE = 4096
#: Standard errors a simulated mean may stray from what it is compared with.
NOISE_SE = 4.0


def _fail(rules: RuleSet, check: str, what: str) -> RuleCheckError:
    return RuleCheckError(f"rules {rules.name!r} fail the {check} check: {what}")


def _faces(counts: np.ndarray) -> tuple[int, ...]:
    """The dice of a roll given as face counts, in ascending order."""
    return tuple(f + 1 for f, n in enumerate(counts.tolist()) for _ in range(n))


def check_dice_tables(rules: RuleSet) -> None:
    """Check the rolls, the keeps and the keep→roll law of ``rules``' dice tables."""
    t = rules.tables
    n, f = rules.n_dice, rules.n_faces
    if t.n_rolls != comb(n + f - 1, n) or np.any(t.roll_counts.sum(axis=1) != n):
        raise _fail(rules, "dice tables", f"{t.n_rolls} rolls, expected every multiset of {n}")
    row_sums = np.add.reduceat(t.keep_roll_prob, t.keep_roll_ptr[:-1])
    worst = int(np.argmax(np.abs(row_sums - 1.0)))
    if abs(row_sums[worst] - 1.0) > 1e-12:
        keep = _faces(t.keep_counts[worst])
        raise _fail(rules, "dice tables", f"keep {keep} leads to rolls of total {row_sums[worst]}")
    if np.any(t.keep_roll_prob <= 0):
        raise _fail(rules, "dice tables", "a keep leads to a roll with no chance")
    keep_of_edge = np.repeat(np.arange(t.n_keeps), np.diff(t.keep_roll_ptr))
    if np.any(t.roll_counts[t.keep_roll_roll] < t.keep_counts[keep_of_edge]):
        raise _fail(rules, "dice tables", "a keep leads to a roll that does not contain it")
    first = t.keep_roll_prob[t.keep_roll_ptr[0] : t.keep_roll_ptr[1]]
    rolls = t.roll_counts[t.keep_roll_roll[t.keep_roll_ptr[0] : t.keep_roll_ptr[1]]]
    law = [factorial(n) / prod(factorial(int(c)) for c in r) / f**n for r in rolls]
    if len(first) != t.n_rolls or not np.allclose(first, law, rtol=0, atol=1e-12):
        raise _fail(rules, "dice tables", "a first roll is not the law of fair dice")


def check_box_scores(rules: RuleSet) -> None:
    """Check every box's score of every roll, normal and as a joker, against the most its
    kind declares, and that every box scores on some roll."""
    t = rules.tables
    n, f = rules.n_dice, rules.n_faces
    yahtzee_rolls = np.flatnonzero(t.yahtzee_face >= 0)
    for b, box in enumerate(rules.boxes):
        for table, rows, most in (
            (t.score_table, np.arange(t.n_rolls), box.most(n, f)),
            (t.joker_table, yahtzee_rolls, box.most_as_joker(n, f)),
        ):
            scores = table[rows, b]
            bad = np.flatnonzero((scores < 0) | (scores > most))
            if len(bad):
                r = rows[bad[0]]
                raise _fail(
                    rules,
                    "box scores",
                    f"box {box.name!r} scores {int(table[r, b])} for "
                    f"{_faces(t.roll_counts[r])}, outside 0..{most}",
                )
        if not t.score_table[:, b].any():
            raise _fail(rules, "box scores", f"box {box.name!r} scores 0 on every roll")


def check_state_encoding(rules: RuleSet, seed: int = 0) -> None:
    """Check that sampled state indices decode into fields in range and encode back."""
    size = n_states(rules)
    if size <= STATE_SAMPLE:
        index = np.arange(size)
    else:
        drawn = np.random.default_rng(seed).integers(0, size, STATE_SAMPLE)
        index = np.unique(np.concatenate([[0, size - 1], drawn]))
    used, upper, flag = decode_state(rules, index)
    saved = saved_rolls_of(rules, index)
    fields = {
        "used-mask": (used, 1 << rules.n_boxes),
        "upper total": (upper, rules.upper_cap + 1),
        "flag": (flag, rules.flag_size),
        "saved rolls": (saved, rules.saved_roll_cap + 1),
    }
    for name, (values, end) in fields.items():
        if np.any((values < 0) | (values >= end)):
            raise _fail(rules, "state encoding", f"a state decodes to a {name} outside 0..{end}")
    back = encode_state(rules, used, upper, flag, saved)
    wrong = np.flatnonzero(back != index)
    if len(wrong):
        i = int(index[wrong[0]])
        raise _fail(rules, "state encoding", f"state {i} decodes and encodes to {back[wrong[0]]}")


def _check_filled_once(rules: RuleSet, res: Results, who: str) -> None:
    """Every game fills every box once; under forced order, in score-sheet order."""
    turns = np.arange(1, rules.n_boxes + 1)
    order = np.sort(res.filled_turn, axis=1) if not rules.forced_order else res.filled_turn
    bad = np.flatnonzero(np.any(order != turns, axis=1))
    if len(bad):
        raise _fail(
            rules,
            "play",
            f"{who} game {int(bad[0])} fills its boxes at turns {res.filled_turn[bad[0]].tolist()}",
        )


def _check_box_points(rules: RuleSet, res: Results, who: str) -> None:
    """Every box of every game scores within what its kind declares."""
    n, f = rules.n_dice, rules.n_faces
    most = np.array([max(b.most(n, f), b.most_as_joker(n, f)) for b in rules.boxes])
    bad = np.argwhere((res.box_scores < 0) | (res.box_scores > most))
    if len(bad):
        g, b = (int(i) for i in bad[0])
        raise _fail(
            rules,
            "play",
            f"{who} game {g} scores {int(res.box_scores[g, b])} in {rules.box_names[b]!r}",
        )


def _check_bonuses(rules: RuleSet, res: Results, who: str) -> None:
    """The upper bonus is paid exactly at its threshold; Yahtzee bonuses follow their rules."""
    upper = res.box_scores[:, : rules.n_upper].astype(np.int64).sum(axis=1)
    paid = upper >= rules.upper_bonus_threshold if rules.upper_bonus else np.zeros(len(upper))
    bad = np.flatnonzero(res.upper_bonus != np.where(paid, rules.upper_bonus, 0))
    if len(bad):
        g = int(bad[0])
        raise _fail(
            rules,
            "play",
            f"{who} game {g} has upper total {int(upper[g])} "
            f"and upper bonus {int(res.upper_bonus[g])}",
        )
    most = rules.yahtzee_bonus_limit or rules.n_boxes
    bonuses = res.yahtzee_bonuses
    if np.any(bonuses < 0) or np.any(bonuses > np.minimum(res.yahtzees, most)):
        raise _fail(rules, "play", f"a {who} game has more Yahtzee bonuses than it may")
    if not rules.yahtzee_bonus and np.any(bonuses):
        raise _fail(rules, "play", f"a {who} game has Yahtzee bonuses in a game without them")


def _check_totals(rules: RuleSet, res: Results, who: str) -> None:
    """Each total is the sum of its boxes, its upper bonus and its Yahtzee bonuses."""
    parts = res.box_scores.astype(np.int64).sum(axis=1) + res.upper_bonus
    parts = parts + res.yahtzee_bonuses.astype(np.int64) * rules.yahtzee_bonus
    bad = np.flatnonzero(res.total != parts)
    if len(bad):
        g = int(bad[0])
        raise _fail(
            rules,
            "play",
            f"{who} game {g} totals {int(res.total[g])}, its boxes and bonuses {int(parts[g])}",
        )


def check_play(rules: RuleSet, n_games: int = 1000, seed: int = 0) -> None:
    """Play ``n_games`` games of each of :data:`PLAYERS` and check every game's sheet."""
    for who in PLAYERS:
        res = simulate(who, n_games, seed=seed, rules=rules, progress=False)
        _check_filled_once(rules, res, who)
        _check_box_points(rules, res, who)
        _check_bonuses(rules, res, who)
        _check_totals(rules, res, who)


def most_points(rules: RuleSet) -> int:
    """A bound on the final score of any game of ``rules``: every box at its most, the
    upper bonus and every Yahtzee bonus paid."""
    n, f = rules.n_dice, rules.n_faces
    boxes = sum(max(b.most(n, f), b.most_as_joker(n, f)) for b in rules.boxes)
    bonuses = (rules.yahtzee_bonus_limit or rules.n_boxes - 1) * rules.yahtzee_bonus
    return boxes + rules.upper_bonus + bonuses


def _simulated_mean(strategy: str, rules: RuleSet, n_games: int, seed: int) -> tuple[float, float]:
    """The mean final score of ``strategy`` over ``n_games`` games, and its standard error."""
    total = simulate(strategy, n_games, seed=seed, rules=rules, progress=False).total
    return float(total.mean()), float(total.std() / np.sqrt(n_games))


def check_solver(rules: RuleSet, n_games: int = 1000, seed: int = 0) -> None:
    """Check the optimal value of ``rules`` against its bounds and against simulated play
    of ``greedy`` and ``optimal``."""
    value = value_table(rules).expected_value()
    if not 0 <= value <= most_points(rules):
        raise _fail(rules, "solver", f"optimal value {value} outside 0..{most_points(rules)}")
    for strategy in ("greedy", "optimal"):
        mean, se = _simulated_mean(strategy, rules, n_games, seed)
        noise = NOISE_SE * se + 1e-9
        if mean > value + noise or (strategy == "optimal" and mean < value - noise):
            raise _fail(
                rules,
                "solver",
                f"{strategy} averages {mean:.4f} ± {se:.4f} over {n_games} games; "
                f"the optimal value is {value:.4f}",
            )


@validate_params({"solve": Boolean(), "n_games": Integer(1), "seed": Integer(0)}, error=RulesError)
def check_rules(
    rules: str | RuleSet, solve: bool = True, n_games: int = 1000, seed: int = 0
) -> tuple[str, ...]:
    """Run the generic checks of the module docstring on ``rules``.

    Parameters
    ----------
    rules : str or RuleSet
        A preset name (with house-rule switches: ``"yatzy+fh5@4"``) or a rule set.
    solve : bool
        Also check the solver (solves the rule set, or reads its table from the cache:
        seconds for the Yahtzee and Yatzy presets, far longer for Maxi Yatzy).
    n_games : int
        Games each simulation plays (>= 1).
    seed : int
        Seed of the simulations and of the sampled states (>= 0).

    Returns
    -------
    tuple of str
        The names of the checks run (:data:`CHECKS`).

    Raises
    ------
    RuleCheckError
        Naming the rule set, the first check that fails and a counterexample.

    Examples
    --------
    >>> check_rules("yacht+forced", solve=False)
    ('dice tables', 'box scores', 'state encoding', 'play')
    """
    rules = get_rules(rules)
    check_dice_tables(rules)
    check_box_scores(rules)
    check_state_encoding(rules, seed)
    check_play(rules, n_games, seed)
    if not solve:
        return CHECKS[:-1]
    check_solver(rules, n_games, seed)
    return CHECKS

"""A player's score sheet as a person reads it: the boxes, the score and the upper-bonus
outlook (the terminal game, the web page, the opponent's score sheet)."""

from __future__ import annotations

from yahtzee_sim.engine.batch import GameBatch
from yahtzee_sim.game.rules import RuleSet


def upper_outlook(rules: RuleSet, used: list[str], upper_total: int) -> str:
    """The upper bonus outlook: points still needed and what par (three of each open
    face) would bring."""
    if not rules.upper_bonus:
        return ""
    need = rules.upper_bonus_threshold - upper_total
    if need <= 0:
        return f"upper bonus secured ({upper_total} of {rules.upper_bonus_threshold})"
    open_faces = [c.param for c in rules.boxes if c.is_upper and c.name not in used]
    if not open_faces:
        return f"upper bonus missed ({upper_total} of {rules.upper_bonus_threshold})"
    par = 3 * sum(open_faces)
    return (
        f"upper bonus: {need} more needed from {len(open_faces)} open upper boxes "
        f"(par {par}: {'on track' if par >= need else 'behind par'})"
    )


def sheet_state(rules: RuleSet, batch: GameBatch) -> dict:
    """JSON-ready score sheet of the first game of ``batch``: the boxes (points, or
    ``None`` while open, in score-sheet order), the score, the upper total and bonus outlook, the
    Yahtzee bonuses."""
    used = int(batch.used[0])
    names = rules.box_names
    filled = [n for c, n in enumerate(names) if (used >> c) & 1]
    sheet = {n: (int(batch.box_scores[0, c]) if (used >> c) & 1 else None)
            for c, n in enumerate(names)}  # fmt: skip
    upper = int(batch.upper_total[0])
    return {
        "sheet": sheet,
        "score": int(batch.score[0]),
        "upper_total": upper,
        "upper_outlook": upper_outlook(rules, filled, upper),
        "yahtzee_bonuses": int(batch.yahtzee_bonuses[0]),
    }

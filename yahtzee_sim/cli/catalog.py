"""What there is to choose from: ``strategies`` and ``rules``."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from yahtzee_sim.cli import options as opt
from yahtzee_sim.game.rules import MODIFIERS, PRESETS, get_rules


def _first_sentence(doc: str | None) -> str:
    """A docstring's first sentence on one line (up to the first ". " or blank line)."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


# ------------------------------------------------------------------ strategies
def add_strategies_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``strategies``."""
    opt.add_output(p, quiet=False, json_help="print JSON")


def strategy_rows() -> list[dict]:
    """One row per registered strategy: id, version, class, its capabilities (deterministic,
    uses the score, reads a solved table, what it needs of the rules), the presets it plays,
    description, references."""
    from yahtzee_sim.strategies import (  # every strategy: not for --help
        strategy_class,
        strategy_ids,
    )

    rows = []
    for sid in strategy_ids():
        cls = strategy_class(sid)
        caps = cls.capabilities
        rows.append(
            {
                "id": sid,
                "version": cls.version,
                "class": cls.__name__,
                "deterministic": caps.deterministic,
                "uses_total": caps.uses_total,
                "solved_table": caps.solved_table,
                "in_all": cls.in_all,
                "requires": caps.needs,
                "rules": [name for name in PRESETS if cls.supports(get_rules(name))],
                "description": _first_sentence(cls.__doc__),
                "references": [asdict(r) for r in cls.references],
            }
        )
    return rows


def format_strategies(rows: list[dict]) -> str:
    """One line per strategy: id, version, description."""
    width = max(len(r["id"]) for r in rows) + 2
    return "\n".join(f"{r['id']:<{width}}v{r['version']}  {r['description']}" for r in rows)


def run_strategies(args: argparse.Namespace) -> int:
    """List the registered strategies."""
    rows = strategy_rows()
    print(json.dumps(rows) if args.json else format_strategies(rows))
    return 0


# ------------------------------------------------------------------ rules
def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``rules``."""
    p.add_argument("preset", nargs="?", default=None)
    opt.add_output(p, quiet=False, json_help="print JSON")


def format_rules(rules) -> str:
    """A rule set in a few lines: dice, rolls, bonuses, then one line per box."""
    head = (
        f"{rules.name}: {rules.n_dice} dice, {rules.n_faces} faces, "
        f"{rules.rolls_per_turn} rolls per turn, joker {rules.joker}, "
        f"Yahtzee bonus {rules.yahtzee_bonus}, upper bonus {rules.upper_bonus} at "
        f"{rules.upper_bonus_threshold}"
    )
    if rules.saved_roll_cap:
        head += f", unused rolls saved (at most {rules.saved_roll_cap})"
    if rules.forced_order:
        head += ", boxes filled in order"
    lines = [head]
    for c in rules.boxes:
        extra = f" {c.groups}" if c.groups else ""
        extra += " (one face may fill two groups)" if c.share_face else ""
        lines.append(f"  {c.name:<18}{c.kind}{extra}")
    return "\n".join(lines)


def run_rules(args: argparse.Namespace) -> int:
    """List the rule presets, or describe one (:func:`yahtzee_sim.get_rules`)."""
    if args.preset is None:
        switches = ", ".join("+" + m for m in MODIFIERS)
        text = "\n".join(PRESETS) + f"\n(house rules after a preset's name: {switches})"
        print(json.dumps(list(PRESETS)) if args.json else text)
        return 0
    rules = get_rules(args.preset)
    info = {"name": rules.name, "fingerprint": rules.fingerprint(), **rules.describe()}
    print(json.dumps(info) if args.json else format_rules(rules))
    return 0

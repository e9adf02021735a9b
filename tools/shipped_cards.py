"""Make the shipped rule cards: distil, then write each size with its exact figures.

Usage::

    python tools/shipped_cards.py --rules yahtzee [--max-rules 50] [--seed 0] [--json FILE]

Runs ``distill(rules, max_rules, seed)`` and writes ``strategies/cards/RULES-N.md`` for
N = 10, 20, 30, 50, 100 (those up to ``--max-rules``, or ``--prune-to``): the first N
rules learned (all of them when the card is shorter; with ``--prune-to P``, the card of
size P is the pruned card), with the card's exact mean, SD and 10th percentile and its
exact regret by decision type in the notes. Prints (or writes) the figures as JSON for
the docs page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

CARDS = Path(__file__).resolve().parent.parent / "strategies" / "cards"
SIZES = (10, 20, 30, 50, 100)  # shipped sizes up to --max-rules


def figures(card, rules) -> dict:
    """Exact mean, SD, percentiles and regret by decision type of ``card``."""
    from yahtzee_sim.analysis.decisions.regret import evaluate_with_regret
    from yahtzee_sim.strategies.cards import CardStrategy

    ex, reg = evaluate_with_regret(CardStrategy(card=card), rules, top=0, distribution=True)
    return {
        "n_rules": card.n_rules,
        "mean": ex.mean,
        "sd": ex.sd,
        "p10": ex.percentile(10),
        "p50": ex.percentile(50),
        "bonus_rate": ex.bonus_rate,
        "regret": reg.total,
        "regret_by_decision": {k: float(v) for k, v in reg.by_decision.items()},
    }


def notes(fig: dict, optimal: float, args, which: str) -> str:
    by = ", ".join(f"{k} {v:.2f}" for k, v in fig["regret_by_decision"].items())
    return (
        f"Exact figures (exact evaluator): exact mean {fig['mean']:.4f}, SD {fig['sd']:.2f}, "
        f"p10 {fig['p10']}, median {fig['p50']}, upper bonus rate {fig['bonus_rate']:.3f}. "
        f"Optimal play: {optimal:.4f}. Expected points lost against optimal play: "
        f"{fig['regret']:.2f} ({by}). {which} "
        f"`distill({args.rules!r}, {args.max_rules}, seed={args.seed}, n_games={args.games}"
        + (", validate=True" if args.validate else "")
        + ("" if args.prune_to is None else f", prune_to={args.prune_to}")
        + ")`."
    )


def parse_args() -> argparse.Namespace:
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--max-rules", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--validate", action="store_true", help="distill(validate=True)")
    ap.add_argument("--max-rejected", type=int, default=8)
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, SIZES)),
        help="card sizes to write (comma-separated; default all shipped sizes)",
    )
    ap.add_argument(
        "--prune-to",
        type=int,
        default=None,
        help="grow --max-rules rules, then prune to this size (shipped as that size)",
    )
    ap.add_argument(
        "--curve-at",
        default="0,1,2,5",
        help="card sizes evaluated for the curve besides the shipped ones (comma-separated)",
    )
    return ap.parse_args()


def write_cards(res, rules, args) -> tuple[dict, dict]:
    """Write the shipped cards of ``res`` (a distill result); returns the figures of each
    card and the points of the curve, by size."""
    cards: dict = {}
    curve = {p["n_rules"]: p for p in res.curve}
    limit = args.max_rules if args.prune_to is None else args.prune_to
    sizes = [int(k) for k in args.sizes.split(",") if k]
    for size in (k for k in sizes if k <= limit):
        pruned = size == args.prune_to
        card = res.card if pruned else res.card_of(size)
        which = "The pruned card of" if pruned else f"The first {card.n_rules} rules learned by"
        fig = figures(card, rules)
        curve[card.n_rules] = {
            "n_rules": card.n_rules,
            "mean": fig["mean"],
            "sd": fig["sd"],
            "regret": res.optimal - fig["mean"],
        }
        card.notes = notes(fig, res.optimal, args, which)
        title = f"Rule card: {rules.name}, {card.n_rules} rules"
        (CARDS / f"{rules.name}-{size}.md").write_text(card.format(title), encoding="utf-8")
        cards[size] = fig
    return cards, curve


def main() -> None:
    args = parse_args()

    from yahtzee_sim.analysis.decisions.distill import distill
    from yahtzee_sim.game.rules import get_rules

    rules = get_rules(args.rules)
    curve_at = [int(k) for k in args.curve_at.split(",") if k]
    res = distill(
        rules,
        args.max_rules,
        seed=args.seed,
        n_games=args.games,
        curve_at=curve_at,
        validate=args.validate,
        max_rejected=args.max_rejected,
        progress=True,
        prune_to=args.prune_to,
    )
    cards, curve = write_cards(res, rules, args)
    out = {"rules": rules.name, "optimal": res.optimal, "steps": res.steps, "cards": cards}
    out["curve"] = [curve[k] for k in sorted(curve)]
    out["card"] = res.card.format()
    text = json.dumps(out, indent=2)
    if args.json is not None:
        args.json.write_text(text)
    print(text)


if __name__ == "__main__":
    main()

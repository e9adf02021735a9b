"""``yahtzee-sim distill``: learn a rule card and its curve number of rules → exact mean."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from yahtzee_sim.cli import files
from yahtzee_sim.cli import options as opt

#: Figure formats ``--plot`` writes.
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_distill_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``distill``."""
    opt.add_rules(p, rolls_per_turn=False)
    opt.add_count(p, "--max-rules", "most rules on the card (default 30)", default=30)
    opt.add_count(
        p,
        "--prune-to",
        "grow --max-rules rules, then drop the least useful down to this many",
        default=None,
    )
    opt.add_seed(p, help="seed of the sampled games (default: 0)")
    opt.add_games(p, 3000, "games sampled per learning step (default 3000)")
    opt.add_path(p, "--out", "write the card here (Markdown)")
    opt.add_path(p, "--plot", "write the curve number of rules → exact mean (.png, .svg, .pdf)")
    opt.add_output(p)


def format_distill(res) -> str:
    """The card, then its curve: number of rules, exact mean, SD and regret."""
    lines = [res.card.format(), f"optimal play: {res.optimal:.4f}"]
    lines.append("rules  exact mean      sd  regret")
    lines += [
        f"{p['n_rules']:5d}  {p['mean']:10.4f}  {p['sd']:6.2f}  {p['regret']:6.3f}"
        for p in res.curve
    ]
    if res.pruned_point is not None:
        p = res.pruned_point
        lines.append(
            f"pruned card: {p['n_rules']} rules, exact mean {p['mean']:.4f}, "
            f"sd {p['sd']:.2f}, regret {p['regret']:.3f}"
        )
    return "\n".join(lines)


def run_distill(args: argparse.Namespace) -> int:
    """Learn a card (:func:`yahtzee_sim.analysis.decisions.distill.distill`), save it, print it."""
    # the learner loads the analysis and every strategy: imported here, not for --help.
    from yahtzee_sim.analysis.decisions.distill import distill

    files.check_file("--out", args.out)
    files.check_file("--plot", args.plot, PLOT_SUFFIXES)
    res = distill(
        opt.rules_from(args),
        max_rules=args.max_rules,
        seed=args.seed,
        n_games=args.games,
        progress=opt.progress(args),
        prune_to=args.prune_to,
    )
    if args.out is not None:
        res.card.save(Path(args.out))
    if args.plot is not None:
        from yahtzee_sim.analysis.style import COLUMN_WIDTH

        files.save_plot(args.plot, lambda ax: res.plot(ax=ax), (COLUMN_WIDTH, 2.6))
    print(json.dumps(res.to_dict(), indent=2) if args.json else format_distill(res))
    return 0

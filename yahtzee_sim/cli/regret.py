"""Your strategy against optimal play: ``regret`` (where it loses points) and ``check``."""

from __future__ import annotations

import argparse
import json
import time

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import PLOT_SUFFIXES, check_file, print_result, save_plot


# ------------------------------------------------------------------ regret
def add_regret_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``regret``."""
    opt.add_strategy(p, "greedy", label=True)
    opt.add_rules(p)
    p.add_argument(
        "--top", type=opt.non_negative, default=10, help="costliest situations listed (default 10)"
    )
    opt.add_path(p, "--plot", "save the loss by turn and by box to FILE.png/.pdf/.svg")
    opt.add_output(p)


def _table(series, width: int = 26) -> list[str]:
    """One ``name  loss`` line per entry of a Series, indented."""
    return [f"  {k!s:<{width}}{v:9.4f}" for k, v in series.items()]


def decision_lines(series) -> list[str]:
    """The lines of ``by decision``: every decision type, except the keeps with more than
    two rerolls left (turns that start with saved rolls) that lose nothing, which one line
    counts (``--json`` lists them all)."""
    from yahtzee_sim.analysis.decisions.regret_tables import decision_layer_name

    extra = {decision_layer_name(j) for j in range(3, len(series) + 1)}
    quiet = [k for k, v in series.items() if v == 0 and k in extra]
    lines = _table(series.drop(quiet))
    if quiet:
        n = len(quiet)
        kinds = "keep type with 3 or more rerolls left loses" if n == 1 else (
            "keep types with 3 or more rerolls left lose")  # fmt: skip
        lines.append(f"  ({n} {kinds} nothing)")
    return lines


def format_regret(r, seconds: float) -> str:
    """The text report of a :class:`~yahtzee_sim.analysis.RegretResult`."""
    lines = [
        f"strategy     {r.strategy}",
        f"rules        {r.rules.name}",
        f"optimal      {r.optimal_value:.4f}",
        f"strategy     {r.strategy_value:.4f}   (exact, {seconds:.1f} s)",
        f"regret       {r.total:.4f} points per game",
        "by decision:",
        *decision_lines(r.by_decision),
        "by turn:",
        *_table(r.by_turn),
        "by box chosen:",
        *_table(r.by_box),
    ]
    if len(r.situations):
        lines.append("costliest situations (expected loss = probability x loss):")
        for s in r.situations.itertuples():
            lines.append(
                f"  {s.expected_loss:.4f} = {s.probability:.4f} x {s.loss:.2f}  turn {s.turn}, "
                f"dice {s.dice}, rolls left {s.rolls_left}, filled: {s.filled}; "
                f"played {s.strategy_move}, optimal {s.optimal_move}"
            )
    return "\n".join(lines)


def draw_regret(result, axes) -> None:
    """Loss by turn (left) and by box chosen (right, the boxes by their labels), no title:
    the axes say what each panel shows."""
    from yahtzee_sim.analysis.plots import plot_regret
    from yahtzee_sim.analysis.style import strategy_styles

    color = strategy_styles([result.strategy])[result.strategy].color  # as in every figure
    plot_regret(result, ax=axes[0], color=color)
    rules = result.rules
    labels = dict(zip(rules.box_names, rules.box_labels, strict=True))
    by_box = result.by_box
    names = [labels.get(b, b) for b in by_box.index]
    axes[1].barh(names[::-1], by_box.values[::-1], color=color)
    axes[1].set_xlabel("expected points lost in the box chosen")


def run_regret(args: argparse.Namespace) -> int:
    """Exact regret against optimal play (:func:`yahtzee_sim.analysis.regret`)."""
    # pandas and the solver: not for --help
    from yahtzee_sim.analysis.decisions.regret import regret

    rules = opt.rules_from(args)
    strategy = opt.strategy_from(args)
    check_file("--plot", args.plot, PLOT_SUFFIXES)
    t0 = time.perf_counter()
    res = regret(strategy, rules, top=args.top, progress=opt.progress(args))
    seconds = time.perf_counter() - t0
    if args.plot is not None:
        save_plot(args.plot, lambda axes: draw_regret(res, axes), (7, 3.4), ncols=2)
    return print_result(args.json, res.to_dict(), format_regret(res, seconds), args.plot)


# ------------------------------------------------------------------ check
def add_check_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``check``."""
    opt.add_strategy(p, "greedy", label=True)
    opt.add_rules(p)
    opt.add_games(p, 300, "games played by the checks (default 300)")
    opt.add_output(p, quiet=False)


def run_check(args: argparse.Namespace) -> int:
    """Conformance checks of a strategy (:func:`yahtzee_sim.strategies.check_strategy`)."""
    from yahtzee_sim.engine.summary import strategy_label
    from yahtzee_sim.strategies import check_strategy

    strategy = opt.strategy_from(args)
    rules = opt.rules_from(args)
    passed = check_strategy(strategy, rules, n_games=args.games)
    label = strategy_label(strategy)
    if args.json:
        print(json.dumps({"strategy": label, "rules": rules.name, "passed": passed}))
    else:
        lines = [f"ok  {line}" for line in passed]
        print("\n".join([*lines, f"{label} passed every check on rules {rules.name}"]))
    return 0

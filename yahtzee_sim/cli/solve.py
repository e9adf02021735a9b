"""Optimal play on one rule set: ``solve``, ``advise`` and ``exact``."""

from __future__ import annotations

import argparse
import json
import math
import time

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import PLOT_SUFFIXES, check_file, print_result, save_plot
from yahtzee_sim.cli.missing_extras import require
from yahtzee_sim.exact.laws import evaluate
from yahtzee_sim.game.state import compact_states, n_states
from yahtzee_sim.solving.advice import answer
from yahtzee_sim.solving.advisor import AdvisorPosition, Option
from yahtzee_sim.solving.levels import partial_paths
from yahtzee_sim.solving.solver import TABLES, solve, value_table


# ------------------------------------------------------------------ solve
def add_solve_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``solve``."""
    opt.add_rules(p)
    opt.add_flag(p, "--force", "solve again even if cached")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="games with saved rolls: solve on the dask cluster of this scheduler, e.g. "
        "tcp://10.0.0.5:8786 (extra 'dask'; every worker must see the cache folder)",
    )
    opt.add_output(p)


def solve_info(rules, force: bool, progress: bool = False, scheduler: str | None = None) -> dict:
    """Solve ``rules`` (or load the cached table): expected value, time, source, size, and
    for games solved level by level the peak memory and the levels resumed."""
    if scheduler is not None and not compact_states(rules):
        raise opt.CliError(
            f"--scheduler: {rules.name!r} is solved in one process in seconds; a cluster "
            "solves games with saved rolls (e.g. maxi-yatzy)"
        )
    t0 = time.perf_counter()
    if force and not compact_states(rules):
        table = solve(rules, progress)
    else:
        if force:  # the finished table and any stopped solve's files
            TABLES.forget(TABLES.key(rules))
            path = TABLES.paths(TABLES.key(rules))[0]
            for file in (path, *partial_paths(path)):
                file.unlink(missing_ok=True)
        client = connect(scheduler) if scheduler is not None else None
        try:
            table = value_table(rules, progress=progress, client=client)
        finally:
            if client is not None:
                client.close()
    info = {
        "rules": rules.name,
        "expected_value": table.expected_value(),
        "seconds": time.perf_counter() - t0 if compact_states(rules) else table.seconds,
        "source": "solved" if force else table.meta.get("source", "solved"),
        "states": n_states(rules),
        "fingerprint": rules.fingerprint(),
    }
    for key in ("peak_rss_bytes", "resumed_levels", "path"):
        if key in table.meta:
            info[key] = table.meta[key]
    return info


def connect(address: str):
    """A ``dask.distributed`` client of the scheduler at ``address`` (one clear line if
    dask is missing or the scheduler does not answer)."""
    distributed = require("distributed", "--scheduler")
    try:
        return distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise opt.CliError(f"--scheduler {address}: cannot reach the scheduler ({exc})") from None


def run_solve(args: argparse.Namespace) -> int:
    """Solve a rule set (:func:`yahtzee_sim.value_table`) and print its optimal expected score."""
    info = solve_info(opt.rules_from(args), args.force, opt.progress(args), args.scheduler)
    if args.json:
        print(json.dumps(info))
        return 0
    verb = {"solved": "solved in", "shipped": "loaded from the package in"}.get(
        info["source"], "loaded from cache in"
    )
    line = (
        f"{info['rules']}: optimal expected score {info['expected_value']:.7f} "
        f"({info['states']:,} states, {verb} {info['seconds']:.2f} s"
    )
    if "peak_rss_bytes" in info:
        line += f", peak memory {info['peak_rss_bytes'] / 2**30:.2f} GiB"
    if info.get("resumed_levels"):
        line += f", {info['resumed_levels']} levels resumed"
    print(line + ")")
    return 0


# ------------------------------------------------------------------ advise
def add_advise_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``advise``."""
    opt.add_rules(p)
    p.add_argument("--dice", required=True, help="the dice, e.g. 1,3,5,5,6")
    p.add_argument(
        "--rolls-left", type=opt.whole, required=True, help="rerolls left (0 = score now)"
    )
    p.add_argument("--used", default="", help="filled boxes, e.g. ones,chance")
    p.add_argument("--upper", type=opt.whole, default=0, help="upper-section total so far")
    p.add_argument(
        "--yahtzee-bonus",
        "--flag",
        dest="flag",
        action="store_true",
        help="the Yahtzee box holds 50, so an extra Yahtzee earns the bonus (the older "
        "spelling --flag still works)",
    )
    p.add_argument(
        "--saved-rolls",
        type=opt.whole,
        default=0,
        help="games with saved rolls, scoring now: the rolls this turn saves",
    )
    opt.add_count(p, "--top", "show only the best N")
    p.add_argument(
        "--odds",
        default=None,
        metavar="BOXES",
        help="plan odds: the chance each keep makes these boxes by the end of the turn "
        "(comma-separated names, or 'open': every open box)",
    )
    p.add_argument(
        "--strategy",
        default=None,
        metavar="STRATEGY",
        help=opt.strategy_help(
            "none",
            "also show what this deterministic strategy plays and what it loses (a rule "
            "card such as card-30: the rule that decides): a strategy id",
        ),
    )
    p.add_argument(
        "--score",
        type=opt.whole,
        default=None,
        help="points so far (for --strategy ids that play by the score, e.g. target:300)",
    )
    opt.add_output(p, quiet=False)


def format_options(options: list[Option], rules=None) -> str:
    """One line per option: its value, its loss against the best, the move (a stop of a
    game with saved rolls in words, ``rules`` given) and its plan odds, if asked."""
    best = options[0].value
    lines = []
    for o in options:
        kept = " ".join(map(str, o.keep)) if o.keep else "nothing (reroll all)"
        label = o.box if o.box is not None else f"keep {kept}"
        if o.stop_box is not None and rules is not None:
            label = f"{label}: {o.text(rules)}"
        if o.odds:
            label += "  (" + ", ".join(f"{b} {p:.1%}" for b, p in o.odds.items()) + ")"
        lines.append(f"{o.value:10.3f}  {o.value - best:+9.3f}  {label}")
    return "\n".join(lines)


def odds_boxes(rules, text: str | None, used: tuple[str, ...]) -> list[str] | None:
    """The boxes ``--odds`` names (``"open"``: every box not in ``used``)."""
    if text is None:
        return None
    if text.strip() == "open":
        return [n for n in rules.box_names if n not in used]
    return opt.id_list(text)


def run_advise(args: argparse.Namespace) -> int:
    """Value every option at one decision (:func:`yahtzee_sim.advise`) and print them."""
    rules = opt.rules_from(args)
    position = AdvisorPosition(
        opt.dice(args.dice),
        args.rolls_left,
        opt.id_list(args.used),
        args.upper,
        args.flag,
        rules,
        saved_rolls=args.saved_rolls,
    )
    boxes = odds_boxes(rules, args.odds, position.used)
    reply = answer(position, boxes, args.strategy, args.score)
    options, says = reply.options, reply.move
    if args.top:
        options = options[: args.top]
    if args.json:
        out = {"rules": rules.name, "options": [o.to_dict() for o in options]}
        if says is not None:
            out["strategy"] = {"id": args.strategy} | says.to_dict()
        print(json.dumps(out))
    else:
        print(format_options(options, rules))
        if says is not None:
            print(says.line())
    return 0


# ------------------------------------------------------------------ exact
def add_exact_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``exact``."""
    opt.add_strategy(p, "optimal", label=True)
    opt.add_rules(p)
    opt.add_flag(
        p, "--moments-only", "mean, SD and per-box statistics only (faster; no pmf or percentiles)"
    )
    opt.add_path(p, "--plot", "save the pmf plot to FILE.png/.pdf/.svg")
    opt.add_output(p)


def format_exact(r, seconds: float) -> str:
    """The text report of an exact law (:class:`yahtzee_sim.exact.laws.ExactResult`)."""
    d = r.to_dict()
    which = "valued" if math.isnan(r.bonus_rate) else "reachable"  # saved rolls: all valued
    lines = [
        f"strategy     {d['strategy']}",
        f"rules        {d['rules']}",
        f"exact        {r.n_states:,} {which} states, {seconds:.2f} s",
        f"mean ± sd    {r.mean:.6f} ± {r.sd:.6f}",
    ]
    if r.pmf is not None:
        lines += [
            f"min / max    {d['min']} / {d['max']}",
            "percentiles  " + "  ".join(f"{k} {v}" for k, v in d["percentiles"].items()),
        ]
    if math.isnan(r.bonus_rate):  # saved rolls: the mean and SD only
        lines.append("box and bonus statistics: not computed on games with saved rolls")
        return "\n".join(lines)
    lines += [
        f"upper bonus  {100 * r.bonus_rate:.2f}% of games",
        f"Yahtzee bonuses {r.yahtzee_bonuses_mean:.4f} per game",
        f"{'box':<18}{'mean':>8}{'P(zero)':>9}{'turn':>7}",
    ]
    columns = (r.box_means, r.box_zero_rate, r.box_fill_turn)
    for name, m, z, t in zip(r.rules.box_names, *columns, strict=True):
        lines.append(f"{name:<18}{m:8.3f}{z:9.4f}{t:7.2f}")
    return "\n".join(lines)


def run_exact(args: argparse.Namespace) -> int:
    """Exact score law of a deterministic strategy (:func:`yahtzee_sim.exact.laws.evaluate`)."""
    rules = opt.rules_from(args)
    strategy = opt.strategy_from(args)
    if args.plot is not None and args.moments_only:
        raise opt.CliError("--plot needs the pmf: drop --moments-only")
    check_file("--plot", args.plot, PLOT_SUFFIXES)
    t0 = time.perf_counter()
    res = evaluate(strategy, rules, distribution=not args.moments_only, progress=opt.progress(args))
    seconds = time.perf_counter() - t0
    if args.plot is not None:
        from yahtzee_sim.analysis import plot_pmf  # pandas: only when a plot is asked for

        save_plot(args.plot, lambda ax: plot_pmf(res, ax=ax, label=res.strategy), (7, 3.2))
    return print_result(args.json, res.to_dict(), format_exact(res, seconds), args.plot)

"""``yahtzee-sim simulate``: simulate games of one strategy and summarize them."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from yahtzee_sim.cli import options as opt
from yahtzee_sim.cli.files import check_file, check_frame_file, write_frame
from yahtzee_sim.engine.records import check_records_fit, record_games, write_records
from yahtzee_sim.engine.simulate import DEFAULT_CHUNK, simulate, simulate_aggregate
from yahtzee_sim.game.boxnames import kind_box_plural


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``simulate``."""
    opt.add_game_options(p, 100_000)
    opt.add_jobs(p, 1, "worker processes, -1 = all cores")
    opt.add_count(p, "--chunk-size", "games per lockstep block (results do not depend on it)")
    opt.add_path(p, "--out", "write per-game results to FILE.parquet or FILE.csv")
    opt.add_path(
        p, "--checkpoint", "save progress to FILE after every block; resume from it if it exists"
    )
    opt.add_path(
        p,
        "--record",
        "also write every game's rolls, keeps and boxes (game records, JSON Lines)",
        metavar="FILE.jsonl",
    )
    opt.add_output(p)


def format_summary(s: dict, seconds: float, rules) -> str:
    """The text report of a simulation summary (``SimulationResult.summary()``) on
    ``rules``; the n-of-a-kind box is named as the rules name it
    (:func:`~yahtzee_sim.game.boxnames.kind_box_plural`)."""
    kinds = kind_box_plural(rules)
    p = s["percentiles"]
    lines = [
        f"strategy     {s['strategy']}",
        f"rules        {s['rules']}",
        f"games        {s['games']:,}  (seed {s['seed']}, {seconds:.2f} s)",
        f"mean ± sd    {s['mean']:.2f} ± {s['sd']:.2f}   "
        f"95% CI [{s['ci95'][0]:.2f}, {s['ci95'][1]:.2f}]",
        f"min / max    {s['min']} / {s['max']}",
        "percentiles  " + "  ".join(f"{k} {v:.0f}" for k, v in p.items()),
        f"upper bonus  {100 * s['bonus_rate']:.1f}% of games",
        f"{kinds:<13}{s['yahtzees_mean']:.3f} per game ({s['yahtzee_bonuses_mean']:.3f} bonuses)",
        "box means:",
    ]
    lines += [f"  {name:<18}{v:7.2f}" for name, v in s["box_means"].items()]
    return "\n".join(lines)


def written(what: str, path: Path | None) -> list[str]:
    """``["<what> written to <path>"]``, or no line when the file was not asked for."""
    return [] if path is None else [f"{what} written to {path}"]


def run(args: argparse.Namespace) -> int:
    """Simulate (:func:`yahtzee_sim.engine.simulate.simulate`, or
    :func:`~yahtzee_sim.engine.simulate.simulate_aggregate` in bounded memory without
    ``--out``), write the files asked for, print the summary."""
    rules = opt.rules_from(args)
    strategy = opt.strategy_from(args)
    check_frame_file("--out", args.out)
    check_file("--record", args.record)
    check_file("--checkpoint", args.checkpoint)
    if args.record is not None:  # refused before the games are played, not after
        check_records_fit(args.games)
    t0 = time.perf_counter()
    play = simulate_aggregate if args.out is None else simulate  # a summary alone streams
    res = play(
        strategy,
        args.games,
        seed=args.seed,
        rules=rules,
        n_jobs=args.jobs,
        chunk_size=args.chunk_size or DEFAULT_CHUNK,
        progress=opt.progress(args),
        checkpoint=args.checkpoint,
    )
    seconds = time.perf_counter() - t0
    if args.out is not None:
        write_frame(res.to_frame(), args.out)
    if args.record is not None:  # the same games again, every decision recorded
        write_records(args.record, record_games(strategy, args.games, args.seed, rules))
    summary = res.summary()
    if args.json:  # no wall time: the same command prints the same bytes
        print(json.dumps(summary))
        return 0
    lines = [format_summary(summary, seconds, rules), *written("per-game results", args.out)]
    print("\n".join([*lines, *written("game records", args.record)]))
    return 0

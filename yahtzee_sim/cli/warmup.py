"""``yahtzee-sim warmup``: compile the kernels of every command (or of those named) ahead."""

from __future__ import annotations

import argparse
import json
import os
import sys

from yahtzee_sim.cli import options as opt


def add_warmup_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of ``warmup``."""
    p.add_argument(
        "commands",
        nargs="*",
        metavar="COMMAND",
        help="the commands whose kernels to compile (default: every command)",
    )
    opt.add_rules(p, rolls_per_turn=False)
    opt.add_jobs(p, 2, "steps compiled at once, each in a process of its own (-1 = all cores)")
    opt.add_output(p)


def run_warmup(args: argparse.Namespace) -> int:
    """Run the warm-up steps the commands need
    (:func:`yahtzee_sim.analysis.warmup.run_steps`), then say where the kernels are."""
    from tqdm.auto import tqdm

    from yahtzee_sim.analysis.warmup import STEPS, kernel_cache, run_steps, steps_for

    names = steps_for(args.commands)  # an unknown command fails before any work
    rules = opt.rules_from(args)
    jobs = (os.cpu_count() or 1) if args.jobs == -1 else args.jobs
    bar = tqdm(
        total=sum(STEPS[n].seconds for n in names),  # each step weighs its expected seconds
        desc="warmup",
        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]",
        disable=not (opt.progress(args) and names),
        file=sys.stderr,
    )

    def advance(name: str, outcome: dict) -> None:
        bar.set_postfix_str(STEPS[name].label)
        bar.update(STEPS[name].seconds)

    with bar:
        outcomes = run_steps(names, rules.name, jobs=jobs, on_done=advance)
    cache = kernel_cache()
    if args.json:
        print(json.dumps({"rules": rules.name, "steps": outcomes, "kernel_cache": cache}))
        return 0
    cpu = sum(o.get("cpu", 0.0) for o in outcomes.values())
    if names:
        print(f"compiled the kernels of {len(names)} steps ({cpu:.0f} CPU seconds): "
              f"{', '.join(names)}")  # fmt: skip
    else:
        print("no kernel to compile for these commands")
    for name, outcome in outcomes.items():
        if "skipped" in outcome:
            print(f"  {name} skipped: {outcome['skipped']}")
    print(f"kernels stored in {cache['folder']} ({cache['where']})")
    if cache["where"] != "NUMBA_CACHE_DIR":
        print(
            "(a folder that is not writable is skipped: numba then uses a per-user folder; "
            "set NUMBA_CACHE_DIR to choose one, and the same value when running the commands)"
        )
    return 0

"""Gymnasium vector environment benchmark: environment steps per second. Prints JSON.

Usage::

    python benchmarks/bench_env.py [--rules yahtzee] [--num-envs 4096] [--steps 400]

A random legal policy (uniform over ``info["action_mask"]``,
``yahtzee_sim.engine.observation.random_legal_actions``) plays
``--num-envs`` games at once; steps/s counts every copy's step (target: >= 500,000 on
2 cores with 4,096 games). ``env_only_steps_per_second`` leaves the policy's own time
out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from page_format import Row, num


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--num-envs", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from yahtzee_sim.engine.observation import random_legal_actions as random_legal
    from yahtzee_sim.learning.env import YahtzeeVectorEnv

    envs = YahtzeeVectorEnv(args.num_envs, rules=args.rules)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    for _ in range(50):  # compile and warm up
        _, _, _, _, info = envs.step(random_legal(info["action_mask"], rng))
    runs, env_only, episodes = [], [], 0
    for _ in range(args.repeat):
        t_env = 0.0
        t0 = time.perf_counter()
        for _ in range(args.steps):
            a = random_legal(info["action_mask"], rng)
            t1 = time.perf_counter()
            _, _, term, _, info = envs.step(a)
            t_env += time.perf_counter() - t1
            episodes += int(term.sum())
        runs.append(time.perf_counter() - t0)
        env_only.append(t_env)
    steps = args.steps * args.num_envs
    out = {
        "rules": args.rules,
        "num_envs": args.num_envs,
        "steps_per_run": steps,
        "seconds_median": round(float(np.median(runs)), 3),
        "steps_per_second": round(steps / float(np.median(runs))),
        "env_only_steps_per_second": round(steps / float(np.median(env_only))),
        "episodes_finished": episodes,
        "target_steps_per_second": 500_000,
    }
    print(json.dumps(out, indent=2))


def rows(r: dict) -> list[Row]:
    return [
        (
            f"step a vector environment of {num(r['num_envs'])} games with a random legal policy",
            f"{num(r['steps_per_second'])} steps/s (the environment alone: "
            f"{num(r['env_only_steps_per_second'])} steps/s)",
        )
    ]


# its entry on the Performance page (perf_page.py)
AREA = "Machine learning"
TITLE = "The vector environment"
COMMAND = "python benchmarks/bench_env.py"
SMOKE = "--num-envs 64 --steps 20 --repeat 1"


if __name__ == "__main__":
    sys.exit(main())

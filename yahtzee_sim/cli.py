"""Command line: ``yahtzee-sim COMMAND [options]``.

Every bad argument gives one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .errors import YahtzeeSimError

EXIT_USAGE = 2


class CliError(YahtzeeSimError):
    """A bad command-line argument."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value}")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1 or -1 (all cores), got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in 0..65535, got {value}")
    return value


def _float_list(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None


def _add_rules(p: argparse.ArgumentParser) -> None:
    from .rules import PRESETS

    p.add_argument(
        "--rules",
        default="yahtzee",
        metavar="PRESET",
        help=f"rule set: {', '.join(PRESETS)} (default: yahtzee, official Hasbro rules)",
    )
    p.add_argument(
        "--rolls-per-turn",
        type=_positive_int,
        default=None,
        metavar="N",
        help="override the number of rolls per turn (e.g. 4)",
    )


def _add_games(p: argparse.ArgumentParser, games: int) -> None:
    """``--strategy``, ``--games``, ``--seed`` and the rules: which games to play."""
    p.add_argument("--strategy", default="greedy", help="strategy id (default: greedy)")
    p.add_argument(
        "--games", type=_positive_int, default=games, help=f"number of games (default: {games})"
    )
    p.add_argument("--seed", type=_seed, default=0, help="master seed (default: 0)")
    _add_rules(p)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``yahtzee-sim`` command."""
    from . import __version__

    parser = _Parser(
        prog="yahtzee-sim",
        description="Evaluate and rank Yahtzee/Yatzy strategies.",
    )
    parser.add_argument("--version", action="version", version=f"yahtzee-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("simulate", help="simulate games of one strategy and summarize them")
    _add_games(p, 100_000)
    p.add_argument("--jobs", type=_jobs, default=1, help="worker processes, -1 = all cores")
    p.add_argument(
        "--chunk-size",
        type=_positive_int,
        default=None,
        help="games per lockstep block (results do not depend on it)",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="write per-game results to FILE.parquet or FILE.csv"
    )
    p.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help="save progress to FILE after every block; resume from it if it exists",
    )
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="FILE.jsonl",
        help="also write every game's rolls, keeps and boxes (game records, JSON Lines)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("solve", help="solve a rule set: optimal expected score of every state")
    _add_rules(p)
    p.add_argument("--force", action="store_true", help="solve again even if cached")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("advise", help="value every option at one decision (optimal play)")
    _add_rules(p)
    p.add_argument("--dice", required=True, help="the dice, e.g. 1,3,5,5,6")
    p.add_argument("--rolls-left", type=int, required=True, help="rerolls left (0 = score now)")
    p.add_argument("--used", default="", help="filled categories, e.g. ones,chance")
    p.add_argument("--upper", type=int, default=0, help="upper-section total so far")
    p.add_argument(
        "--yahtzee-bonus",
        action="store_true",
        help="the Yahtzee box holds 50 (extra Yahtzees earn the bonus)",
    )
    p.add_argument("--top", type=_positive_int, default=None, help="show only the best N")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("select", help="Kim-Nelson selection of the best strategy (CRN)")
    p.add_argument(
        "--strategies", default="all", help="comma-separated strategy ids, or 'all' (default)"
    )
    p.add_argument(
        "--delta",
        type=float,
        default=1.0,
        help="indifference zone: smallest difference worth detecting (default 1)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="1 - P(correct selection)")
    p.add_argument("--metric", choices=["total", "yahtzees", "bonus", "win"], default="total")
    p.add_argument("--field", default="optimal", help="with --metric win: the opponents' strategy")
    p.add_argument(
        "--players", type=_positive_int, default=2, help="with --metric win: seats per table"
    )
    p.add_argument(
        "--blind", action="store_true", help="with --metric win: hide the cards (blind games)"
    )
    p.add_argument("--minimize", action="store_true", help="select the smallest mean")
    p.add_argument("--m", type=_positive_int, default=1, help="stop when m strategies remain")
    p.add_argument("--n0", type=_positive_int, default=20, help="first-stage observations")
    p.add_argument("--batch", type=_positive_int, default=10, help="games per observation")
    p.add_argument("--seed", type=_seed, default=0)
    _add_rules(p)
    p.add_argument("--jobs", type=_jobs, default=1, help="threads/processes per draw")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("exact", help="exact score distribution of a deterministic strategy")
    p.add_argument("--strategy", default="optimal", help="strategy id (default: optimal)")
    _add_rules(p)
    p.add_argument(
        "--moments-only",
        action="store_true",
        help="mean, SD and per-box statistics only (faster; no pmf or percentiles)",
    )
    p.add_argument(
        "--plot", type=Path, default=None, help="save the pmf plot to FILE.png/.pdf/.svg"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "report", help="the benchmark report: every strategy simulated, exact, ranked, plotted"
    )
    _add_rules(p)
    p.add_argument(
        "--strategies",
        default="all",
        help="'all' (default) or comma-separated ids; optimal is always added",
    )
    p.add_argument(
        "--games",
        type=_positive_int,
        default=100_000,
        help="simulated games per strategy (default 100000, at least 100)",
    )
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument(
        "--out", type=Path, default=None, help="report folder (default: reports/<rules>)"
    )
    p.add_argument("--jobs", type=_jobs, default=2, help="parallel jobs (default 2)")
    p.add_argument(
        "--top", type=int, default=10, help="costliest situations listed per strategy (default 10)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "reproduce", help="every published table the project can compute: paper | ours"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="skip the Yatzy target table (Tillius Table 13); Kim-Nelson for delta >= 1 only",
    )
    p.add_argument(
        "--sections",
        default="all",
        help="'all' (default) or comma-separated sections (reference-values, glenn-2006, "
        "simulating-yahtzee, kim-nelson, defensive, tillius)",
    )
    p.add_argument(
        "--games",
        type=_positive_int,
        default=100_000,
        help="games per simulated figure (default 100000, as the papers; at least 100)",
    )
    p.add_argument("--seed", type=_seed, default=2026)
    p.add_argument(
        "--out",
        type=Path,
        default=Path("reports/reproduction"),
        help="output folder (default reports/reproduction)",
    )
    p.add_argument("--jobs", type=_jobs, default=2, help="parallel jobs (default 2)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("target", help="max P(final score >= beta): target-score optimal play")
    _add_rules(p)
    p.add_argument(
        "--beta",
        type=_positive_int,
        default=None,
        help="the target final score (needed unless --curve)",
    )
    p.add_argument(
        "--curve",
        action="store_true",
        help="P*(final >= beta) for every beta, next to max-EV play's",
    )
    p.add_argument(
        "--max-beta",
        type=_positive_int,
        default=None,
        help="solve only for targets up to this (default: all)",
    )
    p.add_argument(
        "--plot", type=Path, default=None, help="with --curve: save the plot to FILE.png/.pdf/.svg"
    )
    p.add_argument(
        "--percentile",
        type=float,
        default=None,
        help="the highest q-th percentile any strategy can guarantee, and its target",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("win", help="play to win: the best response to known opponents")
    _add_rules(p)
    p.add_argument(
        "--players", type=_positive_int, default=2, help="players at the table (>= 2; default 2)"
    )
    p.add_argument(
        "--vs",
        default="optimal",
        help="the opponents' strategy (deterministic: its exact law is used; default optimal)",
    )
    p.add_argument("--law", action="store_true", help="also the exact law of win:N (mean, SD)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("risk", help="risk-sensitive play: exponential utility, frontier")
    _add_rules(p)
    p.add_argument(
        "--theta",
        type=_float_list,
        default=None,
        help="risk parameter(s), comma-separated (> 0 risk-averse, < 0 risk-seeking)",
    )
    p.add_argument(
        "--plot", type=Path, default=None, help="save the mean-vs-SD / mean-vs-p10 frontier"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser(
        "tournament", help="multiplayer games (blind or visible): win rates, round robins"
    )
    p.add_argument(
        "--strategies",
        default="optimal,greedy",
        help="one strategy per seat; the last fills the remaining seats",
    )
    p.add_argument(
        "--players",
        type=_positive_int,
        default=None,
        help="number of seats (default: one per strategy)",
    )
    p.add_argument("--games", type=_positive_int, default=100_000, help="games (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    _add_rules(p)
    p.add_argument("--jobs", type=_positive_int, default=1, help="parallel jobs per seat")
    p.add_argument(
        "--visible",
        action="store_true",
        help="players take turns at one table and see each other's score cards",
    )
    p.add_argument(
        "--round-robin",
        action="store_true",
        help="every ordered choice of --players distinct strategies (default 2 players)",
    )
    p.add_argument(
        "--plot", type=Path, default=None, help="with --round-robin: save the win matrix plot"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("winprob", help="live win probability of mid-game score cards")
    p.add_argument(
        "--me",
        required=True,
        metavar="CARD",
        help="your card: 'ones=3,full_house=25,...' ('' = empty)",
    )
    p.add_argument(
        "--opponent",
        action="append",
        required=True,
        metavar="CARD",
        help="an opponent's card (repeat; seats follow yours in order)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first to play)")
    p.add_argument("--dice", default=None, help="dice of the player to move, e.g. 6,6,6,2,3")
    p.add_argument("--rolls-left", type=int, default=None, help="rerolls left with --dice")
    p.add_argument(
        "--simulate",
        type=int,
        default=0,
        metavar="N",
        help="also play the position out N times (win-aware at every seat)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the play-outs (default 0)")
    _add_rules(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser(
        "dataset", help="one row per decision of a strategy, every option valued (optimal)"
    )
    _add_games(p, 10_000)
    p.add_argument(
        "--out", type=Path, required=True, help="write the decisions to FILE.parquet or FILE.csv"
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "analyze", help="grade recorded games against optimal play: mistakes, luck and skill"
    )
    p.add_argument("file", type=Path, help="game records (JSON Lines, see the README)")
    p.add_argument("--rules", default=None, metavar="PRESET", help="override the records' rules")
    p.add_argument("--game", type=int, default=None, help="show this game's decisions")
    p.add_argument("--top", type=_positive_int, default=5, help="mistakes to list (default 5)")
    p.add_argument("--plot", type=Path, default=None, help="write the game's value path (PNG)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("play", help="play a game in the terminal, with a coach")
    _add_rules(p)
    p.add_argument("--seed", type=_seed, default=None, help="dice of this seed (default: random)")
    p.add_argument("--game", type=_seed, default=0, help="which game of the seed (default 0)")
    p.add_argument(
        "--dice",
        choices=("program", "manual"),
        default="program",
        help="'manual': type the dice of a real game (default: the program rolls)",
    )
    p.add_argument("--no-coach", action="store_true", help="no advice until the end")
    p.add_argument("--record", type=Path, default=None, help="write the game's record (JSONL)")

    p = sub.add_parser("serve", help="a local web page: advisor, coach and a playable game")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: localhost)")
    p.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0: any free)")
    p.add_argument("--rules", default="yahtzee", metavar="PRESET", help="default rule set")

    p = sub.add_parser("strategies", help="list the registered strategies")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("rules", help="list the rule presets, or describe one")
    p.add_argument("preset", nargs="?", default=None)
    p.add_argument("--json", action="store_true", help="print JSON")
    return parser


# ------------------------------------------------------------------ commands
def _rules_from(args):
    from .rules import get_rules

    return get_rules(args.rules, rolls_per_turn=args.rolls_per_turn)


def _check_out(path: Path | None) -> None:
    if path is None:
        return
    if path.suffix not in (".parquet", ".csv"):
        raise CliError(f"--out must end in .parquet or .csv, got {str(path)!r}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"--out: directory {str(parent)!r} does not exist")
    if path.suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise CliError(
                "--out FILE.parquet needs pyarrow: pip install 'yahtzee-sim[parquet]', or use .csv"
            ) from None


def _write_frame(frame, path: Path) -> None:
    """Write atomically: a temporary file in the same folder, then rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", suffix=path.suffix)
    os.close(fd)
    try:
        if path.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _format_summary(s: dict, seconds: float) -> str:
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
        f"Yahtzees     {s['yahtzees_mean']:.3f} per game ({s['yahtzee_bonuses_mean']:.3f} bonuses)",
        "category means:",
    ]
    for name, v in s["category_means"].items():
        lines.append(f"  {name:<18}{v:7.2f}")
    return "\n".join(lines)


def cmd_simulate(args) -> int:
    from .simulate import DEFAULT_CHUNK, simulate
    from .strategies import get_strategy

    rules = _rules_from(args)
    strategy = get_strategy(args.strategy)
    _check_out(args.out)
    if args.record is not None and not args.record.parent.is_dir():
        raise CliError(f"--record: folder {str(args.record.parent)!r} does not exist")
    t0 = time.perf_counter()
    res = simulate(
        strategy,
        args.games,
        seed=args.seed,
        rules=rules,
        n_jobs=args.jobs,
        chunk_size=args.chunk_size or DEFAULT_CHUNK,
        progress=False if (args.quiet or args.json) else None,
        keep_games=args.out is not None,  # summaries alone stream in bounded memory
        checkpoint=args.checkpoint,
    )
    seconds = time.perf_counter() - t0
    if args.out is not None:
        _write_frame(res.to_frame(), args.out)
    if args.record is not None:  # the same games again, every decision recorded
        from .records import record_games, write_records

        write_records(args.record, record_games(strategy, args.games, args.seed, rules))
    summary = res.summary()
    if args.json:  # no wall time: the same command prints the same bytes
        print(json.dumps(summary))
    else:
        print(_format_summary(summary, seconds))
        if args.out is not None:
            print(f"per-game results written to {args.out}")
        if args.record is not None:
            print(f"game records written to {args.record}")
    return 0


def cmd_solve(args) -> int:
    from .solver import solve, value_table
    from .state import n_states

    rules = _rules_from(args)
    table = solve(rules) if args.force else value_table(rules)
    source = "solved" if args.force else table.meta.get("source", "solved")
    info = {
        "rules": rules.name,
        "expected_value": table.expected_value(),
        "seconds": table.seconds,
        "source": source,
        "states": n_states(rules),
        "fingerprint": rules.fingerprint(),
    }
    if args.json:
        print(json.dumps(info))
    else:
        verb = "solved in" if source == "solved" else "loaded from cache in"
        print(
            f"{rules.name}: optimal expected score {info['expected_value']:.7f} "
            f"({info['states']:,} states, {verb} {info['seconds']:.2f} s)"
        )
    return 0


def _parse_dice(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", ",").split(",") if x]
    except ValueError:
        raise CliError(f"--dice must be comma-separated numbers, got {text!r}") from None


def cmd_advise(args) -> int:
    from .advisor import advise

    rules = _rules_from(args)
    used = [u.strip() for u in args.used.split(",") if u.strip()]
    options = advise(
        _parse_dice(args.dice),
        args.rolls_left,
        used=used,
        upper=args.upper,
        yahtzee_bonus=args.yahtzee_bonus,
        rules=rules,
    )
    if args.top:
        options = options[: args.top]
    if args.json:
        print(json.dumps({"rules": rules.name, "options": [o.to_dict() for o in options]}))
        return 0
    best = options[0].value
    for o in options:
        label = (
            o.category
            if o.category is not None
            else ("keep " + (" ".join(map(str, o.keep)) if o.keep else "nothing (reroll all)"))
        )
        print(f"{o.value:10.3f}  {o.value - best:+9.3f}  {label}")
    return 0


def cmd_select(args) -> int:
    from .analysis import mcb, select_best
    from .strategies import default_strategy_ids

    if args.strategies.strip() == "all":
        ids = default_strategy_ids()
    else:
        ids = [s.strip() for s in args.strategies.split(",") if s.strip()]
    t0 = time.perf_counter()
    res = select_best(
        ids,
        delta=args.delta,
        alpha=args.alpha,
        metric=args.metric,
        m=args.m,
        n0=args.n0,
        batch=args.batch,
        seed=args.seed,
        rules=_rules_from(args),
        maximize=not args.minimize,
        n_jobs=args.jobs,
        field=args.field,
        players=args.players,
        visible=not args.blind,
    )
    seconds = time.perf_counter() - t0
    common = min(res.observations.values())
    intervals = mcb(
        res.data[:, :common], list(res.observations), alpha=args.alpha, maximize=not args.minimize
    )
    params = {k: v for k, v in res.parameters.items() if k != "games"}
    if args.json:
        print(
            json.dumps(
                {
                    "winners": res.winners,
                    "observations": res.observations,
                    "games": res.parameters["games"],
                    "eliminated": [[name, stage] for name, stage in res.eliminated],
                    "means": res.means,
                    "mcb": intervals.to_dict(orient="records"),
                    "parameters": params,
                }
            )
        )
        return 0
    print(
        f"Kim-Nelson selection on {args.metric} ({'min' if args.minimize else 'max'}), "
        f"delta {args.delta}, alpha {args.alpha}, m {args.m}, n0 {args.n0}, "
        f"{args.batch} games per observation, rules {params['rules']}"
    )
    print(
        f"winners: {', '.join(res.winners)}   observations needed: "
        f"{max(res.observations.values()):,}   games played: {res.parameters['games']:,}   "
        f"({seconds:.1f} s)"
    )
    print(f"{'strategy':<18}{'mean':>10}{'obs':>9}  eliminated at   MCB interval vs best")
    stage = dict(res.eliminated)
    for row in intervals.itertuples():
        when = f"stage {stage[row.system]}" if row.system in stage else "winner"
        print(
            f"{row.system:<18}{res.means[row.system]:>10.3f}{res.observations[row.system]:>9}"
            f"  {when:<15}[{row.lower:+.3f}, {row.upper:+.3f}]"
        )
    return 0


def _check_plot(path: Path | None) -> None:
    if path is None:
        return
    if path.suffix not in (".png", ".pdf", ".svg"):
        raise CliError(f"--plot must end in .png, .pdf or .svg, got {str(path)!r}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"--plot: directory {str(parent)!r} does not exist")


def _format_exact(r, seconds: float) -> str:
    d = r.to_dict()
    lines = [
        f"strategy     {d['strategy']}",
        f"rules        {d['rules']}",
        f"exact        {r.n_states:,} reachable states, {seconds:.2f} s",
        f"mean ± sd    {r.mean:.6f} ± {r.sd:.6f}",
    ]
    if r.pmf is not None:
        p = d["percentiles"]
        lines += [
            f"min / max    {d['min']} / {d['max']}",
            "percentiles  " + "  ".join(f"{k} {v}" for k, v in p.items()),
        ]
    lines += [
        f"upper bonus  {100 * r.bonus_rate:.2f}% of games",
        f"Yahtzee bonuses {r.yahtzee_bonuses_mean:.4f} per game",
        f"{'category':<18}{'mean':>8}{'P(zero)':>9}{'turn':>7}",
    ]
    for name, m, z, t in zip(
        r.rules.category_names,
        r.category_means,
        r.category_zero_rate,
        r.category_fill_turn,
        strict=True,
    ):
        lines.append(f"{name:<18}{m:8.3f}{z:9.4f}{t:7.2f}")
    return "\n".join(lines)


def cmd_exact(args) -> int:
    from .exact import evaluate
    from .strategies import get_strategy

    rules = _rules_from(args)
    strategy = get_strategy(args.strategy)
    if args.plot is not None and args.moments_only:
        raise CliError("--plot needs the pmf: drop --moments-only")
    _check_plot(args.plot)
    t0 = time.perf_counter()
    res = evaluate(
        strategy, rules, distribution=not args.moments_only, progress=not (args.quiet or args.json)
    )
    seconds = time.perf_counter() - t0
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from .analysis import plot_pmf

        fig, ax = plt.subplots(figsize=(8, 4.5))
        plot_pmf(res, ax=ax, label=args.strategy)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    out = res.to_dict()
    if args.json:  # no wall time: the same command prints the same bytes
        print(json.dumps(out))
    else:
        print(_format_exact(res, seconds))
        if args.plot is not None:
            print(f"plot written to {args.plot}")
    return 0


def cmd_target(args) -> int:
    import numpy as np

    from .exact import evaluate
    from .target import max_score, target_table

    rules = _rules_from(args)
    top = max_score(rules)
    if args.beta is not None and args.beta > top:
        raise CliError(
            f"--beta {args.beta} is above {top}, the largest score on rules {rules.name!r}"
        )
    if args.beta is None and not args.curve and args.percentile is None:
        raise CliError("give --beta N (one target), --curve (every target) or --percentile Q")
    if args.plot is not None and not args.curve:
        raise CliError("--plot draws the curve: add --curve")
    if args.beta is not None and args.max_beta is not None and args.beta > args.max_beta:
        raise CliError(f"--beta {args.beta} is above --max-beta {args.max_beta}")
    _check_plot(args.plot)
    t0 = time.perf_counter()
    max_beta = args.max_beta if args.max_beta is not None else args.beta if not args.curve else None
    table = target_table(rules, max_beta=max_beta, progress=not (args.quiet or args.json))
    curve = table.curve()
    optimal = evaluate("optimal", rules).survival()
    opt = np.zeros(len(curve))
    opt[: min(len(optimal), len(curve))] = optimal[: len(curve)]
    seconds = time.perf_counter() - t0
    out = {
        "rules": rules.name,
        "max_beta": table.max_beta,
        "seconds": seconds,
        "source": table.meta.get("source"),
        "table_gb": table.nbytes / 2**30,
    }
    if args.beta is not None:
        out.update(
            beta=args.beta,
            probability=float(curve[args.beta]),
            optimal_probability=float(opt[args.beta]),
        )
    if args.curve:
        out.update(curve=curve.tolist(), optimal_curve=opt.tolist())
    if args.percentile is not None:
        from .target import best_percentile

        best = best_percentile(curve, args.percentile)
        if best >= table.max_beta and table.max_beta < top:
            raise CliError(
                f"the best {args.percentile:g}th percentile is at least --max-beta "
                f"{table.max_beta}: raise --max-beta"
            )
        out["percentile"] = {
            "q": args.percentile,
            "best": best,
            "strategy": f"target:{best}",
            "optimal": evaluate("optimal", rules).percentile(args.percentile),
        }
        if not args.json:
            print(
                f"rules {rules.name}: the best {args.percentile:g}th percentile any strategy "
                f"can guarantee is {best} (target:{best}); max-EV play's is "
                f"{out['percentile']['optimal']}"
            )
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from .analysis import plot_target_curve

        fig, ax = plt.subplots(figsize=(8, 4.5))
        plot_target_curve(curve, opt, ax=ax, title=f"Target-score play on {rules.name}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    if args.json:
        print(json.dumps(out))
        return 0
    if args.beta is not None:
        print(
            f"rules {rules.name}: max P(final >= {args.beta}) = {out['probability']:.6g} "
            f"(max-EV play: {out['optimal_probability']:.6g})"
        )
    if args.curve:
        print("beta  P*(final >= beta)  max-EV P(final >= beta)")
        nz = np.flatnonzero(curve > 0)
        last = int(nz[-1]) if len(nz) else 0
        for b in range(0, last + 1, max(1, last // 20)):
            print(f"{b:4d}  {curve[b]:17.6g}  {opt[b]:23.6g}")
    if args.plot is not None:
        print(f"plot written to {args.plot}")
    print(f"({table.meta.get('source')}, {seconds:.1f} s)")
    return 0


def cmd_tournament(args) -> int:
    from .analysis import tournament

    if args.round_robin:
        return _round_robin(args)
    if args.plot is not None:
        raise CliError("--plot needs --round-robin")
    res = tournament(
        args.strategies,
        players=args.players,
        games=args.games,
        seed=args.seed,
        rules=_rules_from(args),
        n_jobs=args.jobs,
        progress=not (args.quiet or args.json),
        visible=args.visible,
    )
    if args.json:
        print(json.dumps(res.to_dict()))
        return 0
    kind = "visible" if args.visible else "blind"
    print(
        f"{res.parameters['players']}-player {kind} games on {res.rules_name}, "
        f"{res.games} games, seed {args.seed}"
    )
    print(res.win_rates().to_string(float_format=lambda v: f"{v:.4f}"))
    w = res.winning_summary()
    print(
        f"winning score: mean {w['mean']:.2f}, SD {w['sd']:.2f}, p10 {w['p10']:.0f}, "
        f"median {w['median']:.0f}, p90 {w['p90']:.0f}   ({res.seconds:.1f} s)"
    )
    return 0


def _round_robin(args) -> int:
    from .analysis import round_robin

    _check_plot(args.plot)
    res = round_robin(
        args.strategies,
        players=args.players or 2,
        games=args.games,
        seed=args.seed,
        rules=_rules_from(args),
        visible=args.visible,
        n_jobs=args.jobs,
        progress=not (args.quiet or args.json),
    )
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 5.5))
        res.plot(ax=ax)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    if args.json:
        print(json.dumps(res.to_dict()))
        return 0
    kind = "visible" if args.visible else "blind"
    p = res.parameters
    print(
        f"round robin of {p['players']}-player {kind} games on {res.rules_name}: "
        f"{len(res.matches)} matches of {p['games']} games, seed {p['seed']}"
    )
    print("win share of row against column (both seat orders):")
    print(res.win_matrix().to_string(float_format=lambda v: f"{v:.4f}", na_rep="-"))
    print(res.ranking().to_string(float_format=lambda v: f"{v:.4f}"))
    print(f"({res.seconds:.1f} s)")
    if args.plot is not None:
        print(f"plot written to {args.plot}")
    return 0


def cmd_winprob(args) -> int:
    from .winprob import ScoreCard, win_probability_now

    rules = _rules_from(args)
    cards = [ScoreCard.parse(c, rules) for c in args.opponent]
    if not 0 <= args.seat <= len(cards):
        raise CliError(f"--seat must be in 0..{len(cards)} with {len(cards)} opponents")
    cards.insert(args.seat, ScoreCard.parse(args.me, rules))
    dice = None
    if args.dice is not None:
        try:
            dice = [int(d) for d in args.dice.replace(" ", ",").split(",") if d]
        except ValueError:
            raise CliError(f"--dice must be faces like 6,6,6,2,3, got {args.dice!r}") from None
    elif args.rolls_left is not None:
        raise CliError("--rolls-left needs --dice")
    if args.simulate < 0:
        raise CliError(f"--simulate must be >= 0, got {args.simulate}")
    t0 = time.perf_counter()
    res = win_probability_now(
        cards, rules, dice=dice, rolls_left=args.rolls_left, simulate=args.simulate,
        seed=args.seed,
    )  # fmt: skip
    if args.json:
        print(json.dumps(res.to_dict()))
        return 0
    who = "game over" if res.to_move < 0 else f"seat {res.to_move} to move"
    print(f"rules {rules.name}, {len(cards)} players, {who}")
    for i, c in enumerate(cards):
        name = "you" if i == args.seat else f"seat {i}"
        line = (
            f"  {name:8s} score {c.score:4d} ({c.turns:2d} boxes)  expected final "
            f"{res.expected_final[i]:7.2f}  P(win), max-EV play: {res.exact[i]:.4f}"
        )
        if res.simulated is not None:
            lo, hi = res.simulated_ci95[i]
            line += f"  win-aware: {res.simulated[i]:.4f} [{lo:.4f}, {hi:.4f}]"
        print(line)
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


def cmd_report(args) -> int:
    from .analysis.report import build_report

    if args.top < 0:
        raise CliError(f"--top must be >= 0, got {args.top}")
    if args.games < 100:
        raise CliError(f"--games must be at least 100, got {args.games}")
    rep = build_report(
        rules=_rules_from(args),
        strategies=args.strategies,
        games=args.games,
        seed=args.seed,
        out=args.out,
        n_jobs=args.jobs,
        regret_top=args.top,
        progress=not (args.quiet or args.json),
    )
    if args.json:
        print(json.dumps(rep.to_dict()))
        return 0
    cols = ["exact mean", "mean", "SD", "p10", "median", "bonus %"]
    print(rep.summary[cols].to_string(float_format=lambda v: f"{v:.2f}"))
    for what, why in rep.skipped.items():
        print(f"left out {what}: {why}")
    print(
        f"report written to {rep.out / 'report.md'} (and report.html, {len(rep.files) - 2} "
        f"figures and data files) in {rep.seconds:.1f} s"
    )
    return 0


def cmd_reproduce(args) -> int:
    from .analysis.reproduce import SECTIONS, reproduce

    sections = SECTIONS if args.sections == "all" else tuple(args.sections.split(","))
    if args.games < 100:
        raise CliError(f"--games must be at least 100, got {args.games}")
    rep = reproduce(
        sections=sections,
        quick=args.quick,
        games=args.games,
        seed=args.seed,
        out=args.out,
        n_jobs=args.jobs,
        progress=not (args.quiet or args.json),
    )
    if args.json:
        print(json.dumps(rep.to_dict()))
        return 0
    frame = rep.frame()
    shown = frame[["table", "item", "paper", "ours", "difference", "method"]]
    with _wide_pandas():
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    for what, why in rep.skipped.items():
        print(f"skipped {what}: {why}")
    print(f"written to {rep.out / 'report.md'} (and report.html, reproduction.csv, figures)")
    return 0


def _wide_pandas():
    """Wide, untruncated pandas printing for one table."""
    import pandas as pd

    return pd.option_context("display.width", 200, "display.max_colwidth", 70)


def _first_sentence(doc: str | None) -> str:
    """A docstring's first sentence on one line (up to the first ". " or blank line)."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def cmd_strategies(args) -> int:
    from dataclasses import asdict

    from .rules import PRESETS, get_rules
    from .strategies import strategy_class, strategy_ids

    rows = []
    for sid in strategy_ids():
        cls = strategy_class(sid)
        rows.append(
            {
                "id": sid,
                "version": cls.version,
                "class": cls.__name__,
                "deterministic": cls.deterministic,
                "in_all": cls.in_all,
                "rules": [name for name in PRESETS if cls.supports(get_rules(name))],
                "description": _first_sentence(cls.__doc__),
                "references": [asdict(r) for r in cls.references],
            }
        )
    if args.json:
        print(json.dumps(rows))
    else:
        width = max(len(r["id"]) for r in rows) + 2
        for r in rows:
            print(f"{r['id']:<{width}}v{r['version']}  {r['description']}")
    return 0


def cmd_rules(args) -> int:
    from .rules import PRESETS, get_rules

    if args.preset is None:
        if args.json:
            print(json.dumps(list(PRESETS)))
        else:
            print("\n".join(PRESETS))
        return 0
    rules = get_rules(args.preset)
    info = {"name": rules.name, "fingerprint": rules.fingerprint(), **rules.describe()}
    if args.json:
        print(json.dumps(info))
    else:
        print(
            f"{rules.name}: {rules.n_dice} dice, {rules.n_faces} faces, "
            f"{rules.rolls_per_turn} rolls per turn, joker {rules.joker}, "
            f"Yahtzee bonus {rules.yahtzee_bonus}, upper bonus {rules.upper_bonus} at "
            f"{rules.upper_bonus_threshold}"
        )
        for c in rules.categories:
            print(f"  {c.name:<18}{c.kind}")
    return 0


def cmd_win(args) -> int:
    from .exact import evaluate
    from .strategies import get_strategy
    from .strategies.win import WinProbability

    rules = _rules_from(args)
    if args.players < 2:
        raise CliError(f"--players must be at least 2, got {args.players}")
    t0 = time.perf_counter()
    vs = get_strategy(args.vs)
    strategy = WinProbability(args.players, vs=vs)
    p = strategy.win_probability(rules)
    law = evaluate(strategy, rules, progress=not (args.quiet or args.json)) if args.law else None
    opp = evaluate(vs, rules)
    out = {
        "rules": rules.name,
        "players": args.players,
        "vs": args.vs,
        "win_probability": p,
        "baseline": 1.0 / args.players,
        "opponent_mean": opp.mean,
        "opponent_sd": opp.sd,
        "mean": law.mean if law else None,
        "sd": law.sd if law else None,
        "seconds": time.perf_counter() - t0,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"rules {rules.name}, {args.players} players, opponents play {args.vs}: "
        f"win:{args.players} wins with probability {p:.6f} (baseline {1 / args.players:.6f})"
    )
    if law:
        print(
            f"  its score: mean {law.mean:.4f}, SD {law.sd:.4f} "
            f"(opponents: mean {opp.mean:.4f}, SD {opp.sd:.4f})"
        )
    print(f"  ({out['seconds']:.1f} s)")
    return 0


def cmd_risk(args) -> int:
    from .exact import evaluate
    from .risk import check_theta

    rules = _rules_from(args)
    if not args.theta:
        raise CliError("give --theta T (or several, comma-separated)")
    thetas = [check_theta(t, rules) for t in args.theta]
    _check_plot(args.plot)
    rows = []
    for theta in thetas:
        t0 = time.perf_counter()
        res = evaluate(f"risk:{theta!r}", rules)
        rows.append(
            {
                "theta": theta,
                "mean": res.mean,
                "sd": res.sd,
                "p10": res.percentile(10),
                "p90": res.percentile(90),
                "seconds": time.perf_counter() - t0,
            }
        )
    opt = evaluate("optimal", rules)
    base = {
        "theta": 0.0,
        "mean": opt.mean,
        "sd": opt.sd,
        "p10": opt.percentile(10),
        "p90": opt.percentile(90),
    }
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from .analysis import plot_risk_frontier

        fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
        plot_risk_frontier([*rows, base], axes, title=f"Risk-sensitive play on {rules.name}")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    if args.json:
        print(json.dumps({"rules": rules.name, "rows": rows, "optimal": base}))
        return 0
    print(f"rules {rules.name}: exponential-utility play (theta 0 = max-EV)")
    print(f"  {'theta':>9} {'mean':>9} {'sd':>8} {'p10':>5} {'p90':>5}")
    for r in sorted([*rows, base], key=lambda r: r["theta"]):
        print(f"  {r['theta']:>9.4g} {r['mean']:>9.3f} {r['sd']:>8.3f} {r['p10']:>5} {r['p90']:>5}")
    return 0


def cmd_analyze(args) -> int:
    from .analysis.coach import analyze, plot_value_path

    res = analyze(args.file, args.rules)
    games = res.games
    single = (
        args.game if args.game is not None else (games["game"].iloc[0] if len(games) == 1 else None)
    )
    if single is not None and single not in set(games["game"]):
        raise CliError(f"--game {single}: the file holds games {_span(games['game'])}")
    if args.plot is not None:
        _check_out_png(args.plot)
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(10, 4))
        plot_value_path(res, single, ax)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        plt.close(fig)
    out = res.summary(args.top)
    if single is not None:
        d = res.decisions[res.decisions["game"] == single]
        out["game"] = games[games["game"] == single].iloc[0].to_dict()
        out["decisions"] = d.to_dict(orient="records")
    if args.json:
        print(json.dumps(out, default=_json_default))
        return 0
    if single is not None:
        _print_game(res, single)
    _print_summary(res, out)
    if args.plot is not None:
        print(f"value path written to {args.plot}")
    return 0


def _json_default(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def _span(values) -> str:
    v = sorted(set(int(x) for x in values))
    return f"{v[0]}..{v[-1]}" if len(v) > 1 else str(v[0])


def _check_out_png(path: Path) -> None:
    if path.suffix.lower() != ".png":
        raise CliError(f"--plot {str(path)!r}: the name must end in .png")
    if not path.parent.is_dir():
        raise CliError(f"--plot: folder {str(path.parent)!r} does not exist")


def _print_game(res, game) -> None:
    d = res.decisions[res.decisions["game"] == game]
    print(f"game {game}: every decision, its loss against optimal play and the luck before it")
    print(f"  {'turn':>4} {'left':>4}  {'dice':<10} {'move':<22} {'best move':<22} "
          f"{'luck':>7} {'loss':>6}")  # fmt: skip
    for r in d.itertuples():
        flag = "  <-" if r.loss > 0.5 else ""
        print(
            f"  {r.turn:>4} {r.rolls_left:>4}  {r.dice:<10} {r.move:<22} "
            f"{(r.optimal_move if r.loss > 1e-9 else '='):<22} {r.luck:>+7.2f} {r.loss:>6.2f}{flag}"
        )
    row = res.games[res.games["game"] == game].iloc[0]
    if row["complete"]:
        head = f"  score {row['score']}"
    else:
        head = f"  expected final {row['expected_final']:.2f} (in progress, {row['score']} so far)"
    print(
        f"{head} = start {res.start_value:.2f} + luck {row['luck']:+.2f} "
        f"- regret {row['regret']:.2f}"
    )


def _print_summary(res, out: dict) -> None:
    n = out["games"]
    if n > 1:
        print(f"{n:,} games ({out['complete_games']:,} complete), rules {out['rules']}")
        for key, name in (("expected_final", "score"), ("luck", "luck"), ("regret", "regret")):
            m = out[key]
            print(f"  mean {name:<7} {m['mean']:8.2f}  (95% CI {m['lo']:.2f} .. {m['hi']:.2f})")
        print(f"  start value {res.start_value:.2f} (expected score of optimal play)")
    print("  points lost by decision type (per game):")
    for name, r in out["by_decision"].items():
        print(
            f"    {name:<22} {int(r['mistakes']):>7,} mistakes in {int(r['decisions']):>8,} "
            f"decisions  {r['loss_per_game']:6.2f}"
        )
    if out["mistakes"] and n > 1:
        print("  costliest mistakes:")
        for m in out["mistakes"]:
            print(
                f"    game {m['game']}, turn {m['turn']}, {m['rolls_left']} left, dice "
                f"{m['dice']}: {m['move']} instead of {m['optimal_move']} (-{m['loss']:.2f})"
            )


def cmd_serve(args) -> int:
    from .rules import get_rules

    get_rules(args.rules)  # a bad preset: one line before anything starts
    try:
        from .server import serve
    except ImportError as exc:
        raise CliError(str(exc)) from None
    serve(args.host, args.port, args.rules)
    return 0


def cmd_play(args) -> int:
    import numpy as np

    from .play import play

    if args.record is not None and not args.record.parent.is_dir():
        raise CliError(f"--record: folder {str(args.record.parent)!r} does not exist")
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    play(
        _rules_from(args),
        seed=seed,
        game=args.game,
        manual=args.dice == "manual",
        coach=not args.no_coach,
        record=args.record,
    )
    if args.record is not None:
        print(f"game record written to {args.record} (yahtzee-sim analyze {args.record})")
    return 0


def cmd_dataset(args) -> int:
    from .analysis.dataset import _check_path, decision_dataset

    _check_path(args.out)  # before the games are played
    ds = decision_dataset(
        args.strategy, args.games, args.seed, _rules_from(args), progress=not args.quiet and None
    )
    ds.write(args.out)
    out = ds.summary() | {"out": str(args.out), "seconds": round(ds.seconds, 2)}
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{out['decisions']:,} decisions of {out['strategy']} in {out['games']:,} games "
        f"({out['rules']}, seed {out['seed']}) written to {args.out}"
    )
    print(f"  regret against optimal: {out['regret_per_game']:.3f} points per game")
    for name, k in out["by_decision"].items():
        print(
            f"  {name:<22} {k['decisions']:>10,} decisions, {k['mistakes']:>9,} mistakes, "
            f"{k['regret_per_game']:.3f} points per game"
        )
    return 0


COMMANDS = {
    "simulate": cmd_simulate,
    "dataset": cmd_dataset,
    "analyze": cmd_analyze,
    "play": cmd_play,
    "serve": cmd_serve,
    "solve": cmd_solve,
    "advise": cmd_advise,
    "select": cmd_select,
    "exact": cmd_exact,
    "target": cmd_target,
    "win": cmd_win,
    "risk": cmd_risk,
    "tournament": cmd_tournament,
    "winprob": cmd_winprob,
    "report": cmd_report,
    "reproduce": cmd_reproduce,
    "strategies": cmd_strategies,
    "rules": cmd_rules,
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``yahtzee-sim`` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args)
    except YahtzeeSimError as exc:
        print(f"yahtzee-sim {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        detail = str(exc) or "interrupted"
        print(f"yahtzee-sim {args.command}: {detail}", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

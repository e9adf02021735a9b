"""The ``yahtzee-sim`` parser and entry point: the commands, in the order of ``--help``."""

from __future__ import annotations

import argparse
import os
import sys

from yahtzee_sim import __version__
from yahtzee_sim.cli import (
    catalog,
    distill,
    duel,
    learn,
    objectives,
    play,
    rank,
    regret,
    report,
    simulate,
    solve,
    tournament,
)
from yahtzee_sim.cli.missing_extras import missing_extra_message, missing_optional
from yahtzee_sim.cli.options import EXIT_USAGE, Command, Parser, flag_message
from yahtzee_sim.engine.memory_budget import memory_from_environment
from yahtzee_sim.engine.threads import threads_from_environment

#: Every subcommand, in the order ``yahtzee-sim --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command(
        "simulate",
        "simulate games of one strategy and summarize them",
        simulate.add_arguments,
        simulate.run,
    ),
    Command(
        "solve",
        "solve a rule set: optimal expected score of every state",
        solve.add_solve_arguments,
        solve.run_solve,
    ),
    Command(
        "advise",
        "value every option at one decision (optimal play)",
        solve.add_advise_arguments,
        solve.run_advise,
    ),
    Command(
        "select",
        "Kim-Nelson selection of the best strategy (CRN)",
        learn.add_select_arguments,
        learn.run_select,
    ),
    Command(
        "rank",
        "full ranking: every pair with simultaneous intervals, tiers (CRN, exact means)",
        rank.add_rank_arguments,
        rank.run_rank,
    ),
    Command(
        "exact",
        "exact score distribution of a deterministic strategy",
        solve.add_exact_arguments,
        solve.run_exact,
    ),
    Command(
        "regret",
        "exact points lost against optimal play, by decision, turn and box",
        regret.add_regret_arguments,
        regret.run_regret,
    ),
    Command(
        "check",
        "check that a strategy plays legal, reproducible, batch-independent games",
        regret.add_check_arguments,
        regret.run_check,
    ),
    Command(
        "report",
        "the benchmark report: every strategy simulated, exact, ranked, plotted",
        report.add_report_arguments,
        report.run_report,
    ),
    Command(
        "reproduce",
        "every published table the project can compute: paper | ours",
        report.add_reproduce_arguments,
        report.run_reproduce,
    ),
    Command(
        "target",
        "max P(final score >= beta): target-score optimal play",
        objectives.add_target_arguments,
        objectives.run_target,
    ),
    Command(
        "win",
        "play to win: the best response to known opponents",
        objectives.add_win_arguments,
        objectives.run_win,
    ),
    Command(
        "risk",
        "risk-sensitive play: exponential utility, frontier",
        objectives.add_risk_arguments,
        objectives.run_risk,
    ),
    Command(
        "tournament",
        "multiplayer games (blind or visible): win rates, round robins",
        tournament.add_tournament_arguments,
        tournament.run_tournament,
    ),
    Command(
        "winprob",
        "live win probability of mid-game score sheets",
        tournament.add_winprob_arguments,
        tournament.run_winprob,
    ),
    Command(
        "duel",
        "exact optimal two-player move and P(win) at an endgame position",
        duel.add_duel_arguments,
        duel.run_duel,
    ),
    Command(
        "distill",
        "learn a short rule card a person can play; exact mean per number of rules",
        distill.add_distill_arguments,
        distill.run_distill,
    ),
    Command(
        "dataset",
        "one row per decision of a strategy, every option valued (optimal)",
        learn.add_dataset_arguments,
        learn.run_dataset,
    ),
    Command(
        "analyze",
        "grade recorded games against optimal play: mistakes, luck and skill",
        play.add_analyze_arguments,
        play.run_analyze,
    ),
    Command(
        "play", "play a game in the terminal, with a coach", play.add_play_arguments, play.run_play
    ),
    Command(
        "serve",
        "a local web page: advisor, coach and a playable game",
        play.add_serve_arguments,
        play.run_serve,
    ),
    Command(
        "strategies",
        "list the registered strategies",
        catalog.add_strategies_arguments,
        catalog.run_strategies,
    ),
    Command(
        "rules",
        "list the rule presets, or describe one",
        catalog.add_rules_arguments,
        catalog.run_rules,
    ),
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``yahtzee-sim`` command, one subparser per :data:`COMMANDS`."""
    parser = Parser(prog="yahtzee-sim", description="Evaluate and rank Yahtzee/Yatzy strategies.")
    parser.add_argument("--version", action="version", version=f"yahtzee-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.add_arguments(sub.add_parser(command.name, help=command.help))
    return parser


def _fail(command: str, message: str) -> int:
    """Print ``yahtzee-sim COMMAND: error: message`` on stderr (one line: line breaks in
    ``message`` become spaces); return exit code 2."""
    message = " ".join(message.splitlines())
    print(f"yahtzee-sim {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Run ``yahtzee-sim`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Bad input (any :class:`ValueError`, which every :class:`YahtzeeSimError` is) and a
    missing optional extra print one line on stderr and return 2; no traceback. A
    message that starts with an API keyword names the command's option instead
    (:func:`~yahtzee_sim.cli.options.flag_message`: ``--games must be ...``). The
    environment is input too: a bad ``YAHTZEE_SIM_MEMORY`` or ``YAHTZEE_SIM_THREADS`` stops
    every command at once, whether or not it would have needed the budget or the threads.

    Examples
    --------
    >>> main(["rules"])  # doctest: +SKIP
    yahtzee
    ...
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    run = {c.name: c.run for c in COMMANDS}[args.command]
    try:
        memory_from_environment()  # a bad value is reported before any work
        threads_from_environment()
        return run(args)
    except ValueError as exc:  # YahtzeeSimError and every other bad-input error of the API
        return _fail(args.command, flag_message(str(exc), args))
    except ImportError as exc:  # an optional extra is missing: say which, and how to get it
        module = missing_optional(exc)
        if module is None:
            raise
        return _fail(args.command, missing_extra_message(args.command, module))
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        detail = str(exc) or "interrupted"
        print(f"yahtzee-sim {args.command}: {detail}", file=sys.stderr)
        return 130

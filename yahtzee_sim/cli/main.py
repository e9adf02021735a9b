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
    warmup,
)
from yahtzee_sim.cli.missing_extras import missing_extra_message, missing_optional
from yahtzee_sim.cli.options import EXIT_USAGE, Command, Parser
from yahtzee_sim.engine.budget import memory_from_environment

#: Every subcommand, in the order ``yahtzee-sim --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    simulate.SIMULATE,
    solve.SOLVE,
    solve.ADVISE,
    learn.SELECT,
    rank.RANK,
    solve.EXACT,
    regret.REGRET,
    regret.CHECK,
    report.REPORT,
    report.REPRODUCE,
    objectives.TARGET,
    objectives.WIN,
    objectives.RISK,
    tournament.TOURNAMENT,
    tournament.WINPROB,
    duel.DUEL,
    distill.DISTILL,
    learn.DATASET,
    play.ANALYZE,
    play.PLAY,
    play.SERVE,
    catalog.STRATEGIES,
    catalog.RULES,
    warmup.WARMUP,
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
    missing optional extra print one line on stderr and return 2; no traceback. The
    environment is input too: a bad ``YAHTZEE_SIM_MEMORY`` stops every command at once,
    whether or not it would have needed the budget.

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
        return run(args)
    except ValueError as exc:  # YahtzeeSimError and every other bad-input error of the API
        return _fail(args.command, str(exc))
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

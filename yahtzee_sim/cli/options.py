"""Shared pieces of every command: the parser class, argument types and options.

Each option that several commands take (``--rules``, ``--games``, ``--seed``,
``--jobs``, ``--json``, ``--quiet`` ...) is declared here once; a command module adds
it with one call and may change only its default and help text.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from yahtzee_sim.errors import CliError
from yahtzee_sim.game.rules import MODIFIERS, PRESETS, RuleSet, get_rules

EXIT_USAGE = 2

#: The largest whole number an option takes (numpy's int64).
MAX_WHOLE = 2**63 - 1


@dataclass(frozen=True)
class Command:
    """One subcommand of ``yahtzee-sim``.

    Attributes
    ----------
    name : str
        The word typed after ``yahtzee-sim``.
    help : str
        One line shown in ``yahtzee-sim --help``.
    add_arguments : callable
        ``add_arguments(parser)`` declares the command's options.
    run : callable
        ``run(args) -> int`` does the work and returns the exit code.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str):
        """Print ``prog: error: message`` and exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


# ------------------------------------------------------------------ argument types
def _whole(text: str, expected: str) -> int:
    """``text`` as an int (underscores allowed), or an ArgumentTypeError naming ``expected``."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if abs(value) > MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"expected {expected} below 2**63, got {text!r}")
    return value


def whole(text: str) -> int:
    """A whole number (of either sign) within int64; the command checks its range."""
    return _whole(text, "a whole number")


def non_negative(text: str) -> int:
    """A whole number >= 0."""
    value = _whole(text, "a whole number >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1 (``100_000`` allowed)."""
    value = _whole(text, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def at_least(minimum: int) -> Callable[[str], int]:
    """The argument type of a whole number >= ``minimum`` (``--games`` of ``report``: 100),
    whose refusal states that minimum."""

    def parse(text: str) -> int:
        value = _whole(text, f"a whole number >= {minimum}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def seed(text: str) -> int:
    """A seed: a whole number >= 0."""
    return non_negative(text)


def jobs(text: str) -> int:
    """A number of jobs: >= 1, or -1 for all cores."""
    value = _whole(text, "a whole number")
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1 or -1 (all cores), got {value}")
    return value


def port(text: str) -> int:
    """A TCP port in 0..65535 (0: any free port)."""
    value = _whole(text, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in 0..65535, got {value}")
    return value


def float_list(text: str) -> list[float]:
    """Numbers separated by commas, e.g. ``0.5,-0.5``."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None


def dice(text: str, option: str = "--dice") -> list[int]:
    """Faces separated by commas or spaces, e.g. ``1,3,5,5,6``; CliError if not numbers."""
    try:
        return [int(x) for x in text.replace(" ", ",").split(",") if x]
    except ValueError:
        raise CliError(f"{option} must be comma-separated numbers, got {text!r}") from None


def id_list(text: str) -> list[str]:
    """Comma-separated ids, blanks dropped."""
    return [s.strip() for s in text.split(",") if s.strip()]


# ------------------------------------------------------------------ shared options
def add_rules(
    p: argparse.ArgumentParser,
    *,
    default: str | None = "yahtzee",
    help: str | None = None,
    rolls_per_turn: bool = True,
) -> None:
    """``--rules PRESET`` and (unless ``rolls_per_turn=False``) ``--rolls-per-turn N``."""
    text = help or (
        f"rule set: {', '.join(PRESETS)}, with house rules after '+' "
        f"({', '.join('+' + m for m in MODIFIERS)}; e.g. yatzy+forced) "
        "(default: yahtzee, official Hasbro rules)"
    )
    p.add_argument("--rules", default=default, metavar="PRESET", help=text)
    if rolls_per_turn:
        p.add_argument(
            "--rolls-per-turn",
            type=positive_int,
            default=None,
            metavar="N",
            help="override the number of rolls per turn (e.g. 4)",
        )


#: What ``--strategy`` and ``--strategies`` accept besides ids (kept in step with
#: ``strategies.plugins.PLUGIN_SYNTAX``, which the tests compare; not imported here, as
#: the strategies package is heavy and ``--help`` must stay fast).
PLUGIN_SYNTAX = "FILE.py:NAME, FILE.py:NAME(param=value, ...) or package.module:NAME"


def strategy_help(default: str, what: str = "a strategy id") -> str:
    """The help text of a strategy option: ``what``, the plugin syntax and the default."""
    return f"{what} or your own: {PLUGIN_SYNTAX} (default: {default})"


def add_strategy(
    p: argparse.ArgumentParser, default: str, *, label: bool = False, option: str = "--strategy"
) -> None:
    """``--strategy ID`` with the given default, and (``label=True``) ``--label TEXT``."""
    p.add_argument(option, default=default, metavar="STRATEGY", help=strategy_help(default))
    if label:
        p.add_argument(
            "--label",
            default=None,
            metavar="TEXT",
            help="name the strategy TEXT in every output (default: its id or class name)",
        )


def add_strategies(p: argparse.ArgumentParser, default: str, what: str) -> None:
    """``--strategies A,B,...``: ``what`` says how the list is read."""
    p.add_argument("--strategies", default=default, help=strategy_help(default, what))


def strategy_from(args: argparse.Namespace):
    """The strategy named by ``--strategy``, under ``--label`` if one was given."""
    from yahtzee_sim.strategies import get_strategy  # loads every strategy: not needed for --help

    strategy = get_strategy(args.strategy)
    label = getattr(args, "label", None)
    return strategy if label is None else strategy.labelled(label)


def add_games(
    p: argparse.ArgumentParser, default: int | None, help: str | None = None, minimum: int = 1
) -> None:
    """``--games N`` (a whole number >= ``minimum``, refused with that minimum)."""
    text = help or f"number of games (default: {default})"
    kind = positive_int if minimum == 1 else at_least(minimum)
    p.add_argument("--games", type=kind, default=default, help=text)


def add_seed(p: argparse.ArgumentParser, default: int | None = 0, help: str | None = None) -> None:
    """``--seed N`` (a whole number >= 0)."""
    text = help or f"master seed (default: {default})"
    p.add_argument("--seed", type=seed, default=default, help=text)


def add_jobs(
    p: argparse.ArgumentParser, default: int, help: str, *, all_cores: bool = True
) -> None:
    """``--jobs N``; -1 (all cores) is accepted unless ``all_cores=False``."""
    p.add_argument("--jobs", type=jobs if all_cores else positive_int, default=default, help=help)


def add_game_options(p: argparse.ArgumentParser, games: int) -> None:
    """``--strategy``, ``--games``, ``--seed`` and the rules: which games to play."""
    add_strategy(p, "greedy", label=True)
    add_games(p, games)
    add_seed(p)
    add_rules(p)


def add_position(p: argparse.ArgumentParser) -> None:
    """``--seat``, ``--dice`` and ``--rolls-left``: whose turn it is, mid-turn in a match."""
    p.add_argument("--seat", type=whole, default=0, help="your seat (0 = first to play)")
    p.add_argument("--dice", default=None, help="dice of the player to move, e.g. 6,6,6,2,3")
    p.add_argument("--rolls-left", type=whole, default=None, help="rerolls left with --dice")


def add_output(
    p: argparse.ArgumentParser, *, quiet: bool = True, json_help: str = "print one JSON object"
) -> None:
    """``--json`` and (unless ``quiet=False``) ``--quiet`` and ``--progress``."""
    p.add_argument("--json", action="store_true", help=json_help)
    if quiet:
        add_flag(p, "--quiet", "no progress bar")
        add_flag(
            p,
            "--progress",
            "draw the progress bar on stderr even when stderr is not a terminal (by default "
            "only on a terminal)",
        )


def add_count(
    p: argparse.ArgumentParser, option: str, help: str, default: int | None = None
) -> None:
    """A whole-number option >= 1 (``--top``, ``--players``, ``--batch`` ...)."""
    p.add_argument(option, type=positive_int, default=default, help=help)


def add_flag(p: argparse.ArgumentParser, option: str, help: str) -> None:
    """An on/off option (``store_true``)."""
    p.add_argument(option, action="store_true", help=help)


def add_path(
    p: argparse.ArgumentParser, option: str, help: str, *, default: Path | None = None, **kw
) -> None:
    """A file or folder option (``--out``, ``--plot``, ``--record``) read as a Path."""
    p.add_argument(option, type=Path, default=default, help=help, **kw)


def rules_from(args: argparse.Namespace) -> RuleSet:
    """The rule set named by ``--rules`` and ``--rolls-per-turn``."""
    return get_rules(args.rules, rolls_per_turn=getattr(args, "rolls_per_turn", None))


def progress(args: argparse.Namespace) -> bool:
    """Whether to draw a progress bar on stderr: always with ``--progress``; else not
    with ``--quiet`` nor ``--json``, and only when stderr is a terminal (not when it is
    redirected to a file or a pipe)."""
    if getattr(args, "progress", False):
        return True
    if getattr(args, "quiet", False) or getattr(args, "json", False):
        return False
    return sys.stderr.isatty()


def flag_message(message: str, args: argparse.Namespace) -> str:
    """``message`` with the API name it starts with (``n_games must be ...``,
    ``out: ...``) replaced by the command's option (``--games must be ...``), when the
    command has that option; other messages unchanged.

    Examples
    --------
    >>> flag_message("n_games must be an integer >= 2, got 1", argparse.Namespace(games=1))
    '--games must be an integer >= 2, got 1'
    """
    match = re.match(r"([a-z][a-z0-9_]*)( must |: )", message)
    if match is None:
        return message
    name = match.group(1)
    for dest in (name, name.removeprefix("n_"), _API_DESTS.get(name, "")):
        if dest and dest in vars(args):
            return "--" + dest.replace("_", "-") + message[len(name) :]
    return message


#: API keywords whose option has another name (the ``n_`` prefix aside).
_API_DESTS = {"regret_top": "top"}

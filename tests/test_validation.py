"""Argument checks are declared, never written out: ``yahtzee_sim.validation`` holds the
only type-and-range checks of numbers, and every other module declares its checks with it.

The constraints: a ``bool`` is never an integer or a number, NumPy integers and floats are,
bounds are kept exactly, and :func:`~yahtzee_sim.validation.check` returns the plain Python
value. The decorator checks arguments by name, passed by position or by keyword, and leaves
a function's name, docstring and signature as they were. A scan of the source refuses any
hand-written copy of the check (``isinstance(x, bool)`` beside an integer test,
``isinstance(x, (int, np.integer))``, ``type(x) is int``) outside the helper module. A
renamed keyword argument keeps its old name working, with a DeprecationWarning.
"""

from __future__ import annotations

import ast
import inspect
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from yahtzee_sim.errors import RulesError, YahtzeeSimError
from yahtzee_sim.validation import (
    Boolean,
    InstanceOf,
    Integer,
    OneOf,
    Real,
    check,
    renamed_arguments,
    validate_params,
)

ROOT = Path(__file__).resolve().parents[1]
HELPER = ROOT / "yahtzee_sim" / "validation.py"
SCANNED = (ROOT / "yahtzee_sim", ROOT / "strategies", ROOT / "analysis")

NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
BOUND = st.none() | st.integers(-1000, 1000)


# ----------------------------------------------------------------- the constraints
@given(value=st.booleans(), low=BOUND, high=BOUND)
def test_a_bool_is_never_an_integer_or_a_number(value, low, high):
    assert not Integer(low, high).accepts(value)
    assert not Integer(low, high).accepts(np.bool_(value))
    assert not Real(low, high).accepts(value)
    with pytest.raises(YahtzeeSimError, match=f"got {value}$"):
        check("n", value, Integer(low, high))


@given(value=st.integers(-(10**30), 10**30), low=BOUND, high=BOUND)
def test_an_integer_is_accepted_exactly_within_its_bounds(value, low, high):
    inside = (low is None or value >= low) and (high is None or value <= high)
    assert Integer(low, high).accepts(value) == inside
    if inside:
        got = check("n", value, Integer(low, high))
        assert got == value and type(got) is int


@given(value=st.integers(0, 100), kind=st.sampled_from(NUMPY_INTS), low=BOUND)
def test_numpy_integers_are_integers_and_come_back_as_int(value, kind, low):
    x = kind(value)
    assert Integer(low).accepts(x) == (low is None or value >= low)
    assert Real(low).accepts(x) == (low is None or value >= low)
    if low is None or value >= low:
        assert type(check("n", x, Integer(low))) is int
        assert type(check("x", x, Real(low))) is float


@given(value=st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=3) | st.none())
def test_what_is_not_an_integer_is_refused(value):
    assert not Integer().accepts(value)
    with pytest.raises(RulesError, match=r"^k must be an integer, got "):
        check("k", value, Integer(), RulesError)


@given(
    value=st.floats(allow_nan=True, allow_infinity=True),
    low=st.none() | st.floats(-10, 10),
    high=st.none() | st.floats(-10, 10),
    closed=st.sampled_from(["both", "left", "right", "neither"]),
    finite=st.booleans(),
)
def test_a_real_is_accepted_exactly_within_its_bounds(value, low, high, closed, finite):
    above = low is None or (value >= low if closed in ("both", "left") else value > low)
    below = high is None or (value <= high if closed in ("both", "right") else value < high)
    ok = above and below and (math.isfinite(value) or not finite)
    constraint = Real(low, high, closed=closed, finite=finite)
    assert constraint.accepts(value) == ok
    assert constraint.accepts(np.float64(value)) == ok


def test_an_integer_too_large_for_a_float_is_not_a_real():
    assert not Real().accepts(10**400)
    assert Real().accepts(10**300)


def test_the_messages_say_what_a_value_must_be():
    cases = [
        (Integer(), "an integer"),
        (Integer(1), "an integer >= 1"),
        (Integer(maximum=9), "an integer <= 9"),
        (Integer(0, 60), "an integer from 0 to 60"),
        (Integer(nonzero=True), "a non-zero integer"),
        (Integer(0, 2, description="in 0..2 with dice"), "in 0..2 with dice"),
        (Real(), "a finite number"),
        (Real(finite=False), "a number"),
        (Real(0, closed="neither"), "a finite number > 0"),
        (Real(maximum=1), "a finite number <= 1"),
        (Real(0, 100, closed="neither"), "a number in (0, 100)"),
        (Real(0, 1, closed="left"), "a number in [0, 1)"),
        (Boolean(), "True or False"),
        (OneOf("penalty", "raise"), "one of penalty, raise"),
        (InstanceOf(str), "a str"),
        (InstanceOf((str, list)), "a str or a list"),
    ]
    for constraint, words in cases:
        assert constraint.describe() == words
    with pytest.raises(YahtzeeSimError) as info:
        check("n_games", 0, Integer(1))
    assert str(info.value) == "n_games must be an integer >= 1, got 0"


def test_a_long_value_is_quoted_short_on_one_line():
    with pytest.raises(YahtzeeSimError) as info:
        check("n_games", list(range(1000)), Integer(1))
    message = str(info.value)
    assert "\n" not in message and len(message) < 120 and message.endswith("...")


def test_booleans_and_options():
    assert check("flag", np.True_, Boolean()) is True
    for bad in (0, 1, "true", None):
        assert not Boolean().accepts(bad)
    modes = OneOf("penalty", "raise")
    assert modes.accepts("raise") and not modes.accepts("Raise") and not modes.accepts(None)
    assert OneOf(0, 1).accepts(np.int64(1)) and not OneOf(0, 1).accepts(False)
    assert not OneOf(1).accepts(1.0) and not OneOf("a").accepts(np.array(["a"]))
    assert InstanceOf(list).accepts([]) and not InstanceOf(list).accepts(())


# ----------------------------------------------------------------- the decorator
class SeatError(YahtzeeSimError):
    pass


@validate_params({"players": Integer(2), "delta": Real(0, closed="neither")}, error=SeatError)
def seats(name: str, players: int = 2, *, delta: float = 1.0, top: int | None = None):
    """Seats of a table."""
    return players, delta


def test_the_decorator_checks_arguments_by_position_and_by_keyword():
    assert seats("t", np.int64(3), delta=np.float32(0.5)) == (3, 0.5)
    assert type(seats("t", np.int64(3))[0]) is int
    assert seats("t", players=4) == (4, 1.0)
    for args, kwargs in [(("t", 1), {}), (("t",), {"players": True}), (("t",), {"delta": 0})]:
        with pytest.raises(SeatError, match=r"^(players|delta) must be "):
            seats(*args, **kwargs)


def test_a_default_is_trusted_and_the_function_keeps_its_face():
    @validate_params({"prune_to": Integer(0)})
    def f(prune_to: int | None = None) -> int | None:
        return prune_to

    assert f() is None and f(None) is None and f(3) == 3
    with pytest.raises(YahtzeeSimError, match="prune_to must be an integer >= 0, got -1"):
        f(-1)
    assert seats.__name__ == "seats" and seats.__doc__ == "Seats of a table."
    assert str(inspect.signature(seats)).startswith("(name: 'str', players: 'int' = 2")


def test_a_constraint_on_no_parameter_is_refused_at_once():
    with pytest.raises(TypeError, match="no parameter 'n_games'"):

        @validate_params({"n_games": Integer(1)})
        def f(games: int = 1) -> None:
            """Nothing."""


# ----------------------------------------------------------------- no copies
NUMERIC_NAMES = {"int", "float", "Integral", "Real", "Number"}
NUMPY_NUMERIC = {"integer", "floating", "number", "signedinteger", "unsignedinteger"}


def _type_names(node: ast.expr) -> set[str]:
    """The names in the type argument of ``isinstance`` (``np.integer`` → ``integer``)."""
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    out = set()
    for e in elts:
        if isinstance(e, ast.Name):
            out.add(e.id)
        elif isinstance(e, ast.Attribute):
            out.add(e.attr if e.attr not in NUMERIC_NAMES else f"numbers.{e.attr}")
    return out


def _isinstance_calls(node: ast.AST) -> list[tuple[str, set[str]]]:
    """``(the checked expression, its type names)`` of every ``isinstance`` in ``node``."""
    return [
        (ast.dump(n.args[0]), _type_names(n.args[1]))
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "isinstance"
        and len(n.args) == 2
    ]


def hand_written_checks(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` of every hand-written number check in ``source``, one per line."""
    found: dict[int, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            names = _type_names(node.args[1]) if len(node.args) == 2 else set()
            numeric = names & (NUMPY_NUMERIC | {"Integral", "Real", "Number"}) or {
                n for n in names if n.startswith("numbers.")
            }
            if numeric:
                found.setdefault(node.lineno, f"isinstance(x, ({', '.join(sorted(names))}))")
        elif isinstance(node, ast.BoolOp):
            calls = _isinstance_calls(node)
            bools = {x for x, names in calls if "bool" in names}
            if any(x in bools and names & {"int", "float"} for x, names in calls):
                found.setdefault(node.lineno, "isinstance(x, bool) beside an integer test")
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Call)
            and getattr(node.left.func, "id", None) == "type"
            and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
            and any(getattr(c, "id", None) in {"int", "float"} for c in node.comparators)
        ):
            found.setdefault(node.lineno, "type(x) is int")
    return sorted(found.items())


def test_the_scan_finds_every_form_of_the_hand_written_check():
    source = "\n".join(
        [
            "a = isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1",
            "b = isinstance(n, int) and not isinstance(n, bool)",
            "c = (isinstance(n, bool)\n     or not isinstance(n, int))",
            "d = isinstance(q, (int, float, np.integer, np.floating))",
            "e = type(n) is not int or n < 0",
            "f = isinstance(x, numbers.Real)",
            "g = isinstance(x, bool) or isinstance(y, int)",  # two values: not one check
            "h = isinstance(v, float) and v != v",  # a float's formatting, not a check
        ]
    )
    lines = [line for line, _ in hand_written_checks(source)]
    assert lines == [1, 2, 3, 5, 6, 7]


def test_no_argument_check_is_written_out_by_hand():
    found = []
    for folder in SCANNED:
        for path in sorted(folder.rglob("*.py")):
            if path == HELPER:
                continue
            for line, what in hand_written_checks(path.read_text()):
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not found, "declare these with yahtzee_sim.validation:\n" + "\n".join(found)


# ----------------------------------------------------------------- renamed arguments
def test_a_renamed_keyword_still_works_with_a_deprecation_warning():
    @renamed_arguments(cards="sheets")
    def seats(sheets, rules: str = "yahtzee") -> tuple:
        """Seats."""
        return tuple(sheets), rules

    assert seats.__doc__ == "Seats." and list(inspect.signature(seats).parameters) == [
        "sheets",
        "rules",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert seats(["a"], rules="yatzy") == (("a",), "yatzy")
    with pytest.warns(DeprecationWarning, match=r"seats\(\): cards= is now called sheets="):
        assert seats(cards=["a"]) == (("a",), "yahtzee")
    with pytest.raises(TypeError, match="both cards= and sheets="):
        seats(cards=["a"], sheets=["b"])

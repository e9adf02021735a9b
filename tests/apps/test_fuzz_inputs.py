"""Fuzzing the input surfaces a person types or sends: game-record files, score sheets, the
terminal game's lines and the web API's JSON. Every bad input gets one clear error (the
API: a :class:`~yahtzee_sim.errors.YahtzeeSimError`; the command line: one line, exit 2;
the web: a 4xx with a message; the terminal game: one line, and the game goes on), never
a traceback, a 500 or a silently accepted impossible value."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from yahtzee_sim.apps.game import Game
from yahtzee_sim.apps.terminal import EndOfInput, play
from yahtzee_sim.cli.main import main
from yahtzee_sim.engine.records import RecordError, check_record, read_records, record_games
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.multiplayer.win_probability import ScoreSheet, ScoreSheetError

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: Any JSON value (huge and negative numbers, floats, unicode, nesting).
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
#: Values that are never a face of a six-sided die.
NOT_A_FACE = st.one_of(
    st.integers(max_value=0),
    st.integers(min_value=7, max_value=10**40),
    st.booleans(),
    st.floats(),
    st.text(max_size=3),
    st.none(),
    st.lists(st.integers(1, 6), max_size=2),
)


@pytest.fixture(scope="module")
def record():
    """A complete, valid record of greedy's game 0 (yahtzee)."""
    return json.loads(json.dumps(record_games("greedy", 1, seed=0)[0]))


def _copy(rec):
    return json.loads(json.dumps(rec))


def _one_line_exit_2(argv, capsys) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


# ----------------------------------------------------------------- game records
@pytest.mark.slow
@FUZZ
@given(data=st.data(), value=JSON)
def test_a_record_with_any_field_replaced_is_checked_or_refused(record, data, value):
    rec = _copy(record)
    turn = data.draw(st.integers(0, len(rec["turns"]) - 1))
    where = data.draw(st.sampled_from(["top", "turns", "turn", "rolls", "die", "keeps", "box"]))
    t = rec["turns"][turn]
    if where == "top":
        rec[data.draw(st.sampled_from(["format", "rules", "seed", "game", "extra"]))] = value
    elif where == "turns":
        rec["turns"] = value
    elif where == "turn":
        rec["turns"][turn] = value
    elif where in ("rolls", "keeps", "box"):
        t[where] = value
    else:
        t["rolls"][data.draw(st.integers(0, len(t["rolls"]) - 1))][0] = value
    try:
        got = check_record(rec)
    except YahtzeeSimError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    # accepted: then it is a record the rules can produce, checked again from JSON text
    again = check_record(json.loads(json.dumps(rec)))
    assert again.final == got.final and 0 <= got.final <= 1575
    assert isinstance(rec.get("rules", "yahtzee"), str)
    for key in ("seed", "game"):
        assert key not in rec or (type(rec[key]) is int and rec[key] >= 0)


@FUZZ
@given(data=st.data(), bad=NOT_A_FACE)
def test_fuzzed_impossible_records_are_refused(record, data, bad):
    rec = _copy(record)
    turn = rec["turns"][data.draw(st.integers(0, len(rec["turns"]) - 1))]
    kind = data.draw(st.sampled_from(["face", "refill", "lost_keep", "extra_roll", "dice_count"]))
    if kind == "face":
        turn["rolls"][data.draw(st.integers(0, len(turn["rolls"]) - 1))][0] = bad
    elif kind == "refill":
        other = data.draw(st.sampled_from([t for t in rec["turns"] if t is not turn]))
        turn["box"] = other["box"]
    elif kind == "lost_keep":
        assume(len(turn["rolls"]) > 1 and turn["keeps"][0])
        kept = turn["keeps"][0][0]
        turn["rolls"][1] = [f % 6 + 1 for f in [kept] * 5]
    elif kind == "extra_roll":
        turn["rolls"] = [turn["rolls"][0]] * 4
        turn["keeps"] = [[]] * 3
    else:
        turn["rolls"][0] = turn["rolls"][0] + [1]
    with pytest.raises(RecordError):
        check_record(rec)


@FUZZ
@given(
    content=st.binary(max_size=300) | st.text(max_size=300),
    suffix=st.sampled_from([".jsonl", ".json"]),
)
def test_any_record_file_is_read_or_refused_in_one_line(tmp_path_factory, capsys, content, suffix):
    path = tmp_path_factory.mktemp("rec") / f"games{suffix}"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(YahtzeeSimError):  # a random file is never a complete set of records
        read_records(path)
    _one_line_exit_2(["analyze", str(path)], capsys)


def test_record_files_that_break_the_json_reader(tmp_path, capsys):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n")
    with pytest.raises(RecordError, match="line 1"):
        read_records(deep)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    for path in (deep, folder, tmp_path / "missing.jsonl"):
        _one_line_exit_2(["analyze", str(path)], capsys)


# ----------------------------------------------------------------- score sheets
BOX_NAMES = st.sampled_from([*get_rules("yahtzee").box_names, "yahtzee_bonuses", "nope"])
SHEET_ITEM = st.one_of(
    st.tuples(BOX_NAMES, st.integers(-100, 200)).map(lambda p: f"{p[0]}={p[1]}"),
    st.text(max_size=10),
    st.sampled_from(["ones=--3", "ones=²", "ones=3=3", "=", "ones=" + "9" * 5000, "ones= 3"]),
)


@FUZZ
@given(items=st.lists(SHEET_ITEM, max_size=6), rules=st.sampled_from(["yahtzee", "yatzy"]))
def test_score_sheets_are_parsed_or_refused(items, rules):
    text = ",".join(items)
    try:
        sheet = ScoreSheet.parse(text, rules)
    except ScoreSheetError as exc:
        assert "\n" not in str(exc)
        return
    r = sheet.rules
    table = r.tables.score_table
    for name, pts in sheet.boxes.items():
        c = r.box_names.index(name)
        assert pts == 0 or (table[:, c] == pts).any()
    assert 0 <= sheet.yahtzee_bonuses <= max(sheet.turns - 1, 0)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(items=st.lists(SHEET_ITEM, min_size=1, max_size=3))
def test_bad_score_sheets_on_the_command_line_get_one_line(capsys, items):
    text = ",".join(items)
    try:
        ScoreSheet.parse(text, "yahtzee")
    except ScoreSheetError:
        _one_line_exit_2(["winprob", "--me", text, "--opponent", ""], capsys)
    else:
        assume(False)


# ----------------------------------------------------------------- the terminal game
LINE = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["all", "-", "ch", "ss", "3k", "sheet", "card", "help", "5 5", "6", "1 1 1 1 1 1"]
    ),
    st.from_regex(r"[0-9 ,]{0,12}", fullmatch=True),
)


@FUZZ
@given(
    lines=st.lists(LINE, max_size=40),
    manual=st.booleans(),
    rules=st.sampled_from(["yahtzee", "yatzy"]),
)
def test_the_terminal_game_takes_any_line(lines, manual, rules):
    asked, said = [], []
    it = iter(lines)

    def ask(prompt):
        asked.append(prompt)
        line = next(it, None)
        if line is None:
            raise EndOfInput("end")
        return line

    def say(text):
        said.append(text)
        assert len(said) < 20 * len(lines) + 20, "the game talks without asking"

    rec = play(rules, ask=ask, say=say, seed=1, manual=manual)
    check_record(rec)  # what was played is a valid record
    assert all(isinstance(s, str) for s in said)
    assert said[-1].startswith(("score so far", "final score", "(input ended", "(the game"))


@FUZZ
@given(text=st.text(max_size=20) | st.sampled_from(["3k", "f", "Small-Straight", "yatzy", "  "]))
def test_a_box_line_is_played_or_gets_one_line_and_the_game_goes_on(text):
    rules = get_rules("yahtzee")
    game = Game(rules, seed=4)
    game.keep(game.dice())
    try:
        box = game.box(text)  # the API: a box, or one clear error
    except YahtzeeSimError as exc:
        box = None
        assert str(exc) and "\n" not in str(exc)
    said = []
    answers = iter(["all", text, "chance"])

    def ask(prompt):
        line = next(answers, None)
        if line is None:
            raise EndOfInput("end")
        return line

    rec = play(rules, ask=ask, say=said.append, seed=4, coach=False)
    first = rec["turns"][0]["box"]
    if box is not None or text.strip().lower() in ("help", "?", "h", "sheet", "card", "quit"):
        return
    assert first == "chance"
    at = next(i for i, s in enumerate(said) if s.startswith("  boxes:"))
    assert said[at + 1].startswith("  ") and said[at + 2].startswith("turn 1,")


# ----------------------------------------------------------------- the web API
flask = pytest.importorskip("flask")


@pytest.fixture(scope="module")
def client():
    from yahtzee_sim.apps.server import create_app

    return create_app().test_client()


def _check_answer(res):
    assert res.status_code in (200, 201, 400, 404, 405, 413), (res.status_code, res.data[:300])
    body = res.get_json()
    assert isinstance(body, dict)
    if res.status_code >= 400:
        assert isinstance(body.get("error"), str) and body["error"] and "\n" not in body["error"]
    return body


ADVICE = st.fixed_dictionaries(
    {},
    optional={
        "dice": st.lists(st.integers(-3, 9), max_size=7) | JSON,
        "rolls_left": st.integers(-3, 5) | st.just(10**20) | JSON,
        "used": st.lists(BOX_NAMES, max_size=4) | JSON,
        "upper": st.integers(-5, 200) | JSON,
        "flag": st.booleans() | JSON,
        "bonuses_paid": st.integers(-2, 20) | JSON,
        "rules": st.sampled_from(["yahtzee", "yatzy", "nope"]) | JSON,
    },
)


@FUZZ
@given(body=ADVICE | JSON)
def test_the_advise_api_answers_any_json(client, body):
    res = client.post("/api/advise", data=json.dumps(body), content_type="application/json")
    out = _check_answer(res)
    if res.status_code == 200:  # accepted: then the position was a possible one
        rules = get_rules(body.get("rules", "yahtzee"))
        assert len(body["dice"]) == rules.n_dice
        assert all(1 <= d <= rules.n_faces for d in body["dice"])
        assert 0 <= body["rolls_left"] < rules.rolls_per_turn
        assert len(set(body.get("used", []))) == len(body.get("used", []))
        assert 0 <= body.get("upper", 0) <= 6 * 5 * 6
        assert out["options"] and all(math.isfinite(o["value"]) for o in out["options"])


@FUZZ
@given(
    body=JSON | st.fixed_dictionaries({}, optional={"seed": JSON, "rules": JSON, "manual": JSON})
)
def test_new_games_from_any_json(client, body):
    res = client.post("/api/games", data=json.dumps(body), content_type="application/json")
    _check_answer(res)
    if res.status_code == 201:
        seed = body.get("seed") if isinstance(body, dict) else None
        assert seed is None or (type(seed) is int and 0 <= seed)


MOVE = st.sampled_from(["keep", "box", "dice"])
MOVE_BODY = st.one_of(
    JSON,
    st.fixed_dictionaries({"keep": st.lists(st.integers(-2, 9), max_size=7) | JSON}),
    st.fixed_dictionaries({"box": st.text(max_size=12) | BOX_NAMES | JSON}),
    st.fixed_dictionaries({"dice": st.lists(st.integers(-2, 9), max_size=7) | JSON}),
)


@FUZZ
@given(moves=st.lists(st.tuples(MOVE, MOVE_BODY), max_size=12), manual=st.booleans())
def test_moves_from_any_json_keep_the_game_valid(client, moves, manual):
    out = client.post("/api/games", json={"seed": 3, "manual": manual}).get_json()
    gid = out["id"]
    for kind, body in moves:
        res = client.post(f"/api/games/{gid}/{kind}", data=json.dumps(body),
                          content_type="application/json")  # fmt: skip
        state = _check_answer(res).get("state")
        if state is not None:
            assert all(1 <= d <= 6 for d in state["dice"]) and len(state["dice"]) in (0, 5)
    rec = client.get(f"/api/games/{gid}/record").get_json()
    check_record(rec)  # every accepted move made a valid game
    junk = client.post(f"/api/games/{gid}/box", data=b"\xff\xfe{", content_type="application/json")
    assert junk.status_code == 400

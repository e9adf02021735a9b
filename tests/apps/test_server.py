"""The local web page: its JSON API (Flask test client) and the page in a real headless
browser (Debian's Chromium and ChromeDriver, installed by .ci/run)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("flask")

from yahtzee_sim.apps.game import Game
from yahtzee_sim.apps.server import create_app
from yahtzee_sim.engine.records import check_record, record_games
from yahtzee_sim.multiplayer.matches import seat_seed
from yahtzee_sim.solving.advisor import AdvisorPosition, advise
from yahtzee_sim.solving.strategy_move import strategy_move
from yahtzee_sim.strategies import Strategy

from helpers import headless_chromium, running_server


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def test_advise_api_is_the_advisor(client):
    res = client.post("/api/advise", json={"dice": [1, 3, 5, 5, 6], "rolls_left": 2})
    assert res.status_code == 200
    got = res.get_json()["options"]
    want = advise([1, 3, 5, 5, 6], 2)
    assert [o["value"] for o in got] == [o.value for o in want]
    assert got[0]["loss"] == 0 and got[1]["loss"] > 0
    res = client.post(
        "/api/advise",
        json={
            "dice": [6, 6, 6, 6, 6],
            "rolls_left": 0,
            "used": ["yahtzee"],
            "flag": True,
            "upper": 0,
            "rules": "yahtzee",
        },
    )
    assert res.get_json()["options"][0]["box"] == "sixes"


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("not json", "JSON object"),
        ({"dice": [1, 3, 5, 5, 9], "rolls_left": 2}, "9"),
        ({"dice": [1, 3, 5, 5, 6]}, "'rolls_left' is missing"),
        ({"dice": [1, 3, 5, 5, 6], "rolls_left": "two"}, "'rolls_left' must be an integer"),
        ({"dice": [1, 3, 5, 5, 6], "rolls_left": 1, "rules": "monopoly"}, "monopoly"),
        ({"dice": [1, 3, 5, 5, 6], "rolls_left": 1, "upper": 7, "used": ["ones"]}, "upper total"),
    ],
)
def test_bad_requests_get_a_clear_400(client, body, match):
    kw = {"data": body} if isinstance(body, str) else {"json": body}
    res = client.post("/api/advise", **kw)
    assert res.status_code == 400 and match in res.get_json()["error"]


def test_other_errors(client):
    assert client.get("/api/games/nope").status_code == 404
    assert "error" in client.get("/api/nothing").get_json()
    assert client.delete("/api/advise").status_code == 405
    big = client.post("/api/advise", data="x" * 70_000, content_type="application/json")
    assert big.status_code == 413
    assert client.post("/api/games", json={"seed": -1}).status_code == 400


def test_a_whole_game_through_the_api(client):
    res = client.post("/api/games", json={"seed": 5})
    assert res.status_code == 201
    gid, state = res.get_json()["id"], res.get_json()["state"]
    early = client.post(f"/api/games/{gid}/box", json={"box": "chance"})
    assert early.status_code == 400 and "reroll(s) left" in early.get_json()["error"]
    words = 0
    while not state["over"]:
        if state["rolls_left"]:
            out = client.post(f"/api/games/{gid}/keep", json={"keep": state["dice"]}).get_json()
        else:
            box = next(iter(state["boxes"]))
            out = client.post(f"/api/games/{gid}/box", json={"box": box}).get_json()
        state, words = out["state"], words + 1
        assert "coach" in out and out["coach"]["loss"] >= 0
    assert words == 26 and out["summary"]["complete"]
    assert out["summary"]["score"] == state["score"]
    record = client.get(f"/api/games/{gid}/record").get_json()
    assert len(record["turns"]) == 13 and record["seed"] == 5
    res = client.post(f"/api/games/{gid}/box", json={"box": "chance"})
    assert res.status_code == 400 and "over" in res.get_json()["error"]


def test_labels_and_box_abbreviations_through_the_api(client):
    info = client.get("/api/rules?rules=yatzy").get_json()
    assert info["labels"][info["boxes"].index("three_of_a_kind")] == "Three of a kind"
    out = client.post("/api/games", json={"seed": 2, "rules": "yatzy"}).get_json()
    gid = out["id"]
    assert out["state"]["labels"]["one_pair"] == "One pair"
    client.post(f"/api/games/{gid}/keep", json={"keep": out["state"]["dice"]})
    res = client.post(f"/api/games/{gid}/box", json={"box": "Ch"})
    assert res.status_code == 200 and res.get_json()["state"]["sheet"]["chance"] is not None
    client.post(f"/api/games/{gid}/keep", json={"keep": res.get_json()["state"]["dice"]})
    again = client.post(f"/api/games/{gid}/box", json={"box": "chance"})
    assert again.status_code == 400 and "Chance: already filled" in again.get_json()["error"]
    vague = client.post(f"/api/games/{gid}/box", json={"box": "t"})
    assert vague.status_code == 400 and "fits Twos, Threes" in vague.get_json()["error"]


def test_manual_dice_through_the_api(client):
    out = client.post("/api/games", json={"manual": True}).get_json()
    gid = out["id"]
    assert out["state"]["need_dice"]
    bad = client.post(f"/api/games/{gid}/keep", json={"keep": []})
    assert bad.status_code == 400 and "dice" in bad.get_json()["error"]
    client.post(f"/api/games/{gid}/dice", json={"dice": [2, 2, 3, 5, 6]})
    client.post(f"/api/games/{gid}/keep", json={"keep": [2, 2]})
    lost = client.post(f"/api/games/{gid}/dice", json={"dice": [1, 1, 1, 1, 1]})
    assert lost.status_code == 400 and "lost the kept" in lost.get_json()["error"]
    out = client.post(f"/api/games/{gid}/dice", json={"dice": [2, 2, 2, 4, 6]}).get_json()
    assert out["state"]["dice"] == [2, 2, 2, 4, 6] and out["state"]["rolls_left"] == 1


@pytest.mark.slow
def test_advise_with_a_strategy_says_its_move_and_rule(client):
    body = {"dice": [2, 3, 3, 3, 6], "rolls_left": 0, "used": ["chance"], "strategy": "card-10"}
    res = client.post("/api/advise", json=body)
    assert res.status_code == 200
    got = res.get_json()
    says = got["strategy"]
    want = strategy_move("card-10", AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"]))
    assert says == {"id": "card-10"} | want.to_dict()
    assert says["rule"] == {"section": "box", "number": 4, "text": want.reason.text}
    assert got["options"][says["rank"] - 1]["box"] == says["option"]["box"]
    assert got["options"][says["rank"] - 1]["loss"] == pytest.approx(says["loss"])
    body = {"dice": [1, 3, 4, 5, 5], "rolls_left": 2, "strategy": "greedy"}
    says = client.post("/api/advise", json=body).get_json()["strategy"]
    assert says["rule"] is None and says["loss"] > 0 and says["move"].startswith("keep ")
    body |= {"strategy": "chase", "score": 120}
    assert client.post("/api/advise", json=body).status_code == 200
    info = client.get("/api/rules?rules=yatzy").get_json()
    assert {"card-10", "card-30"} <= set(info["strategies"]) and "random" not in info["strategies"]
    assert "win-aware" in info["opponents"] and "defensive" not in info["opponents"]


@pytest.mark.parametrize(
    ("strategy", "match"),
    [
        ("nope", "unknown strategy 'nope'"),
        ("card:/etc/passwd", "registered strategy id"),
        ("my_file.py:Mine", "registered strategy id"),
        ("random", "at random"),
        pytest.param("chase", "score so far", marks=pytest.mark.slow),  # seconds: see its test time
        (7, "'strategy' must be a string"),
    ],
)
def test_bad_strategies_get_a_clear_400(client, strategy, match):
    body = {"dice": [1, 3, 5, 5, 6], "rolls_left": 1, "strategy": strategy}
    res = client.post("/api/advise", json=body)
    assert res.status_code == 400 and match in res.get_json()["error"]
    res = client.post("/api/games", json={"opponent": strategy})
    if strategy not in ("random", "chase"):  # (both can sit in a match)
        assert (
            res.status_code == 400
            and match.replace("'strategy'", "'opponent'") in (res.get_json()["error"])
        )
    res = client.post("/api/games", json={"strategy": strategy})
    if strategy != "chase":  # (a game knows the score)
        assert res.status_code == 400 and match in res.get_json()["error"]
    res = client.post(
        "/api/advise", json={"dice": [1, 3, 5, 5, 6], "rolls_left": 1, "rules": "yatzy",
                             "strategy": "defensive"},
    )  # fmt: skip
    assert res.status_code == 400 and "needs the 13 Yahtzee boxes" in res.get_json()["error"]


def _play_out(client, gid, state, follow=None):
    """Play the game to its end: keep every die, then the first legal box (or, with
    ``follow``, the game's second opinion's move). Returns the last answer."""
    out = None
    while not state["over"]:
        if state["rolls_left"]:
            keep = state["dice"] if follow is None else follow["option"]["keep"]
            out = client.post(f"/api/games/{gid}/keep", json={"keep": keep}).get_json()
        else:
            box = next(iter(state["boxes"])) if follow is None else follow["option"]["box"]
            out = client.post(f"/api/games/{gid}/box", json={"box": box}).get_json()
        state, follow = out["state"], out.get("strategy") if follow is not None else None
    return out


def test_a_game_against_an_opponent(client):
    res = client.post("/api/games", json={"seed": 9, "opponent": "greedy"})
    assert res.status_code == 201
    gid, state = res.get_json()["id"], res.get_json()["state"]
    opp = state["opponent"]
    assert opp["strategy"] == "greedy" and opp["turns"] == 0 and opp["last_turn"] is None
    assert set(opp["sheet"]) == set(state["sheet"]) and opp["score"] == 0
    client.post(f"/api/games/{gid}/keep", json={"keep": state["dice"]})
    out = client.post(f"/api/games/{gid}/box", json={"box": next(iter(state["boxes"]))})
    opp = out.get_json()["state"]["opponent"]
    assert opp["turns"] == 1 and opp["last_turn"]["box"] in opp["sheet"]
    assert opp["sheet"][opp["last_turn"]["box"]] is not None
    assert opp["last_turn"]["points"] == opp["score"]
    out = _play_out(client, gid, out.get_json()["state"])
    state = out["state"]
    assert state["over"] and state["opponent"]["turns"] == 13
    assert None not in state["opponent"]["sheet"].values()
    mine, theirs = state["score"], state["opponent"]["score"]
    winner = "person" if mine > theirs else "opponent" if theirs > mine else "tie"
    assert state["winner"] == winner
    record = client.get(f"/api/games/{gid}/record").get_json()
    assert len(record["turns"]) == 13 and record["opponent"]["strategy"] == "greedy"
    # the opponent's record is a game record; greedy ignores the match, so its game is
    # game 0 of seat 1's dice stream: the solitaire game of that seed
    assert check_record(record["opponent"]).final == theirs
    solo = record_games("greedy", 1, seed=seat_seed(9, 1))[0]
    assert record["opponent"]["seed"] == seat_seed(9, 1)
    assert record["opponent"]["turns"] == solo["turns"]
    assert check_record(record).final == mine  # the person's record still checks


@pytest.mark.slow
def test_an_opponent_game_is_reproducible_and_the_opponent_sees_the_score_sheet(client):
    def play(seed):
        out = client.post(
            "/api/games", json={"seed": seed, "opponent": "win-aware", "strategy": "card-20"}
        ).get_json()
        assert out["strategy"]["id"] == "card-20" and out["strategy"]["rule"] is not None
        last = _play_out(client, out["id"], out["state"], follow=out["strategy"])
        return client.get(f"/api/games/{out['id']}/record").get_json(), last

    a, last = play(4)
    b, _ = play(4)
    assert a == b and len(a["opponent"]["turns"]) == 13
    assert "strategy" not in last  # no decision left
    assert last["state"]["winner"] in ("person", "opponent", "tie")
    assert play(5)[0]["opponent"]["turns"] != a["opponent"]["turns"]


def test_the_opponent_sees_the_persons_score_sheet_as_in_a_tournament_match():
    seen = []

    class Spy(Strategy):
        def keep(self, view):
            return np.asarray(view.dice)

        def box(self, view):
            tb = view.match
            seen.append((view.turn, tb.seat, tb.n_players, list(tb.turns), int(tb.score[0, 0]),
                         int(tb.used[0, 0])))  # fmt: skip
            return np.argmax(view.box_points, axis=1)

    game = Game("yahtzee", seed=1, opponent=Spy())
    for turn in range(3):
        game.keep(game.dice())
        game.box(next(iter(game.points())))
        st = game.state()
        used = sum(1 << game.rules.box_index(n) for n in game.used)
        assert seen[-1] == (turn, 1, 2, [turn + 1], st["score"], used)
    with pytest.raises(ValueError, match="not with manual dice"):
        Game("yahtzee", manual=True, opponent="greedy")


def test_a_solitaire_game_has_no_opponent_fields(client):
    out = client.post("/api/games", json={"seed": 5}).get_json()
    assert "opponent" not in out["state"] and "strategy" not in out
    record = client.get(f"/api/games/{out['id']}/record").get_json()
    assert "opponent" not in record


# --------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


@pytest.fixture
def page(server):
    """The page open in headless Chromium: ``(browser, a 20 s wait polling every 50 ms)``."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser = headless_chromium()
    try:
        browser.get(server)
        yield browser, WebDriverWait(browser, 20, poll_frequency=0.05)
    finally:
        browser.quit()


@pytest.mark.slow
def test_the_page_in_a_headless_browser(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    browser, wait = page
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#adv-used input")))
    # the advisor: enter a position, read the ranked options
    dice = browser.find_element(By.ID, "adv-dice")
    dice.clear()
    dice.send_keys("2 3 4 5 5")
    browser.find_element(By.CSS_SELECTOR, "#adv-used input[value='chance']").click()
    browser.find_element(By.ID, "adv-go").click()
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#adv-table tbody tr"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#adv-table tbody tr")
    want = advise([2, 3, 4, 5, 5], 2, ["chance"])
    assert len(rows) == len(want)
    first = rows[0].find_elements(By.TAG_NAME, "td")
    assert first[1].text == "keep " + " ".join(map(str, want[0].keep))
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#adv-used label")]
    assert "Three of a kind" in labels and "three_of_a_kind" not in labels
    assert float(first[2].text) == pytest.approx(want[0].value, abs=1e-3)
    # bad input shows the server's message, no crash
    dice.clear()
    dice.send_keys("2 3 4 5 9")
    browser.find_element(By.ID, "adv-go").click()
    wait.until(lambda b: b.find_element(By.ID, "adv-error").text)
    assert "9" in browser.find_element(By.ID, "adv-error").text
    # a whole game: hold a die, reroll, stop, pick the first legal box, to the end
    browser.find_element(By.ID, "new-game").click()
    wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#dice .die"))
    for _ in range(60):
        status = browser.find_element(By.ID, "status").text
        if status.startswith("Game over"):
            break
        turn = status
        if not browser.find_element(By.ID, "reroll").get_attribute("disabled"):
            browser.find_elements(By.CSS_SELECTOR, "#dice .die")[0].click()
            browser.find_element(By.ID, "reroll").click()
            wait.until(lambda b, t=turn: b.find_element(By.ID, "status").text != t)
            turn = browser.find_element(By.ID, "status").text
            browser.find_element(By.ID, "stop").click()
        else:
            browser.find_elements(By.CSS_SELECTOR, "#boxes .box")[0].click()
        wait.until(lambda b, t=turn: b.find_element(By.ID, "status").text != t)
    status = browser.find_element(By.ID, "status").text
    assert status.startswith("Game over"), status
    sheet = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#sheet tbody td")]
    assert "Small straight" in sheet and not any("_" in c for c in sheet)
    score = int(browser.find_element(By.ID, "score").text)
    assert f"Game over: {score} points." == status
    assert browser.find_element(By.ID, "summary").text.startswith(f"Final score {score}")
    assert browser.find_element(By.ID, "coach").text.startswith("coach:")


def test_the_page_compares_a_card_and_plays_an_opponent(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select

    browser, wait = page
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#compare option[value='']")))
    wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#opponent option")) > 1)
    Select(browser.find_element(By.ID, "compare")).select_by_visible_text("card-10")
    dice = browser.find_element(By.ID, "adv-dice")
    dice.clear()
    dice.send_keys("2 3 3 3 6")
    Select(browser.find_element(By.ID, "adv-rolls")).select_by_value("0")
    browser.find_element(By.CSS_SELECTOR, "#adv-used input[value='chance']").click()
    browser.find_element(By.ID, "adv-go").click()
    wait.until(lambda b: b.find_element(By.ID, "adv-says").text)
    want = strategy_move("card-10", AdvisorPosition([2, 3, 3, 3, 6], 0, used=["chance"]))
    assert browser.find_element(By.ID, "adv-says").text == want.line()
    theirs = browser.find_elements(By.CSS_SELECTOR, "#adv-table tr.theirs td")
    assert theirs[0].text == str(want.rank) and "card-10" in theirs[1].text
    # a game against greedy, card-10 as the second opinion
    Select(browser.find_element(By.ID, "opponent")).select_by_visible_text("greedy")
    browser.find_element(By.ID, "new-game").click()
    wait.until(lambda b: b.find_element(By.ID, "game-says").text)
    assert browser.find_element(By.ID, "game-says").text.startswith("card-10 says: ")
    assert browser.find_element(By.ID, "opp-name").text == "greedy"
    turn = browser.find_element(By.ID, "status").text
    browser.find_element(By.ID, "stop").click()
    wait.until(lambda b, t=turn: b.find_element(By.ID, "status").text != t)
    browser.find_elements(By.CSS_SELECTOR, "#boxes .box")[0].click()
    wait.until(lambda b: b.find_element(By.ID, "opp-turn").text)
    line = browser.find_element(By.ID, "opp-turn").text
    assert line.startswith("greedy: rolled ") and "points)" in line
    cells = browser.find_elements(By.CSS_SELECTOR, "#sheet tbody tr")[0]
    assert len(cells.find_elements(By.TAG_NAME, "td")) == 3
    assert int(browser.find_element(By.ID, "opp-score").text) >= 0


@pytest.mark.parametrize("path", ["/api/advise", "/api/games", "/api/games/{gid}/keep"])
@pytest.mark.parametrize(
    "body", [b"[" * 20_000 + b"]" * 20_000, b'{"a":' * 10_000 + b"1" + b"}" * 10_000]
)
def test_deeply_nested_json_is_a_400_not_a_500(client, path, body):
    gid = client.post("/api/games", json={"seed": 1}).get_json()["id"]
    res = client.post(path.format(gid=gid), data=body, content_type="application/json")
    assert res.status_code == 400 and "nested too deeply" in res.get_json()["error"]


@pytest.mark.parametrize("score", [10**30, -1, 2**31])
def test_a_score_out_of_range_is_a_400_not_a_500(client, score):
    body = {"dice": [1, 2, 3, 4, 5], "rolls_left": 2, "strategy": "greedy", "score": score}
    res = client.post("/api/advise", json=body)
    assert res.status_code == 400 and "'score'" in res.get_json()["error"]
    ok = client.post("/api/advise", json=body | {"score": 2**31 - 1})
    assert ok.status_code == 200


def test_a_new_game_takes_no_body_or_a_json_object(client):
    assert client.post("/api/games").status_code == 201  # the defaults
    for bad in (b'{"seed": 1', b"[]", b"null", b"0"):
        res = client.post("/api/games", data=bad, content_type="application/json")
        assert res.status_code == 400 and "JSON object" in res.get_json()["error"], bad


def test_a_game_dropped_while_its_answer_is_built_still_gets_its_answer(monkeypatch):
    """Another request may drop a game (beyond MAX_GAMES) between the lookup and the
    answer: the answer still names the game's strategy (this was a KeyError, a 500)."""
    from yahtzee_sim.apps import server

    app = create_app()
    state = server.ServerState("yahtzee", "")
    app.extensions[server.EXTENSION] = state
    monkeypatch.setattr(server, "MAX_GAMES", 1)
    game_state = Game.state

    def another_request_meanwhile(game):  # (as the answer is built, outside the lock)
        state.add(Game(seed=9), None)  # drops every other game
        return game_state(game)

    monkeypatch.setattr(Game, "state", another_request_meanwhile)
    client = app.test_client()
    out = client.post("/api/games", json={"seed": 1, "strategy": "greedy"})
    assert out.status_code == 201 and out.get_json()["strategy"]["id"] == "greedy"
    gone = client.get(f"/api/games/{out.get_json()['id']}")
    assert gone.status_code == 404 and "server's memory" in gone.get_json()["error"]

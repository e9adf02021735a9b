"""What players ask of the coach: undo, near ties, plan odds and the bank of saved rolls
(the game, the terminal, the JSON API and the page in headless Chromium)."""

from __future__ import annotations

import pytest

from yahtzee_sim.apps.game import Coach, Game, MoveError
from yahtzee_sim.apps.terminal import play
from yahtzee_sim.engine.records import check_record
from yahtzee_sim.game.plan_odds import plan_odds

from helpers import headless_chromium, running_server, scripted_answers, small_saved_game


def test_undo_takes_back_the_last_move_and_the_same_dice_come_again():
    game = Game("yahtzee", seed=4, game=2, opponent="greedy")
    with pytest.raises(MoveError, match="nothing to undo"):
        game.undo()
    first = game.dice()
    game.keep(first[:2])
    rerolled = game.dice()
    game.keep(game.dice())  # stop rolling
    box = next(iter(game.points()))
    game.box(box)
    after_box = game.state()
    game.undo()  # the box, and the opponent's turn after it
    st = game.state()
    assert st["turn"] == 1 and st["rolls_left"] == 0 and st["sheet"][box] is None
    assert st["opponent"]["score"] == 0 and len(game.losses) == 2
    game.box(box)
    assert game.state() == after_box
    for _ in range(3):
        game.undo()
    assert game.dice() == first and not game.state()["can_undo"]
    game.keep(first[:2])
    assert game.dice() == rerolled  # the engine's dice: undo fishes for nothing
    assert check_record(game.record_so_far()).decisions


def test_undo_of_manual_dice():
    game = Game("yahtzee", manual=True)
    game.set_dice([1, 2, 3, 4, 6])
    game.keep([1, 2, 3, 4])
    game.set_dice([1, 2, 3, 4, 4])
    game.undo()
    assert game.state()["need_dice"] and game.record_so_far()["turns"][0]["rolls"] == [
        [1, 2, 3, 4, 6]
    ]
    game.set_dice([1, 2, 3, 4, 5])
    assert game.dice() == [1, 2, 3, 4, 5]


def test_near_ties_in_the_coachs_word():
    assert Coach(0.0, "Chance", "r", 0.1).grade == "best"
    tie = Coach(0.04, "keep 5 5", "r", 0.1)
    assert tie.grade == "near tie" and "near tie" in tie.line() and "not a mistake" in tie.line()
    assert Coach(0.5, "keep 5 5", "r", 0.1).grade == "mistake"
    with pytest.raises(MoveError, match="tie"):
        Game(tie=-0.5)
    # a generous threshold: the game's summary counts no mistake below it
    game = Game("yahtzee", seed=3, tie=1000.0)
    game.keep([])
    assert game.summary()["mistakes"] == 0


def test_plan_odds_of_the_game():
    game = Game("yahtzee", seed=1)
    dice = game.dice()
    odds = game.plan_odds(dice[:3])
    assert odds == plan_odds(dice[:3], 2, "yahtzee")
    with pytest.raises(MoveError, match="do not hold"):
        game.plan_odds([7])


def test_the_terminal_undoes_and_shows_plan_odds():
    said = []
    rec = play(
        "yahtzee",
        ask=scripted_answers(["odds 3", "-", "undo", "undo", "all", "ch"]),
        say=said.append,
        seed=1,
    )
    text = "\n".join(said)
    assert "plan odds, keep 3 with 2 rerolls left: " in text and "Yahtzee" in text
    assert "(the last move is taken back)" in text and "nothing to undo" in text
    assert rec["turns"][0]["box"] == "chance" and rec["turns"][0]["keeps"] == []


def test_a_saved_roll_game_shows_its_bank_and_says_stop_in_words():
    rules = small_saved_game(cap=2)
    said = []
    play(rules, ask=scripted_answers(["all", "all"]), say=said.append, seed=2)
    text = "\n".join(said)
    assert "bank: 0 saved rolls brought to this turn" in text
    assert "'all' to score now and save the rolls left" not in text  # (a prompt, not said)
    game = Game(rules, seed=2)
    game.keep(game.dice())
    assert game.state()["saved_rolls"] == 1
    game.box(max(game.points(), key=game.points().get))
    assert game.state()["saved_before"] == 1 and game.state()["rolls_left"] == 2
    words = [o.text(rules) for o in game.options() if o.stop_box is not None]
    assert words and words[0].startswith("score ") and words[0].endswith("now and save 2 rolls")


# ------------------------------------------------------------------ the JSON API and the page
flask = pytest.importorskip("flask")


@pytest.fixture(scope="module")
def client():
    from yahtzee_sim.apps.server import create_app

    return create_app().test_client()


def test_undo_and_plan_odds_through_the_api(client):
    gid = client.post("/api/games", json={"seed": 5}).get_json()["id"]
    assert client.post(f"/api/games/{gid}/undo").status_code == 400  # nothing to undo yet
    start = client.get(f"/api/games/{gid}").get_json()["state"]
    assert start["can_undo"] is False
    res = client.post(f"/api/games/{gid}/odds", json={"keep": start["dice"][:2]}).get_json()
    assert res["rolls_left"] == 2 and "ones" not in res["odds"]  # boxes below the upper section
    want = plan_odds(start["dice"][:2], 2, "yahtzee", ["yahtzee"])["yahtzee"]
    assert res["odds"]["yahtzee"] == pytest.approx(want)
    moved = client.post(f"/api/games/{gid}/keep", json={"keep": []}).get_json()
    assert moved["state"]["can_undo"] and moved["coach"]["grade"] in ("best", "near tie", "mistake")
    back = client.post(f"/api/games/{gid}/undo").get_json()
    assert back["state"]["dice"] == start["dice"] and not back["state"]["can_undo"]
    assert client.post(f"/api/games/{gid}/odds", json={"keep": [9]}).status_code == 400


def test_plan_odds_in_the_advise_api(client):
    body = {"dice": [2, 3, 4, 5, 5], "rolls_left": 2, "odds": True}
    best = client.post("/api/advise", json=body).get_json()["options"][0]
    assert best["odds"]["large_straight"] == pytest.approx(5 / 9)
    assert "fives" not in best["odds"]
    body["odds"] = ["yahtzee"]
    assert set(client.post("/api/advise", json=body).get_json()["options"][0]["odds"]) == {
        "yahtzee"
    }
    body["odds"] = "yes"
    assert client.post("/api/advise", json=body).status_code == 400


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


def test_the_page_undoes_and_shows_plan_odds(server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser = headless_chromium()
    try:
        browser.get(server)
        wait = WebDriverWait(browser, 30, poll_frequency=0.05)
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#adv-used input"))
        # the advisor's table: plan odds per keep
        dice = browser.find_element(By.ID, "adv-dice")
        dice.clear()
        dice.send_keys("2 3 4 5 5")
        browser.find_element(By.ID, "adv-go").click()
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#adv-table tbody tr"))
        first = browser.find_elements(By.CSS_SELECTOR, "#adv-table tbody tr td")
        assert first[4].text == "Large straight 55.6%"
        # a game: plan odds of the dice held, a move, undo
        browser.find_element(By.ID, "new-game").click()
        wait.until(lambda b: b.find_element(By.ID, "plan").text)
        assert browser.find_element(By.ID, "plan").text.startswith(
            "Plan odds (reroll every die, 2 rerolls left): "
        )
        assert browser.find_element(By.ID, "undo").get_attribute("disabled")
        faces = [d.text for d in browser.find_elements(By.CSS_SELECTOR, "#dice .die")]
        browser.find_elements(By.CSS_SELECTOR, "#dice .die")[0].click()
        wait.until(lambda b: f"keep {faces[0]}," in b.find_element(By.ID, "plan").text)
        browser.find_element(By.ID, "reroll").click()
        wait.until(lambda b: "rolls left 1" in b.find_element(By.ID, "status").text)
        assert browser.find_element(By.ID, "coach").text.startswith("coach:")
        assert not browser.find_element(By.ID, "undo").get_attribute("disabled")
        browser.find_element(By.ID, "undo").click()
        wait.until(lambda b: "rolls left 2" in b.find_element(By.ID, "status").text)
        assert browser.find_element(By.ID, "coach").text == "The last move is taken back."
        again = [d.text for d in browser.find_elements(By.CSS_SELECTOR, "#dice .die")]
        assert again == faces
    finally:
        browser.quit()

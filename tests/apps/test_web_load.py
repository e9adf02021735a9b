"""The web page under load: a bounded load test against a real server on 127.0.0.1.

A smaller run of the benchmark ``benchmarks/bench_web.py`` (its load test, the
:func:`run_load` of ``benchmarks/web_load.py``): 8 clients, 500 requests after 100 of
warm-up, each client playing whole games through the JSON API and checking the game
after every step, interleaved with malformed requests (bad or deeply nested JSON, wrong
types, unknown games, illegal moves, bodies over the limit, wrong methods, unknown paths).
Passes when no answer is a 5xx, every malformed request gets its 4xx with an error that
says what is wrong, no game loses its state and the server's memory stays flat after the
warm-up. A second test has several clients move one game at once: each move is played
whole or refused with a 400, never a 5xx, and the game's record stays valid.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("flask")

from yahtzee_sim.apps.server import create_app
from yahtzee_sim.engine.records import check_record

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("web_load", ROOT / "benchmarks" / "web_load.py")
web_load = sys.modules.setdefault("web_load", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(web_load)

#: Growth of the resident memory allowed between the end of the warm-up and the end of
#: the run (the test process holds the server and the clients).
FLAT_MB = 32


@pytest.fixture(scope="module")
def server():
    """``(host, port)`` of a threaded werkzeug server of the application (quiet log)."""
    from werkzeug.serving import make_server

    log = logging.getLogger("werkzeug")
    level = log.level
    log.setLevel(logging.ERROR)
    srv = make_server("127.0.0.1", 0, create_app(), threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1", srv.port
    finally:
        srv.shutdown()
        thread.join(10)
        log.setLevel(level)


def test_the_page_under_load(server):
    res = web_load.run_load(
        *server, requests=500, clients=8, warmup=100, timeout=60, rss=web_load.process_rss_mb
    )
    out = res.summary()
    assert res.failures == [], res.failures[:5]
    assert out["requests"] == 500 and out["server_errors"] == 0
    assert set(res.statuses) <= {200, 201, 400, 404, 405, 413}
    malformed = {"bad-json", "wrong-type", "unknown-game", "illegal-move", "huge-body"}
    assert malformed | {"wrong-method", "unknown-path", "move", "state", "advise"} <= set(res.kinds)
    assert res.games_finished >= 4  # whole games, checked to the end
    assert out["median_ms"] <= out["p99_ms"] <= out["max_ms"]
    rss = res.rss_mb
    assert rss["after"] - rss["after_warmup"] < FLAT_MB, rss


def _post(host: str, port: int, path: str, body: dict | None = None) -> tuple[int, dict]:
    import http.client

    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        data = None if body is None else json.dumps(body)
        conn.request("GET" if body is None else "POST", path, body=data,
                     headers={"Content-Type": "application/json"})  # fmt: skip
        res = conn.getresponse()
        return res.status, json.loads(res.read())
    finally:
        conn.close()


def test_concurrent_moves_on_one_game_are_whole_or_refused(server):
    """Four clients play the same game at once (as two tabs might): every move is a 200
    or a 400 (someone else moved first), and the finished game is a valid record."""
    status, out = _post(*server, "/api/games", {"seed": 7, "opponent": "greedy"})
    assert status == 201
    gid = out["id"]
    seen: list[int] = []

    def player(k: int) -> None:
        for step in range(120):
            status, out = _post(*server, f"/api/games/{gid}")
            state = out["state"]
            if state["over"]:
                return
            if state["rolls_left"]:
                keep = state["dice"][: (k + step) % 5]
                status, out = _post(*server, f"/api/games/{gid}/keep", {"keep": keep})
            else:
                box = sorted(state["boxes"])[k % len(state["boxes"])] if state["boxes"] else "x"
                status, out = _post(*server, f"/api/games/{gid}/box", {"box": box})
            seen.append(status)
            assert status == 200 or (status == 400 and out["error"]), (status, out)

    threads = [threading.Thread(target=player, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert set(seen) <= {200, 400} and 200 in seen
    status, out = _post(*server, f"/api/games/{gid}")
    assert out["state"]["over"]
    sheet = out["state"]["sheet"]
    upper = sum(sheet[b] for b in web_load.UPPER)
    bonus = 35 if upper >= 63 else 0
    assert (
        out["state"]["score"] == sum(sheet.values()) + bonus + 100 * out["state"]["yahtzee_bonuses"]
    )
    status, record = _post(*server, f"/api/games/{gid}/record")
    check_record(record)
    assert len(record["turns"]) == 13 and len(record["opponent"]["turns"]) == 13

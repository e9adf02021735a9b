"""The web page's load test: :func:`run_load` drives ``yahtzee-sim serve`` on 127.0.0.1
with concurrent clients that play checked games (what ``bench_web.py`` measures).

:func:`run_load` drives a server with
``--clients`` threads (standard library only: :mod:`http.client`), a fixed share of
``--requests`` each, and stops by itself (a global ``--timeout``). Each client plays whole
games through the JSON API (asking the advisor now and then), checking after every step
that the game is where it should be (turn, rolls left, dice kept, the box written with
the points it was offered, the score the sum of the boxes and bonuses, the record of a
finished game), interleaved with malformed requests (bad or deeply nested JSON, wrong
types, unknown games, illegal moves, a body over the 64 KiB limit, wrong methods, unknown
paths) that must each get the 4xx it deserves with an ``"error"`` that says what is
wrong; a refused request must leave the game as it was.

A warm-up phase (``--warmup`` requests, same clients) comes first; the latencies (median,
99th percentile, maximum) are those of the measured phase, and the server's resident
memory (``VmRSS``) is read before the warm-up, after it and at the end. The tests
(``tests/apps/test_web_load.py``) run a smaller load through the same :func:`run_load`
against a server thread.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: The upper boxes of the rules the load plays (``yahtzee``: the server's default).
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")
#: Official Yahtzee's bonuses: 35 at an upper total of 63, 100 per extra Yahtzee.
UPPER_BONUS, UPPER_THRESHOLD, YAHTZEE_BONUS = 35, 63, 100
#: Share of a client's requests that are malformed.
BAD_SHARE = 0.3
#: Share of a client's requests that ask the advisor about its game's position.
ADVISE_SHARE = 0.05
#: Share of moves followed by a ``GET`` of the game's state (always after an illegal move).
CHECK_SHARE = 0.3


class LoadFailure(AssertionError):
    """A response the load test does not accept (a 5xx, a wrong status, a lost state)."""


@dataclass
class LoadResult:
    """What a load run saw.

    Attributes
    ----------
    requests, clients : int
        Requests sent (warm-up excluded) and concurrent clients.
    seconds : float
        Wall time of the measured phase.
    latencies_ms : list of float
        Each measured request's time, from connecting to the end of the answer.
    statuses : Counter
        Answers by HTTP status (both phases).
    kinds : Counter
        Requests by kind (``"move"``, ``"state"``, ``"bad-json"``, ...; both phases).
    failures : list of str
        Every answer not accepted: a 5xx, a status other than the one expected, an answer
        without its ``"error"``, a game not where it should be, a connection error, the
        timeout. Empty when the run passed.
    games_started, games_finished : int
        Games created and played to the end (both phases).
    rss_mb : dict
        The server's resident memory in MB ``"before"`` the warm-up, ``"after_warmup"``
        and ``"after"`` (empty without a way to read it).
    """

    requests: int
    clients: int
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    games_started: int = 0
    games_finished: int = 0
    rss_mb: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict:
        """JSON-ready: counts, latency median / p99 / max (ms), statuses, memory."""
        lat = np.array(self.latencies_ms) if self.latencies_ms else np.zeros(1)
        return {
            "requests": self.requests,
            "clients": self.clients,
            "seconds": round(self.seconds, 2),
            "requests_per_second": round(self.requests / max(self.seconds, 1e-9), 1),
            "median_ms": round(float(np.median(lat)), 2),
            "p99_ms": round(float(np.percentile(lat, 99)), 2),
            "max_ms": round(float(lat.max()), 2),
            "server_errors": sum(n for s, n in self.statuses.items() if s >= 500),
            "failures": len(self.failures),
            "statuses": {str(s): n for s, n in sorted(self.statuses.items())},
            "kinds": dict(sorted(self.kinds.items())),
            "games_started": self.games_started,
            "games_finished": self.games_finished,
            "rss_mb": self.rss_mb,
        }


def process_rss_mb(pid: int | None = None) -> float:
    """The resident memory (``VmRSS``) of process ``pid`` (default: this one) in MB."""
    with open(f"/proc/{pid or 'self'}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmRSS in /proc/status")


class _Client:
    """One simulated person: whole games through the API, with malformed requests."""

    def __init__(self, host: str, port: int, index: int, seed: int, deadline: float) -> None:
        self.host, self.port, self.index = host, port, index
        self.rng = random.Random(seed * 1_000_003 + index)
        self.deadline = deadline
        self.games = 0
        self.game_seed = seed * 10_000 + index * 100
        self.latencies: list[float] = []
        self.statuses: Counter = Counter()
        self.kinds: Counter = Counter()
        self.failures: list[str] = []
        self.started = self.finished = 0
        self.gid: str | None = None
        self.state: dict | None = None
        self.boxes: list[str] = []  # the boxes written, in order
        self.left = 0  # requests left in this phase
        self.advice = {"dice": [1, 2, 3, 4, 5], "rolls_left": 2, "strategy": "greedy"}

    # ----------------------------------------------------------------- HTTP
    def request(
        self,
        kind: str,
        method: str,
        path: str,
        body: bytes | dict | None = None,
        expect: int = 200,
        error: str | None = None,
    ) -> dict | None:
        """Send one request, time it, check its status (and the ``"error"`` of a 4xx);
        returns the JSON answer (None after a failure)."""
        if isinstance(body, dict):
            body = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.left -= 1
        self.kinds[kind] += 1
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise LoadFailure(f"client {self.index}: the global timeout passed")
        conn = http.client.HTTPConnection(self.host, self.port, timeout=min(remaining, 60))
        t0 = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            res = conn.getresponse()
            raw = res.read()
        except OSError as exc:  # (http.client's errors are OSErrors too)
            raise LoadFailure(f"{kind} {method} {path}: {type(exc).__name__}: {exc}") from None
        finally:
            conn.close()
        self.latencies.append((time.perf_counter() - t0) * 1000)
        self.statuses[res.status] += 1
        where = f"{kind} {method} {path} -> {res.status}"
        try:
            out = json.loads(raw)
        except ValueError:
            raise LoadFailure(f"{where}: not JSON: {raw[:200]!r}") from None
        if res.status >= 500 or res.status != expect:
            raise LoadFailure(f"{where} (expected {expect}): {str(out)[:300]}")
        if res.status >= 400:
            said = out.get("error") if isinstance(out, dict) else None
            if not isinstance(said, str) or not said or (error and error not in said):
                raise LoadFailure(f"{where}: error {said!r} does not say {error!r}")
        return out

    # ----------------------------------------------------------------- game
    def new_game(self) -> None:
        self.game_seed += 1
        out = self.request("new-game", "POST", "/api/games", {"seed": self.game_seed}, 201)
        self.gid, self.state, self.boxes = out["id"], out["state"], []
        self.started += 1
        st = self.state
        if (
            st["turn"] != 1
            or st["rolls_left"] != 2
            or any(v is not None for v in st["sheet"].values())
        ):
            raise LoadFailure(f"game {self.gid}: a new game is not at its start: {st}")

    def check_state(self, why: str) -> None:
        """``GET`` the game: it must be exactly the state of the last answer."""
        out = self.request("state", "GET", f"/api/games/{self.gid}")
        if out["id"] != self.gid or out["state"] != self.state:
            raise LoadFailure(f"game {self.gid} changed {why}: {self.state} -> {out['state']}")

    def _answer(self, out: dict) -> dict:
        if out.get("id") != self.gid:
            raise LoadFailure(f"game {self.gid}: the answer is about game {out.get('id')}")
        return out["state"]

    def advise(self) -> None:
        """Ask the advisor (with ``greedy``'s move) at the game's position."""
        st = self.state
        used = [b for b, v in st["sheet"].items() if v is not None]
        body = {
            "dice": st["dice"],
            "rolls_left": st["rolls_left"],
            "used": used,
            "upper": st["upper_total"],
            "flag": st["sheet"]["yahtzee"] == 50,
            "strategy": "greedy",
            "score": st["score"],
        }
        out = self.request("advise", "POST", "/api/advise", body)
        if not out["options"] or out["strategy"]["id"] != "greedy":
            raise LoadFailure(f"advice at {body}: {str(out)[:300]}")

    def move(self) -> None:
        """One legal move, checked against the state before it."""
        before = self.state
        dice = before["dice"]
        if before["rolls_left"] > 0:
            if self.rng.random() < 0.15:
                kept = list(dice)  # stop rolling
            else:
                kept = sorted(d for d in dice if self.rng.random() < 0.5)
            out = self.request("move", "POST", f"/api/games/{self.gid}/keep", {"keep": kept})
            st = self._answer(out)
            want_rolls = 0 if len(kept) == len(dice) else before["rolls_left"] - 1
            ok = (
                st["turn"] == before["turn"]
                and st["sheet"] == before["sheet"]
                and st["score"] == before["score"]
                and st["rolls_left"] == want_rolls
                and not Counter(kept) - Counter(st["dice"])
                and (want_rolls or st["boxes"])
            )
            if not ok:
                raise LoadFailure(f"game {self.gid}: keep {kept} from {before} gave {st}")
        else:
            box = self.rng.choice(sorted(before["boxes"]))
            out = self.request("move", "POST", f"/api/games/{self.gid}/box", {"box": box})
            st = self._answer(out)
            self.boxes.append(box)
            want_sheet = before["sheet"] | {box: before["boxes"][box]}
            last = len(self.boxes) == len(before["sheet"])
            ok = (
                st["sheet"] == want_sheet
                and st["over"] == last
                and st["turn"] == (before["turn"] if last else before["turn"] + 1)
                and st["rolls_left"] == (0 if last else 2)
                and st["yahtzee_bonuses"] >= before["yahtzee_bonuses"]
            )
            if not ok:
                raise LoadFailure(f"game {self.gid}: box {box!r} from {before} gave {st}")
        self.check_score(st)
        self.state = st
        if st["over"]:
            self.finish()
        elif self.rng.random() < CHECK_SHARE and self.left > 0:
            self.check_state("between two moves")

    def check_score(self, st: dict) -> None:
        """The score is the sum of the boxes and the bonuses."""
        sheet = st["sheet"]
        upper = sum(sheet[b] or 0 for b in UPPER)
        bonus = UPPER_BONUS if upper >= UPPER_THRESHOLD else 0
        want = sum(v or 0 for v in sheet.values()) + bonus + YAHTZEE_BONUS * st["yahtzee_bonuses"]
        if st["upper_total"] != upper or st["score"] != want:
            raise LoadFailure(f"game {self.gid}: score {st['score']}, boxes and bonuses {want}")

    def finish(self) -> None:
        """A finished game: every box filled, its total the sum of its boxes, its record
        the boxes in the order written."""
        st = self.state
        if any(v is None for v in st["sheet"].values()) or st["boxes"]:
            raise LoadFailure(f"game {self.gid}: over with open boxes: {st}")
        if self.left > 0:
            self.check_state("after its end")
        if self.left > 0:
            rec = self.request("record", "GET", f"/api/games/{self.gid}/record")
            played = [t.get("box") for t in rec["turns"]]
            if played != self.boxes or rec["seed"] != self.game_seed:
                raise LoadFailure(f"game {self.gid}: record {played}, played {self.boxes}")
        self.finished += 1
        self.gid = None

    # ------------------------------------------------------------ malformed
    def malformed(self) -> None:
        """One malformed request, chosen at random, and its expected 4xx."""
        gid, st = self.gid, self.state
        other = f"{self.rng.getrandbits(64):016x}"
        cases: list[tuple] = [
            ("bad-json", "POST", f"/api/games/{gid}/keep", b'{"keep": [1, 2', 400, "JSON object"),
            ("bad-json", "POST", "/api/advise", b"\xff\xfe not json", 400, "JSON object"),
            ("bad-json", "POST", f"/api/games/{gid}/box", b"[1, 2]", 400, "JSON object"),
            ("wrong-type", "POST", f"/api/games/{gid}/keep", {"keep": "55"}, 400, "'keep'"),
            ("wrong-type", "POST", f"/api/games/{gid}/keep", {"keep": [True]}, 400, "'keep'"),
            ("wrong-type", "POST", f"/api/games/{gid}/box", {"box": 5}, 400, "'box'"),
            ("wrong-type", "POST", f"/api/games/{gid}/box", {}, 400, "'box' is missing"),
            ("wrong-type", "POST", "/api/games", {"seed": "one"}, 400, "'seed'"),
            ("wrong-type", "POST", "/api/games", {"rules": "chess"}, 400, "chess"),
            ("wrong-type", "POST", "/api/games", {"seed": -3}, 400, "'seed'"),
            ("wrong-type", "POST", "/api/advise", {"dice": [1, 2, 3], "rolls_left": 9}, 400, ""),
            ("wrong-type", "POST", "/api/advise", self.advice | {"used": [1]}, 400, "unknown box"),
            ("wrong-type", "POST", "/api/games", {"opponent": "../x.py"}, 400, "'opponent'"),
            ("unknown-game", "GET", f"/api/games/{other}", None, 404, other),
            ("unknown-game", "POST", f"/api/games/{other}/keep", {"keep": []}, 404, other),
            ("unknown-game", "GET", f"/api/games/{other}/record", None, 404, other),
            ("huge-body", "POST", f"/api/games/{gid}/keep", b" " * 70_000, 413, ""),
            ("huge-body", "POST", "/api/advise", b"[" + b"1," * 40_000 + b"1]", 413, ""),
            ("wrong-method", "DELETE", f"/api/games/{gid}", None, 405, ""),
            ("wrong-method", "GET", f"/api/games/{gid}/box", None, 405, ""),
            ("wrong-method", "PUT", "/api/games", b"{}", 405, ""),
            ("bad-json", "POST", "/api/games", b"[" * 20_000 + b"]" * 20_000, 400, "nested"),
            ("bad-json", "POST", "/api/games", b'{"seed": 1', 400, "JSON object"),
            ("wrong-type", "POST", "/api/advise", self.advice | {"score": 10**30}, 400, "'score'"),
            ("unknown-path", "GET", "/api/nothing", None, 404, ""),
            ("unknown-path", "POST", f"/api/games/{gid}/redo", b"{}", 404, ""),
        ]
        faces = st["dice"]
        if st["rolls_left"] > 0:
            cases.append(
                ("illegal-move", "POST", f"/api/games/{gid}/box", {"box": "chance"}, 400, "left")
            )
        else:
            cases.append(
                ("illegal-move", "POST", f"/api/games/{gid}/keep", {"keep": []}, 400, "no rerolls")
            )
        filled = [b for b, v in st["sheet"].items() if v is not None]
        if filled and st["rolls_left"] == 0:
            cases.append(
                ("illegal-move", "POST", f"/api/games/{gid}/box", {"box": filled[0]}, 400, "")
            )
        missing = next(f for f in range(1, 7) if f not in faces)
        cases.append(
            ("illegal-move", "POST", f"/api/games/{gid}/keep", {"keep": [missing]}, 400, "")
        )
        kind, method, path, body, status, error = self.rng.choice(cases)
        self.request(kind, method, path, body, status, error or None)
        if kind in ("illegal-move", "bad-json", "wrong-type", "huge-body") and self.left > 0:
            self.check_state(f"after a refused request ({kind} {method} {path})")

    # ----------------------------------------------------------------- run
    def run(self, n: int) -> None:
        """Send about ``n`` requests (a check may follow the last), then stop."""
        self.left = n
        try:
            while self.left > 0:
                if self.gid is None:
                    self.new_game()
                elif (u := self.rng.random()) < BAD_SHARE:
                    self.malformed()
                elif u < BAD_SHARE + ADVISE_SHARE:
                    self.advise()
                else:
                    self.move()
        except LoadFailure as exc:
            self.failures.append(f"client {self.index}: {exc}")
        except Exception as exc:  # (a bug of the driver is a failure too)
            self.failures.append(f"client {self.index}: {type(exc).__name__}: {exc}")


def _phase(clients: list[_Client], per_client: list[int], timeout: float) -> float:
    """Run every client's share in its own thread; the wall time."""
    threads = [
        threading.Thread(target=c.run, args=(n,), daemon=True)
        for c, n in zip(clients, per_client, strict=True)
    ]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(clients[0].deadline - time.monotonic(), 0) + 5)
    for c, t in zip(clients, threads, strict=True):
        if t.is_alive():
            c.failures.append(f"client {c.index}: still running after the global timeout")
    return time.perf_counter() - t0


def run_load(
    host: str,
    port: int,
    requests: int = 5000,
    clients: int = 32,
    warmup: int = 0,
    timeout: float = 600.0,
    seed: int = 0,
    rss: Callable[[], float] | None = None,
) -> LoadResult:
    """Drive the server at ``host:port`` with ``clients`` concurrent clients.

    Parameters
    ----------
    host, port : str, int
        The server (``yahtzee-sim serve`` or a server thread of
        :func:`yahtzee_sim.apps.server.create_app`'s application).
    requests : int, default 5000
        Requests of the measured phase, shared equally by the clients (each client's
        last request may be followed by the check of a refused one).
    clients : int, default 32
        Concurrent clients, one thread each, one connection per request.
    warmup : int, default 0
        Requests of a warm-up phase before it (same clients, not timed).
    timeout : float, default 600
        Seconds for both phases: a client stops at its first request after it, as a
        failure.
    seed : int, default 0
        The clients' choices and their games' seeds.
    rss : callable, optional
        The server's resident memory in MB now (e.g. ``lambda: process_rss_mb(pid)``).

    Returns
    -------
    LoadResult
        Latencies of the measured phase; statuses, failures and games of both.
    """
    deadline = time.monotonic() + timeout
    pool = [_Client(host, port, i, seed, deadline) for i in range(clients)]
    result = LoadResult(requests, clients)
    if rss is not None:
        result.rss_mb["before"] = round(rss(), 1)
    if warmup:
        _phase(pool, [warmup // clients + (i < warmup % clients) for i in range(clients)], timeout)
        for c in pool:
            c.latencies.clear()
        if rss is not None:
            result.rss_mb["after_warmup"] = round(rss(), 1)
    share = [requests // clients + (i < requests % clients) for i in range(clients)]
    if not any(c.failures for c in pool):
        result.seconds = _phase(pool, share, timeout)
    if rss is not None:
        result.rss_mb["after"] = round(rss(), 1)
    for c in pool:
        result.latencies_ms += c.latencies
        result.statuses += c.statuses
        result.kinds += c.kinds
        result.failures += c.failures
        result.games_started += c.started
        result.games_finished += c.finished
    result.requests = len(result.latencies_ms)
    return result

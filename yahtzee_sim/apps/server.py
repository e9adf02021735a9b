"""A local web page: the advisor, the coach and a playable game (``yahtzee-sim serve``).

Needs the optional extra ``web`` (``pip install "yahtzee-sim[web]"``, which brings Flask).
The server binds to 127.0.0.1 unless told otherwise. Its JSON API:

=======================================  ==============================================
``GET  /api/rules[?rules=NAME]``         the presets; with ``rules``, its boxes (names and
                                         labels such as "Three of a kind"), dice and the
                                         strategies the page offers for those rules
``POST /api/advise``                     every option at a position, best first, with
                                         its value and its loss against the best; with
                                         ``"strategy": "card-30"`` (and ``"score"`` for
                                         strategies that play by it) also that
                                         strategy's move, its loss and (a card) the rule
                                         that decides
``POST /api/games``                      a new game (``rules``, ``seed``, ``manual``;
                                         ``opponent``: a strategy in the second seat of a
                                         visible two-player table; ``strategy``: a second
                                         opinion shown at every decision)
``GET  /api/games/<id>``                 its state (and the luck/skill summary)
``POST /api/games/<id>/keep``            ``{"keep": [5, 5]}``: keep and reroll
``POST /api/games/<id>/box``             ``{"box": "fives"}``: write the roll (a name,
                                         label, prefix or abbreviation: ``"ss"``, ``"3k"``)
``POST /api/games/<id>/dice``            ``{"dice": [...]}``: manual dice
``GET  /api/games/<id>/record``          the game record (:mod:`yahtzee_sim.engine.records`)
=======================================  ==============================================

A bad request gets a 4xx answer ``{"error": "..."}`` that says what is wrong (400 for bad
input, 404 for an unknown game or path, 405 for a wrong method, 413 for a body over 64
KiB). Games live in the server's memory (the most recent 1,000).

Strategies are named by registered ids (``card-30``, ``greedy``, ``win-aware``,
``target:300``); the page loads no plugin files or card files (the command line does).
A strategy's answer is ``{"id", "label", "move", "option", "value", "loss", "rank",
"rule", "text"}`` (:meth:`~yahtzee_sim.solving.strategy_move.StrategyMove.to_dict`; ``rule`` is
``{"section", "number", "text"}`` for a card, ``number`` null for its ``otherwise``
line). A game's answer carries it as ``"strategy"`` while a decision is open. With an
opponent, the state has ``"opponent"`` (its card, score, turns and last turn: rolls,
keeps, box, points) and, at the end, ``"winner"``; the record keeps the opponent's game
under ``"opponent"``.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from importlib import resources

try:
    from flask import Flask, jsonify, request
    from werkzeug.exceptions import HTTPException
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "yahtzee_sim.apps.server needs Flask: pip install 'yahtzee-sim[web]'"
    ) from exc

from yahtzee_sim.apps.game import Game
from yahtzee_sim.errors import YahtzeeSimError
from yahtzee_sim.game.rules import PRESETS, get_rules
from yahtzee_sim.solving.advisor import advise
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.solving.strategy_move import advising_strategy, strategy_move
from yahtzee_sim.strategies import get_strategy, strategy_class, strategy_ids

MAX_GAMES = 1000


class RequestError(YahtzeeSimError):
    """A request whose body is not what the endpoint takes."""


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


def _field(data: dict, name: str, kind, default=None, required: bool = False):
    if name not in data:
        if required:
            raise RequestError(f"'{name}' is missing")
        return default
    value = data[name]
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if not ok:
        want = {int: "an integer", str: "a string", list: "a list", bool: "true or false"}
        raise RequestError(f"'{name}' must be {want.get(kind, kind.__name__)}, got {value!r}")
    return value


def _int_list(data: dict, name: str, required: bool = True) -> list[int]:
    values = _field(data, name, list, [], required)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise RequestError(f"'{name}' must be a list of face values, got {values!r}")
    return values


_WEB_ID = re.compile(r"^[a-z0-9][a-z0-9-]*(?::-?\d+(?:\.\d*)?)?$")
#: Strategies the page offers (any registered id is accepted).
OFFERED = ("card-10", "card-20", "card-30", "card-50", "greedy", "optimal")
OPPONENTS = ("optimal", "win-aware", "chase", "greedy", "card-10", "card-30", "card-50")


def _strategy_id(data: dict, name: str) -> str | None:
    """The registered strategy id in field ``name`` (or None): no plugin or card files."""
    sid = _field(data, name, str, None)
    if sid is None:
        return None
    base = sid.partition(":")[0]
    cls = strategy_class(base) if _WEB_ID.match(sid) else None
    if cls is None or (":" in sid and getattr(cls, "id_path_parameter", None)):
        raise RequestError(
            f"'{name}' must be a registered strategy id (e.g. card-30, greedy, win-aware), got "
            f"{sid!r}; plugins and card files play from the command line"
        )
    return sid


def _offered(rules, ids) -> list[str]:
    return [s for s in ids if s in strategy_ids() and strategy_class(s).supports(rules)]


def create_app(default_rules: str = "yahtzee") -> Flask:
    """The Flask application (games kept in its memory)."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    app.json.sort_keys = False
    games: OrderedDict[str, Game] = OrderedDict()
    strategies: dict = {}
    compared: dict[str, str | None] = {}
    lock = threading.Lock()
    page = resources.files("yahtzee_sim.apps").joinpath("web/index.html").read_text()
    value_table(get_rules(default_rules))  # solve or load before the first request

    @app.errorhandler(YahtzeeSimError)
    def bad_input(exc):
        return jsonify(error=str(exc)), 400

    @app.errorhandler(HTTPException)
    def http_error(exc):
        return jsonify(error=exc.description), exc.code

    @app.get("/")
    def index():
        return page.replace("__DEFAULT_RULES__", default_rules)

    @app.get("/api/rules")
    def rules_info():
        name = request.args.get("rules")
        if name is None:
            return jsonify(presets=list(PRESETS), default=default_rules)
        rules = get_rules(name)
        return jsonify(
            rules=rules.name,
            boxes=list(rules.category_names),
            labels=list(rules.category_labels),
            upper=[c.name for c in rules.categories if c.is_upper],
            n_dice=rules.n_dice,
            n_faces=rules.n_faces,
            rolls_per_turn=rules.rolls_per_turn,
            yahtzee_bonus=bool(rules.has_yahtzee_flag),
            strategies=_offered(rules, OFFERED),
            opponents=_offered(rules, OPPONENTS),
        )

    @app.post("/api/advise")
    def advise_position():
        data = _body()
        rules = get_rules(_field(data, "rules", str, default_rules))
        options = advise(
            _int_list(data, "dice"),
            _field(data, "rolls_left", int, required=True),
            _field(data, "used", list, []),
            _field(data, "upper", int, 0),
            _field(data, "yahtzee_bonus", bool, False),
            rules,
            bonuses_paid=_field(data, "bonuses_paid", int, 0),
        )
        best = options[0].value
        rows = [o.to_dict() | {"loss": best - o.value} for o in options]
        out = {"rules": rules.name, "options": rows}
        sid = _strategy_id(data, "strategy")
        if sid is not None:
            score = _field(data, "score", int, None)
            strategy = advising_strategy(prepared(sid, rules), rules, score is not None)
            with lock:  # (prepared above: the lock is held for one decision only)
                says = strategy_move(
                    strategy,
                    data["dice"],
                    data["rolls_left"],
                    data.get("used", []),
                    data.get("upper", 0),
                    data.get("yahtzee_bonus", False),
                    rules,
                    data.get("bonuses_paid", 0),
                    score=score,
                    options=options,
                )
            out["strategy"] = {"id": sid} | says.to_dict()
        return jsonify(out)

    def prepared(sid: str, rules):
        """The strategy ``sid`` checked and prepared for ``rules`` (kept for reuse)."""
        key = (sid, rules.name)
        with lock:
            strategy = strategies.get(key)
        if strategy is None:
            strategy = get_strategy(sid)
            strategy.check_rules(rules)
            with lock:
                strategies[key] = strategy
        return strategy

    def _game(gid: str) -> Game:
        with lock:
            game = games.get(gid)
            if game is None:
                return None
            games.move_to_end(gid)
            return game

    def _answer(gid: str, game: Game, coach=None):
        out = {"id": gid, "state": game.state()}
        if coach is not None:
            out["coach"] = {
                "loss": coach.loss,
                "best": coach.best,
                "reason": coach.reason,
                "text": coach.line(),
            }
        with lock:  # (strategies are shared by the request threads)
            says = game.compared()
        if says is not None:
            out["strategy"] = {"id": compared[gid]} | says.to_dict()
        summary = game.summary()
        if summary is not None:
            out["summary"] = summary
        return jsonify(out)

    @app.post("/api/games")
    def new_game():
        data = request.get_json(silent=True) or {}
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object")
        rules = get_rules(_field(data, "rules", str, default_rules))
        seed = _field(data, "seed", int, None)
        if seed is None:
            seed = secrets.randbelow(2**32)
        if seed < 0:
            raise RequestError(f"'seed' must be >= 0, got {seed}")
        opponent, compare = _strategy_id(data, "opponent"), _strategy_id(data, "strategy")
        game = Game(
            rules,
            seed=seed,
            manual=_field(data, "manual", bool, False),
            opponent=opponent,
            compare=None if compare is None else advising_strategy(prepared(compare, rules), rules),
        )
        gid = secrets.token_hex(8)
        with lock:
            games[gid] = game
            compared[gid] = compare
            while len(games) > MAX_GAMES:
                compared.pop(games.popitem(last=False)[0], None)
        return _answer(gid, game), 201

    def _found(gid: str) -> Game:
        game = _game(gid)
        if game is None:
            raise _NotFound(f"no game {gid!r} (games live in the server's memory)")
        return game

    @app.get("/api/games/<gid>")
    def game_state(gid):
        return _answer(gid, _found(gid))

    @app.get("/api/games/<gid>/record")
    def game_record(gid):
        return jsonify(_found(gid).record_so_far())

    @app.post("/api/games/<gid>/keep")
    def game_keep(gid):
        game = _found(gid)
        kept = _int_list(_body(), "keep")
        with lock:
            coach = game.keep(kept)
        return _answer(gid, game, coach)

    @app.post("/api/games/<gid>/box")
    def game_box(gid):
        game = _found(gid)
        box = _field(_body(), "box", str, required=True)
        with lock:
            coach = game.box(box)
        return _answer(gid, game, coach)

    @app.post("/api/games/<gid>/dice")
    def game_dice(gid):
        game = _found(gid)
        dice = _int_list(_body(), "dice")
        with lock:
            game.set_dice(dice)
        return _answer(gid, game)

    return app


class _NotFound(HTTPException):
    code = 404


def serve(host: str = "127.0.0.1", port: int = 8000, rules: str = "yahtzee", quiet=False):
    """Serve the page until interrupted (``yahtzee-sim serve``)."""
    from werkzeug.serving import make_server

    app = create_app(rules)
    try:
        server = make_server(host, port, app, threaded=True)
    except OSError as exc:
        raise YahtzeeSimError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    if not quiet:
        print(f"yahtzee-sim: serving http://{host}:{server.port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

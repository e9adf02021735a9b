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
                                         that decides; ``"odds": true`` (or a list of
                                         boxes) adds each keep's plan odds for the open
                                         boxes below the upper section (or those)
``POST /api/games``                      a new game (``rules``, ``seed``, ``manual``;
                                         ``opponent``: a strategy in the second seat of a
                                         visible two-player match; ``strategy``: a second
                                         opinion shown at every decision; no body: the
                                         defaults)
``GET  /api/games/<id>``                 its state (and the luck/skill summary)
``POST /api/games/<id>/keep``            ``{"keep": [5, 5]}``: keep and reroll
``POST /api/games/<id>/box``             ``{"box": "fives"}``: write the roll (a name,
                                         label, prefix or abbreviation: ``"ss"``, ``"3k"``)
``POST /api/games/<id>/dice``            ``{"dice": [...]}``: manual dice
``POST /api/games/<id>/undo``            take back the last move (no body)
``POST /api/games/<id>/odds``            ``{"keep": [2, 3, 4, 5]}``: the plan odds of
                                         that keep now, ``{"keep", "rolls_left",
                                         "odds": {box: chance}}`` for the open boxes
                                         below the upper section
``GET  /api/games/<id>/record``          the game record (:mod:`yahtzee_sim.engine.records`)
=======================================  ==============================================

A bad request gets a 4xx answer ``{"error": "..."}`` that says what is wrong (400 for bad
input, 404 for an unknown game or path, 405 for a wrong method, 413 for a body over 64
KiB); a body, where one is taken, must be a JSON object. Games live in the server's
memory: the 1,000 most recently used (an older one's id gets a 404).

Strategies are named by registered ids (``card-30``, ``greedy``, ``win-aware``,
``target:300``); the page loads no plugin files or card files (the command line does).
A strategy's answer is ``{"id", "label", "move", "option", "value", "loss", "rank",
"rule", "text"}`` (:meth:`~yahtzee_sim.solving.strategy_move.StrategyMove.to_dict`; ``rule`` is
``{"section", "number", "text"}`` for a card, ``number`` null for its ``otherwise``
line). A game's answer carries it as ``"strategy"`` while a decision is open. With an
opponent, the state has ``"opponent"`` (its score sheet, score, turns and last turn: rolls,
keeps, box, points) and, at the end, ``"winner"``; the record keeps the opponent's game
under ``"opponent"``.

Each route is a function of the blueprint :data:`api`; :func:`create_app` registers it
and keeps the application's games and prepared strategies in one :class:`ServerState`
(``app.extensions["yahtzee_sim"]``, reached with :func:`server_state`).
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING

try:
    from flask import Blueprint, Flask, Response, current_app, jsonify, request
    from werkzeug.exceptions import HTTPException
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "yahtzee_sim.apps.server needs Flask: pip install 'yahtzee-sim[web]'"
    ) from exc

from yahtzee_sim.apps.game import Coach, Game
from yahtzee_sim.errors import RequestError, YahtzeeSimError
from yahtzee_sim.game.rules import PRESETS, RuleSet, get_rules
from yahtzee_sim.solving.advisor import AdvisorPosition, position_options, with_plan_odds
from yahtzee_sim.solving.solver import value_table
from yahtzee_sim.solving.strategy_move import advising_strategy, strategy_move
from yahtzee_sim.strategies import get_strategy, strategy_class, strategy_ids
from yahtzee_sim.validation import Boolean, InstanceOf, Integer, check

if TYPE_CHECKING:
    from yahtzee_sim.strategies import Strategy

MAX_GAMES = 1000


def _body(empty: dict | None = None) -> dict:
    """The request's JSON object; ``empty`` (when given) for a request without a body."""
    if empty is not None and not request.get_data(cache=True):
        return empty
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # (the json module's answer to deep nesting)
        raise RequestError("the request body is nested too deeply") from None
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


#: What a field of a request's JSON may hold, by the Python type it stands for.
_KINDS = {
    int: Integer(),
    str: InstanceOf(str, description="a string"),
    list: InstanceOf(list, description="a list"),
    bool: Boolean(description="true or false"),
}


def _field(data: dict, name: str, kind: type, default=None, required: bool = False):
    if name not in data:
        if required:
            raise RequestError(f"'{name}' is missing")
        return default
    return check(f"'{name}'", data[name], _KINDS[kind], RequestError)


def _int_list(data: dict, name: str, required: bool = True) -> list[int]:
    values = _field(data, name, list, [], required)
    if not all(map(_KINDS[int].accepts, values)):
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


class _NotFound(HTTPException):
    code = 404


#: The key of the server's state in ``app.extensions``.
EXTENSION = "yahtzee_sim"


@dataclass(eq=False)
class ServerState:
    """What one application keeps between requests: its default rules, its page, its
    games and the strategies it has prepared.

    Request threads share it: ``lock`` guards the games and the strategies (a strategy
    may keep state between decisions).

    Parameters
    ----------
    default_rules : str
        The rules of a request that names none.
    page : str
        The web page (``web/index.html``) before the default rules are filled in.

    Attributes
    ----------
    games : OrderedDict
        The games by id, least recently used first (at most :data:`MAX_GAMES`).
    compared : dict
        The ``strategy`` id each game was started with (None without one), by game id.
    strategies : dict
        The strategies prepared so far, by ``(strategy id, rules name)``.
    lock : threading.Lock
        Held while a game moves or a shared strategy decides.
    """

    default_rules: str
    page: str
    games: OrderedDict[str, Game] = field(default_factory=OrderedDict)
    compared: dict[str, str | None] = field(default_factory=dict)
    strategies: dict[tuple[str, str], Strategy] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def prepared(self, sid: str, rules: RuleSet) -> Strategy:
        """The strategy ``sid`` checked and prepared for ``rules`` (kept for reuse)."""
        key = (sid, rules.name)
        with self.lock:
            strategy = self.strategies.get(key)
        if strategy is None:
            strategy = get_strategy(sid)
            strategy.check_rules(rules)
            with self.lock:
                self.strategies[key] = strategy
        return strategy

    def add(self, game: Game, compare: str | None) -> str:
        """Keep ``game`` (started with the ``strategy`` id ``compare``) under a new id and
        return the id; the least recently used games beyond :data:`MAX_GAMES` are dropped."""
        gid = secrets.token_hex(8)
        with self.lock:
            self.games[gid] = game
            self.compared[gid] = compare
            while len(self.games) > MAX_GAMES:
                self.compared.pop(self.games.popitem(last=False)[0], None)
        return gid

    def found(self, gid: str) -> Game:
        """The game ``gid`` (now the most recently used); a 404 answer if there is none."""
        return self.entry(gid)[0]

    def entry(self, gid: str) -> tuple[Game, str | None]:
        """The game ``gid`` (now the most recently used) and the ``strategy`` id it was
        started with, read together (a game dropped by another request after this keeps
        its answer whole); a 404 answer if there is none."""
        with self.lock:
            game = self.games.get(gid)
            if game is not None:
                self.games.move_to_end(gid)
                return game, self.compared.get(gid)
        raise _NotFound(f"no game {gid!r} (games live in the server's memory)")


def server_state() -> ServerState:
    """The :class:`ServerState` of the application handling the current request."""
    return current_app.extensions[EXTENSION]


#: The page and the JSON API; :func:`create_app` registers it.
api = Blueprint("yahtzee_sim", __name__)


@api.app_errorhandler(YahtzeeSimError)
def bad_input(exc: YahtzeeSimError) -> tuple[Response, int]:
    """A request the package refuses: 400 with the reason."""
    return jsonify(error=str(exc)), 400


@api.app_errorhandler(HTTPException)
def http_error(exc: HTTPException) -> tuple[Response, int]:
    """An HTTP error (unknown path or game, wrong method, body too large) as JSON."""
    return jsonify(error=exc.description), exc.code


@api.get("/")
def index() -> str:
    """The web page, with the default rules filled in."""
    state = server_state()
    return state.page.replace("__DEFAULT_RULES__", state.default_rules)


@api.get("/api/rules")
def rules_info() -> Response:
    """The presets and the default; with ``?rules=NAME``, that rule set's boxes, dice and
    the strategies the page offers for it."""
    name = request.args.get("rules")
    if name is None:
        return jsonify(presets=list(PRESETS), default=server_state().default_rules)
    rules = get_rules(name)
    return jsonify(
        rules=rules.name,
        boxes=list(rules.box_names),
        labels=list(rules.box_labels),
        upper=[c.name for c in rules.boxes if c.is_upper],
        n_dice=rules.n_dice,
        n_faces=rules.n_faces,
        rolls_per_turn=rules.rolls_per_turn,
        max_rolls=rules.max_rolls,
        saved_roll_cap=rules.saved_roll_cap,
        has_flag=bool(rules.has_yahtzee_flag),
        strategies=_offered(rules, OFFERED),
        opponents=_offered(rules, OPPONENTS),
    )


@api.post("/api/advise")
def advise_position() -> Response:
    """Every option at the position of the body, best first, with its loss; with
    ``"strategy"``, also that strategy's move."""
    state = server_state()
    data = _body()
    rules = get_rules(_field(data, "rules", str, state.default_rules))
    position = AdvisorPosition(
        _int_list(data, "dice"),
        _field(data, "rolls_left", int, required=True),
        _field(data, "used", list, []),
        _field(data, "upper", int, 0),
        _field(data, "flag", bool, False),
        rules,
        bonuses_paid=_field(data, "bonuses_paid", int, 0),
        saved_rolls=_field(data, "saved_rolls", int, 0),
    )
    options = position_options(position)
    odds = data.get("odds", False)
    if not isinstance(odds, (bool, list)):
        raise RequestError(f"'odds' must be true, false or a list of boxes, got {odds!r}")
    if odds is not False and options[0].keep is not None:
        used = set(_field(data, "used", list, []))
        lower = [c.name for c in rules.boxes if not c.is_upper and c.name not in used]
        boxes = lower if odds is True else _field(data, "odds", list)
        options = with_plan_odds(options, data["rolls_left"], rules, boxes)
    best = options[0].value
    rows = [o.to_dict() | {"loss": best - o.value} for o in options]
    out = {"rules": rules.name, "options": rows}
    sid = _strategy_id(data, "strategy")
    if sid is not None:
        score = _field(data, "score", int, None)
        if score is not None and not 0 <= score < 2**31:
            raise RequestError(f"'score' (the points so far) must be 0..{2**31 - 1}, got {score}")
        strategy = advising_strategy(state.prepared(sid, rules), rules, score is not None)
        with state.lock:  # (prepared above: the lock is held for one decision only)
            says = strategy_move(strategy, position, score=score, options=options)
        out["strategy"] = {"id": sid} | says.to_dict()
    return jsonify(out)


def _answer(gid: str, game: Game, compare: str | None, coach: Coach | None = None) -> Response:
    """A game's answer: its state, the coach's word on the move just played, the second
    opinion (of the strategy ``compare``) and the luck/skill summary."""
    state = server_state()
    out = {"id": gid, "state": game.state()}
    if coach is not None:
        out["coach"] = {
            "loss": coach.loss,
            "best": coach.best,
            "reason": coach.reason,
            "grade": coach.grade,
            "tie": coach.tie,
            "text": coach.line(),
        }
    with state.lock:  # (strategies are shared by the request threads)
        says = game.compared()
    if says is not None:
        out["strategy"] = {"id": compare} | says.to_dict()
    summary = game.summary()
    if summary is not None:
        out["summary"] = summary
    return jsonify(out)


@api.post("/api/games")
def new_game() -> tuple[Response, int]:
    """Start a game (``rules``, ``seed``, ``manual``, ``opponent``, ``strategy``): 201."""
    state = server_state()
    data = _body(empty={})
    rules = get_rules(_field(data, "rules", str, state.default_rules))
    seed = _field(data, "seed", int, None)
    if seed is None:
        seed = secrets.randbelow(2**32)
    if seed < 0:
        raise RequestError(f"'seed' must be >= 0, got {seed}")
    opponent, compare = _strategy_id(data, "opponent"), _strategy_id(data, "strategy")
    manual = _field(data, "manual", bool, False)
    advisor = None if compare is None else advising_strategy(state.prepared(compare, rules), rules)
    game = Game(rules, seed=seed, manual=manual, opponent=opponent, compare=advisor)
    gid = state.add(game, compare)
    return _answer(gid, game, compare), 201


@api.get("/api/games/<gid>")
def game_state(gid: str) -> Response:
    """The game's state (and the luck/skill summary)."""
    return _answer(gid, *server_state().entry(gid))


@api.get("/api/games/<gid>/record")
def game_record(gid: str) -> Response:
    """The game record so far."""
    return jsonify(server_state().found(gid).record_so_far())


def _move(gid: str, field: str, parse, play) -> Response:
    """Play one move of game ``gid``: the body's ``field`` read by ``parse`` (after the
    game is found: an unknown game is a 404 before a bad body is a 400), played by
    ``play(game, value)`` under the lock."""
    state = server_state()
    game, compare = state.entry(gid)
    value = parse(_body(), field)
    with state.lock:
        coach = play(game, value)
    return _answer(gid, game, compare, coach)


@api.post("/api/games/<gid>/keep")
def game_keep(gid: str) -> Response:
    """``{"keep": [5, 5]}``: keep those dice and reroll the others."""
    return _move(gid, "keep", _int_list, Game.keep)


@api.post("/api/games/<gid>/box")
def game_box(gid: str) -> Response:
    """``{"box": "fives"}``: write the roll in that box."""
    return _move(gid, "box", lambda data, name: _field(data, name, str, required=True), Game.box)


@api.post("/api/games/<gid>/dice")
def game_dice(gid: str) -> Response:
    """``{"dice": [...]}``: the dice of the roll just made (manual dice)."""
    return _move(gid, "dice", _int_list, Game.set_dice)


@api.post("/api/games/<gid>/undo")
def game_undo(gid: str) -> Response:
    """Take back the last move (the body, if any, is ignored)."""
    state = server_state()
    game, compare = state.entry(gid)
    with state.lock:
        game.undo()
    return _answer(gid, game, compare)


@api.post("/api/games/<gid>/odds")
def game_odds(gid: str) -> Response:
    """``{"keep": [...]}``: the plan odds of that keep now (open boxes below the upper
    section)."""
    state = server_state()
    game, _ = state.entry(gid)
    keep = _int_list(_body(), "keep", required=False)
    with state.lock:
        odds = game.plan_odds(keep)
        rolls_left = game.rolls_left
    lower = {c.name for c in game.rules.boxes if not c.is_upper}
    shown = {b: p for b, p in odds.items() if b in lower}
    return jsonify({"keep": sorted(keep), "rolls_left": rolls_left, "odds": shown})


def create_app(default_rules: str = "yahtzee") -> Flask:
    """The Flask application (games kept in its memory).

    Parameters
    ----------
    default_rules : str, default "yahtzee"
        The rules of a request that names none; its value table is solved (or loaded)
        here, before the first request.

    Returns
    -------
    Flask
        The application: the page and the JSON API (:data:`api`), its
        :class:`ServerState` in ``app.extensions["yahtzee_sim"]``.
    """
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    app.json.sort_keys = False
    page = resources.files("yahtzee_sim.apps").joinpath("web/index.html").read_text()
    app.extensions[EXTENSION] = ServerState(default_rules, page)
    value_table(get_rules(default_rules))  # solve or load before the first request
    app.register_blueprint(api)
    return app


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

"""Game records: the format, reading and checking a record, and replaying it on the engine.

A game record is the JSON-ready dict of ``env.unwrapped.record()``:

    {"format": "necro_env/record", "version": 1, "env_id": "necro_env/NecromancerIsland-v1",
     "config": {GameConfig fields}, "options": {"reward", "hide_necro_reserve"[, "shaping"]},
     "seed": int, "agents": [...], "actions": [int, ...],
     "illegal": null | {"agent", "action", "message"},   # the game was ended by an illegal action
     "over": bool, "result": null | game.result(final state)}

Only ``format``, ``version`` (the int 1), ``config`` (every ``GameConfig`` option),
``seed`` and ``actions`` are required; the others are checked when present (``env_id`` must
be this env's, ``options`` lists ``reward`` and ``hide_necro_reserve``, and ``shaping`` when
the env had it; ``result`` holds exactly the keys of ``Game.result``). ``hide_coins`` is a game
option: its one home is ``config``; records written before it moved there also list it under
``options``, which is read only to refuse a record that contradicts its own config
(``env_options``). Records are safe to load from anyone: every field's type is checked (nesting
at most 32 deep, without a Python object per element) before the game is replayed, and messages
name at most a few of the offending keys. Same
config + seed + actions = the same game, bit for bit. This module holds the format
(``parse_record``), the engine-level replay (``replay_engine``, ``iter_replay``); the
``necro-env replay`` subcommand lives in ``replay_command.py``, and the env-level replay,
``necro_env.replay(record)`` (in ``necro_env.env``), returns a **raw env** positioned after
the last recorded action (``env.game_state`` is the final engine state; a record of an
unfinished game can be played on from there), with the illegal-action ending re-applied
if the record has one. Every problem raises ``StateError`` naming it: an unknown format
or version, an unknown or missing config key, an action that is not an int or is illegal
at step k, actions after the end of the game, or ``over``, ``result``, ``agents`` or the
illegal-action note differing from the replay (``necro-env replay`` exits 1 on such a record).
"""
from __future__ import annotations

import heapq
import json
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from .game import Game, GameConfig, Phase, State, decode
from .game.actions import Kind
from .game.board import TERRAIN_NAMES
from .game.catalog import OCCUPANT_NAMES, POWERS, RACES
from .game.errors import ConfigError, IllegalActionError, StateError, cap_message, short_repr
from .versions import ENV_ID, retired_message

RECORD_FORMAT = "necro_env/record"
RECORD_VERSION = 1
_RECORD_KEYS = {"format", "version", "env_id", "config", "options", "seed", "agents", "actions", "illegal",
                "over", "result"}
_REQUIRED = {"format", "version", "config", "seed", "actions"}
#: The keys of ``Game.result`` (a record's ``result``); tests/test_loading.py keeps the two equal.
RESULT_KEYS = frozenset({"over", "winners", "necromancer_won", "coins", "rounds_played", "ghost_curve",
                         "ghosts_in_play", "bought_ghosts", "bought_powers"})


def agent_names(config: GameConfig) -> list[str]:
    """The agent name of each seat (a record's ``agents``): ``player_0`` ... and ``necromancer_0``
    last when the scenario is on."""
    if config.necromancer:
        return [f"player_{i}" for i in range(config.players - 1)] + ["necromancer_0"]
    return [f"player_{i}" for i in range(config.players)]


def check_header(d: Any, fmt: str, version: int, what: str) -> None:
    """``StateError`` unless ``d`` is a dict with the given format tag and version."""
    if not isinstance(d, dict):
        raise StateError(f"a {what} must be a JSON object (dict), got {type(d).__name__}")
    if d.get("format") != fmt:
        raise StateError(f"not a {what}: format is {short_repr(d.get('format'))}, expected {fmt!r}")
    v = d.get("version")
    if type(v) is not int or v != version:  # 1.0 and True are not version 1
        raise StateError(f"unsupported {what} version {short_repr(v)} (this necro_env reads version {version}, an int)")


def some_keys(keys, limit: int = 10) -> str:
    """The first ``limit`` (sorted) of ``keys`` as a list, with how many more there are: a message names a
    few of a million unexpected keys, not all of them."""
    names = [k if isinstance(k, str) else short_repr(k) for k in keys]
    first = heapq.nsmallest(limit, names)
    more = len(names) - len(first)
    return "[" + ", ".join(short_repr(k) for k in first) + (f", ... and {more} more" if more else "") + "]"


def check_keys(d: dict, required: set, allowed: set, what: str) -> None:
    """``StateError`` naming the missing and (the first few) unexpected keys of ``d`` (a checked header's dict)."""
    missing = sorted(required - set(d))
    extra = [k for k in d if k not in allowed]
    if missing or extra:
        raise StateError(cap_message(f"{what} keys do not match: missing {missing}, unexpected {some_keys(extra)}"))


MAX_JSON_DEPTH = 32


_SCALARS = frozenset({int, str, bool, type(None)})  # JSON scalars that need no further check


def _check_scalar(v: Any, what: str) -> None:
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise StateError(f"{what} holds a non-finite number {v!r}")
    elif v is not None and not isinstance(v, (str, int)):
        raise StateError(f"{what} holds a {type(v).__name__}; allowed: JSON objects, lists, strings, "
                         f"numbers, booleans and null")


def check_json(x: Any, what: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """``StateError`` unless ``x`` is plain JSON data (dicts with str keys, lists, str, int, finite
    float, bool, None) nested at most ``max_depth`` deep. Iterative: a hostile depth cannot
    exhaust the stack here or in the code that walks ``x`` afterwards. Streaming: only containers
    are stacked, and a container of plain scalars (a record's long action list) is checked by the
    set of its element types (C loops), so a huge record costs no Python object per element."""
    if not isinstance(x, (dict, list)):
        _check_scalar(x, what)
        return
    stack = [(x, 0)]
    while stack:
        v, depth = stack.pop()
        if depth >= max_depth:
            raise StateError(f"{what} is nested more than {max_depth} levels deep")
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                raise StateError(f"{what} has a non-string key (JSON objects have string keys)")
            items = v.values()
        else:
            items = v
        if set(map(type, items)) <= _SCALARS:
            continue
        for c in items:
            if isinstance(c, (dict, list)):
                stack.append((c, depth + 1))
            else:
                _check_scalar(c, what)


def is_int(v: Any) -> bool:
    """A plain int (``bool`` is not one)."""
    return isinstance(v, int) and not isinstance(v, bool)


def check_illegal_note(note: Any, agents: list[str], what: str) -> dict | None:
    """An illegal-action note (``None`` or ``{"agent", "action", "message"}`` with the right types)."""
    from .game import NUM_ACTIONS

    if note is None:
        return None
    if not isinstance(note, dict) or set(note) != {"agent", "action", "message"}:
        raise StateError(f"{what} 'illegal' must be null or an object with keys agent, action, message; "
                         f"got {short_repr(note)}")
    if note["agent"] not in agents or not isinstance(note["agent"], str):
        raise StateError(f"{what} 'illegal' agent {short_repr(note['agent'])} is not one of {agents}")
    if not is_int(note["action"]) or not 0 <= note["action"] < NUM_ACTIONS:
        raise StateError(f"{what} 'illegal' action must be an int in 0..{NUM_ACTIONS - 1}, "
                         f"got {short_repr(note['action'])}")
    if not isinstance(note["message"], str):
        raise StateError(f"{what} 'illegal' message must be a string, got {short_repr(note['message'])}")
    return dict(note)


def generator_from_state(state: Any, what: str) -> np.random.Generator:
    """A numpy Generator with the saved ``bit_generator.state`` of a PCG64 (checked field by field)."""
    ok = (isinstance(state, dict) and set(state) == {"bit_generator", "state", "has_uint32", "uinteger"}
          and state["bit_generator"] == "PCG64" and isinstance(state["state"], dict)
          and set(state["state"]) == {"state", "inc"}
          and all(is_int(v) and 0 <= v < 1 << 128 for v in state["state"].values())
          and state["state"]["inc"] % 2 == 1
          and is_int(state["has_uint32"]) and state["has_uint32"] in (0, 1)
          and is_int(state["uinteger"]) and 0 <= state["uinteger"] < 1 << 32)
    if not ok:
        raise StateError(f"{what} must be a numpy PCG64 state (bit_generator 'PCG64', state and odd "
                         f"inc below 2**128, has_uint32 0/1, uinteger below 2**32), got {short_repr(state)}")
    rng = np.random.default_rng(0)
    rng.bit_generator.state = state
    return rng


def check_actions(actions: Any, what: str) -> list[int]:
    """A list of action indices (ints in ``0..NUM_ACTIONS - 1``); ``StateError`` naming the first bad step."""
    from .game import NUM_ACTIONS

    if not isinstance(actions, list):
        raise StateError(f"{what} actions must be a list of ints, got {type(actions).__name__}")
    if not actions or (set(map(type, actions)) == {int} and min(actions) >= 0 and max(actions) < NUM_ACTIONS):
        return list(actions)  # the common case, in C loops; otherwise find the first bad step
    for k, a in enumerate(actions):
        if not is_int(a) or not 0 <= a < NUM_ACTIONS:
            raise StateError(f"{what} action list: step {k} is {short_repr(a)}, not an action index "
                             f"(an int in 0..{NUM_ACTIONS - 1})")
    return list(actions)


def apply_all(step: Callable[[int], Any], over: Callable[[], Any], actions: list[int], what: str) -> None:
    """``step(a)`` for each checked action; ``StateError`` naming the first step that is illegal
    or comes after the end of the game (``over()`` true)."""
    for k, a in enumerate(actions):
        if over():
            raise StateError(f"{what} action list: step {k} comes after the end of the game "
                             f"({len(actions) - k} extra actions)")
        try:
            step(a)
        except IllegalActionError as e:
            raise StateError(f"{what} action list: step {k} is illegal: {e}") from None


def replay_engine(game: Game, seed: int, actions: Any, what: str = "record") -> State:
    """Apply ``actions`` to ``game.new_state(seed)``; ``StateError`` naming the first bad step."""
    actions = check_actions(actions, what)
    st = game.new_state(seed)
    apply_all(lambda a: game.apply(st, a), lambda: st.over, actions, what)
    return st


def parse_record(record: Any) -> tuple[GameConfig, dict, int, list[int]]:
    """Check a record's shape; ``(config, env options, seed, actions)``; ``StateError`` if malformed."""
    check_header(record, RECORD_FORMAT, RECORD_VERSION, "game record")
    check_keys(record, _REQUIRED, _RECORD_KEYS, "game record")
    check_json(record, "game record")
    result = record.get("result")
    if isinstance(result, dict) and set(result) != RESULT_KEYS:
        extra = some_keys(k for k in result if k not in RESULT_KEYS)
        raise StateError(f"game record result keys do not match game.result(): missing "
                         f"{sorted(RESULT_KEYS - set(result))}, unexpected {extra}")
    env_id = record.get("env_id", ENV_ID)
    if env_id != ENV_ID:
        why = retired_message(env_id) if isinstance(env_id, str) else None
        raise StateError(f"game record made by {short_repr(env_id)}, which this necro_env cannot replay: "
                         + (why or f"it replays {ENV_ID} records"))
    try:
        config = GameConfig.from_dict(record["config"], complete=True)
    except (ConfigError, TypeError) as e:
        raise StateError(cap_message(f"game record config: {e}")) from None
    options = record.get("options")
    options = {} if options is None else env_options(options, config, "game record")
    seed = record["seed"]
    if not is_int(seed) or seed < 0:
        raise StateError(f"game record seed must be a non-negative int, got {short_repr(seed)}")
    return config, options, seed, check_actions(record["actions"], "game record")


_ENV_OPTIONS = frozenset({"reward", "hide_necro_reserve"})  # what every record and snapshot lists
_LEGACY_OPTIONS = frozenset({"hide_coins"})                    # a copy of config.hide_coins in older files


def env_options(options: Any, config: GameConfig, what: str, optional: frozenset = frozenset({"shaping"})) -> dict:
    """The env options of a record or snapshot (``options``) without the legacy ``hide_coins`` key, which older
    files repeat from ``config``: ``StateError`` if the keys are not ``reward`` and ``hide_necro_reserve`` (plus
    the ``optional`` ones where set: ``shaping``; a snapshot's ``max_cycles``), or if a legacy ``hide_coins`` contradicts ``config.hide_coins``
    (input that says two things). Values are checked by the env built from them."""
    if not isinstance(options, dict):
        raise StateError(f"{what} options must be an object, got {short_repr(options)}")
    keys = set(options)
    if not _ENV_OPTIONS <= keys or not keys <= _ENV_OPTIONS | optional | _LEGACY_OPTIONS:
        raise StateError(f"{what} options must be null or list exactly {sorted(_ENV_OPTIONS)} (and "
                         f"{sorted(optional)} where set), got keys {some_keys(options)}")
    if "hide_coins" in options:
        if options["hide_coins"] is not config.hide_coins:
            raise StateError(f"{what} options say hide_coins={short_repr(options['hide_coins'])} but its config "
                             f"says {config.hide_coins!r} (hide_coins is a game option: its config decides)")
        options = {k: v for k, v in options.items() if k != "hide_coins"}
    return options


# ---------------------------------------------------------------------------- describing actions
def describe(game: Game, st: State, action: int) -> str:
    """A readable name for ``action`` in ``st`` (before it is applied), e.g. ``pick 2 (Orcs + Commando)``."""
    kind, arg = decode(action)
    b = game.board
    text = str(decode(action))
    if kind == Kind.PICK and arg < len(st.col_race):
        text += (f" ({RACES[st.col_race[arg]].name} + {POWERS[st.col_power[arg]].name}, pay {arg}, "
                 f"{st.col_coins[arg]} coins on it)")
    elif kind in (Kind.ABANDON, Kind.CONQUER, Kind.FINAL, Kind.LIFT, Kind.PLACE, Kind.DRAGON, Kind.HERO,
                  Kind.ENCAMP, Kind.FORTRESS, Kind.CONVERT) and arg < b.num_regions:
        what = TERRAIN_NAMES[b.terrain[arg]]
        if kind == Kind.PLACE and game.necromancer and arg == b.lake:
            what = "the Island"
        x = st.occ[arg]
        if x >= 0:
            what += f", {OCCUPANT_NAMES[x]} x{st.tok[arg]}"
        if kind in (Kind.CONQUER, Kind.FINAL) and st.phase == Phase.CONQUER:
            cost = game.conquest_cost(st, arg)
            what += f", cost {cost}"
            if kind == Kind.FINAL:
                what += f", the die must show {cost - st.hand[st.cur_race]}+"
        text += f" ({what})"
    elif kind == Kind.DIPLOMAT:
        text += f" (peace with seat {(st.decider + arg) % game.num_seats})"
    elif kind == Kind.NECRO_START and arg < len(st.necro_draw):
        text += f" ({POWERS[st.necro_draw[arg]].name})"
    elif kind == Kind.BUY_POWER and arg < len(st.necro_reserve) and st.necro_reserve[arg] >= 0:
        text += f" ({POWERS[st.necro_reserve[arg]].name}, price {game.purchase_price(st)})"
    elif kind == Kind.BUY_GHOST:
        text += f" (price {game.purchase_price(st)})"
    return text


def iter_replay(record: dict) -> Iterator[tuple[int, int, int, str, tuple[int, int], Game, State]]:
    """Yield ``(step, seat, action, description, (round, turn seat) before it, game, state after it)``."""
    config, _options, seed, actions = parse_record(record)
    game = Game(config)
    st = game.new_state(seed)
    for k, a in enumerate(actions):
        if st.over:
            raise StateError(f"game record action list: step {k} comes after the end of the game")
        seat = st.decider
        before = (st.round, st.turn_seat)
        try:
            text = describe(game, st, a)
            game.apply(st, a)
        except (IllegalActionError, ValueError) as e:
            raise StateError(f"game record action list: step {k} is illegal: {e}") from None
        yield k, seat, a, text, before, game, st


# ---------------------------------------------------------------------------- files
def load_record(path: str) -> Any:
    """Read a record file (``-`` = stdin); ``StateError`` if it is not JSON (bad syntax, bad UTF-8,
    an int of more than 4,300 digits, nesting deeper than Python's stack)."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        text = data.decode("utf-8")
        del data  # the bytes are not needed while the text is parsed
        return json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise StateError(f"{path}: not a JSON game record ({type(e).__name__}: {str(e)[:200]})") from None


__all__ = ["parse_record", "replay_engine", "iter_replay", "describe", "check_header", "check_keys", "agent_names",
           "load_record", "env_options", "RECORD_FORMAT", "RECORD_VERSION"]

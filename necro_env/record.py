"""Game records: the format, reading and checking a record, and replaying it on the engine.

A game record is the JSON-ready dict of ``env.unwrapped.record()``:

    {"format": "necro_env/record", "version": 1, "env_id": "necro_env/NecromancerIsland-v1",
     "config": {GameConfig fields}, "options": {"reward", "hide_coins", "hide_necro_reserve"},
     "seed": int, "agents": [...], "actions": [int, ...],
     "illegal": null | {"agent", "action", "message"},   # the game was ended by an illegal action
     "over": bool, "result": null | game.result(final state)}

Only ``format``, ``version``, ``config``, ``seed`` and ``actions`` are required; the
others are checked when present. Same config + seed + actions = the same game, bit
for bit. This module holds the format (``parse_record``), the engine-level replay
(``replay_engine``, ``iter_replay``); the ``necro-env replay`` subcommand lives in
``replay_command.py``, and the env-level replay, ``necro_env.replay(record)`` (in ``necro_env.env``), returns a **raw env**
positioned after the last recorded action, with the illegal-action ending re-applied
if the record has one. Every problem raises ``StateError`` naming it: an unknown format
or version, an unknown config key, an action that is not an int or is illegal at step
k, actions after the end of the game, or a result that differs from the replay.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

from .game import Game, GameConfig, Phase, State, decode
from .game.actions import Kind
from .game.board import TERRAIN_NAMES
from .game.catalog import OCCUPANT_NAMES, POWERS, RACES
from .game.errors import ConfigError, IllegalActionError, StateError
from .versions import ENV_ID, retired_message

RECORD_FORMAT = "necro_env/record"
RECORD_VERSION = 1
_RECORD_KEYS = {"format", "version", "env_id", "config", "options", "seed", "agents", "actions", "illegal",
                "over", "result"}
_REQUIRED = {"format", "version", "config", "seed", "actions"}


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
        raise StateError(f"not a {what}: format is {d.get('format')!r}, expected {fmt!r}")
    v = d.get("version")
    if v != version or isinstance(v, bool):
        raise StateError(f"unsupported {what} version {v!r} (this necro_env reads version {version})")


def check_keys(d: dict, required: set, allowed: set, what: str) -> None:
    """``StateError`` naming the missing and the unexpected keys of ``d`` (a checked header's dict)."""
    missing = sorted(required - set(d))
    extra = sorted(set(d) - allowed)
    if missing or extra:
        raise StateError(f"{what} keys do not match: missing {missing}, unexpected {extra}")


def replay_engine(game: Game, seed: int, actions: Any, what: str = "record") -> State:
    """Apply ``actions`` to ``game.new_state(seed)``; ``StateError`` naming the first bad step."""
    if not isinstance(actions, list):
        raise StateError(f"{what} actions must be a list of ints, got {type(actions).__name__}")
    st = game.new_state(seed)
    for k, a in enumerate(actions):
        if not isinstance(a, int) or isinstance(a, bool):
            raise StateError(f"{what} action list: step {k} is {a!r}, not an int")
        if st.over:
            raise StateError(f"{what} action list: step {k} comes after the end of the game "
                             f"({len(actions) - k} extra actions)")
        try:
            game.apply(st, a)
        except IllegalActionError as e:
            raise StateError(f"{what} action list: step {k} is illegal: {e}") from None
    return st


def parse_record(record: Any) -> tuple[GameConfig, dict, int, list[int]]:
    """Check a record's shape; ``(config, env options, seed, actions)``; ``StateError`` if malformed."""
    check_header(record, RECORD_FORMAT, RECORD_VERSION, "game record")
    check_keys(record, _REQUIRED, _RECORD_KEYS, "game record")
    env_id = record.get("env_id", ENV_ID)
    if env_id != ENV_ID:
        why = retired_message(env_id) if isinstance(env_id, str) else None
        raise StateError(f"game record made by {env_id!r}, which this necro_env cannot replay: "
                         + (why or f"it replays {ENV_ID} records"))
    try:
        config = GameConfig.from_dict(record["config"])
    except (ConfigError, TypeError) as e:
        raise StateError(f"game record config: {e}") from None
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise StateError(f"game record options must be an object, got {options!r}")
    allowed = {"reward", "hide_coins", "hide_necro_reserve"}
    if set(options) - allowed:
        raise StateError(f"game record options: unknown keys {sorted(set(options) - allowed)}; "
                         f"allowed: {sorted(allowed)}")
    if options.get("hide_coins", config.hide_coins) != config.hide_coins:
        raise StateError(f"game record options say hide_coins={options['hide_coins']!r} but its config says "
                         f"{config.hide_coins!r}")
    seed = record["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise StateError(f"game record seed must be a non-negative int, got {seed!r}")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
        bad = next((k for k, a in enumerate(actions) if not isinstance(a, int) or isinstance(a, bool)), None) \
            if isinstance(actions, list) else None
        raise StateError("game record actions must be a list of ints"
                         + (f" (step {bad} is {actions[bad]!r})" if bad is not None else ""))
    return config, options, seed, actions


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
def load_record(path: str) -> dict:
    """Read a record file (``-`` = stdin); ``StateError`` if it is not JSON."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise StateError(f"{path}: not a JSON game record ({e})") from None


__all__ = ["parse_record", "replay_engine", "iter_replay", "describe", "check_header", "check_keys", "agent_names",
           "load_record", "RECORD_FORMAT", "RECORD_VERSION"]

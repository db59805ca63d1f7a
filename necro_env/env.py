"""# Necromancer Island (PettingZoo AEC): ``necro_env/NecromancerIsland-v1``

Small World with the Necromancer Island scenario (or the base game) as a
turn-based multi-agent environment. ``necro_env.env(...)`` gives the wrapped env
(illegal moves handled like PettingZoo's classic envs, call order enforced),
``necro_env.raw_env(...)`` the bare one.

    import necro_env
    env = necro_env.env(players=4)                      # 3 players + the Necromancer
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated else policy(obs["observation"], obs["action_mask"])
        env.step(action)

| Import             | ``import necro_env; necro_env.env(...)`` (also ``pettingzoo.make("aec", "necro_env/NecromancerIsland-v1")``) |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete({NUM_ACTIONS}), the same for every agent and board |
| Agents             | ``player_0`` ... ``player_{n-2}``, ``necromancer_0`` (base game: ``player_0`` ... ``player_{n-1}``) |
| Observation        | Dict(observation=Box(0, high, ({OBS_SIZE},), float32), action_mask=Box(0, 1, ({NUM_ACTIONS},), int8)) |
| State              | Box(0, high, ({OBS_SIZE},), float32): the full view (``Observer.state_vector``) |
| Rewards            | ``win`` (default), ``rank`` or ``coins``                          |

The tables of this docstring (the numbers above, the action table and the observation
blocks) and its version history are filled in when the module is imported, from
``necro_env.game.action_table()``, ``necro_env.observe.OFFSETS`` and
``necro_env.versions``; ``docs/SPEC.md`` is this text as a file (``python tools/spec_card.py``
writes it, a test checks it is current).

## Arguments

``env(players=4, render_mode=None, reward="win", illegal_action="terminate",
shaping=0.0, hide_necro_reserve=True, max_cycles=None, **game_options)``

* ``players``: seats, the Necromancer included: 3-6 with the Necromancer (the
  default for 3+ seats), 2-5 for the base game (``necromancer=False``).
* ``game_options``: any other ``GameConfig`` field (``necromancer``, ``hide_coins``,
  ``handicap``, ``game_turns``, ``victory_check``, ``forced_combos`` ...); unknown names or bad
  values raise ``ConfigError``. ``skip_forced`` is on by default here: a decision with
  a single legal action is applied by the engine, so every ``agent_selection`` has a
  real choice (about a fifth of the engine's decisions in random play are forced).
* ``reward``: see Rewards; anything else raises ``ConfigError`` (a ``ValueError``).
* ``shaping``: a number >= 0 (default 0: off). Each step adds, for every agent, the
  progress term ``shaping * (phi(after) - phi(before))`` of that agent's own phi
  (``necro_env.rewards.progress_potential``: the Necromancer's Ghosts in play and Well
  tokens over the Ghosts he can field, a player's coins / 100) to its reward, on top of
  the scheme's reward. Summed into ``_cumulative_rewards``, what an agent sees at its
  next ``last()`` is ``shaping * (phi(now) - phi(at its previous step))``: exactly the
  single-seat view's shaping for that seat (``necro_env.rewards.RewardTracker`` computes
  both). The terms of a game add up to ``shaping * (phi(end) - phi(start))`` per agent.
* ``illegal_action`` (wrapped env only): ``"terminate"`` (default; like PettingZoo's
  ``TerminateIllegalWrapper``: the offender gets -1, every other agent 0, the game
  ends, every agent is terminated; the offender's ``infos[agent]["illegal_action"]``
  holds the note with its legal actions, every other agent's says only who ended the
  game, since the offender's legal actions can reveal hidden coins or badges) or
  ``"raise"`` (raise ``IllegalActionError``, nothing changes). The raw env always raises.
* ``hide_coins`` (a game option, ``GameConfig.hide_coins``, its only home: the env, the
  engine, the observer and the records all read ``env.config.hide_coins``): observations
  show only the viewer's own coins, and the engine keeps every seat's coins out of what
  the others observe (the Necromancer's BUY step is always offered, PICK/BUY are never
  skipped as forced).
* ``final_die`` (a game option): ``"when_short"`` (default) offers the reinforcement die
  only when no conquest is affordable; ``"any"`` on any region 1-3 tokens short
  (RULES §1.6 and its common alternative reading).
* ``hide_necro_reserve``: the Necromancer's reserve badges are hidden from the
  players (default True; he always sees them). An observation option of the env, not a
  ``GameConfig`` field: unlike ``hide_coins`` it changes nothing in the engine's turn
  flow (no decision is offered or skipped because of it), so it is not a rule of the
  game and two envs with different values play the same games.
* ``max_cycles``: ``None`` (default: off) or a positive int N: after N agent steps
  (decisions taken through ``step``, in total, not per agent) a game that has not
  ended is truncated: every agent gets ``truncated=True`` (no terminal reward) and is
  removed by ``step(None)``, as in PettingZoo's ``max_cycles`` envs. A turn-based game
  has no simultaneous cycles, so the limit counts agent steps; PettingZoo's own
  ``max_cycles_test`` needs a ``parallel_env`` and samples unmasked actions, so it
  cannot run here (``tests/test_env_api.py`` checks the same contract on the AEC env).

## Agents and turn order

The Necromancer is the last seat (right of the starting player) and plays last in
each round. ``agent_selection`` is always the agent that has a real decision now
(the engine's ``State.decider``): a defender placing its surviving tokens at the
end of the attacker's turn, and the Necromancer placing returned Ghosts or picking
his starting power, are selected when that decision comes. Nobody is asked to pass.

## Action space

One ``Discrete({NUM_ACTIONS})`` for every agent, sized for the {MAX_REGIONS}-region board; targets that
do not exist on the board in play are always masked. Region arguments are region
ids of the board; seat arguments are seat offsets clockwise from the decider.

{action_table}

(``necro_env.game.action_table()`` gives these rows; ``necro_env/game/actions.py`` says more
about each kind.)

## Observation

``observation``: {OBS_SIZE} float32 features (``necro_env.observe.OBS_SIZE``), seat-relative
(the viewer is seat 0; the Necromancer's seat carries a role flag), only what the viewer may
know; the layout and every feature's offset are in ``necro_env.observe`` (``OFFSETS``, and its
module docstring's tables of every column and flat feature):

{observation_table}

``action_mask``: int8, 1 for the legal actions of the observed agent (all zeros
for an agent that is not deciding now). Each call returns fresh arrays.

## Rewards

* ``win`` (default): terminal only; +1 to the winner(s), -1 to everyone else. The
  Necromancer gets +1 iff he wins (then every player gets -1).
* ``rank``: terminal only; by final standing scaled to [-1, 1] (first +1, last -1,
  ties share the mean; ``Game.rank_scores``). Players are ordered by (winner, coins,
  tokens on the board); the Necromancer is first if he won (then every player shares
  second place), else last.
* ``coins``: dense; each agent receives its coins gained since its last step
  (payments count negative), scaled by 1/10.
* ``coalition`` (Necromancer games only): terminal only; the players are one team:
  every player +1 if the Necromancer loses, -1 if he wins (he gets +1 / -1 as under
  ``win``). With ``shaping``, a player's potential is minus the Necromancer's progress,
  so every player seat is paid the same (``necro_env.rewards``).

Rewards are accumulated into ``_cumulative_rewards`` so each agent sees everything
since its last step at its next ``last()``.

## Infos

Empty (``{}``) while the game runs. When an episode ends (the game is over, or
``max_cycles`` truncated it) every ``infos[agent]`` holds the same keys with the same
shapes in every game of an env, so learners that stack infos into arrays (Tianshou,
TorchRL) can: ``over`` (bool: the game ended by the rules), ``truncated`` (bool),
``won`` (bool: this agent won), ``winner_mask`` (one 0/1 per seat, in
``possible_agents`` order), ``coins`` (one int per seat), ``final_coins``
(``{agent: coins}``), ``necromancer_won``, ``rounds_played``, ``ghosts_in_play``,
``bought_ghosts``, ``bought_powers``. The full result, with lists whose length varies
between games (``winners`` as seats, ``winner_agents``, the Necromancer's
``ghost_curve``), is ``env.unwrapped.result()``. After an illegal action (``"terminate"``)
the infos hold only the ``illegal_action`` note (see ``illegal_action`` above).

## What each seat sees

| information | the seat itself | other seats (observation, mask, infos, rewards) | ``state()`` / ``render()`` |
|-------------|-----------------|--------------------------------------------------|----------------------------|
| board, races, powers in use, hands, trays, combo column, Well, Island, round, phase | yes | yes | yes |
| coins | yes | yes by default; hidden with ``hide_coins=True`` (and the engine then keeps them out of the turn flow) | yes |
| the Necromancer's drawn and reserve badges | the Necromancer | hidden (``hide_necro_reserve=True``, default) | yes |
| its legal actions (mask) | yes | no: non-deciding agents get all-zero masks | - |
| the offender's legal actions after an illegal move | the offender's ``infos`` | no: only who ended the game | the record's ``illegal`` note |
| the order of the race and power decks, the random generator | no | no | no |
| the final result (every seat's coins) | at the end, in ``infos`` | at the end, in ``infos`` | yes |

``state()`` is the centralised-critic view: the observation layout in absolute seat
order (slot 0 = ``player_0``), every seat's coins and the Necromancer's badges revealed,
no viewer flags; it does **not** hold the deck order or the random generator (nobody
can see those; ``get_state()`` does, for saving). ``render()`` (``ansi``, ``human``,
``rgb_array``) is a spectator's view that shows everything ``state()`` shows;
``env.unwrapped.render_as(agent)`` gives the ``ansi`` text from one seat's view (others'
coins hidden under ``hide_coins``, the Necromancer's badges hidden from the players).

## Records, saving, pickling

``env.unwrapped.record()``: a JSON-ready game record (format version, config,
seed, actions); ``necro_env.replay(record)`` rebuilds the game from it (see
``necro_env.record``). ``env.unwrapped.get_state()`` / ``set_state(s)``: an exact
JSON-compatible snapshot (config, engine state, bookkeeping); ``set_state`` is safe on
untrusted input: it validates every field (``Game.validate_state``, then the bookkeeping), replays
the game from its seed (``verify=True``, the default) and either takes the whole snapshot or
raises ``StateError`` and changes nothing. Pickling an env keeps
only its constructor arguments (a fresh env, to be reset); ``copy.deepcopy`` copies
the game in progress too; use ``get_state`` to carry a game between processes. ``reset(seed)`` seeds the game; ``reset()`` without a seed
draws the next seed from a generator seeded by the last explicit seed (or by the
OS when there was none). The seed used is in ``record()["seed"]``.

## Version history

{version_history}
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from . import versions
from .game import NUM_ACTIONS, Game, GameConfig, State, action_table
from .game.board import MAX_REGIONS
from .game.errors import ConfigError, IllegalActionError, NecroEnvError, StateError, short_repr
from .observe import OBS_HIGH, OBS_SIZE, OFFSETS, ROW_WIDTHS, Observer
from .record import (
    RECORD_FORMAT, RECORD_VERSION, agent_names, apply_all, check_actions, check_header, check_illegal_note,
    check_json, check_keys, env_options, generator_from_state, is_int, parse_record,
)
from .rewards import (
    ILLEGAL_ACTION_MODES, ILLEGAL_REWARD, REWARD_SCHEMES, RewardTracker, check_illegal_mode, check_reward_scheme,
    check_shaping, progress_potential,
)

#: The "meaning" column of the docstring's action table, by kind (a test checks every kind has one).
ACTION_MEANINGS = {
    "PICK": "take combo k of the column (pays k coins)",
    "DECLINE": "go into decline",
    "ABANDON": "take every token off region r",
    "CONQUER": "conquer region r",
    "FINAL": "last conquest attempt with the reinforcement die",
    "END_CONQUEST": "stop conquering",
    "LIFT": "take 1 token off region r (before the first PLACE)",
    "PLACE": "put 1 token from hand on region r (also defenders, returned Ghosts)",
    "END_REDEPLOY": "finish the turn",
    "DRAGON": "Dragon Master conquest",
    "HERO": "Heroic: put a hero",
    "ENCAMP": "Bivouacking: put an encampment",
    "FORTRESS": "Fortified: put the turn's fortress",
    "CONVERT": "Sorcerers: convert a lone token",
    "BERSERK_ROLL": "Berserk: roll first",
    "STOUT_DECLINE": "Stout: end the turn, then decline",
    "DIPLOMAT": "make peace with the seat at offset 1..5",
    "NECRO_START": "the Necromancer's starting power (drawn badge k)",
    "BUY_GHOST": "buy a Ghost onto the Island",
    "BUY_POWER": "buy reserve power k",
    "END_BUY": "stop buying",
}
#: The "content" column of the docstring's observation table, by block (a test checks every block has one).
BLOCK_CONTENTS = {
    "region_static": "exists, terrain, mine/magic/cavern, border, first conquest, coastal, lake neighbour",
    "region": "owner (relative seat, Lost Tribe, Ghost), active/declined, tokens, lair, fortress, encampments, "
              "hole, hero, dragon",
    "region_learn": "for the race acting now: conquest cost, reachable, affordable; threat to the occupant",
    "seat": "coins, active race and powers, declined races, hand, tray, regions, pact, ...",
    "combo": "race, power, coins on it, tokens",
    "necro": "reserve, Island, Well, souls, price, affordable purchases, Ghosts that may return to the Island, "
             "powers in use, reserve and drawn powers per slot (hidden from players)",
    "glob": "round, rounds left, phase, whose turn, the viewer's place in the round, the pending decision "
            "(Berserk roll, hand, hold, ...)",
}


def _markdown_table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: tuple[bool, ...]) -> str:
    """A markdown table with padded columns (``right``: which columns are numbers, aligned right)."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    widths[-1] = len(header[-1])  # the last column (prose) is not padded

    def line(cells) -> str:
        return "| " + " | ".join(str(c).rjust(w) if r else str(c).ljust(w)
                                 for c, w, r in zip(cells, widths, right)).rstrip() + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else "-" * (w + 2) for w, r in zip(widths, right)) + "|"
    return "\n".join([line(header), rule] + [line(row) for row in rows])


def action_markdown() -> str:
    """The docstring's action table: ``necro_env.game.action_table()`` with a meaning per kind."""
    rows = [(kind, str(offset), str(size), ACTION_MEANINGS.get(kind, "")) for kind, offset, size in action_table()]
    return _markdown_table(("kind", "offset", "size", "meaning"), rows, (False, True, True, False))


def observation_markdown() -> str:
    """The docstring's observation table: the blocks of ``necro_env.observe.OFFSETS`` in order, with their rows."""
    rows = []
    for block, (start, length) in OFFSETS.items():
        if "." in block:  # a flat feature of the necro or glob block
            continue
        width = ROW_WIDTHS.get(block)
        shape = f"{length // width} x {width}: " if width else ""
        rows.append((block, str(start), str(length), shape + BLOCK_CONTENTS.get(block, "")))
    return _markdown_table(("block", "start", "length", "content"), rows, (False, True, True, False))


def spec_card(template: str) -> str:
    """The module docstring with its placeholders filled from the layout tables and the version history."""
    fields = {
        "NUM_ACTIONS": str(NUM_ACTIONS), "OBS_SIZE": str(OBS_SIZE), "MAX_REGIONS": str(MAX_REGIONS),
        "action_table": action_markdown(), "observation_table": observation_markdown(),
        "version_history": "\n".join(f"* {v}: {text}" for v, text in versions.VERSION_HISTORY),
    }
    for name, text in fields.items():
        template = template.replace("{" + name + "}", text)
    return template


if __doc__:  # None under ``python -OO``
    __doc__ = spec_card(__doc__)
ENV_ID = versions.ENV_ID
ENV_NAME = versions.ENV_NAME
STATE_FORMAT = "necro_env/env_state"
STATE_VERSION = 1
_CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(GameConfig))
_INT_TYPES = (int, np.integer)


class EnvUsageError(NecroEnvError, RuntimeError):
    """The env was used out of order (step before reset, or after the game is over)."""


class GameOverError(EnvUsageError):
    """step() with an action after the game ended (only ``step(None)`` of a done agent is allowed)."""


class UnknownAgentError(NecroEnvError, ValueError):
    """An agent name that is not one of the env's ``possible_agents``."""


class InvalidActionError(IllegalActionError):
    """The action is not an action index at all (wrong type, out of range, None for a live agent)."""


def make_config(players: int = 4, **game_options: Any) -> GameConfig:
    """``GameConfig(players=players, **game_options)``; unknown option names raise ``ConfigError``.

    The env turns ``skip_forced`` on unless told otherwise: a decision with a single legal
    action is applied by the engine, so ``agent_selection`` always has a real choice."""
    unknown = sorted(set(game_options) - set(_CONFIG_FIELDS))
    if unknown:
        raise ConfigError(f"unknown game options {unknown}; allowed: {sorted(set(_CONFIG_FIELDS) - {'players'})}")
    return GameConfig(players=players, **{"skip_forced": True, **game_options})


RENDER_MODES = ("ansi", "human", "rgb_array")


def check_options(reward: Any = "win", shaping: Any = 0.0, hide_necro_reserve: Any = True, render_mode: Any = None,
                  illegal_action: Any = "terminate") -> float:
    """The options the AEC env and the single-seat view share, checked in one place (``ConfigError`` naming
    the first bad one); returns ``shaping`` as a float. Game options are checked by ``GameConfig``."""
    check_reward_scheme(reward)
    shaping = check_shaping(shaping)
    if not isinstance(hide_necro_reserve, (bool, np.bool_)):
        raise ConfigError(f"hide_necro_reserve must be a bool, got {short_repr(hide_necro_reserve)}")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ConfigError(f"unknown render_mode {short_repr(render_mode)}; allowed: None, "
                          + ", ".join(map(repr, RENDER_MODES)))
    check_illegal_mode(illegal_action)
    return shaping


def make_observer(game: Game, hide_necro_reserve: bool = True) -> Observer:
    """The observer of an env of ``game``: ``hide_coins`` from ``game.config``, ``hide_necro_reserve`` the env's."""
    return Observer(game, hide_necro_reserve=bool(hide_necro_reserve))


def render_game(owner: Any, game: Game, st: State | None, mode: str | None, names: list[str] | None = None):
    """The shared ``render``: ``ansi`` the spectator's text, ``human`` printed, ``rgb_array`` a picture of the
    board (the painter is cached on ``owner._renderer``); ``None`` warns and returns None, as Gymnasium envs do."""
    if mode is None:
        gymnasium.logger.warn("You are calling render method without specifying any render mode.")
        return None
    if st is None:
        raise EnvUsageError("render() before reset()")
    from . import render as R

    if mode == "rgb_array":
        if owner._renderer is None:
            owner._renderer = R.BoardPainter(game)
        return owner._renderer.draw(st)
    text = R.ansi(game, st, names)
    if mode == "human":
        print(text)
        return None
    return text


def _make_raw(kwargs: dict) -> "raw_env":
    return raw_env(**kwargs)


def _make_env(kwargs: dict) -> "NecroEnvWrapper":
    return env(**kwargs)


class raw_env(AECEnv):
    """The bare AEC env (see the module docstring, the env's spec card). Illegal actions raise."""

    metadata = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, players: int = 4, render_mode: str | None = None, reward: str = "win",
                 hide_necro_reserve: bool = True, max_cycles: int | None = None, shaping: float = 0.0,
                 **game_options: Any) -> None:
        super().__init__()
        shaping = check_options(reward, shaping, hide_necro_reserve, render_mode)
        if max_cycles is not None and (isinstance(max_cycles, (bool, np.bool_)) or not isinstance(max_cycles, _INT_TYPES)
                                       or max_cycles < 1):
            raise ConfigError(f"max_cycles must be None (off) or a positive int (agent steps), got {short_repr(max_cycles)}")
        config = make_config(players, **game_options)
        self._kwargs = dict(players=players, render_mode=render_mode, reward=reward,
                            hide_necro_reserve=bool(hide_necro_reserve), **game_options)
        if max_cycles is not None:
            self._kwargs["max_cycles"] = int(max_cycles)
        if shaping:
            self._kwargs["shaping"] = shaping
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.render_mode = render_mode
        self.reward_scheme = reward
        self.shaping = shaping
        self.hide_necro_reserve = bool(hide_necro_reserve)
        self.game = Game(config)
        self.config = config
        self.observer = make_observer(self.game, self.hide_necro_reserve)
        self._tracker = RewardTracker(self.game, reward, shaping)
        self.possible_agents = agent_names(config)
        self._seat_agent = list(self.possible_agents)
        self._agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=0.0, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(low=0.0, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32)
        self._zero_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._st: State | None = None
        self._seed: int | None = None
        self._seed_rng: np.random.Generator | None = None
        self._actions: list[int] = []
        self._illegal: dict | None = None
        self._rewards_dirty = False
        self._skip_agent_selection = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict] = {}
        self.agent_selection = self.possible_agents[0]
        self._renderer = None

    # ------------------------------------------------------------------ pickling and copying
    def __reduce__(self):
        return (_make_raw, (dict(self._kwargs),))

    def __deepcopy__(self, memo: dict) -> "raw_env":
        """A full copy, the game in progress included (pickling keeps only the constructor arguments)."""
        new = raw_env(**self._kwargs)
        if self._st is not None:
            new.set_state(self.get_state(), verify=False)
        memo[id(self)] = new
        return new

    @property
    def hide_coins(self) -> bool:
        """``config.hide_coins`` (a game option: the env keeps no copy)."""
        return self.config.hide_coins

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[self.agent_name(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self.agent_name(agent)]

    def agent_name(self, agent: Any) -> str:
        """``agent`` if it is one of ``possible_agents``, else ``UnknownAgentError`` listing them."""
        self.seat_of(agent)
        return agent

    # ------------------------------------------------------------------ engine access
    @property
    def game_state(self) -> State:
        """The engine ``State`` of the game in progress (do not mutate it)."""
        if self._st is None:
            raise EnvUsageError("the env has no game yet: call reset() first")
        return self._st

    def seat_of(self, agent: str) -> int:
        """The engine seat of ``agent``."""
        try:
            return self._agent_seat[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(f"unknown agent {short_repr(agent)}; agents: {self.possible_agents}") from None

    def agent_of(self, seat: int) -> str:
        return self._seat_agent[seat]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``options`` is accepted for API compatibility and ignored."""
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, _INT_TYPES) or seed < 0:
                raise ConfigError(f"seed must be a non-negative int or None, got {short_repr(seed)}")
            game_seed = int(seed)
            self._seed_rng = np.random.default_rng(game_seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng()
            game_seed = int(self._seed_rng.integers(0, 2**63 - 1))
        self._begin(game_seed)
        if self.render_mode == "human":
            self.render()

    def _begin(self, game_seed: int) -> None:
        """The game of ``game_seed`` from its start, with fresh bookkeeping (not the seed generator)."""
        st = self.game.new_state(game_seed)
        self._st = st
        self._seed = game_seed
        self._actions = []
        self._illegal = None
        self._tracker.reset(st)
        self._rewards_dirty = False
        self._skip_agent_selection = None
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self.agent_selection = self._seat_agent[st.decider]

    def apply_recorded(self, actions: list[int], illegal: dict | None, what: str) -> None:
        """Play checked recorded ``actions``, then end the game with the ``illegal`` note if there is one;
        ``StateError`` naming the first step or the note that does not fit the game."""
        apply_all(lambda a: self._play(self.agent_selection, a), lambda: self._st.over, actions, what)
        if illegal is not None:
            st = self._st
            if st.over or illegal["agent"] != self.agent_selection or illegal["action"] in self.game.legal_actions(st):
                raise StateError(f"{what} 'illegal' note (agent {illegal['agent']}, action {illegal['action']}) "
                                 f"does not fit the replayed game: an illegal action of the agent to act "
                                 f"({self.agent_selection}) before the end (over: {bool(st.over)})")
            said = None
            try:
                self.game.apply(st.clone(), illegal["action"])
            except IllegalActionError as e:  # always: the action is not legal
                said = str(e)
            if illegal["message"] != said:
                raise StateError(f"{what} 'illegal' note's message is not what the env said of action "
                                 f"{illegal['action']} here ({short_repr(said, 120)})")
            self.terminate_illegal(illegal["action"], illegal["message"])

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}`` for ``agent`` (fresh arrays)."""
        st = self._st
        if st is None:
            raise EnvUsageError("observe() before reset()")
        try:
            seat = self._agent_seat.get(agent)
        except TypeError:  # an unhashable "agent"
            seat = None
        if seat is None:
            self.seat_of(agent)  # raises with the agent list
        obs = self.observer.observe(st, seat)
        if seat == st.decider and self._illegal is None:
            mask = self.game.legal_action_mask(st)
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The centralised-critic view: absolute seats, every seat's coins and the Necromancer's badges shown; not the
        deck order or the random generator (see "What each seat sees" in the module docstring)."""
        if self._st is None:
            raise EnvUsageError("state() before reset()")
        return self.observer.state_vector(self._st)

    # ------------------------------------------------------------------ step
    def check_action(self, action: Any) -> int:
        """The action as a Python int; ``InvalidActionError`` naming the problem if it is not an action index."""
        if type(action) is int:
            if 0 <= action < NUM_ACTIONS:
                return action
        elif isinstance(action, np.integer) or (isinstance(action, np.ndarray) and action.ndim == 0
                                                and np.issubdtype(action.dtype, np.integer)):
            action = int(action)
            if 0 <= action < NUM_ACTIONS:
                return action
        else:
            agent = self.agent_selection
            if action is None:
                raise InvalidActionError(f"step(None) is only for a terminated agent; {agent} must act "
                                         f"(an int in 0..{NUM_ACTIONS - 1})")
            if isinstance(action, dict):
                raise InvalidActionError(f"step() takes the action of agent_selection ({agent}) only, "
                                         f"not a dict of actions")
            raise InvalidActionError(f"an action must be an int in 0..{NUM_ACTIONS - 1} "
                                     f"(numpy ints are fine), got {type(action).__name__} {short_repr(action)}")
        raise InvalidActionError(f"action {action} is out of range 0..{NUM_ACTIONS - 1}")

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``step(None)`` for a terminated agent removes it)."""
        if self._st is None:
            raise EnvUsageError("step() before reset()")
        if not self.agents:
            raise GameOverError("the game is over and every agent is done; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(f"{agent} is done (the game is over): the only valid action is None, "
                                    f"got {short_repr(action)}")
            self._was_dead_step(None)
            return
        self._play(agent, self.check_action(action))

    def _play(self, agent: str, action: int) -> None:
        st = self._st
        self.game.apply(st, action)  # IllegalActionError leaves everything unchanged
        self._actions.append(action)
        cum = self._cumulative_rewards
        cum[agent] = 0.0
        rewards = self.rewards
        # this step's reward per seat (terminal included), None if all 0; win/rank without shaping pay at the end only
        paid = self._tracker.advance(st) if self._tracker.per_step or st.over else None
        if paid is not None:
            for s, a in enumerate(self._seat_agent):
                r = paid[s]
                rewards[a] = r
                cum[a] += r
            self._rewards_dirty = True
        elif self._rewards_dirty:
            for a in rewards:
                rewards[a] = 0.0
            self._rewards_dirty = False
        if st.over:
            self._finish()
        elif self.max_cycles is not None and len(self._actions) >= self.max_cycles:
            self._truncate()
        else:
            self.agent_selection = self._seat_agent[st.decider]
        if self.render_mode == "human":
            self.render()

    def result(self) -> dict:
        """The full result of the game so far: ``game.result(state)`` (``over``, ``winners`` as seats,
        ``coins``, the Necromancer's ``ghost_curve`` ...) plus ``winner_agents`` and ``final_coins``."""
        st = self.game_state
        res = self.game.result(st)
        res["winner_agents"] = [self._seat_agent[s] for s in res["winners"]]
        res["final_coins"] = {a: st.coins[s] for s, a in enumerate(self._seat_agent)}
        return res

    def _terminal_info(self, agent: str, truncated: bool) -> dict:
        """The end-of-episode info of ``agent``: the same keys and shapes in every game (see "Infos")."""
        st = self._st
        res = self.game.result(st)
        seats = len(self._seat_agent)
        winners = set(res["winners"])
        return {
            "over": res["over"], "truncated": truncated,
            "won": self._agent_seat[agent] in winners,
            "winner_mask": [int(s in winners) for s in range(seats)],
            "coins": list(res["coins"]),
            "final_coins": {a: st.coins[s] for s, a in enumerate(self._seat_agent)},
            "necromancer_won": res["necromancer_won"], "rounds_played": res["rounds_played"],
            "ghosts_in_play": res["ghosts_in_play"], "bought_ghosts": res["bought_ghosts"],
            "bought_powers": res["bought_powers"],
        }

    def _finish(self) -> None:
        """The game just ended (its terminal rewards were paid by ``_play``): infos, every agent terminated."""
        self._rewards_dirty = True
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = self._terminal_info(a, False)
        self._deads_step_first()

    def _truncate(self) -> None:
        """``max_cycles`` agent steps were taken and the game goes on: every agent truncated (no reward)."""
        for a in self.agents:
            self.truncations[a] = True
            self.infos[a] = self._terminal_info(a, True)
        self._deads_step_first()

    def terminate_illegal(self, action: int, message: str, reward: float = ILLEGAL_REWARD) -> None:
        """End the game because ``agent_selection`` chose the illegal ``action`` (TerminateIllegalWrapper style)."""
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self.rewards[agent] = float(reward)
        self._cumulative_rewards[agent] += float(reward)
        self._rewards_dirty = True
        self._illegal = {"agent": agent, "action": int(action), "message": message}
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = self._illegal_info(a)
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _illegal_info(self, agent: str) -> dict:
        """The terminal info after an illegal move: the whole note (with the offender's legal
        actions) for the offender, only who ended the game for everyone else."""
        note = self._illegal
        if agent == note["agent"]:
            return {"illegal_action": dict(note)}
        return {"illegal_action": {"agent": note["agent"],
                                   "message": f"the game ended: {note['agent']} played an illegal action"}}

    # ------------------------------------------------------------------ render
    def render_as(self, agent: str) -> str:
        """The ``ansi`` text from ``agent``'s view: what that seat may know (see "What each seat sees")."""
        if self._st is None:
            raise EnvUsageError("render_as() before reset()")
        from . import render as R

        return R.ansi(self.game, self._st, self._seat_agent, viewer=self.seat_of(agent),
                      hide_necro_reserve=self.hide_necro_reserve)

    def render(self, mode: str | None = None) -> None | np.ndarray | str:
        """``ansi``: the text view; ``human``: print it; ``rgb_array``: a picture of the board.

        ``mode`` (optional, default: the env's ``render_mode``) renders once in another mode; it is
        there for callers that pass the mode, as RLlib's ``PettingZooEnv.render()`` does."""
        if mode is None:
            mode = self.render_mode
        elif mode not in self.metadata["render_modes"]:
            raise ConfigError(f"unknown render mode {short_repr(mode)}; allowed: "
                              + ", ".join(map(repr, self.metadata["render_modes"])))
        return render_game(self, self.game, self._st, mode, self._seat_agent)

    def close(self) -> None:
        self._renderer = None

    # ------------------------------------------------------------------ records and snapshots
    def _options(self) -> dict:
        """The env options a record and a snapshot store (the game options are in their ``config``,
        ``hide_coins`` included); ``shaping`` only when set, so records without it read as before."""
        opts = {"reward": self.reward_scheme, "hide_necro_reserve": self.hide_necro_reserve}
        if self.shaping:
            opts["shaping"] = self.shaping
        return opts

    def _state_options(self) -> dict:
        """What ``get_state`` stores as options: a snapshot also needs the env's ``max_cycles`` (when set);
        a record does not (a truncated game is an unfinished game)."""
        opts = self._options()
        if self.max_cycles is not None:
            opts["max_cycles"] = self.max_cycles
        return opts

    def record(self) -> dict:
        """A JSON-serialisable record of the game so far (see ``necro_env.record``)."""
        st = self.game_state
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "env_id": ENV_ID,
            "config": self.config.to_dict(),
            "options": self._options(),
            "seed": self._seed,
            "agents": list(self.possible_agents),
            "actions": list(self._actions),
            "illegal": dict(self._illegal) if self._illegal else None,
            "over": bool(st.over),
            "result": self.game.result(st) if st.over else None,
        }

    def get_state(self) -> dict:
        """An exact, JSON-compatible snapshot of the env (engine state and bookkeeping; never pickle)."""
        st = self.game_state
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "env_id": ENV_ID,
            "config": self.config.to_dict(),
            "options": self._state_options(),
            "seed": self._seed,
            "seed_rng": self._seed_rng.bit_generator.state if self._seed_rng is not None else None,
            "actions": list(self._actions),
            "illegal": dict(self._illegal) if self._illegal else None,
            "engine": st.to_dict(),
            "agents": list(self.agents),
            "agent_selection": self.agent_selection,
            "skip_agent_selection": self._skip_agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "infos": {a: _jsonable(i) for a, i in self.infos.items()},
            "prev_coins": list(self._tracker.last_coins),
            "rewards_dirty": self._rewards_dirty,
        }

    def set_state(self, saved: dict, verify: bool = True) -> None:
        """Restore a ``get_state()`` snapshot; ``StateError`` naming what is wrong (the env is then unchanged).

        Safe on untrusted input: every field's type and range is checked before anything is
        derived from it (``Game.validate_state`` for the engine state), then the bookkeeping's
        consistency with the game (live agents, whose turn, rewards, notes), and only then is
        anything of this env replaced, all at once.
        verify: also replay the recorded actions from the seed through the env and require the
        same engine state and bookkeeping (catches any tampering; a few ms per game). Without it
        a consistent but edited state is accepted.
        """
        check_header(saved, STATE_FORMAT, STATE_VERSION, "env state")
        check_keys(saved, _STATE_KEYS, _STATE_KEYS, "env state")
        if saved["env_id"] != ENV_ID:
            why = versions.retired_message(saved["env_id"]) if isinstance(saved["env_id"], str) else None
            raise StateError(f"env state saved by {short_repr(saved['env_id'])}, not {ENV_ID}"
                             + (f": {why}" if why else ""))
        try:
            config = GameConfig.from_dict(saved["config"], complete=True)
        except (ConfigError, TypeError) as e:
            raise StateError(f"env state config: {e}") from None
        if config != self.config:
            diff = sorted(k for k, v in config.to_dict().items() if self.config.to_dict()[k] != v)
            raise StateError(f"env state was saved with another game config (differs in {diff}); "
                             f"build the env with that config first")
        options = env_options(saved["options"], config, "env state", frozenset({"shaping", "max_cycles"}))
        if options != self._state_options():
            raise StateError(f"env state options {short_repr(saved['options'], 200)} differ from this env's "
                             f"{self._state_options()}")
        seed = saved["seed"]
        if not is_int(seed) or seed < 0:
            raise StateError(f"env state seed must be a non-negative int, got {short_repr(seed)}")
        actions = check_actions(saved["actions"], "env state")
        illegal = check_illegal_note(saved["illegal"], self.possible_agents, "env state")
        st = State.from_dict(saved["engine"])
        self.game.validate_state(st)
        book = self._checked_bookkeeping(saved, st, seed, illegal, len(actions))
        rng = generator_from_state(saved["seed_rng"], "env state seed_rng")
        if verify:
            twin = self._replayed(seed, actions, illegal, len(self.possible_agents) - len(book["agents"]))
            if twin._st != st:
                diff = [f for f in st.to_dict() if getattr(st, f) != getattr(twin._st, f)]
                raise StateError(f"env state engine differs from the game replayed from its seed and actions "
                                 f"in fields {diff} (tampered or corrupt)")
            diff = [k for k, v in twin._bookkeeping().items() if book[k] != v]
            if diff:
                raise StateError(f"env state bookkeeping differs from the game replayed from its seed and actions "
                                 f"in {diff} (tampered or corrupt)")
        # Everything checked: commit, all at once.
        self._st = st
        self._seed = seed
        self._seed_rng = rng
        self._actions = actions
        self._illegal = illegal
        self.agents = book["agents"]
        self.agent_selection = book["agent_selection"]
        self._skip_agent_selection = book["skip_agent_selection"]
        self.rewards = book["rewards"]
        self._cumulative_rewards = book["cumulative_rewards"]
        self.terminations = book["terminations"]
        self.truncations = book["truncations"]
        self.infos = book["infos"]
        self._tracker.restore(book["prev_coins"], {s: progress_potential(self.game, st, s)
                                                   for s in self._tracker.seats})
        self._rewards_dirty = book["rewards_dirty"]

    def _bookkeeping(self) -> dict:
        """The env's bookkeeping, as ``get_state`` stores it (besides the engine state and the seeds)."""
        return {
            "agents": list(self.agents), "agent_selection": self.agent_selection,
            "skip_agent_selection": self._skip_agent_selection, "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards), "terminations": dict(self.terminations),
            "truncations": dict(self.truncations), "infos": {a: _jsonable(i) for a, i in self.infos.items()},
            "prev_coins": list(self._tracker.last_coins), "rewards_dirty": self._rewards_dirty,
        }

    def _replayed(self, seed: int, actions: list[int], illegal: dict | None, dead_steps: int) -> "raw_env":
        """A twin of this env (sharing the game, nothing mutable) replayed from ``seed``: ``actions``, the
        ``illegal`` ending, then ``dead_steps`` done agents removed by ``step(None)``."""
        twin = raw_env.__new__(raw_env)
        twin.__dict__.update(self.__dict__)
        twin.render_mode = None
        twin._tracker = RewardTracker(self.game, self.reward_scheme, self.shaping)  # its own reward memory
        twin._begin(seed)
        twin.apply_recorded(actions, illegal, "env state")
        for _ in range(dead_steps):
            if not twin.agents or not twin.terminations[twin.agent_selection]:
                raise StateError("env state lists fewer live agents than the replayed game has done agents")
            twin._was_dead_step(None)
        return twin

    def _checked_bookkeeping(self, saved: dict, st: State, seed: int, illegal: dict | None, steps: int) -> dict:
        """The bookkeeping of ``saved`` (types, then consistency with the validated engine state ``st``
        after ``steps`` agent steps)."""
        possible = self.possible_agents
        agents = saved["agents"]
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents) \
                or [a for a in possible if a in agents] != agents:
            raise StateError(f"env state agents must list distinct agents of {possible} in that order, "
                             f"got {short_repr(agents)}")
        ended = bool(st.over) or illegal is not None
        cap = self.max_cycles
        if not ended and cap is not None and steps > cap:
            raise StateError(f"env state has {steps} actions, more than max_cycles={cap} allows in a game not over")
        truncated = not ended and cap is not None and steps == cap
        done = ended or truncated
        if not done and agents != possible:
            raise StateError(f"env state agents {agents}: while the game runs every agent is live ({possible})")
        book: dict[str, Any] = {"agents": list(agents)}
        for name, kinds in (("rewards", (int, float)), ("cumulative_rewards", (int, float)),
                            ("terminations", bool), ("truncations", bool), ("infos", dict)):
            d = saved[name]
            if not isinstance(d, dict) or set(d) != set(agents) \
                    or not all(isinstance(x, kinds) and (kinds is bool or not isinstance(x, bool)) for x in d.values()):
                raise StateError(f"env state {name!r} must map exactly the live agents {agents} to "
                                 f"{getattr(kinds, '__name__', 'numbers')}")
            book[name] = dict(d)
        for name in ("rewards", "cumulative_rewards"):
            if not all(math.isfinite(x) and abs(x) <= _MAX_REWARD for x in book[name].values()):
                raise StateError(f"env state {name!r} holds a value that is not a finite number within "
                                 f"+-{_MAX_REWARD:g}")
        check_json(book["infos"], "env state infos")
        book["infos"] = {a: _jsonable(i) for a, i in book["infos"].items()}
        if any(v != truncated for v in book["truncations"].values()) \
                or any(v != ended for v in book["terminations"].values()):
            raise StateError(f"env state terminations/truncations: every live agent is terminated exactly when "
                             f"the game has ended ({ended}) and truncated exactly when max_cycles ended it "
                             f"({truncated})")
        sel, skip = saved["agent_selection"], saved["skip_agent_selection"]
        want = (agents[0] if agents else sel) if done else self._seat_agent[st.decider]
        if not isinstance(sel, str) or sel not in possible or sel != want:
            raise StateError(f"env state agent_selection {short_repr(sel)} is not the agent to act "
                             f"({want if want in possible else 'an agent'})")
        if skip is not None and (not isinstance(skip, str) or skip not in possible):
            raise StateError(f"env state skip_agent_selection {short_repr(skip)} is not null or an agent")
        if (skip is None) != (not done or not agents):
            raise StateError("env state skip_agent_selection must be set exactly while done agents are left")
        book["agent_selection"], book["skip_agent_selection"] = sel, skip
        prev, dirty = saved["prev_coins"], saved["rewards_dirty"]
        if not isinstance(prev, list) or not all(is_int(c) for c in prev):
            raise StateError("env state prev_coins must be a list of one int per seat")
        want_prev = st.coins if self.reward_scheme == "coins" else self.game.new_state(seed).coins
        if prev != want_prev:
            raise StateError(f"env state prev_coins {short_repr(prev)} must be {want_prev} (the coins "
                             + ("now" if self.reward_scheme == "coins" else "at the start") + ")")
        terminal_only = self.reward_scheme != "coins" and not self.shaping  # nothing is paid before the end
        if not isinstance(dirty, bool) or (ended and not dirty) or (not ended and terminal_only and dirty):
            raise StateError(f"env state rewards_dirty must be a bool, true once the game has ended"
                             + (f" and false before with the {self.reward_scheme!r} rewards" if terminal_only else "")
                             + f", got {short_repr(dirty)}")
        if not dirty and any(book["rewards"].values()):
            raise StateError("env state rewards must be 0 while rewards_dirty is false")
        book["prev_coins"], book["rewards_dirty"] = list(prev), dirty
        return book


_STATE_KEYS = frozenset({
    "format", "version", "env_id", "config", "options", "seed", "seed_rng", "actions", "illegal", "engine", "agents",
    "agent_selection", "skip_agent_selection", "rewards", "cumulative_rewards", "terminations", "truncations",
    "infos", "prev_coins", "rewards_dirty"})
_MAX_REWARD = 1e9  # no reward scheme comes near: win/rank are within +-1, coins a tenth of a coin count


def _jsonable(x: Any) -> Any:
    """A deep copy made of dicts, lists and scalars (what JSON round-trips)."""
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


class NecroEnvWrapper(OrderEnforcingWrapper):
    """The env returned by ``necro_env.env()``: call-order checks and illegal-action handling.

    ``illegal_action="terminate"``: an in-range illegal action ends the game with -1 for
    the offender (PettingZoo's ``TerminateIllegalWrapper`` behaviour); ``"raise"``: the
    raw env's ``IllegalActionError`` propagates. Actions that are not action indices at
    all (wrong type, out of range) always raise ``InvalidActionError``. The hot
    attributes are plain properties (no ``__getattr__`` detour), so the wrapper costs
    next to nothing per step.
    """

    def __init__(self, env: raw_env, illegal_action: str = "terminate") -> None:
        check_illegal_mode(illegal_action)
        super().__init__(env)
        self._raw = env
        self.illegal_action = illegal_action

    def __reduce__(self):
        return (_make_env, (dict(self._raw._kwargs, illegal_action=self.illegal_action),))

    def __deepcopy__(self, memo: dict) -> "NecroEnvWrapper":
        """A full copy, the game in progress included."""
        import copy

        new = NecroEnvWrapper(copy.deepcopy(self._raw, memo), illegal_action=self.illegal_action)
        new._has_reset = self._has_reset
        new._has_updated = self._has_updated
        memo[id(self)] = new
        return new

    # ---- hot attributes (each raises AttributeError before reset, like OrderEnforcingWrapper)
    def _need_reset(self, name: str) -> None:
        raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            self._need_reset("agent_selection")
        return self._raw.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            self._need_reset("agents")
        return self._raw.agents

    @property
    def rewards(self) -> dict:
        if not self._has_reset:
            self._need_reset("rewards")
        return self._raw.rewards

    @property
    def terminations(self) -> dict:
        if not self._has_reset:
            self._need_reset("terminations")
        return self._raw.terminations

    @property
    def truncations(self) -> dict:
        if not self._has_reset:
            self._need_reset("truncations")
        return self._raw.truncations

    @property
    def infos(self) -> dict:
        if not self._has_reset:
            self._need_reset("infos")
        return self._raw.infos

    @property
    def _cumulative_rewards(self) -> dict:
        return self._raw._cumulative_rewards

    @property
    def num_agents(self) -> int:
        if not self._has_reset:
            self._need_reset("num_agents")
        return len(self._raw.agents)

    @property
    def possible_agents(self) -> list[str]:
        return self._raw.possible_agents

    @property
    def max_num_agents(self) -> int:
        return len(self._raw.possible_agents)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._raw.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._raw.action_space(agent)

    # ---- the AEC calls
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._raw.reset(seed=seed, options=options)
        self._has_reset = True
        self._has_updated = True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise EnvUsageError("observe() before reset()")
        return self._raw.observe(agent)

    def last(self, observe: bool = True):
        raw = self._raw
        if not self._has_reset:
            raise EnvUsageError("last() before reset()")
        agent = raw.agent_selection
        return (raw.observe(agent) if observe else None, raw._cumulative_rewards[agent],
                raw.terminations[agent], raw.truncations[agent], raw.infos[agent])

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            raise EnvUsageError("step() before reset()")
        if not raw.agents:
            raise GameOverError("the game is over and every agent is done; call reset()")
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        a = raw.check_action(action)
        if self.illegal_action == "raise":
            raw._play(agent, a)
            return
        try:
            raw._play(agent, a)
        except IllegalActionError as e:
            raw.terminate_illegal(a, str(e))

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise EnvUsageError("state() before reset()")
        return self._raw.state()

    def render(self, mode: str | None = None):
        if not self._has_reset:
            raise EnvUsageError("render() before reset()")
        return self._raw.render(mode)

    def result(self) -> dict:
        """The full result of the game so far (``raw_env.result``)."""
        return self._raw.result()

    def get_state(self) -> dict:
        return self._raw.get_state()

    def set_state(self, saved: dict, verify: bool = True) -> None:
        """Restore a snapshot (also counts as a reset for the call-order checks)."""
        self._raw.set_state(saved, verify=verify)
        self._has_reset = True
        self._has_updated = True

    def record(self) -> dict:
        return self._raw.record()


def env(players: int = 4, render_mode: str | None = None, reward: str = "win", illegal_action: str = "terminate",
        **kwargs: Any) -> NecroEnvWrapper:
    """The wrapped env (see the module docstring for every argument)."""
    check_illegal_mode(illegal_action)
    return NecroEnvWrapper(raw_env(players=players, render_mode=render_mode, reward=reward, **kwargs),
                           illegal_action=illegal_action)


def replay(record: dict) -> raw_env:
    """Replay a game record (``necro_env.record``'s format) exactly; returns a raw env after its last
    action (``game_state`` is the final engine state; an unfinished game can be played on from there),
    with the illegal-action ending re-applied if the record has one. ``StateError`` names any problem:
    besides the format's checks (``parse_record``), ``over``, ``result``, ``agents`` or the
    illegal-action note differing from the replay (``necro-env replay`` exits 1 on such a record)."""
    config, options, seed, actions = parse_record(record)
    game_options = {k: v for k, v in config.to_dict().items() if k != "players"}
    try:
        raw = raw_env(players=config.players, **options, **game_options)
    except ConfigError as e:
        raise StateError(f"game record options: {e}") from None
    agents = record.get("agents")
    if agents is not None and agents != raw.possible_agents:
        raise StateError(f"game record agents {short_repr(agents)} differ from {raw.possible_agents}")
    over = record.get("over")
    if over is not None and not isinstance(over, bool):
        raise StateError(f"game record 'over' must be true, false or null, got {short_repr(over)}")
    result = record.get("result")
    if result is not None and not isinstance(result, dict):
        raise StateError(f"game record 'result' must be null or an object (game.result()), got {short_repr(result)}")
    illegal = check_illegal_note(record.get("illegal"), raw.possible_agents, "game record")
    raw.reset(seed=seed)
    raw.apply_recorded(actions, illegal, "game record")
    st = raw.game_state
    if over is not None and over != bool(st.over):
        raise StateError(f"game record says over={over} but the replay ends with over={bool(st.over)}")
    if result is not None:
        got = raw.game.result(st)
        if result != got:
            diff = sorted(k for k in set(result) | set(got) if result.get(k) != got.get(k))
            raise StateError(f"game record result differs from the replay in {diff}")
    return raw


env.__doc__ = "The wrapped env.\n\n" + (__doc__ or "")

__all__ = ["env", "raw_env", "replay", "NecroEnvWrapper", "ENV_ID", "ENV_NAME", "REWARD_SCHEMES",
           "ILLEGAL_ACTION_MODES", "EnvUsageError", "GameOverError", "InvalidActionError", "UnknownAgentError",
           "make_config", "agent_names"]

"""necro_env as an OpenSpiel game: ``python_necro_island`` (the ``openspiel`` extra).

Importing this module imports ``pyspiel`` (``pip install 'necro_env[openspiel]'``) and registers
the game; ``import necro_env`` never imports it. Then::

    import pyspiel
    import necro_env.openspiel  # registers python_necro_island
    game = pyspiel.load_game("python_necro_island", {"players": 3, "seed": 7})
    state = game.new_initial_state()          # the game env.reset(seed=7) starts

**Players** are the engine's seats: OpenSpiel player ``k`` is ``player_k`` of the AEC env, and with
the Necromancer his seat is the last one (``players - 1``). ``current_player()`` is the seat
that decides now (``State.decider``), ``pyspiel.PlayerId.TERMINAL`` once the game is over.

**Actions** are the env's fixed ``Discrete(NUM_ACTIONS)`` table (``necro_env.game.action_table()``);
``legal_actions()`` is the engine's mask of the deciding seat.

**Chance** is declared ``SAMPLED_STOCHASTIC``: there are no chance nodes; the engine draws the deck
shuffles, the Necromancer's badges and the reinforcement die from the generator inside its
``State`` (``necro_env/game/rng.py``), which the game seeds from the ``seed`` parameter. So every
``new_initial_state()`` of a game loaded with ``seed=S`` is the game ``necro_env.env(...).reset(seed=S)``
starts, and the same actions give the same game; ``new_initial_state_for_seed(S)`` starts the
game of another seed without loading a new game. A clone carries the generator, so a clone and
its original draw the same outcomes for the same actions.

**Parameters** (``pyspiel.load_game("python_necro_island", {...})``): ``players`` (4), ``necromancer``
(True; False for the base game, 2-5 seats), ``seed`` (0), ``reward`` (``"win"``, ``"rank"`` or
``"coalition"``), ``hide_necro_reserve`` (True), and the ``GameConfig`` options: ``hide_coins``,
``skip_forced`` (True, as in the env), ``starting_coins``, ``game_turns`` (0 = the board's own),
``necromancer_starting_coins``, ``handicap``, ``victory_check``, ``island_redeploy``,
``necromancer_diplomat``, ``conversion_to_well``, ``final_die``, and ``forced_combos`` /
``necromancer_powers`` as JSON text (``'[["Elves", "Flying"]]'``, ``'["Flying", ...]'``; empty = none).
Bad values raise ``ConfigError`` with the message ``GameConfig`` gives.

**Returns** are terminal (``RewardModel.TERMINAL``), the env's terminal reward schemes
(``necro_env.rewards.terminal_rewards``): ``win`` (default): +1 to each winner, -1 to everyone else;
``rank``: the final standing scaled to [-1, 1]; ``coalition``: the players +1 each if the Necromancer
loses, -1 if he wins, he the opposite. None is zero-sum in general (``win`` with one winner of
three seats sums to -1), so the game is declared ``GENERAL_SUM`` with utilities in [-1, 1];
``coalition`` is the two-sided, team-vs-Necromancer reading. The dense ``coins`` scheme has no
terminal form and is refused.

**Observations** are necro_env's observer (``necro_env.observe.Observer``): the seat-relative
``OBS_SIZE`` float32 vector the env gives that seat, hiding what the seat may not know (the deck
order and the generator always; the Necromancer's drawn and reserve badges from the players
under ``hide_necro_reserve``; the others' coins under ``hide_coins``). ``observation_string`` is
the seat's text view (``necro_env.render.ansi`` with ``viewer``). The information state is the
same observation (``information_state_tensor`` = ``observation_tensor``): it is **not** a
perfect-recall information state. The engine's chance outcomes are not actions, so the action
history alone does not determine the board, and a seat's full history of observations would be
a vector growing with the game; the observation already holds the round, the phase and
everything public on the board. ``information_state_string`` is a short digest of that tensor
(with the seat), cheap enough for information-set search to key its nodes with.

**History**: ``history()``, ``history_str()``, ``move_number()`` and ``is_initial_state()`` answer from the
state's own list of applied actions, which clones and pickles copy (OpenSpiel's C++ base keeps a history
a Python clone cannot copy, so C++ code reading a clone's history sees only the moves made since the
clone). A state built with ``from_engine`` starts its history there.

**Resampling** (``resample_from_infostate(player, sampler)``): a state the seat cannot tell
apart from this one (its observation tensor, observation string, information state and, when it
decides, its legal actions are unchanged), drawn with ``sampler()`` (floats in [0, 1)):

* the generator: a fresh one, so later die rolls and reshuffles are redrawn;
* the result depends only on what the seat knows and on the sampler's draws (the unseen entries
  are sorted before they are shuffled), so two states the seat cannot tell apart resample alike;
* the race deck's order, except the entries whose place the seat saw: the forced combos still on
  top, and races that went back under the deck during this state's game (tracked by ``apply_action``;
  a state built from a bare engine state with ``from_engine`` knows of none);
* the power deck's order (again minus forced entries still on top), and, for a player when the
  Necromancer's badges are hidden from him, which unplayed badges the Necromancer holds: his
  still-unbought reserve slots (or, before he has chosen, his 6 drawn badges) are redrawn from
  the pool of those badges and the power deck, each slot from the badges the Necromancer may draw
  (``Power.necromancer_ok``), the rest shuffled back as the deck; bought or empty slots keep their
  place. With ``necromancer_powers`` set in the config his badges are known and kept.

Coins are kept, also under ``hide_coins``: every coin change (a combo's price and the coins on it,
the turn's earnings from the public board, the Necromancer's purchases) follows from public events,
so a seat that remembers the game knows every seat's coins; a redraw would give states that seat
has already ruled out. The observation hides them only because it has no memory.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Callable

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError(f"necro_env.openspiel needs OpenSpiel: pip install 'necro_env[openspiel]' ({e})") from e

from .game import NUM_ACTIONS, Game, GameConfig, State, decode
from .game import rng as R
from .game.catalog import POWERS
from .game.errors import ConfigError, short_repr
from .observe import OBS_SIZE, Observer
from .rewards import terminal_rewards

GAME_NAME = "python_necro_island"
#: Terminal reward schemes a game may use (the env's ``coins`` scheme is dense and has no terminal form).
RETURN_SCHEMES = ("win", "rank", "coalition")
#: OpenSpiel's ``max_game_length``: a generous bound on the actions of one game, not a proven one (random
#: play, forced actions included: 6 seats about 300, at most 418 in 30 games; 5 seats of the base game
#: over 20 turns, the longest game the options allow, at most 809 in 10 games).
MAX_GAME_LENGTH = 10_000

#: Parameters and defaults (``pyspiel.load_game(GAME_NAME, {...})``); see the module docstring.
DEFAULT_PARAMS: dict[str, Any] = {
    "players": 4,
    "necromancer": True,
    "seed": 0,
    "reward": "win",
    "hide_necro_reserve": True,
    "hide_coins": False,
    "skip_forced": True,
    "starting_coins": 5,
    "game_turns": 0,
    "necromancer_starting_coins": True,
    "handicap": 0,
    "victory_check": "end_of_turn",
    "island_redeploy": False,
    "necromancer_diplomat": True,
    "conversion_to_well": True,
    "final_die": "when_short",
    "forced_combos": "",
    "necromancer_powers": "",
}
_CONFIG_PARAMS = ("players", "necromancer", "hide_coins", "skip_forced", "starting_coins",
                  "necromancer_starting_coins", "handicap", "victory_check", "island_redeploy",
                  "necromancer_diplomat", "conversion_to_well", "final_die")

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Small World: Necromancer Island (necro_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def config_from_params(params: dict[str, Any]) -> GameConfig:
    """The ``GameConfig`` that game parameters describe (``ConfigError`` naming a bad value)."""
    kw = {k: params[k] for k in _CONFIG_PARAMS}
    if params["game_turns"]:
        kw["game_turns"] = params["game_turns"]
    for name in ("forced_combos", "necromancer_powers"):
        text = params[name]
        if text:
            try:
                kw[name] = json.loads(text)
            except ValueError:
                raise ConfigError(f"{name} must be JSON text (e.g. "
                                  + ("'[[\"Elves\", \"Flying\"]]'" if name == "forced_combos" else "'[\"Flying\", ...]'")
                                  + f") or empty, got {short_repr(text)}") from None
    return GameConfig(**kw)


def params_from_config(config: GameConfig, **extra: Any) -> dict[str, Any]:
    """Game parameters for ``config`` (``extra``: ``seed``, ``reward``, ``hide_necro_reserve``)."""
    p = {k: getattr(config, k) for k in _CONFIG_PARAMS}
    p["game_turns"] = config.game_turns or 0
    p["forced_combos"] = json.dumps([list(c) for c in config.forced_combos]) if config.forced_combos else ""
    p["necromancer_powers"] = json.dumps(list(config.necromancer_powers)) if config.necromancer_powers else ""
    p.update(extra)
    unknown = sorted(set(p) - set(DEFAULT_PARAMS))
    if unknown:
        raise ConfigError(f"unknown game parameters {unknown}; allowed: {sorted(DEFAULT_PARAMS)}")
    return p


class NecroIslandGame(pyspiel.Game):
    """The OpenSpiel game of one ``GameConfig`` (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = dict(DEFAULT_PARAMS, **(params or {}))
        unknown = sorted(set(merged) - set(DEFAULT_PARAMS))
        if unknown:
            raise ConfigError(f"unknown {GAME_NAME} parameters {unknown}; allowed: {sorted(DEFAULT_PARAMS)}")
        config = config_from_params(merged)
        reward = merged["reward"]
        if reward not in RETURN_SCHEMES:
            raise ConfigError(f"reward must be one of {RETURN_SCHEMES} (terminal schemes), got {short_repr(reward)}")
        if reward == "coalition" and not config.necromancer:
            raise ConfigError("reward 'coalition' needs the Necromancer (necromancer=True)")
        seed = merged["seed"]
        if seed < 0:
            raise ConfigError(f"seed must be a non-negative int, got {seed}")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=config.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, merged)
        self.config = config
        self.engine = Game(config)
        self.reward = reward
        self.seed = int(seed)
        self.hide_necro_reserve = bool(merged["hide_necro_reserve"])
        self.observer = Observer(self.engine, hide_necro_reserve=self.hide_necro_reserve)
        self.names = [f"seat {s}" for s in range(config.players)]

    def __reduce__(self):
        """Pickled (and deep-copied) as its parameters: the game holds no random state of its own."""
        return (_load_game, (self.get_parameters(),))

    def new_initial_state(self) -> "NecroIslandState":
        """The game of the ``seed`` parameter from its start."""
        return self.new_initial_state_for_seed(self.seed)

    def new_initial_state_for_seed(self, seed: int) -> "NecroIslandState":
        """The game of ``seed`` from its start (what ``necro_env.env(...).reset(seed=seed)`` starts)."""
        return NecroIslandState(self, self.engine.new_state(int(seed)))

    def from_engine(self, st: State) -> "NecroIslandState":
        """A state holding a copy of the engine state ``st`` (of a game with this game's config).

        It knows nothing of the game's past: ``resample_from_infostate`` treats every deck entry
        below the forced combos as unseen (see the module docstring)."""
        return NecroIslandState(self, st.clone())

    def make_py_observer(self, iig_obs_type=None, params=None) -> "NecroIslandObserver":
        """The observer of one seat (the information state is the observation; see the module docstring)."""
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(f"{GAME_NAME} observes from one seat's view (PrivateInfoType.SINGLE_PLAYER), "
                             f"got {iig_obs_type.private_info}")
        return NecroIslandObserver(self, key=bool(iig_obs_type is not None and iig_obs_type.perfect_recall))


def _known_head(deck: list[int], forced: list[int]) -> int:
    """How many entries on top of ``deck`` are forced ones (their place is known to everyone)."""
    n = 0
    while n < len(deck) and deck[n] in forced:
        n += 1
    return n


def _track(old: list[int], new: list[int], head: int, tail: int, returns: bool) -> tuple[int, int]:
    """Known entries on top (``head``) and at the bottom (``tail``) of a deck after it went from ``old``
    to ``new``: entries leave from the top and, with ``returns`` (the race deck), entries not in the deck
    come back under it, in the open; anything else (the power deck refilled from the shuffled discards)
    makes the whole order unknown."""
    if old == new:
        return head, tail
    n = len(old)
    for popped in range(n + 1):
        kept = n - popped
        if new[:kept] == old[popped:]:
            added = new[kept:]
            if added and (not returns or any(x in old for x in added)):
                break
            return max(0, head - popped), min(len(new), min(tail, kept) + len(added))
    return 0, 0


class NecroIslandState(pyspiel.State):
    """One game in progress: the engine ``State`` plus what the decks' history tells (see the module docstring)."""

    def __init__(self, game: NecroIslandGame, st: State) -> None:
        super().__init__(game)
        self._g = game
        self._st = st
        eng = game.engine
        self._race_head = _known_head(st.race_deck, eng.forced_races)
        self._race_tail = 0
        self._power_head = _known_head(st.power_deck, eng.forced_powers)
        self._power_tail = 0
        self._hist: list[int] = []  # the actions applied since this state's start (see ``history``)

    # ---- engine access
    @property
    def engine_state(self) -> State:
        """The engine ``State`` (read it; apply actions through ``apply_action``)."""
        return self._st

    # ---- the OpenSpiel API
    def current_player(self) -> int:
        if self._st.over:
            return pyspiel.PlayerId.TERMINAL
        return self._st.decider

    def _legal_actions(self, player: int) -> list[int]:
        st = self._st
        if st.over or player != st.decider:
            return []
        return list(self._g.engine.legal_actions(st))

    def _apply_action(self, action: int) -> None:
        st = self._st
        races, powers = st.race_deck[:], st.power_deck[:]
        self._g.engine.apply(st, int(action))  # IllegalActionError (a ValueError) names the legal ones
        self._race_head, self._race_tail = _track(races, st.race_deck, self._race_head, self._race_tail, True)
        self._power_head, self._power_tail = _track(powers, st.power_deck, self._power_head, self._power_tail, False)
        self._hist.append(int(action))

    # OpenSpiel's C++ base keeps its own history, which a Python clone cannot copy (it starts empty); these
    # answer from the state's own list, so a clone or an unpickled state has its original's history.
    def history(self) -> list[int]:
        """The actions applied since the game's start (since ``from_engine``'s state for such a state)."""
        return list(self._hist)

    def history_str(self) -> str:
        return ", ".join(map(str, self._hist))

    def move_number(self) -> int:
        return len(self._hist)

    def is_initial_state(self) -> bool:
        return not self._hist

    def _action_to_string(self, player: int, action: int) -> str:
        return str(decode(int(action)))

    def is_terminal(self) -> bool:
        return bool(self._st.over)

    def returns(self) -> list[float]:
        st = self._st
        if not st.over:
            return [0.0] * self._g.config.players
        return [float(x) for x in terminal_rewards(self._g.engine, st, self._g.reward)]

    def rewards(self) -> list[float]:
        return self.returns()  # terminal only: nothing is paid before the end

    def __str__(self) -> str:
        return _ansi(self._g, self._st, None)

    def clone(self) -> "NecroIslandState":
        c = NecroIslandState.__new__(NecroIslandState)
        pyspiel.State.__init__(c, self._g)
        c.__dict__.update(self.__dict__)
        c._st = self._st.clone()
        c._hist = self._hist[:]
        return c

    def __deepcopy__(self, memo: dict) -> "NecroIslandState":
        return self.clone()

    def __reduce__(self):
        """Pickled as the game's parameters and the engine state (exact, the generator included)."""
        return (_unpickle_state, (self._g.get_parameters(), self._st.to_dict(), self._race_head, self._race_tail,
                                  self._power_head, self._power_tail, list(self._hist)))

    # ---- resampling
    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> "NecroIslandState":
        """A state ``player_id`` cannot tell apart from this one, the hidden parts redrawn with
        ``probability_sampler()`` (see the module docstring)."""
        g = self._g
        if not 0 <= player_id < g.config.players:
            raise ValueError(f"player_id must be a seat in 0..{g.config.players - 1}, got {player_id!r}")
        c = self.clone()
        st = c._st
        s = _seed_from(probability_sampler)
        # the race deck between the known top and bottom
        lo, hi = c._race_head, len(st.race_deck) - c._race_tail
        if hi - lo > 1:
            mid = sorted(st.race_deck[lo:hi])  # sorted first: the draw depends on what the seat knows only
            s = R.shuffle(s, mid)
            st.race_deck[lo:hi] = mid
        # the power deck (and the Necromancer's unplayed badges, when the player does not see them)
        eng = g.engine
        hidden_badges = (eng.necromancer and player_id != eng.necro_seat and g.hide_necro_reserve
                         and eng.necro_forced is None)
        lo, hi = c._power_head, len(st.power_deck) - c._power_tail
        mid = st.power_deck[lo:hi]
        slots: list[tuple[str, int]] = []
        if hidden_badges:
            slots = [("draw", k) for k in range(len(st.necro_draw))]
            slots += [("reserve", k) for k, p in enumerate(st.necro_reserve) if p >= 0]
            pool = mid + [st.necro_draw[k] if kind == "draw" else st.necro_reserve[k] for kind, k in slots]
        else:
            pool = mid
        pool.sort()
        if len(pool) > 1:
            s = R.shuffle(s, pool)
            for kind, k in slots:  # each hidden slot takes the first badge he may hold
                i = next(i for i, p in enumerate(pool) if POWERS[p].necromancer_ok)
                (st.necro_draw if kind == "draw" else st.necro_reserve)[k] = pool.pop(i)
            st.power_deck[lo:hi] = pool
        s, _ = R.next_u64(s)
        st.rng = s
        st._legal = None
        return c

    # ---- strings and tensors the C++ side does not route through the observer
    def observation_tensor_of(self, player: int) -> np.ndarray:
        """The seat's observation (a fresh float32 array of ``OBS_SIZE``)."""
        return self._g.observer.observe(self._st, player)


def _load_game(params: dict) -> NecroIslandGame:
    return pyspiel.load_game(GAME_NAME, params)


def _unpickle_state(params: dict, engine: dict, race_head: int, race_tail: int, power_head: int,
                    power_tail: int, history: list[int]) -> NecroIslandState:
    game = pyspiel.load_game(GAME_NAME, params)
    st = State.from_dict(engine)
    game.engine.validate_state(st)
    state = NecroIslandState(game, st)
    state._race_head, state._race_tail, state._power_head, state._power_tail = (
        race_head, race_tail, power_head, power_tail)
    state._hist = [int(a) for a in history]
    return state


def _seed_from(sampler: Callable[[], float]) -> int:
    """A generator state from four draws of ``sampler`` (16 bits each)."""
    seed = 0
    for _ in range(4):
        x = float(sampler())
        if not 0.0 <= x < 1.0:
            x = x % 1.0
        seed = (seed << 16) | int(x * 65536)
    return R.seed_state(seed)


def _ansi(game: NecroIslandGame, st: State, viewer: int | None) -> str:
    from . import render

    return render.ansi(game.engine, st, game.names, viewer=viewer, hide_necro_reserve=game.hide_necro_reserve)


class NecroIslandObserver:
    """OpenSpiel's Python observer interface (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, game: NecroIslandGame, key: bool = False) -> None:
        self._game = game
        self._key = key  # the information state's observer: its string is the digest
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: NecroIslandState, player: int) -> None:
        self._game.observer.observe(state.engine_state, player, out=self.tensor)

    def string_from(self, state: NecroIslandState, player: int) -> str:
        if self._key:
            return information_state_key(state, player)
        return _ansi(self._game, state.engine_state, player)


def information_state_key(state: NecroIslandState, player: int) -> str:
    """The information-state string: the seat and a digest of its observation."""
    obs = state.observation_tensor_of(player)
    return f"seat {player} " + hashlib.blake2b(obs.tobytes(), digest_size=16).hexdigest()


pyspiel.register_game(_GAME_TYPE, NecroIslandGame)


def load(config: GameConfig | None = None, **params: Any) -> NecroIslandGame:
    """``pyspiel.load_game(GAME_NAME, ...)``: from a ``GameConfig`` (plus ``seed``, ``reward``,
    ``hide_necro_reserve``) or from parameters alone."""
    if config is not None:
        params = params_from_config(config, **params)
    return pyspiel.load_game(GAME_NAME, params)


__all__ = ["GAME_NAME", "DEFAULT_PARAMS", "RETURN_SCHEMES", "NecroIslandGame", "NecroIslandState",
           "NecroIslandObserver", "config_from_params", "params_from_config", "load", "information_state_key"]

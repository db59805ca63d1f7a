"""A single-seat Gymnasium view of necro_env, for single-agent learners (SB3 MaskablePPO).

``SingleSeatEnv`` puts one learner in one seat (the Necromancer, or a player seat)
and plays every other seat with given policies (baselines by name, saved models by
path, or any object with ``act(view, rng)``). Observations, masks and rewards are
the learner's only:

* ``observation``: the learner's seat-relative vector (``necro_env.observe``).
* ``action_masks()``: the learner's legal actions (sb3-contrib's MaskablePPO calls it).
* reward: "win" (+1 if the learner is among the winners at the end, else -1; the
  Necromancer +1 iff he wins), "rank" (final standing scaled to [-1, 1]) or "coins"
  (coins gained since the learner's previous decision / 10, dense): the AEC env's
  schemes, computed by the same object (``necro_env.rewards.RewardTracker``), counted
  from the learner's first decision (nothing is paid at ``reset``).
* ``shaping`` (default 0): a dense progress reward ``shaping * (phi(s') - phi(s))``
  between the learner's decisions, so a game's shaping terms add up to
  ``shaping * (phi(end) - phi(first decision))``; phi is
  ``necro_env.rewards.progress_potential``. The AEC env's ``shaping`` is the same: at
  each of the learner seat's decisions the AEC env's accumulated reward for that seat
  equals this env's step reward (``tests/test_rewards.py`` plays the same games
  through both).

The options shared with the AEC env have its names and its checks (``necro_env.env.check_options``):
``reward``, ``shaping``, ``hide_necro_reserve``, ``render_mode``, ``illegal_action``, and the game
options (``GameConfig`` fields, ``hide_coins`` among them; ``skip_forced`` on by default).

An illegal learner action (only possible without masking, e.g. SB3's ``check_env``)
ends the episode with reward -1 (``illegal_action="terminate"``, the PettingZoo classic
convention) or raises ``IllegalActionError`` (``illegal_action="raise"``). The older name
``illegal=`` still works but warns (``DeprecationWarning``); with both names, an
``illegal_action`` other than the default that differs from ``illegal`` is a ``ConfigError``.

Opponents given as SB3 ``.zip`` paths load only with ``trusted=True`` (such a file is a pickle
and can run code; see ``necro_env.agents.registry``).

Player learners rotate over the player seats from episode to episode
(``learner_seat="rotate"``) so no seat position biases what is learned.

``learner="players"`` (Necromancer games): one learner plays every player seat against the
Necromancer, the team of the scenario's players. Each step is the decision of whichever player
seat is to play (``info["seat"]``; the observation is that seat's own, seat-relative view). The
seats share one trajectory, so they must share its reward: this learner needs
``reward="coalition"`` (every player +1 when the Necromancer loses, -1 when he wins, and with
``shaping`` minus his progress), and ``ConfigError`` says so otherwise. The other seat, the
Necromancer, is ``necromancer_opponent`` (or ``necromancer_sampler(rng)``'s pick per episode).

Opponent pools: ``necromancer_sampler(rng)`` picks the Necromancer's policy once per episode, and
``players_sampler(rng)`` picks one policy per episode that plays **every** player seat the learner
does not hold (a team, as in ``necro-env evaluate``; per-seat picks are ``opponent_sampler(rng, seat)``,
and the two do not mix). Both draw with the env's own per-episode generator, so a seeded env draws the
same opponents; a checkpointed env restores them by name through the sampler's ``restore(name)``
(``StateError`` for a name it does not know). ``training.policies.PoolSampler`` is such a sampler.

What the learner sees is what its seat may know, as in the AEC env: ``hide_coins``
(a game option, default False) hides the other seats' coins (and makes the engine keep
them out of the turn flow, ``GameConfig.hide_coins``), ``hide_necro_reserve`` (default True) hides
the Necromancer's badges from a player learner. ``info`` holds only the learner's
``seat``; the episode's seed (from which the deck order and the Necromancer's badges
can be rebuilt) is privileged: ``privileged_info()`` returns it for logging.

Registered with Gymnasium as ``necro_env/NecromancerIslandSingleSeat-v1`` (the AEC env's
version): ``gymnasium.make("necro_env/NecromancerIslandSingleSeat-v1", players=3)`` takes the
same arguments as ``SingleSeatEnv``. Its observation space is the AEC env's bounded
``Box(0, OBS_HIGH, (OBS_SIZE,), float32)``. The mask is reached two ways:

* ``action_masks()`` (bool), what sb3-contrib's MaskablePPO calls (through ``gymnasium.make``'s
  wrappers: ``env.unwrapped.action_masks()`` or SB3's ``env_method``);
* ``mask_in_obs=True``: the observation is the AEC env's ``Dict(observation=..., action_mask=int8)``,
  for learners that read the mask from the observation (Tianshou, TorchRL, RLlib, CleanRL-style code).

``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the spectator's text), ``"human"``
(prints it) or ``"rgb_array"`` (a picture of the board), as in the AEC env (one shared
helper, ``necro_env.env.render_game``).

The opponents play through the one game loop (``necro_env.loop.play``, until the learner's
seat is to decide), the one that evaluations, random simulation and the terminal game use.

Batched opponents: ``prepare_step(action)``/``prepare_reset(...)`` start a step or reset that stops
before each decision of a seat whose policy is batchable (it has ``batch_act(views, rngs)``,
``necro_env.agents.base.is_batchable``) and hands it out as a ``PendingDecision``; ``resolve(action)``
continues, and ``step``/``reset`` then return the prepared result (through any wrappers). A vec env
uses it to decide the learned opponents of all its envs in one forward pass
(``training/vec_env.py``: ``BatchedOpponentsVecEnv``); plain ``step``/``reset`` play as before.

Every episode's seed comes from the env's own generator (seeded by ``reset(seed=...)``),
and ``get_state()``/``set_state()`` capture everything (engine state, opponents'
generators, counters) so a training run can be checkpointed and resumed exactly.
"""
from __future__ import annotations

import json
import math
import operator
import warnings
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np

from .agents.base import View, is_batchable
from .agents.registry import make_policy
from .env import RENDER_MODES, EnvUsageError, GameOverError, check_options, make_config, make_observer, render_game
from .game import NUM_ACTIONS, Game, State
from .game.errors import ConfigError, IllegalActionError, StateError, short_repr
from .game.validate import coin_cap
from . import loop
from .record import generator_from_state, is_int
from .rewards import ILLEGAL_REWARD, RewardTracker, progress_potential  # also re-exported here


class SingleSeatEnv(gym.Env):
    """One learner seat; the other seats are played by fixed or sampled policies."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "necro_env_single_seat_v1", "render_fps": 2}

    def __init__(
        self,
        players: int = 3,
        learner: str = "necromancer",
        opponents: Any = "random",
        necromancer_opponent: Any = "heuristic",
        reward: str = "win",
        learner_seat: int | str = "rotate",
        illegal_action: str = "terminate",
        opponent_sampler: Callable[[np.random.Generator, int], Any] | None = None,
        necromancer_sampler: Callable[[np.random.Generator], Any] | None = None,
        players_sampler: Callable[[np.random.Generator], Any] | None = None,
        render_mode: str | None = None,
        shaping: float = 0.0,
        hide_necro_reserve: bool = True,
        trusted: bool = False,
        mask_in_obs: bool = False,
        illegal: str | None = None,
        **game_options: Any,
    ) -> None:
        if illegal is not None:  # the older name of illegal_action
            warnings.warn("SingleSeatEnv(illegal=...) is deprecated: use illegal_action=... (the AEC env's name)",
                          DeprecationWarning, stacklevel=2)
            if illegal_action != "terminate" and illegal_action != illegal:
                raise ConfigError(f"illegal={short_repr(illegal)} contradicts illegal_action={short_repr(illegal_action)}; "
                                  f"pass illegal_action only")
            illegal_action = illegal
        shaping = check_options(reward, shaping, hide_necro_reserve, render_mode, illegal_action)
        if not isinstance(mask_in_obs, (bool, np.bool_)):
            raise ConfigError(f"mask_in_obs must be a bool, got {short_repr(mask_in_obs)}")
        self.mask_in_obs = bool(mask_in_obs)
        if learner not in LEARNERS:
            raise ConfigError(f"learner must be one of {', '.join(map(repr, LEARNERS))}, got {short_repr(learner)}")
        self.config = make_config(players, **game_options)
        if learner in ("necromancer", "players") and not self.config.necromancer:
            raise ConfigError(f"learner={learner!r} needs a Necromancer game (3-6 seats, necromancer=True)")
        if (learner == "players") != (reward == "coalition"):
            raise ConfigError("learner='players' (one learner for every player seat, on one trajectory) needs "
                              "reward='coalition', and reward='coalition' is for learner='players' here; got "
                              f"learner={learner!r}, reward={reward!r}")
        if learner == "players" and learner_seat != "rotate":
            raise ConfigError(f"learner='players' plays every player seat: learner_seat must stay 'rotate', "
                              f"got {short_repr(learner_seat)}")
        if necromancer_sampler is not None and learner == "necromancer":
            raise ConfigError("necromancer_sampler picks the Necromancer's opponent policy; the learner is the Necromancer")
        if players_sampler is not None and learner == "players":
            raise ConfigError("players_sampler picks the policy of the opponent player seats; learner='players' "
                              "holds every player seat")
        if players_sampler is not None and opponent_sampler is not None:
            raise ConfigError("players_sampler (one policy for every opponent player seat per episode) and "
                              "opponent_sampler (one per seat) do not mix: pass one of them")
        self.game = Game(self.config)
        self.learner = learner
        self.reward_scheme = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.shaping = shaping
        self.hide_necro_reserve = bool(hide_necro_reserve)
        self.player_seats = [s for s in range(self.game.num_seats) if s != self.game.necro_seat]
        if learner_seat != "rotate" and learner == "player":
            if learner_seat not in self.player_seats:
                raise ConfigError(f"learner_seat must be one of {self.player_seats} or 'rotate', got {learner_seat!r}")
        self.learner_seat_spec = learner_seat
        self.opponent_spec = opponents
        self.necro_spec = necromancer_opponent
        self.opponent_sampler = opponent_sampler
        self.necromancer_sampler = necromancer_sampler
        self.players_sampler = players_sampler
        self._player_policy = make_policy(opponents, "player", trusted=trusted)
        self._necro_policy = (make_policy(necromancer_opponent, "necromancer", trusted=trusted)
                              if self.config.necromancer and learner != "necromancer" else None)
        from .observe import OBS_HIGH, OBS_SIZE
        self.observer = make_observer(self.game, self.hide_necro_reserve)
        box = gym.spaces.Box(low=0.0, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32)  # the AEC env's
        self.observation_space = box if not self.mask_in_obs else gym.spaces.Dict({
            "observation": box,
            "action_mask": gym.spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._renderer = None
        self._gen = np.random.default_rng(0)
        self._episode = 0
        self.state: State | None = None
        self.seat = self.game.necro_seat if learner == "necromancer" else self.player_seats[0]
        self._policies: list[Any] = []
        self._opp_rng = np.random.default_rng(0)
        # the seats the learner holds; its reward is read at the first (for the team every player seat's is equal)
        self._learner_seats = self._mine(self.seat)
        self._tracker = RewardTracker(self.game, reward, shaping, seats=self._learner_seats[:1])
        self._episode_seed = 0
        self._deferred: list | None = None  # a prepared step/reset (see prepare_step)

    @property
    def illegal(self) -> str:
        """The older name of ``illegal_action``."""
        return self.illegal_action

    @property
    def hide_coins(self) -> bool:
        """``config.hide_coins`` (a game option: the env keeps no copy)."""
        return self.config.hide_coins

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        ready = self._take_prepared("reset", (seed, options))
        return ready if ready is not None else _run(self._reset(seed, options, defer=False))

    def _reset(self, seed: int | None, options: dict | None, defer: bool):
        """``reset``'s body as a generator (see "Batched opponents" in ``prepare_step``)."""
        super().reset(seed=seed)
        if seed is not None:
            self._gen = np.random.default_rng(seed)
            self._episode = 0
        self._episode_seed = int(self._gen.integers(0, 2**63 - 1))
        self._opp_rng = np.random.default_rng(self._episode_seed)
        if self.learner == "necromancer":
            self.seat = self.game.necro_seat
        elif self.learner == "players":
            self.seat = self.player_seats[0]  # until the first player decides
        elif self.learner_seat_spec == "rotate":
            self.seat = self.player_seats[self._episode % len(self.player_seats)]
        else:
            self.seat = int(self.learner_seat_spec)
        self._learner_seats = self._mine(self.seat)
        self._episode += 1
        self._policies = self._assign_policies()
        self.state = self.game.new_state(self._episode_seed % (2**63))
        yield from self._advance_gen(defer)
        self._tracker.reset(self.state, seats=self._learner_seats[:1])  # rewards count from the learner's first decision
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action):
        ready = self._take_prepared("step", action)
        return ready if ready is not None else _run(self._step(action, defer=False))

    def _step(self, action, defer: bool):
        """``step``'s body as a generator (see "Batched opponents" in ``prepare_step``)."""
        st = self.state
        if st is None:
            raise EnvUsageError("step() before reset(): call reset() first")
        if st.over:
            raise GameOverError("step() called on a finished episode; call reset()")
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"action must be an int, got {action!r}") from None
        if isinstance(action, bool):
            raise IllegalActionError(f"action must be an int, got {action!r}")
        if not self.game.is_legal(st, a):
            if self.illegal_action == "raise":
                self.game.apply(st, a)  # raises a precise IllegalActionError
            return self._obs(), ILLEGAL_REWARD, True, False, {**self._info(), "illegal_action": a}
        self.game.apply(st, a)
        yield from self._advance_gen(defer)
        reward = self._tracker.advance_seat(st, self._learner_seats[0])
        terminated = bool(st.over)
        info = self._info()
        if terminated:
            info["result"] = self.game.result(st)
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, False, info

    # ------------------------------------------------------------------ batched opponents
    def prepare_step(self, action) -> PendingDecision | None:
        """Start ``step(action)`` with the opponents' batchable decisions handed out instead of taken.

        Batched opponents: a seat whose policy is batchable (``necro_env.agents.base.is_batchable``: it
        has ``batch_act(views, rngs)``) is not asked here; the game stops before its decision and this
        returns it as a ``PendingDecision`` (seat, ``View``, policy, and the generator ``act`` would have
        been handed). ``resolve(action)`` applies the action chosen for it and returns the next pending
        decision, until the opponents have played up to the learner's decision or the end of the game
        (``None``). Then ``step(action)`` (called directly or through wrappers such as Monitor) returns
        the prepared result. A caller that gives each pending decision the action the policy's ``act``
        would have chosen (``batch_act`` does, for a whole batch of envs:
        ``training/vec_env.py``'s ``BatchedOpponentsVecEnv``) gets exactly what ``step`` gives.
        ``None`` right away when no batchable seat is to decide."""
        return self._start("step", action, self._step(action, defer=True))

    def prepare_reset(self, seed: int | None = None, options: dict | None = None) -> PendingDecision | None:
        """``prepare_step`` for ``reset(seed=seed, options=options)`` (which then returns the prepared result)."""
        return self._start("reset", (seed, options), self._reset(seed, options, defer=True))

    def resolve(self, action: int) -> PendingDecision | None:
        """Apply ``action`` for the pending decision; the next one, or ``None`` once the prepared
        ``step``/``reset`` is complete. ``EnvUsageError`` when no decision is pending."""
        d = self._deferred
        if d is None or d[2] is None:
            raise EnvUsageError("resolve() with no pending opponent decision: call prepare_step() or "
                                "prepare_reset() first")
        return self._drive(action)

    def _start(self, kind: str, key: Any, gen) -> PendingDecision | None:
        """Run the prepared call to its first pending decision. Over earlier prepared work only a reset may
        start (it abandons the episode, as a plain ``reset`` does); a step is an ``EnvUsageError``."""
        d = self._deferred
        if d is not None and kind != "reset":
            gen.close()
            raise EnvUsageError(f"prepare_{kind}() while a prepared {d[0]} "
                                + ("still waits for an opponent's action (resolve() it first)" if d[2] is not None
                                   else "is waiting to be taken (call it)"))
        self._deferred = [kind, key, gen, None]  # kind, arguments, generator (None when done), result
        return self._drive(None)

    def _drive(self, value: Any) -> PendingDecision | None:
        d = self._deferred
        try:
            return d[2].send(value)
        except StopIteration as stop:
            d[2], d[3] = None, stop.value
            return None
        except BaseException:
            self._deferred = None
            raise

    def _take_prepared(self, kind: str, key: Any):
        """The prepared result of this very call (then forgotten), or ``None`` to run it as usual. A plain
        ``reset`` drops unfinished prepared work (the episode it belonged to is abandoned); any other
        call while prepared work is unfinished or stands for other arguments is an ``EnvUsageError``."""
        d = self._deferred
        if d is None:
            return None
        if d[0] == kind and d[2] is None and _same(d[1], key):
            self._deferred = None
            return d[3]
        if kind == "reset":
            self._deferred = None
            return None
        raise EnvUsageError(f"step({short_repr(key)}) while a prepared {d[0]}"
                            + (" still waits for an opponent's action" if d[2] is not None
                               else f" for {short_repr(d[1])} is waiting to be taken"))

    def _advance_gen(self, defer: bool):
        """``_advance``; with ``defer``, a generator that yields each batchable seat's decision as a
        ``PendingDecision`` and applies the action it is sent back."""
        if not defer:
            self._advance()
            return
        st, game = self.state, self.game
        mine = self._learner_seats
        stops = mine + tuple(s for s, p in enumerate(self._policies) if p is not None and is_batchable(p))
        while True:
            loop.play(game, st, self._policies, self._opp_rng, until=stops)
            if st.over or st.decider in mine:
                break
            seat = st.decider
            action = yield PendingDecision(seat, View(game, st, seat), self._policies[seat], self._opp_rng)
            game.apply(st, int(action))
        if self.learner == "players" and not st.over:
            self.seat = st.decider

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (MaskablePPO's hook)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        st = self.state
        if st is not None and not st.over:
            mask[self.game.legal_actions(st)] = True
        return mask

    def render(self):
        """Per ``render_mode``: ``ansi`` the spectator's text, ``human`` printed, ``rgb_array`` the board;
        ``None`` (no render mode) warns and returns None, as Gymnasium envs do."""
        return render_game(self, self.game, self.state, self.render_mode)

    def close(self) -> None:
        self._renderer = None

    # ------------------------------------------------------------------ internals
    def _assign_policies(self, learner_seat: int | None = None, sample: bool = True) -> list[Any]:
        seat = self.seat if learner_seat is None else learner_seat
        mine = self._mine(seat)
        pols: list[Any] = [None] * self.game.num_seats
        team = self._player_policy
        if self.players_sampler is not None and sample and any(s not in mine for s in self.player_seats):
            team = self.players_sampler(self._opp_rng)  # one draw per episode, for every opponent player seat
        for s in range(self.game.num_seats):
            if s in mine:
                continue
            if s == self.game.necro_seat:
                pols[s] = (self._necro_policy if self.necromancer_sampler is None or not sample
                           else self.necromancer_sampler(self._opp_rng))
            elif self.opponent_sampler is not None:
                pols[s] = self.opponent_sampler(self._opp_rng, s)
            else:
                pols[s] = team
        return pols

    def _advance(self) -> None:
        """Let the other seats play (``necro_env.loop.play``) until the learner must decide or the game ends."""
        st = self.state
        mine = self._learner_seats
        loop.play(self.game, st, self._policies, self._opp_rng, until=mine[0] if len(mine) == 1 else mine)
        if self.learner == "players" and not st.over:
            self.seat = st.decider

    def _obs(self) -> np.ndarray | dict[str, np.ndarray]:
        obs = self.observer.observe(self.state, self.seat)
        if not self.mask_in_obs:
            return obs
        st = self.state
        mask = self.game.legal_action_mask(st) if not st.over else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def _info(self) -> dict:
        return {"seat": self.seat}

    def privileged_info(self) -> dict:
        """What the learner must not see but a log may keep: the episode's seed (the deck order and
        the Necromancer's badges follow from it) and the learner's seat."""
        return {"seat": self.seat, "episode_seed": self._episode_seed}

    def _potential(self) -> float:
        return progress_potential(self.game, self.state, self.seat)

    # ------------------------------------------------------------------ checkpointing
    def get_state(self) -> dict:
        """Everything needed to continue this env exactly (JSON-compatible)."""
        if self._deferred is not None:
            raise EnvUsageError(f"get_state() while a prepared {self._deferred[0]} is unfinished or untaken")
        return {
            "state": None if self.state is None else self.state.to_dict(),
            "gen": self._gen.bit_generator.state,
            "opp_rng": self._opp_rng.bit_generator.state,
            "episode": self._episode,
            "episode_seed": self._episode_seed,
            "seat": self.seat,
            "last_coins": self._tracker.last_coins[self._learner_seats[0]] if self._tracker.last_coins else 0,
            "phi": self._tracker.last_phi.get(self._learner_seats[0], 0.0),
            "policies": _policy_names(self._policies),
        }

    def set_state(self, data: dict) -> None:
        """Inverse of ``get_state`` (policies are re-assigned from this env's specs).

        Every field is checked (types, ranges, the engine state with ``Game.validate_state``, the
        learner's seat and that it is the one deciding) before anything of this env changes;
        ``StateError`` names the first problem. There is no replay check here (the opponents'
        moves are not recorded): a consistent edited game is accepted."""
        keys = {"state", "gen", "opp_rng", "episode", "episode_seed", "seat", "last_coins", "phi", "policies"}
        if not isinstance(data, dict) or set(data) != keys:
            raise StateError(f"a single-seat env state must be an object with keys {sorted(keys)}, got "
                             + (f"keys {sorted(map(str, data))}" if isinstance(data, dict) else short_repr(data)))
        gen = generator_from_state(data["gen"], "single-seat env state gen")
        opp = generator_from_state(data["opp_rng"], "single-seat env state opp_rng")
        episode, episode_seed, seat = data["episode"], data["episode_seed"], data["seat"]
        if not is_int(episode) or episode < 0:
            raise StateError(f"single-seat env state episode must be an int >= 0, got {short_repr(episode)}")
        if not is_int(episode_seed) or not 0 <= episode_seed < 2**63 - 1:
            raise StateError(f"single-seat env state episode_seed must be an int in 0..2**63-2, "
                             f"got {short_repr(episode_seed)}")
        allowed = self._seats_for(episode)
        if not is_int(seat) or seat not in allowed:
            raise StateError(f"single-seat env state seat {short_repr(seat)} is not the learner's seat "
                             f"(allowed: {allowed})")
        state = None if data["state"] is None else State.from_dict(data["state"])
        if state is not None:
            self.game.validate_state(state)
            if not state.over and state.decider != seat:
                raise StateError(f"single-seat env state: seat {state.decider} decides, not the learner's seat {seat}")
        elif episode:
            raise StateError("single-seat env state has no game although episodes were played")
        last_coins, phi = data["last_coins"], data["phi"]
        cap = coin_cap(self.game, self.game.game_turns)
        if not is_int(last_coins) or not 0 <= last_coins <= cap:
            raise StateError(f"single-seat env state last_coins must be an int in 0..{cap}, got {short_repr(last_coins)}")
        if not isinstance(phi, (int, float)) or isinstance(phi, bool) or not math.isfinite(phi) or abs(phi) > 1e6:
            raise StateError(f"single-seat env state phi must be a finite number, got {short_repr(phi)}")
        names = data["policies"]
        if not isinstance(names, list) or len(names) != (self.game.num_seats if state is not None else len(names)) \
                or not all(n is None or isinstance(n, str) for n in names) \
                or (state is not None and [i for i, n in enumerate(names) if n is None] != list(self._mine(seat))):
            raise StateError(f"single-seat env state policies must name the policy of every seat but the "
                             f"learner's ({seat}), got {short_repr(names)}")
        policies = self._restore_policies(names, seat) if state is not None else []
        # Everything checked: only now change this env.
        self._gen, self._opp_rng, self.state = gen, opp, state
        self._episode, self._episode_seed = episode, episode_seed
        self.seat = seat
        self._learner_seats = self._mine(seat)
        reward_seat = self._learner_seats[0]
        memory = list(state.coins) if state is not None else [0] * self.game.num_seats
        memory[reward_seat] = last_coins  # the learner's coins when last paid; the other seats' are not tracked
        self._tracker.restore(memory, {reward_seat: phi}, seats=(reward_seat,))
        self._policies = policies
        self._deferred = None

    def _mine(self, seat: int) -> tuple[int, ...]:
        """The seats the learner plays when ``seat`` is its (deciding) seat."""
        return tuple(self.player_seats) if self.learner == "players" else (seat,)

    def _seats_for(self, episode: int) -> list[int]:
        """The seats the learner may hold after ``episode`` resets."""
        if self.learner == "necromancer":
            return [self.game.necro_seat]
        if self.learner == "players":
            return list(self.player_seats)
        if self.learner_seat_spec != "rotate":
            return [int(self.learner_seat_spec)]
        if episode == 0:
            return [self.player_seats[0]]
        return [self.player_seats[(episode - 1) % len(self.player_seats)]]

    def _restore_policies(self, names: Sequence[str | None], seat: int) -> list[Any]:
        """The policies called ``names`` (``None`` at the learner's ``seat``); ``StateError`` if this env's
        specs or sampler do not give policies of those names."""
        if self.opponent_sampler is None:
            pols = self._assign_policies(seat, sample=False)  # no generator is drawn from
        else:
            restore = getattr(self.opponent_sampler, "restore", None)
            if restore is None:
                raise StateError("this opponent sampler cannot restore policies by name")
            # restore(name) raises StateError for a name it does not know (never loads an arbitrary path).
            pols = [None if n is None else (self._necro_policy if s == self.game.necro_seat else restore(n))
                    for s, n in enumerate(names)]
        if self.players_sampler is not None:
            restore_team = getattr(self.players_sampler, "restore", None)
            if restore_team is None:
                raise StateError("this players sampler cannot restore policies by name")
            for s, n in enumerate(names):  # restore(name) raises StateError for a name it does not know
                if n is not None and s != self.game.necro_seat:
                    pols[s] = restore_team(n)
        if self.necromancer_sampler is not None and state_has_necro(names, self.game.necro_seat):
            restore_necro = getattr(self.necromancer_sampler, "restore", None)
            if restore_necro is None:
                raise StateError("this Necromancer sampler cannot restore policies by name")
            pols[self.game.necro_seat] = restore_necro(names[self.game.necro_seat])
        got = _policy_names(pols)
        if got != list(names):
            raise StateError(f"single-seat env state names the policies {short_repr(list(names))}, but this env "
                             f"plays {got}")
        return pols

    def state_json(self) -> str:
        return json.dumps(self.get_state())


class PendingDecision:
    """An opponent seat's decision that ``prepare_step``/``prepare_reset`` hands out: the ``seat``, its
    ``view``, its ``policy`` (batchable) and the generator ``rng`` its ``act`` would have been handed."""

    __slots__ = ("seat", "view", "policy", "rng")

    def __init__(self, seat: int, view: View, policy: Any, rng: np.random.Generator) -> None:
        self.seat, self.view, self.policy, self.rng = seat, view, policy, rng

    def __repr__(self) -> str:
        return f"PendingDecision(seat={self.seat}, policy={getattr(self.policy, 'name', self.policy)!r})"


def _run(gen):
    """Run a ``_step``/``_reset`` generator that never yields (``defer=False``) to its result."""
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("an undeferred step yielded a decision")  # pragma: no cover - a bug here


def _same(a: Any, b: Any) -> bool:
    """Whether two calls' arguments are the same (actions compared as integers)."""
    try:
        return operator.index(a) == operator.index(b) and not isinstance(a, bool) and not isinstance(b, bool)
    except TypeError:
        pass
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. arrays of several elements
        return a is b


def state_has_necro(names: Sequence[str | None], necro_seat: int) -> bool:
    """Whether a saved list of policy names names the Necromancer's policy."""
    return 0 <= necro_seat < len(names) and names[necro_seat] is not None


LEARNERS = ("necromancer", "player", "players")


def _policy_names(policies: Sequence[Any]) -> list[str | None]:
    """What ``get_state`` stores of the seats' policies: their names (``None`` at the learner's seat)."""
    return [None if p is None else getattr(p, "name", type(p).__name__) for p in policies]

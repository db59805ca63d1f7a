"""Fuzzing every loader (issue 15): engine states, env states (verified and not), game records,
single-seat env states and checkpoints' JSON, mutated by hypothesis (single fields: near values,
boundaries, huge and negative ints, other types; structure: deleted, added, swapped, duplicated
and retyped entries).

Each case runs under a time limit (``fuzzing.time_limit``: a hang fails the case) and must end in
one of two ways:

* a typed error (``StateError``, a ``NecroEnvError`` and a ``ValueError``), after which the loader
  changed nothing and the env still plays;
* acceptance, and then the state is one the engine plays on: an exact round trip
  (``get_state() == what was loaded``), with replay verification equal to the original up to the
  seed generator, and random play to the end with every invariant checked at every step.

Anything else (an ``IndexError``, a hang, a crash later in play) fails. ``make test`` runs about a
thousand cases; ``make fuzz`` the same tests with ``NECRO_FUZZ_SCALE`` set high (20k+ cases).
"""
from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import necro_env
from necro_env.game import Game, GameConfig, State
from necro_env.game.errors import StateError
from necro_env.observe import Observer
from necro_env.record import replay_engine
from necro_env.wrappers import SingleSeatEnv

from fuzzing import fuzz_settings, mutate, play_on, rejected, time_limit

ENGINE_CONFIGS = [
    GameConfig(players=3, necromancer=False),
    GameConfig(players=4, necromancer=True),
    GameConfig(players=6, necromancer=True, skip_forced=True, handicap=1, victory_check="anytime"),
    GameConfig(players=5, necromancer=False, skip_forced=True),
    GameConfig(players=4, skip_forced=True, hide_coins=True, final_die="any"),
]


def _snapshots(cfg: GameConfig, seed: int, cuts: tuple[float, ...]) -> list[tuple[Game, dict]]:
    """States of one random game at the given fractions of its length (0 = start, 1 = end)."""
    g = Game(cfg)
    rnd = random.Random(seed)
    st_ = g.new_state(seed)
    states = [st_.clone()]
    while not st_.over:
        la = g.legal_actions(st_)
        g.apply(st_, la[rnd.randrange(len(la))])
        states.append(st_.clone())
    return [(g, json.loads(json.dumps(states[min(len(states) - 1, int(c * len(states)))].to_dict()))) for c in cuts]


ENGINE_SAMPLES = [s for i, c in enumerate(ENGINE_CONFIGS) for s in _snapshots(c, i, (0.0, 0.3, 0.55, 0.8, 1.0))]
_OBSERVERS: dict[int, Observer] = {}


def _accept_engine(g: Game, st_: State, seed: int) -> None:
    """An accepted engine state: invariants hold, every seat can observe it, it plays to the end."""
    g.check_invariants(st_)
    obs = _OBSERVERS.setdefault(id(g), Observer(g))
    for seat in range(g.num_seats):
        assert np.isfinite(obs.observe(st_, seat)).all()
    play_on(g, st_, seed)


@fuzz_settings(300)
@given(st.data())
def test_fuzz_engine_states(data):
    g, original = ENGINE_SAMPLES[data.draw(st.integers(0, len(ENGINE_SAMPLES) - 1), label="sample")]
    mutated, log = mutate(data, original)
    with time_limit():
        try:
            s = State.from_dict(mutated)
            g.validate_state(s)
        except StateError as e:
            rejected(e)
            return
        event("accepted")
        _accept_engine(g, s, data.draw(st.integers(0, 2**16), label="play seed"))


# ------------------------------------------------------------------------------------------- env
def _env_at(players: int, seed: int, steps: int, reward: str = "win", ending: str = "", **kw) -> dict:
    env = necro_env.env(players=players, reward=reward, **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            if ending == "some_done" and len(env.agents) < len(env.possible_agents):
                break
            env.step(None)
            continue
        if n == steps and ending == "illegal":
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # ends the game (terminate mode)
            continue
        if n == steps and not ending:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return json.loads(json.dumps(env.unwrapped.get_state()))


ENV_SAMPLES = [
    _env_at(4, 1, 0), _env_at(4, 2, 60), _env_at(3, 3, 150, reward="coins"), _env_at(5, 4, 90, reward="rank"),
    _env_at(3, 5, 10**6, ending="some_done"), _env_at(4, 6, 40, ending="illegal"), _env_at(3, 7, 10**6, ending="all"),
    _env_at(4, 8, 50, hide_coins=True, final_die="any"), _env_at(3, 9, 20, ending="illegal", hide_coins=True),
]
_TARGETS: dict[tuple, necro_env.env] = {}


def _target(saved: dict):
    """A reusable env of the sample's config, restored to a known other game of that config."""
    key = (json.dumps(saved["config"], sort_keys=True), json.dumps(saved["options"], sort_keys=True))
    env = _TARGETS.get(key)
    if env is None:
        options = dict(saved["config"])  # every game option, hide_coins included
        env = necro_env.env(players=options.pop("players"), **saved["options"], **options)
        env.reset(seed=12345)
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        _TARGETS[key] = env
        env._fuzz_home = env.get_state()
    else:
        env.set_state(env._fuzz_home)
    return env


def _plays_on(env, seed: int) -> None:
    """The env plays to the end (each live agent acts, done agents step None) with no error."""
    rng = np.random.default_rng(seed)
    for _ in range(10_000):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raise AssertionError("the env did not finish its game")


def _without(d: dict, *keys: str) -> dict:
    return {k: v for k, v in d.items() if k not in keys}


@fuzz_settings(200)
@given(st.data(), st.booleans())
def test_fuzz_env_states(data, verify):
    original = ENV_SAMPLES[data.draw(st.integers(0, len(ENV_SAMPLES) - 1), label="sample")]
    mutated, log = mutate(data, original)
    env = _target(original)
    before = env.get_state()
    with time_limit():
        try:
            env.set_state(mutated, verify=verify)
        except StateError as e:
            rejected(e)
            assert env.get_state() == before, "a rejected state changed the env"
            _plays_on(env, 0)
            return
        event("accepted")
        assert env.get_state() == mutated, "the accepted state does not round-trip exactly"
        if verify:  # the same state; at most another legal order of actions that reaches it
            assert _without(mutated, "seed_rng", "actions") == _without(original, "seed_rng", "actions"), \
                f"replay verification accepted a changed state ({log})"
            game = env.unwrapped.game
            assert replay_engine(game, mutated["seed"], mutated["actions"]).to_dict() == mutated["engine"]
        play_on(env.unwrapped.game, env.unwrapped.game_state.clone(), 0)
        _plays_on(env, 1)


# ------------------------------------------------------------------------------------------- records
def _record(players: int, seed: int, steps: int | None, necro: bool = True, illegal: bool = False) -> dict:
    env = necro_env.env(players=players, necromancer=necro)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        if term:
            env.step(None)
            continue
        if steps is not None and n == steps:
            if not illegal:
                break
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return json.loads(json.dumps(env.unwrapped.record()))


RECORD_SAMPLES = [_record(3, 1, None), _record(4, 2, 30), _record(3, 3, 20, necro=False), _record(4, 4, 25, illegal=True),
                  _record(2, 5, None, necro=False)]


@fuzz_settings(200)
@given(st.data())
def test_fuzz_records(data):
    original = RECORD_SAMPLES[data.draw(st.integers(0, len(RECORD_SAMPLES) - 1), label="sample")]
    mutated, log = mutate(data, original)
    with time_limit():
        try:
            env = necro_env.replay(mutated)
        except StateError as e:
            rejected(e)
            return
        event("accepted")
        rec = env.record()
        rec["config"] = GameConfig.from_dict(rec["config"])  # necromancer=None means "yes for 3+ seats"
        for k, v in mutated.items():  # what the record states is what the replay gives
            if k == "config":
                v = GameConfig.from_dict(v)
            if v is not None and not (k == "options" and v == {}):
                assert rec[k] == v, f"replay accepted a record whose {k!r} differs from the game ({log})"
        play_on(env.game, env.game_state.clone(), 0)


# ------------------------------------------------------------------------------------------- single seat
def _single_seat(learner: str, players: int, seed: int, steps: int) -> tuple[dict, dict]:
    kwargs = dict(players=players, learner=learner, opponents="random", necromancer_opponent="random")
    env = SingleSeatEnv(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if done:
            env.reset()
    return kwargs, json.loads(json.dumps(env.get_state()))


SEAT_SAMPLES = [_single_seat("necromancer", 3, 1, 30), _single_seat("player", 4, 2, 70),
                _single_seat("player", 3, 3, 0)]


@fuzz_settings(120)
@given(st.data())
def test_fuzz_single_seat_states(data):
    kwargs, original = SEAT_SAMPLES[data.draw(st.integers(0, len(SEAT_SAMPLES) - 1), label="sample")]
    mutated, log = mutate(data, original)
    env = SingleSeatEnv(**kwargs)
    env.reset(seed=99)
    before = env.get_state()
    with time_limit():
        try:
            env.set_state(mutated)
        except StateError as e:
            rejected(e)
            assert env.get_state() == before
        else:
            event("accepted")
            assert env.get_state() == mutated, f"the accepted state does not round-trip ({log})"
        rng = np.random.default_rng(0)
        if env.state is None or env.state.over:
            env.reset()
        for _ in range(3000):  # the view plays on (after an error: the game it had)
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if done:
                break
        assert done


# ------------------------------------------------------------------------------------------- checkpoints
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """One real checkpoint of a tiny run (2 envs) and a checker of env states like resume's."""
    pytest.importorskip("sb3_contrib")
    import torch

    from training.checkpoint import save_checkpoint
    from training.config import TrainConfig
    from training.train import build_model, make_env_fn
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    tmp = tmp_path_factory.mktemp("ckpt")
    cfg = TrainConfig(name="fuzz", players=3, total_steps=64, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                      net_arch=(8,), checkpoint_every=0, out_dir=str(tmp))
    env = DummyVecEnv([make_env_fn(cfg, tmp) for _ in range(cfg.n_envs)])
    env.seed(0)
    model = build_model(cfg, env, tmp / "tb")
    model.learn(total_timesteps=32)
    base = save_checkpoint(model, tmp / "checkpoints")
    checker = make_env_fn(cfg, tmp)().unwrapped
    return base, json.loads(base.with_suffix(".json").read_text()), checker


@fuzz_settings(120)
@given(data=st.data(), resign=st.booleans())
def test_fuzz_checkpoint_json(checkpoint, data, resign):
    """Mutated checkpoint JSON, with the old checksum (corruption) or a recomputed one (an edit that
    must get past every field check): a ``CheckpointError``/``StateError``, or a checkpoint that reads."""
    from training.checkpoint import _digest, read_checkpoint
    from necro_env.observe import OBS_SIZE

    base, original, checker = checkpoint
    body = {k: v for k, v in original.items() if k != "checksum"}
    mutated, log = mutate(data, body)
    try:
        json.dumps(mutated)
    except ValueError:  # an int JSON cannot hold (more than 4,300 digits): not a file anyone can write
        return
    if isinstance(mutated, dict):
        mutated["checksum"] = _digest({k: v for k, v in mutated.items() if k != "checksum"}) if resign \
            else original["checksum"]
    case = base.parent / "case"
    case.mkdir(exist_ok=True)
    target = case / base.name
    target.with_suffix(".zip").write_bytes(base.with_suffix(".zip").read_bytes())
    target.with_suffix(".json").write_text(json.dumps(mutated))
    with time_limit():
        try:
            body, blob = read_checkpoint(target, 2, OBS_SIZE)
            for s in body["env_states"]:
                checker.set_state(copy.deepcopy(s))
        except StateError as e:  # CheckpointError is a StateError
            rejected(e)
            return
        event("accepted")
        if not resign:
            assert mutated == original, f"a checkpoint that fails its checksum was read ({log})"

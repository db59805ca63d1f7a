"""Game records, replay, get_state/set_state and ``necro-env replay`` (issue 5).

DESIGN.md §1: same config + seed + actions = the same game, bit for bit.
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import necro_env
from necro_env import cli, replay
from necro_env.game import NUM_ACTIONS
from necro_env.game.errors import StateError
from necro_env.record import iter_replay

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]


def play(env, rng: np.random.Generator, steps: int | None = None) -> None:
    """Random legal decisions (``steps`` of them, or to the end)."""
    n = 0
    while env.agents and not env.terminations[env.agent_selection] and (steps is None or n < steps):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        n += 1


def finished_record(players=4, necro=True, seed=0, **kw) -> dict:
    env = necro_env.raw_env(players=players, necromancer=necro, **kw)
    env.reset(seed=seed)
    play(env, np.random.default_rng(seed))
    return env.record()


# ------------------------------------------------------------------------------ records and replay
def test_record_is_json() -> None:
    """A record is JSON-serialisable and carries the format version, config, seed and actions."""
    rec = finished_record(reward="rank", forced_combos=(("Orcs", "Flying"),))
    assert json.loads(json.dumps(rec)) == rec
    assert rec["format"] == "necro_env/record" and rec["version"] == 1
    assert rec["config"]["players"] == 4 and rec["config"]["forced_combos"] == [["Orcs", "Flying"]]
    assert rec["options"]["reward"] == "rank" and rec["over"] and rec["result"]["over"]
    assert all(isinstance(a, int) for a in rec["actions"])


def test_replay_identity_over_many_games() -> None:
    """Record -> replay reproduces hundreds of seeded random games exactly."""
    games = 0
    for players, necro in CONFIGS:
        env = necro_env.raw_env(players=players, necromancer=necro)
        for seed in range(30):
            env.reset(seed=seed)
            play(env, np.random.default_rng(seed))
            rec = json.loads(json.dumps(env.record()))
            again = replay(rec)
            assert again.game_state == env.game_state
            assert again.record() == rec
            assert again._cumulative_rewards == env._cumulative_rewards
            games += 1
    assert games == 240


def test_replay_unfinished_game_continues() -> None:
    """A record of a game in progress replays to that point, and play can go on from there identically."""
    env = necro_env.raw_env(players=5, reward="coins")
    env.reset(seed=9)
    play(env, np.random.default_rng(1), steps=77)
    rec = env.record()
    assert not rec["over"] and rec["result"] is None
    again = replay(rec)
    assert again.agent_selection == env.agent_selection and again.game_state == env.game_state
    play(env, np.random.default_rng(2))
    play(again, np.random.default_rng(2))
    assert again.record() == env.record()


def test_replay_reapplies_an_illegal_ending() -> None:
    """A game ended by an illegal action (wrapped env) replays to the same ending."""
    env = necro_env.env(players=4)
    env.reset(seed=0)
    play(env.unwrapped, np.random.default_rng(0), steps=12)
    mask = env.last()[0]["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    rec = env.unwrapped.record()
    again = replay(rec)
    assert again.record() == rec
    assert again.rewards == env.unwrapped.rewards and all(again.terminations.values())


def corrupt(rec: dict, **changes) -> dict:
    bad = copy.deepcopy(rec)
    bad.update(changes)
    return bad


def test_corrupt_records_raise_state_error() -> None:
    """Every corruption raises StateError naming what is wrong."""
    rec = finished_record(players=3, seed=4)
    cases = [
        (corrupt(rec, version=2), "unsupported game record version 2"),
        (corrupt(rec, format="something"), "not a game record"),
        (corrupt(rec, config={**rec["config"], "colour": "red"}), "unknown config keys \\['colour'\\]"),
        (corrupt(rec, config={**rec["config"], "players": 9}), "players must be 3-6"),
        (corrupt(rec, actions=rec["actions"][:5] + ["x"] + rec["actions"][6:]), "step 5 is 'x'"),
        (corrupt(rec, seed=-1), "seed"),
        (corrupt(rec, actions=rec["actions"] + [0]), "after the end of the game"),
        (corrupt(rec, result={**rec["result"], "coins": [0, 0, 0]}), "result differs from the replay in \\['coins'\\]"),
        (corrupt(rec, extra=1), "unexpected \\['extra'\\]"),
        (corrupt(rec, options={**rec["options"], "reward": "glory"}), "unknown reward scheme"),
        (corrupt(rec, options={"reward": "win"}), "options must be null or list exactly"),
        ([1, 2, 3], "must be a JSON object"),
    ]
    # an illegal action at step k
    k = 17
    bad = copy.deepcopy(rec)
    env = replay(corrupt(rec, actions=rec["actions"][:k], over=None, result=None))
    legal = set(env.game.legal_actions(env.game_state))
    bad["actions"][k] = next(a for a in range(NUM_ACTIONS) if a not in legal)
    cases.append((bad, f"step {k} is illegal"))
    missing = copy.deepcopy(rec)
    del missing["seed"]
    cases.append((missing, "missing \\['seed'\\]"))
    for case, msg in cases:
        with pytest.raises(StateError, match=msg):
            replay(case)


# ------------------------------------------------------------------------------ get_state / set_state
@pytest.mark.parametrize("players,necro,reward", [(3, False, "coins"), (4, True, "win"), (6, True, "rank")])
def test_set_state_mid_game_continues_identically(players: int, necro: bool, reward: str) -> None:
    """get_state -> JSON -> set_state on another env, then both play on identically."""
    a = necro_env.env(players=players, necromancer=necro, reward=reward)
    a.reset(seed=5)
    play(a.unwrapped, np.random.default_rng(5), steps=60)
    saved = json.loads(json.dumps(a.unwrapped.get_state()))
    b = necro_env.env(players=players, necromancer=necro, reward=reward)
    b.set_state(saved)  # counts as a reset for the call-order checks
    assert b.unwrapped.get_state() == a.unwrapped.get_state()
    assert b.agent_selection == a.agent_selection
    rng_a, rng_b = np.random.default_rng(6), np.random.default_rng(6)
    for agent_a, agent_b in zip(a.agent_iter(), b.agent_iter()):
        assert agent_a == agent_b
        oa, ra, ta, _, ia = a.last()
        ob, rb, tb, _, ib = b.last()
        assert np.array_equal(oa["observation"], ob["observation"]) and ra == rb and ta == tb and ia == ib
        if ta:
            a.step(None)
            b.step(None)
        else:
            act = int(rng_a.choice(np.flatnonzero(oa["action_mask"])))
            assert act == int(rng_b.choice(np.flatnonzero(ob["action_mask"])))
            a.step(act)
            b.step(act)
    assert a.unwrapped.record() == b.unwrapped.record()
    # after the end too: a finished game round-trips
    c = necro_env.env(players=players, necromancer=necro, reward=reward)
    c.set_state(json.loads(json.dumps(a.unwrapped.get_state())))
    assert c.unwrapped.get_state() == a.unwrapped.get_state()


def test_set_state_rejects_tampering_and_leaves_env_usable() -> None:
    """Bad version, another config, a tampered engine state or bookkeeping: StateError, env unchanged."""
    env = necro_env.raw_env(players=4)
    env.reset(seed=1)
    play(env, np.random.default_rng(1), steps=40)
    good = json.loads(json.dumps(env.get_state()))
    target = necro_env.raw_env(players=4)
    target.reset(seed=2)
    before = target.get_state()

    def tampered(**kw):
        s = copy.deepcopy(good)
        for path, value in kw.items():
            d = s
            keys = path.split("__")
            for k in keys[:-1]:
                d = d[k]
            d[keys[-1]] = value
        return s

    occupied = next(r for r, x in enumerate(good["engine"]["occ"]) if x >= 0)
    cases = [
        (tampered(version=7), "unsupported env state version 7"),
        (tampered(format="necro_env/record"), "not a env state"),
        (tampered(config__handicap=1), "another game config \\(differs in \\['handicap'\\]\\)"),
        (tampered(config__colour=1), "unknown config keys"),
        (tampered(options__reward="coins"), "options"),
        (tampered(engine__tok=[t + (1 if r == occupied else 0) for r, t in enumerate(good["engine"]["tok"])]),
         "tokens accounted"),
        (tampered(engine__coins=[c + 3 for c in good["engine"]["coins"]]),
         "differs from the game replayed .* in fields \\['coins'\\]"),
        (tampered(engine__phase=99), "'phase' is 99, outside 0..8"),
        (tampered(actions=good["actions"][:-1]), "differs from the game replayed"),
        (tampered(agent_selection="player_9"), "agent_selection"),
        (tampered(rewards={"player_0": 0.0}), "'rewards' must map exactly the live agents"),
        (tampered(prev_coins=[1, 2]), "prev_coins"),
    ]
    for case, msg in cases:
        with pytest.raises(StateError, match=msg):
            target.set_state(case)
        assert target.get_state() == before
    broken = copy.deepcopy(good)
    del broken["engine"]["tok"]
    with pytest.raises(StateError, match="missing \\['tok'\\]"):
        target.set_state(broken)
    target.set_state(good)
    play(target, np.random.default_rng(3))
    target.reset(seed=3)  # still usable
    assert target.agents == target.possible_agents


# ------------------------------------------------------------------------------ the CLI
def test_cli_replay(tmp_path, capsys) -> None:
    """``necro-env replay FILE`` prints the actions by name and per-turn coins; --json ends with a summary."""
    rec = finished_record(players=4, seed=5)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    assert cli.main(["replay", str(path), "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("# Necromancer Island, 4 seats") and f"{len(rec['actions'])} actions" in out[0]
    assert any("necro_start" in line and "necromancer_0" in line for line in out)
    assert any(" pick " in line and " + " in line for line in out)
    assert any("end of player_0's turn; coins: player_0" in line for line in out)
    summary = json.loads(out[-1])
    names = ["player_0", "player_1", "player_2", "necromancer_0"]
    assert summary["winners"] == [names[s] for s in rec["result"]["winners"]]
    assert summary["coins"] == dict(zip(names, rec["result"]["coins"]))
    assert summary["decisions"] == len(rec["actions"])
    steps = list(iter_replay(rec))
    assert len(steps) == len(rec["actions"]) and steps[-1][-1].over


def test_cli_replay_bad_files(tmp_path, capsys) -> None:
    """A missing, non-JSON or corrupt record file: exit code 1 and a message saying what is wrong."""
    assert cli.main(["replay", str(tmp_path / "nope.json")]) == 1
    assert "No such file" in capsys.readouterr().err
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert cli.main(["replay", str(junk)]) == 1
    assert "not a JSON game record" in capsys.readouterr().err
    rec = finished_record(players=3, seed=1)
    rec["version"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    assert cli.main(["replay", str(bad)]) == 1
    assert "unsupported game record version 3" in capsys.readouterr().err

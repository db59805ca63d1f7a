"""Loading is safe (issue 15): one test per numbered case of the issue.

1. tampered snapshots never hang or crash ``set_state`` (validation before anything derived);
2. a policy ``.zip`` never runs code unless trusted;
3. ``set_state(verify=False)`` commits completely or not at all;
4. ``validate_state`` refuses impossible states;
5. corrupt checkpoints: see ``test_checkpoint.py``;
6. records: ``replay`` and ``necro-env replay`` check ``result``, ``over``, ``agents``, ``illegal``;
7. the CLI reports bad files in one line, never a traceback;
8. the env's bookkeeping is checked against the game;
9. every user-facing error is typed.
"""
from __future__ import annotations

import base64
import copy
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import necro_env
from necro_env import cli
from necro_env.agents.registry import PolicyFileError, UntrustedPolicyError, check_policy, make_policy
from necro_env.env import EnvUsageError, UnknownAgentError
from necro_env.game import NUM_ACTIONS, Game, GameConfig, State
from necro_env.game.catalog import GHOST
from necro_env.game.engine import bits
from necro_env.game.errors import ConfigError, NecroEnvError, StateError, UnknownOptionError
from necro_env.wrappers import SingleSeatEnv

from fuzzing import time_limit

ROOT = Path(__file__).resolve().parents[1]


def midgame_env(players: int = 4, seed: int = 1, steps: int = 60, **kw):
    env = necro_env.env(players=players, **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    return env


def saved_state(**kw) -> dict:
    return json.loads(json.dumps(midgame_env(**kw).get_state()))


def fresh_target(players: int = 4):
    env = necro_env.env(players=players)
    env.reset(seed=7)
    return env, env.get_state()


def rejects(env, saved: dict, match: str, verify: bool = True) -> StateError:
    """``set_state`` raises a StateError matching ``match`` within 5 s and leaves ``env`` as it was."""
    before = env.get_state()
    with time_limit(5), pytest.raises(StateError, match=match) as ei:
        env.set_state(saved, verify=verify)
    assert env.get_state() == before
    return ei.value


# --------------------------------------------------------------------------- 1. tampered snapshots
@pytest.mark.parametrize("field,value", [
    ("race_power", -1), ("race_power", 1 << 25), ("race_power", 1 << 60),
    ("regions", -1), ("regions", 1 << 25), ("regions", 1 << 60),
])
@pytest.mark.parametrize("verify", [True, False])
def test_tampered_bitsets_are_refused_quickly(field, value, verify):
    """Issue 15.1: a negative or oversized bitset of the acting race used to hang (bits() of a negative
    int never returns) or raise IndexError; now it is a StateError naming the field, and the env is unchanged."""
    saved = saved_state()
    race = saved["engine"]["cur_race"]
    x = race if race >= 0 else GHOST
    saved["engine"][field][x] = value
    env, _ = fresh_target()
    rejects(env, saved, repr(field), verify)


def test_bits_refuses_a_negative_bitset():
    """The bitset iterator is bounded by construction: a negative int raises instead of looping forever."""
    with time_limit(2), pytest.raises(StateError, match=">= 0"):
        bits(-1)
    assert bits(0b1011) == (0, 1, 3)


def test_single_seat_view_refuses_the_same_tampering():
    """The single-seat view (and so train.py --resume) goes through the same total validation."""
    env = SingleSeatEnv(players=3, opponents="random")
    env.reset(seed=0)
    saved = json.loads(json.dumps(env.get_state()))
    saved["state"]["race_power"][GHOST] = -1
    other = SingleSeatEnv(players=3, opponents="random")
    other.reset(seed=5)
    before = other.get_state()
    with time_limit(5), pytest.raises(StateError, match="race_power"):
        other.set_state(saved)
    assert other.get_state() == before


# --------------------------------------------------------------------------- 2. policy files never run code
def evil_zip(tmp_path: Path) -> tuple[Path, Path]:
    """A .zip in SB3's layout whose pickled policy class creates ``marker`` when unpickled."""
    marker = tmp_path / "PAYLOAD_RAN"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    blob = base64.b64encode(pickle.dumps(Payload())).decode()
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "<class 'type'>", ":serialized:": blob}}))
    return path, marker


def test_evil_zip_is_refused_everywhere_without_trust(tmp_path, capsys):
    """Issue 15.2: ``necro-env evaluate --necromancer evil.zip`` ran a payload and exited 0. Now every
    loader refuses a pickle-based file unless trusted, before reading it."""
    path, marker = evil_zip(tmp_path)
    for call in (lambda: make_policy(str(path), "necromancer"),
                 lambda: check_policy(str(path), "player"),
                 lambda: SingleSeatEnv(players=3, learner="player", opponents=str(path))):
        with pytest.raises(UntrustedPolicyError, match="--trust-pickle"):
            call()
    from necro_env.agents.sb3_policy import load_sb3_policy
    from necro_env.evaluate import evaluate
    from necro_env.league import LeagueConfig, run_league

    with pytest.raises(UntrustedPolicyError):
        load_sb3_policy(str(path))
    with pytest.raises(UntrustedPolicyError):
        evaluate(3, necromancer_spec=str(path), games=1)
    league = LeagueConfig.from_dict({"players": 3, "games": 1, "policies": [
        {"spec": "random", "role": "player"}, {"spec": str(path), "role": "necromancer"}]})
    with pytest.raises(UntrustedPolicyError):
        run_league(league)
    for argv in (["evaluate", "--necromancer", str(path), "--games", "1", "--quiet"],
                 ["play", "--opponents", str(path)],
                 ["league", str(_league_yaml(tmp_path, path))]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "refusing to load" in err and "pickle" in err
    assert not marker.exists(), "the payload ran"
    # With trust the file is loaded, and this one shows why trust matters: its payload runs.
    with pytest.raises(PolicyFileError, match="not a loadable MaskablePPO model"):
        make_policy(str(path), "necromancer", trusted=True)
    assert marker.exists()


def _league_yaml(tmp_path: Path, spec: Path) -> Path:
    p = tmp_path / "league.yaml"
    p.write_text(f"players: 3\ngames: 1\npolicies:\n  - {{spec: random, role: player}}\n"
                 f"  - {{spec: '{spec}', role: necromancer}}\n")
    return p


def test_trust_is_the_callers_not_the_league_files(tmp_path):
    """A league config cannot grant trust: there is no such key."""
    from necro_env.league import LeagueConfig

    with pytest.raises(ConfigError, match="unknown league config keys"):
        LeagueConfig.from_dict({"players": 3, "games": 1, "trust_pickle": True,
                                "policies": [{"spec": "random"}]})


# --------------------------------------------------------------------------- 3. all or nothing
@pytest.mark.parametrize("edit", [
    {"actions": 5}, {"actions": [0, "x"]}, {"actions": [600]}, {"illegal": {"agent": "player_0"}},
    {"seed_rng": None}, {"agents": "player_0"}, {"prev_coins": None},
])
def test_set_state_without_verify_commits_all_or_nothing(edit):
    """Issue 15.3: ``actions=5`` with verify=False used to raise TypeError after the engine state, seed and
    generator were replaced (agent_selection on one agent, the decider another). Now nothing changes."""
    saved = saved_state()
    saved.update(edit)
    env, before = fresh_target()
    rejects(env, saved, ".", verify=False)
    assert env.unwrapped.agent_of(env.unwrapped.game_state.decider) == env.agent_selection
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # still usable


# --------------------------------------------------------------------------- 4. impossible states
def _engine_state(players: int = 4, steps: int = 80) -> tuple[Game, dict]:
    env = midgame_env(players=players, steps=steps)
    return env.unwrapped.game, json.loads(json.dumps(env.unwrapped.game_state.to_dict()))


def _other_seat(g: Game, d: dict) -> int:
    return next(s for s in range(g.num_seats) if s != d["decider"])


IMPOSSIBLE = {
    "attacked -1": lambda g, d: d.update(attacked=-1),
    "converted -1": lambda g, d: d.update(converted=-1),
    "souls 10**30": lambda g, d: d.update(souls=10 ** 30),
    "attacked huge": lambda g, d: d.update(attacked=1 << 40),
    "berserk huge": lambda g, d: d.update(berserk=1 << 40),
    "negative hold": lambda g, d: d.update(hold=-1),
    "negative hand": lambda g, d: d["hand"].__setitem__(0, -1),
    "negative tray": lambda g, d: d["tray"].__setitem__(GHOST, -3),
    "very negative round": lambda g, d: d.update(round=-(10 ** 9)),
    "duplicated badge": lambda g, d: d["power_deck"].append(d["col_power"][0]),
    "badge moved into the deck": lambda g, d: (d["power_deck"].append(d["col_power"][0]), d["col_power"].pop(0),
                                               d["col_race"].pop(0), d["col_coins"].pop(0)),
    "over mid-game": lambda g, d: d.update(over=1),
    "decider moved": lambda g, d: d.update(decider=_other_seat(g, d)),
    "winners mid-game": lambda g, d: d.update(winners=[0]),
    "coins beyond any scoring": lambda g, d: d["coins"].__setitem__(0, 10 ** 7),
    "stale immune": lambda g, d: d.update(immune=d["immune"] ^ 1),
    "ghost curve too long": lambda g, d: d["ghost_curve"].append(3),
    "rng beyond 64 bits": lambda g, d: d.update(rng=1 << 64),
}


@pytest.mark.parametrize("name", sorted(IMPOSSIBLE))
def test_validate_state_refuses_impossible_states(name):
    """Issue 15.4: 586 of 2,820 single-field mutations used to pass ``validate_state`` and hang or break later."""
    g, d = _engine_state()
    g.validate_state(State.from_dict(copy.deepcopy(d)))  # the untouched state passes
    IMPOSSIBLE[name](g, d)
    with time_limit(5), pytest.raises(StateError):
        g.validate_state(State.from_dict(d))


def test_single_seat_view_refuses_a_seat_that_is_not_the_learners():
    """Issue 15.4: ``SingleSeatEnv`` accepted ``seat = 99``."""
    env = SingleSeatEnv(players=3, opponents="random")
    env.reset(seed=0)
    for seat in (99, -1, 0, "2", 2.0, True):
        saved = json.loads(json.dumps(env.get_state()))
        saved["seat"] = seat
        with pytest.raises(StateError, match="seat"):
            env.set_state(saved)
    saved = json.loads(json.dumps(env.get_state()))
    env.set_state(saved)
    assert env.get_state() == saved


def test_validation_accepts_every_state_of_random_play():
    """The other side: no state a real game reaches is refused (every decision of a few games, all options)."""
    import random

    for cfg in (GameConfig(players=3, necromancer=False), GameConfig(players=6, skip_forced=True, handicap=2),
                GameConfig(players=4, victory_check="anytime", island_redeploy=True, game_turns=12)):
        g = Game(cfg)
        for seed in range(3):
            rnd = random.Random(seed)
            st = g.new_state(seed)
            while True:
                g.validate_state(State.from_dict(json.loads(json.dumps(st.to_dict()))))
                if st.over:
                    break
                la = g.legal_actions(st)
                g.apply(st, la[rnd.randrange(len(la))])


# --------------------------------------------------------------------------- 6. records
def finished_record(players: int = 3, seed: int = 2) -> dict:
    env = necro_env.env(players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return json.loads(json.dumps(env.unwrapped.record()))


@pytest.mark.parametrize("key,value", [
    ("result", "won"), ("result", 7), ("result", [1]), ("result", True),
    ("over", "yes"), ("over", 1), ("agents", ["player_0"]), ("agents", "player_0"),
    ("illegal", "x"), ("illegal", {"agent": "player_0", "action": True, "message": "m"}),
    ("version", 1.0), ("version", True), ("env_id", "necro_env/Other-v0"),
])
def test_replay_refuses_malformed_record_fields(key, value):
    """Issue 15.6: ``result`` of another type crashed replay (AttributeError/TypeError); every field is checked."""
    rec = finished_record()
    rec[key] = value
    with pytest.raises(StateError):
        necro_env.replay(rec)


def test_cli_replay_exits_nonzero_on_a_record_replay_rejects(tmp_path, capsys):
    """Issue 15.6: ``necro-env replay`` exited 0 on a record with faked winners and coins."""
    rec = finished_record()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rec))
    assert cli.main(["replay", str(good), "--quiet"]) == 0
    capsys.readouterr()
    fakes = {
        "winners": lambda r: r["result"].update(winners=[s for s in range(3) if s not in r["result"]["winners"]][:1]),
        "coins": lambda r: r["result"]["coins"].__setitem__(0, r["result"]["coins"][0] + 50),
        "over": lambda r: r.update(over=False),
        "agents": lambda r: r.update(agents=["player_1", "player_0", "necromancer_0"]),
        "illegal": lambda r: r.update(illegal={"agent": "player_0", "action": 0, "message": "x"}),
    }
    for name, fake in fakes.items():
        bad = copy.deepcopy(rec)
        fake(bad)
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bad))
        assert cli.main(["replay", str(path), "--quiet"]) == 1, name
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "error" in err, name


def test_record_result_keys_are_the_games():
    """``record.RESULT_KEYS`` (what a record's ``result`` may hold) is what ``Game.result`` returns."""
    from necro_env.record import RESULT_KEYS

    rec = finished_record()
    assert set(rec["result"]) == RESULT_KEYS


def test_a_record_with_a_million_result_keys_gets_a_short_error(capsys, tmp_path):
    """Issue 27: a ``result`` with 10^6 extra keys gave a 10.9 MB one-line error. Now the error names the
    first few and counts the rest (API and CLI), in at most ~2 kB."""
    from necro_env.game.errors import MAX_MESSAGE

    rec = finished_record()
    rec["result"].update({f"k{i}": i for i in range(10 ** 6)})
    with time_limit(10), pytest.raises(StateError, match=r"unexpected \['k0', .*and 999990 more\]") as ei:
        necro_env.replay(rec)
    assert len(str(ei.value)) <= MAX_MESSAGE
    rec = finished_record()
    rec.update({f"extra{i}": 0 for i in range(10 ** 5)})
    with pytest.raises(StateError, match="and 99990 more") as ei:
        necro_env.replay(rec)
    assert len(str(ei.value)) <= MAX_MESSAGE
    rec = finished_record()
    rec["options"] = {f"o{i}": 0 for i in range(10 ** 5)}
    with pytest.raises(StateError, match="and 99990 more") as ei:
        necro_env.replay(rec)
    assert len(str(ei.value)) <= MAX_MESSAGE


def test_a_20_mb_record_is_refused_in_little_memory(tmp_path):
    """Issue 27: a 20 MB record (10^7 actions) took 842 MB to refuse (a Python tuple per element in the JSON
    check). In a fresh process, ``necro-env replay`` refuses it in one line with a peak below 500 MB."""
    rec = finished_record()
    rec["actions"] = rec["actions"] + [0] * (10 ** 7 - len(rec["actions"]))
    path = tmp_path / "big.json"
    path.write_text(json.dumps(rec, separators=(",", ":")))
    assert path.stat().st_size > 19_000_000
    if not Path("/proc/self/status").exists():
        pytest.skip("reads the peak memory from /proc (Linux)")
    # VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the forking parent (pytest)
    code = ("import re, sys\nfrom necro_env import cli\nrc = cli.main(['replay', sys.argv[1], '--quiet'])\n"
            "status = open('/proc/self/status').read()\n"
            "print(rc, re.search(r'VmHWM:\\s*(\\d+) kB', status).group(1))")
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rc, peak_kb = map(int, proc.stdout.split())
    assert rc == 1 and "comes after the end of the game" in proc.stderr, proc.stderr[-2000:]
    assert len(proc.stderr.splitlines()) == 1, proc.stderr[-2000:]
    assert peak_kb < 500 * 1024, f"peak {peak_kb // 1024} MB"


# --------------------------------------------------------------------------- 7. the CLI on bad files
BAD_FILES = {
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "bigint.json": '{"format": "necro_env/record", "version": 1, "seed": ' + "9" * 5000 + "}",
    "badutf8.json": b'{"format": "\xff\xfe"}',
    "notjson.json": "{'format': 1",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_cli_replay_reports_bad_files_in_one_line(tmp_path, name):
    """Issue 15.7: deep JSON (RecursionError), a 4,300+ digit int (ValueError) and invalid UTF-8
    (UnicodeDecodeError) ended in tracebacks."""
    path = tmp_path / name
    data = BAD_FILES[name]
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    proc = subprocess.run([sys.executable, "-m", "necro_env.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "not a JSON game record" in proc.stderr


def test_cli_evaluate_reports_unloadable_policy_files_in_one_line(tmp_path, capsys):
    """Issue 15.7: a non-zip or model-less ``.zip`` given to ``evaluate`` ended in a traceback."""
    notzip = tmp_path / "notzip.zip"
    notzip.write_text("hello")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "no model here")
    for path in (notzip, empty):
        assert cli.main(["evaluate", "--necromancer", str(path), "--games", "1", "--quiet", "--trust-pickle"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "not a loadable MaskablePPO model" in err
        assert cli.main(["evaluate", "--necromancer", str(path), "--games", "1", "--quiet"]) == 2
        assert "refusing to load" in capsys.readouterr().err


def test_cli_league_reports_malformed_yaml_in_one_line(tmp_path, capsys):
    for text in ("players: [3\n", "a: b: c\n", "[" * 5000):
        path = tmp_path / "league.yaml"
        path.write_text(text)
        assert cli.main(["league", str(path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "not valid YAML" in err


# --------------------------------------------------------------------------- 8. bookkeeping
def _edited(edit) -> dict:
    saved = saved_state()
    edit(saved)
    return saved


BOOKKEEPING = {
    "illegal note mid-game, nobody terminated": (
        lambda s: s.update(illegal={"agent": s["agent_selection"], "action": 0, "message": "m"}), "terminat|illegal"),
    "no agents while the game runs": (lambda s: s.update(agents=[], rewards={}, cumulative_rewards={},
                                                         terminations={}, truncations={}, infos={}), "agents"),
    "an agent missing while the game runs": (lambda s: [s[k].pop("player_0") for k in (
        "rewards", "cumulative_rewards", "terminations", "truncations", "infos")] and s["agents"].remove("player_0"),
        "agents"),
    "all terminated while the game runs": (lambda s: s.update(terminations=dict.fromkeys(s["agents"], True)),
                                           "terminat"),
    "prev_coins 10**20": (lambda s: s["prev_coins"].__setitem__(0, 10 ** 20), "prev_coins"),
    "rewards_dirty a string": (lambda s: s.update(rewards_dirty="yes"), "rewards_dirty"),
    "rewards_dirty an int": (lambda s: s.update(rewards_dirty=1), "rewards_dirty"),
    "seed_rng null": (lambda s: s.update(seed_rng=None), "seed_rng"),
    "seed_rng garbage": (lambda s: s.update(seed_rng={"bit_generator": "PCG64", "state": {"state": -1, "inc": 1},
                                                      "has_uint32": 0, "uinteger": 0}), "seed_rng"),
    "reward not finite": (lambda s: s["cumulative_rewards"].update(player_0=float("inf")), "cumulative_rewards"),
    "infos nested too deep": (lambda s: s["infos"].update(player_0=_deep(200)), "nested"),
    "agent_selection elsewhere": (lambda s: s.update(agent_selection="necromancer_0" if s["agent_selection"] !=
                                                     "necromancer_0" else "player_0"), "agent_selection"),
}


def _deep(n: int):
    d: dict = {}
    for _ in range(n):
        d = {"x": d}
    return d


@pytest.mark.parametrize("name", sorted(BOOKKEEPING))
@pytest.mark.parametrize("verify", [True, False])
def test_set_state_checks_the_bookkeeping(name, verify):
    """Issue 15.8: bookkeeping that left the env stuck or wrong was accepted with verify=True."""
    edit, match = BOOKKEEPING[name]
    env, _ = fresh_target()
    rejects(env, _edited(edit), match, verify)


def test_set_state_verify_compares_the_bookkeeping_with_a_replay():
    """With verify, rewards and the like are compared with the env replayed from the seed (a consistent
    edit that the structural checks cannot see is caught too)."""
    env = midgame_env(steps=40, reward="coins")
    saved = json.loads(json.dumps(env.get_state()))
    agent = next(a for a, r in saved["cumulative_rewards"].items() if r == 0)
    saved["cumulative_rewards"][agent] = 0.5
    target = necro_env.env(players=4, reward="coins")
    target.reset(seed=3)
    target.set_state(saved, verify=False)  # consistent enough to play on
    target.reset(seed=3)
    rejects(target, saved, "bookkeeping differs .*cumulative_rewards", verify=True)


def test_an_edited_illegal_note_is_caught_by_verification():
    """The note of an illegal-action ending must be what the env wrote: another illegal action or
    another message is refused (the fuzz suite found the first)."""
    env = midgame_env(players=3, steps=20)
    obs = env.last()[0]
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    saved = json.loads(json.dumps(env.get_state()))
    legal = env.unwrapped.game.legal_actions(env.unwrapped.game_state)
    other = next(a for a in range(NUM_ACTIONS) if a not in legal and a != saved["illegal"]["action"])
    target, _ = fresh_target(players=3)
    for edit in ({"action": other}, {"message": "made up"}):
        bad = copy.deepcopy(saved)
        bad["illegal"].update(edit)
        rejects(target, bad, "illegal")
    target.set_state(saved)
    assert target.get_state() == saved


def test_finished_and_illegal_games_round_trip_exactly():
    """Ended games (every agent done, some removed; an illegal-action ending) reload exactly, with verify."""
    for steps, illegal in ((10 ** 6, False), (30, True)):
        env = necro_env.env(players=3)
        env.reset(seed=4)
        rng = np.random.default_rng(4)
        n = 0
        for agent in env.agent_iter():
            obs, _, term, _, _ = env.last()
            if term:
                saved = json.loads(json.dumps(env.get_state()))
                target = necro_env.env(players=3)
                target.reset(seed=0)
                target.set_state(saved)
                assert target.get_state() == saved
                env.step(None)
                continue
            if illegal and n == steps:
                env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1


# --------------------------------------------------------------------------- 9. typed errors
def test_user_facing_errors_are_typed():
    """Issue 15.9: each of these raised a bare ValueError/TypeError/KeyError or the wrong error."""
    raw = necro_env.raw_env(players=4)
    raw.reset(seed=0)
    for bad in ("player_9", ["player_0"], None, 3):
        with pytest.raises(UnknownAgentError, match="unknown agent"):
            raw.observe(bad)
        with pytest.raises(UnknownAgentError):
            raw.action_space(bad)
        with pytest.raises(UnknownAgentError):
            raw.observation_space(bad)
    wrapped = necro_env.env(players=4)
    with pytest.raises(UnknownAgentError):
        wrapped.action_space("player_9")
    with pytest.raises(ConfigError, match="seed"):
        raw.reset(seed=-1)
    with pytest.raises(UnknownOptionError, match="colour") as ei:
        GameConfig(colour="red")
    assert isinstance(ei.value, TypeError) and isinstance(ei.value, ConfigError)
    with pytest.raises(UnknownOptionError):
        Game(colour="red")
    for necromancer in (True, False):  # an int with more digits than str() prints (the fuzz suite found it)
        with pytest.raises(ConfigError, match="players must be"):
            GameConfig(players=10 ** 5000, necromancer=necromancer)
    assert GameConfig(players=np.int64(4), necromancer=np.bool_(True)).players == 4
    assert type(GameConfig(players=np.int64(4)).players) is int
    necro_env.env(players=np.int64(3)).reset(seed=np.int64(1))
    rec = finished_record()
    rec["version"] = 1.0
    with pytest.raises(StateError, match="version"):
        necro_env.replay(rec)
    view = SingleSeatEnv(players=3)
    with pytest.raises(EnvUsageError, match="before reset"):
        view.step(0)


def test_every_error_class_is_a_necro_env_error():
    from necro_env.agents import registry
    from necro_env.env import GameOverError, InvalidActionError
    from necro_env.game import errors

    classes = [registry.UntrustedPolicyError, registry.PolicyFileError, registry.PolicyOutputError, UnknownAgentError,
               EnvUsageError, GameOverError, InvalidActionError] + [getattr(errors, n) for n in dir(errors)
                                                                    if n.endswith("Error")]
    for cls in classes:
        assert issubclass(cls, NecroEnvError), cls

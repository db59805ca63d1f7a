"""The policies shipped as package data (``pretrained:NAME``): present, weights-only, loadable by
short name and by path, and legal in every seat count they can sit in."""
from __future__ import annotations

import json
import struct

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from necro_env.agents import RandomAgent  # noqa: E402
from necro_env.agents.base import View  # noqa: E402
from necro_env.agents.registry import PRETRAINED_DIR, make_policy, pretrained_names  # noqa: E402
from necro_env.game import ConfigError, Game, GameConfig, Phase, decode  # noqa: E402

SHIPPED = {"necromancer_3p": "necromancer", "necromancer_6p": "necromancer", "player_2p": "player",
           "players_3p": "player", "players_6p": "player", "league_necromancer_3p": "necromancer",
           "league_players_3p": "player", "exploiter_players_3p": "player"}  # a team network is a player policy (it acts for any player seat)


def test_the_policies_are_shipped_weights_only_and_small():
    assert set(SHIPPED) <= set(pretrained_names())
    for name in SHIPPED:
        path = PRETRAINED_DIR / f"{name}.safetensors"
        assert path.stat().st_size <= 10 * 2**20, f"{name} is over 10 MB"
        raw = path.read_bytes()
        (n,) = struct.unpack("<Q", raw[:8])  # safetensors: a JSON header, then raw tensors; nothing to unpickle
        header = json.loads(raw[8:8 + n])
        meta = header.pop("__metadata__")
        assert json.loads(meta["necro_env.arch"])["kind"] in ("region", "mlp")
        assert meta["necro_env.role"] == SHIPPED[name]
        assert all(v["dtype"] == "F32" for v in header.values())
        assert not any("optim" in k or "exp_avg" in k for k in header), "optimizer state in a shipped policy"


def test_the_shipped_files_record_their_layout_and_the_commit_that_trained_them():
    """Issue 27.1: each shipped file names the layout it was trained on (this one: it loads) and the commit
    of its training code (a full, clean commit of this repository's history; for a file re-saved later, with
    how it was established)."""
    import subprocess

    from necro_env.agents.torch_policy import policy_header
    from necro_env.fingerprint import layout_fingerprint

    root = PRETRAINED_DIR.parents[1]
    for name in SHIPPED:
        h = policy_header(PRETRAINED_DIR / f"{name}.safetensors")
        assert h["fingerprint"] == layout_fingerprint()
        assert len(h["commit"]) == 40 and all(c in "0123456789abcdef" for c in h["commit"]), h["commit"]
        # a file re-saved with the fingerprint after the fact says how its commit was established
        assert "provenance" not in h["info"] or "commit = the parent of" in h["info"]["provenance"]
        if (root / ".git").exists():
            found = subprocess.run(["git", "-C", str(root), "cat-file", "-e", h["commit"] + "^{commit}"],
                                   capture_output=True)
            assert found.returncode == 0, f"{name}: commit {h['commit']} is not in this repository's history"


def test_the_shipped_policies_are_refused_when_two_features_are_swapped(monkeypatch):
    """The issue's first finding: with glob.picked and glob.placed swapped every test here stayed green and
    the shipped policies played nonsense; now loading one is refused, naming both fingerprints."""
    from layouts import swap_glob_features

    from necro_env.agents.base import PolicyFileError

    swap_glob_features(monkeypatch)
    for name, role in SHIPPED.items():
        with pytest.raises(PolicyFileError, match="trained on another observation layout"):
            make_policy(f"pretrained:{name}", role)


def test_unknown_pretrained_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match="necromancer_3p"):
        make_policy("pretrained:no_such_policy", "necromancer")


def test_pretrained_loads_by_short_name_and_by_path_alike():
    a = make_policy("pretrained:necromancer_3p", "necromancer")
    b = make_policy(str(PRETRAINED_DIR / "necromancer_3p.safetensors"), "necromancer")
    g = Game(GameConfig(players=3))
    st = g.new_state(3)
    while st.decider != g.necro_seat:
        g.apply(st, g.legal_actions(st)[0])
    va, vb = View(g, st), View(g, st)
    la = a.logits(va.observation, va.mask.astype(bool))
    lb = b.logits(vb.observation, vb.mask.astype(bool))
    assert torch.equal(la, lb)


def _play(g: Game, pols: list, seed: int, steps_of: set[int]) -> int:
    """Plays one game; returns how many decisions the seats in ``steps_of`` took (every one checked legal)."""
    st = g.new_state(seed)
    rng = np.random.default_rng(seed)
    n = 0
    while not st.over:
        seat = st.decider
        view = View(g, st)
        a = pols[seat].act(view, rng)
        if seat in steps_of:
            n += 1
            assert a in view.legal, f"illegal {decode(a)} in {Phase(st.phase).name}"
        g.apply(st, a)
    return n


@pytest.mark.parametrize("name", ["necromancer_3p", "necromancer_6p", "league_necromancer_3p"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_pretrained_necromancer_acts_legally_on_every_seat_count(name, players):
    pol = make_policy(f"pretrained:{name}", "necromancer")
    g = Game(GameConfig(players=players))
    decisions = 0
    for seed in range(40):
        pols = [RandomAgent()] * players
        pols[g.necro_seat] = pol
        decisions += _play(g, pols, seed, {g.necro_seat})
        if decisions >= 250:
            break
    assert decisions >= 250


@pytest.mark.parametrize("players,necro", [(2, False), (3, False), (4, False), (5, False),
                                           (3, True), (4, True), (5, True), (6, True)])
def test_pretrained_player_acts_legally_on_every_seat_count(players, necro):
    pol = make_policy("pretrained:player_2p", "player")
    g = Game(GameConfig(players=players, necromancer=necro))
    decisions = 0
    for seed in range(40):
        seats = [s for s in range(players) if s != g.necro_seat]
        test_seat = seats[seed % len(seats)]
        pols = [RandomAgent()] * players
        pols[test_seat] = pol
        decisions += _play(g, pols, seed, {test_seat})
        if decisions >= 250:
            break
    assert decisions >= 250


def test_acting_rules_sample_legally_and_a_cold_temperature_is_the_argmax():
    """training/eval_acting_rule.py: a temperature policy draws only legal actions; near 0 it plays the
    arg-max; a bad rule is refused."""
    from training.eval_acting_rule import acting_rule

    base = make_policy("pretrained:necromancer_3p", "necromancer")
    assert acting_rule(base, "argmax") is base
    warm, cold = acting_rule(base, "1.0"), acting_rule(base, "1e-4")
    g = Game(GameConfig(players=3))
    st = g.new_state(3)
    rng, same, necro_views = np.random.default_rng(0), 0, 0
    greedy = make_policy("greedy", "player")
    while not st.over and necro_views < 60:
        view = View(g, st)
        if st.decider == g.necro_seat and len(view.legal) > 1:
            necro_views += 1
            assert warm.act(view, rng) in view.legal
            same += cold.act(view, rng) == base.act(view, rng)
        g.apply(st, (base if st.decider == g.necro_seat else greedy).act(view, rng))
    assert necro_views >= 20 and same == necro_views
    with pytest.raises(ValueError, match="temperature"):
        acting_rule(base, "hot")
    with pytest.raises(ValueError, match="> 0"):
        acting_rule(base, "0")

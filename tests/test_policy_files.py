"""Policy files that say what they are and cannot lie or explode (issue 27, point 1).

* the layout fingerprint moves when the layout does (two 1-wide features swapped) and not otherwise;
* every saved file records the fingerprint and the commit; a file made for another layout, or
  older than fingerprints, is refused naming both fingerprints;
* every malicious file the issue lists (``policy_attacks.REFUSED``) is a ``PolicyFileError`` within
  a few seconds, in one line from the CLI, with a message of at most ~2 kB;
* no weights can make a learned policy play an illegal action (``policy_attacks.PLAYABLE``), and
  weights no action can be drawn from raise a typed error.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import policy_attacks  # noqa: E402
from fuzzing import time_limit  # noqa: E402
from layouts import swap_glob_features  # noqa: E402
from necro_env import cli  # noqa: E402
from necro_env.agents.base import PolicyFileError, PolicyOutputError, View  # noqa: E402
from necro_env.agents.nets import RegionNet, masked_logits  # noqa: E402
from necro_env.agents.registry import make_policy  # noqa: E402
from necro_env.agents.torch_policy import NetPolicy, load_policy, policy_header, save_policy  # noqa: E402
from necro_env.fingerprint import is_commit, layout_fingerprint, source_commit  # noqa: E402
from necro_env.game import Game, GameConfig  # noqa: E402
from necro_env.game.errors import ConfigError, MAX_MESSAGE  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------------- the fingerprint
def test_swapping_two_one_wide_features_changes_the_fingerprint(monkeypatch):
    """glob.picked and glob.placed are both 1 wide: OBS_SIZE stays 2709 but the fingerprint moves."""
    before = layout_fingerprint()
    assert re.fullmatch(r"[0-9a-f]{16}", before) and layout_fingerprint() == before  # stable
    swap_glob_features(monkeypatch)
    swapped = layout_fingerprint()
    assert swapped != before
    monkeypatch.undo()
    assert layout_fingerprint() == before


def test_the_fingerprint_covers_columns_divisors_and_the_action_table(monkeypatch):
    from necro_env import observe
    from necro_env.game import actions

    before = layout_fingerprint()
    cols = dict(observe.REGION_COLS)  # two 1-wide region columns swapped
    cols["lair"], cols["fortress"] = cols["fortress"], cols["lair"]
    monkeypatch.setitem(observe.ROW_TABLES, "region", cols)
    assert layout_fingerprint() != before
    monkeypatch.undo()
    monkeypatch.setitem(observe.SCALES, "seat.coins", 60)
    assert layout_fingerprint() != before
    monkeypatch.undo()
    off = dict(actions.OFFSET)  # two 1-wide actions swapped
    a, b = actions.Kind.DECLINE, actions.Kind.END_CONQUEST
    off[a], off[b] = off[b], off[a]
    monkeypatch.setattr(actions, "OFFSET", off)
    assert layout_fingerprint() != before
    monkeypatch.undo()
    assert layout_fingerprint() == before


def test_the_fingerprint_module_needs_no_torch():
    code = ("import sys, necro_env.fingerprint as f; f.layout_fingerprint(); f.source_commit(); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_source_commit_is_the_checkout_head_or_unknown(monkeypatch):
    commit = source_commit()
    assert is_commit(commit)
    if (ROOT / ".git").exists() and commit != "unknown":
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        assert commit.removesuffix("-dirty") == head.strip()
    monkeypatch.setenv("PATH", "")  # git missing: no crash, "unknown"
    assert source_commit() == "unknown"
    for bad in ("", "abc", "g" * 40, "a" * 40 + "-clean", None, 5):
        assert not is_commit(bad)


# ----------------------------------------------------------------------------------- what a file records
def test_a_saved_policy_records_its_fingerprint_and_commit(tmp_path):
    path = tmp_path / "p.safetensors"
    net = RegionNet(d=8, layers=1, hidden=8, emb=2)
    save_policy(net, path, "player")
    h = policy_header(path)
    assert h["fingerprint"] == layout_fingerprint() and h["commit"] == source_commit()
    save_policy(net, path, "player", commit="a" * 40 + "-dirty")
    assert load_policy(path).commit == "a" * 40 + "-dirty"
    with pytest.raises(ConfigError, match="commit must be 40 hex digits"):
        save_policy(net, path, "player", commit="HEAD")


def test_a_policy_saved_for_another_layout_is_refused_naming_both(tmp_path, monkeypatch):
    """The issue's first finding: a policy file carried only obs_size, so a swapped layout loaded silently."""
    path = tmp_path / "swapped.safetensors"
    swap_glob_features(monkeypatch)
    theirs = layout_fingerprint()
    save_policy(RegionNet(d=8, layers=1, hidden=8, emb=2), path, "necromancer")
    monkeypatch.undo()
    mine = layout_fingerprint()
    with pytest.raises(PolicyFileError, match=f"its layout fingerprint is '{theirs}', this necro_env's is '{mine}'"):
        make_policy(str(path), "necromancer")


# ----------------------------------------------------------------------------------- the attacks
@pytest.mark.parametrize("name", sorted(policy_attacks.REFUSED))
def test_each_malicious_file_is_a_short_typed_error(tmp_path, name):
    """Issue 27: each attack is refused with a PolicyFileError (a ConfigError) that says why, quickly and
    before anything big is allocated (the 30000 x 30000 MLP used to take 3 GiB), in a message of <= ~2 kB."""
    path = policy_attacks.build(name, tmp_path)
    pattern = policy_attacks.REFUSED[name][1]
    with time_limit(5), pytest.raises(PolicyFileError, match=pattern) as ei:
        make_policy(str(path), "necromancer")
    assert len(str(ei.value)) <= MAX_MESSAGE


def test_the_cli_reports_every_malicious_file_in_one_line(tmp_path, capsys):
    for name in sorted(policy_attacks.REFUSED):
        path = policy_attacks.build(name, tmp_path)
        rc = cli.main(["evaluate", "--players", "3", "--necromancer", str(path), "--games", "1", "--quiet"])
        err = capsys.readouterr().err
        assert rc == 2, name
        assert len(err.strip().splitlines()) == 1 and err.startswith("necro-env evaluate: error: "), (name, err)
        assert len(err) <= MAX_MESSAGE + 100


def test_the_bomb_in_a_fresh_process_is_one_line_and_no_traceback(tmp_path):
    """``necro-env evaluate --necromancer bomb.safetensors`` as a user runs it (tools/policy_attacks_measure.py
    measures its time and memory)."""
    bomb = policy_attacks.build("hidden 30000x30000", tmp_path)
    proc = subprocess.run([sys.executable, "-m", "necro_env.cli", "evaluate", "--players", "3", "--necromancer",
                           str(bomb), "--games", "2", "--quiet"], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "at most 50,000,000" in proc.stderr


# ----------------------------------------------------------------------------------- legal actions only
def _decisions(seed: int, n: int = 40):
    g = Game(GameConfig(players=3))
    st = g.new_state(seed)
    rng = np.random.default_rng(seed)
    out = []
    while not st.over and len(out) < n:
        la = g.legal_actions(st)
        if len(la) > 1:
            out.append((g, st.clone()))
        g.apply(st, la[int(rng.integers(len(la)))])
    return out


@pytest.mark.parametrize("deterministic", [True, False])
def test_logits_below_the_old_mask_value_still_play_legal_actions(tmp_path, deterministic):
    """Issue 27: a file whose every logit is -1e9 (below the -1e8 that used to mark illegal actions) played an
    illegal action and aborted the evaluation; now only legal actions are ranked."""
    from necro_env.evaluate import evaluate

    path = policy_attacks.build("logits -1e9", tmp_path)
    pol = load_policy(path, "necromancer", deterministic=deterministic)
    rng = np.random.default_rng(0)
    fooled = 0
    for g, st in _decisions(1):
        view = View(g, st)
        raw, _ = pol.net(torch.as_tensor(view.observation)[None])
        mask = torch.as_tensor(view.mask.astype(bool))
        fooled += not bool(mask[int(raw[0].masked_fill(~mask, -1e8).argmax())])  # the old masking
        assert pol.act(view, rng) in view.legal
        assert int(masked_logits(raw, view.mask.astype(bool)[None])[0].argmax()) in view.legal
    assert fooled > 0, "the file no longer attacks the old masking: the test would not see a regression"
    assert evaluate(3, str(path), "random", games=2, seed=0)["games"] == 2


@pytest.mark.parametrize("deterministic", [True, False])
def test_nan_logits_are_a_typed_error_not_a_guess(deterministic):
    """Weights that give NaN logits (here set in memory; a file with NaN is refused when loaded) raise
    PolicyOutputError, not numpy's ValueError('probabilities contain NaN') or an arbitrary action."""
    net = RegionNet(d=8, layers=1, hidden=8, emb=2)
    with torch.no_grad():
        net.other_logits.bias.fill_(float("nan"))
        net.region_logits.bias.fill_(float("nan"))
    pol = NetPolicy(net, deterministic=deterministic, role="necromancer")
    g, st = _decisions(2)[0]
    with pytest.raises(PolicyOutputError, match="not finite|NaN"):
        pol.act(View(g, st), np.random.default_rng(0))


def test_argmax_and_sampling_agree_with_the_old_rule_on_ordinary_weights():
    """Ranking legal actions only changes nothing for ordinary weights: the same choice as the arg-max of
    the -1e8-masked logits, and sampling draws the same actions from the same generator."""
    torch.manual_seed(3)
    net = RegionNet(d=16, hidden=32, emb=4)
    greedy, sampler = NetPolicy(net), NetPolicy(net, deterministic=False)
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    for g, st in _decisions(3, 60):
        view = View(g, st)
        raw, _ = net(torch.as_tensor(view.observation)[None])
        mask = torch.as_tensor(view.mask.astype(bool))
        assert greedy.act(view, r1) == int(raw[0].masked_fill(~mask, -1e8).argmax())
        old = torch.softmax(raw[0].masked_fill(~mask, -1e8).double(), -1).detach().numpy()[view.legal]
        assert sampler.act(view, r1) == view.legal[int(r2.choice(len(view.legal), p=old / old.sum()))]

"""Learned-policy building blocks: the networks (shapes, per-region logits, masking), the weights-only policy
file (round trip, nothing unpickled, bad files refused), the SB3 policy wrapper and behaviour cloning."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from necro_env.agents.nets import (  # noqa: E402
    OTHER_ACTIONS, REGION_KINDS, MlpNet, RegionNet, arch_parameters, arch_shapes, build_net, check_arch, masked_logits,
)
from necro_env.agents.torch_policy import NetPolicy, load_policy, read_policy_file, save_policy  # noqa: E402
from necro_env.game import NUM_ACTIONS, Game, GameConfig  # noqa: E402
from necro_env.game.actions import OFFSET  # noqa: E402
from necro_env.game.errors import ConfigError  # noqa: E402
from necro_env.observe import OBS_SIZE, Observer  # noqa: E402


def observations(players: int, necromancer: bool, n: int = 40, seed: int = 0):
    """(obs, masks) of the deciding seat along a random game."""
    g = Game(GameConfig(players=players, necromancer=necromancer, skip_forced=True))
    o = Observer(g)
    st = g.new_state(seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while not st.over and len(obs) < n:
        obs.append(o.observe(st, st.decider))
        masks.append(g.legal_action_mask(st).astype(bool))
        la = g.legal_actions(st)
        g.apply(st, la[int(rng.integers(len(la)))])
    return np.stack(obs), np.stack(masks)


def test_action_blocks_cover_the_table_once():
    """The ten region blocks and the other actions partition the action table."""
    region = {OFFSET[k] + r for k in REGION_KINDS for r in range(48)}
    assert not region & set(OTHER_ACTIONS)
    assert region | set(OTHER_ACTIONS) == set(range(NUM_ACTIONS))


@pytest.mark.parametrize("net", [RegionNet(d=16, hidden=32, emb=4), MlpNet(hidden=(32,))], ids=["region", "mlp"])
@pytest.mark.parametrize("players,necro", [(2, False), (3, True), (6, True)])
def test_shapes_and_masked_probabilities(net, players, necro):
    """Logits (B, NUM_ACTIONS) and values (B,) on every board; after masking, illegal actions have probability 0."""
    obs, masks = observations(players, necro)
    with torch.no_grad():
        logits, value = net(torch.as_tensor(obs))
    assert logits.shape == (len(obs), NUM_ACTIONS) and value.shape == (len(obs),)
    p = torch.softmax(masked_logits(logits, masks), -1).numpy()
    assert np.all(p[~masks] == 0.0)
    assert np.allclose(p.sum(-1), 1.0, atol=1e-5)


def test_region_logits_follow_their_region():
    """RegionNet is equivariant in the sense that matters: a region's CONQUER logit comes from its own token, so
    changing region r's features moves only region r's logits among the region blocks (plus the shared context
    through message passing to its neighbours); with no message passing, only region r's."""
    torch.manual_seed(0)
    net = RegionNet(d=16, layers=0, hidden=32, emb=4)
    obs, _ = observations(3, True)
    x = torch.as_tensor(obs[5:6]).clone()
    torch.set_grad_enabled(False)
    base, _ = net(x)
    from necro_env.observe import OFFSETS, REGION_COLS
    s, _ = OFFSETS["region"]
    col = REGION_COLS["tokens"][0]
    x[0, s + 4 * 17 + col] += 0.5   # region 4's token count
    moved, _ = net(x)
    torch.set_grad_enabled(True)
    diff = (moved - base).abs()[0]
    region_idx = [[OFFSET[k] + r for k in REGION_KINDS] for r in range(48)]
    changed = {r for r in range(48) if diff[region_idx[r]].max() > 1e-7}
    assert changed == {4}


def test_policy_file_round_trip(tmp_path):
    """save_policy / load_policy: the same network (bit for bit), role and info; the file holds no pickle."""
    torch.manual_seed(1)
    net = RegionNet(d=16, hidden=32, emb=4)
    path = tmp_path / "p.safetensors"
    save_policy(net, path, "necromancer", {"steps": 123})
    net2, role, info = read_policy_file(path)
    assert role == "necromancer" and info == {"steps": 123} and net2.arch == net.arch
    for (k, a), (k2, b) in zip(net.state_dict().items(), net2.state_dict().items()):
        assert k == k2 and torch.equal(a, b)
    raw = path.read_bytes()
    assert b"\x80\x04" not in raw[:64] and not raw.startswith(b"PK")   # no pickle protocol header, no zip
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    assert json.loads(header["__metadata__"]["necro_env.arch"])["kind"] == "region"
    pol = load_policy(path, "necromancer")
    with pytest.raises(ConfigError, match="necromancer policy, asked to play the player"):
        load_policy(path, "player")
    obs, masks = observations(3, True)
    assert np.array_equal(pol.logits(obs, masks).numpy(), NetPolicy(net).logits(obs, masks).numpy())


def test_bad_policy_files_are_refused(tmp_path):
    """A file that is not a policy file, or whose weights do not fit its architecture, raises ConfigError."""
    bad = tmp_path / "x.safetensors"
    bad.write_bytes(b"not a safetensors file at all")
    with pytest.raises(ConfigError, match="not a readable necro_env policy file"):
        read_policy_file(bad)
    from safetensors.torch import save_file

    from necro_env.fingerprint import layout_fingerprint
    meta = {"necro_env.format": "necro_env/policy", "necro_env.version": "2", "necro_env.role": "player",
            "necro_env.fingerprint": layout_fingerprint(), "necro_env.commit": "unknown", "necro_env.info": "{}",
            "necro_env.arch": json.dumps(check_arch({"kind": "mlp", "hidden": [8]}))}
    save_file({"w": torch.zeros(2)}, str(bad), metadata=meta)
    with pytest.raises(ConfigError, match="do not fit the architecture"):
        read_policy_file(bad)
    save_file({"w": torch.zeros(2)}, str(bad), metadata={**meta, "necro_env.version": "1"})
    with pytest.raises(ConfigError, match="format version 1, which predates layout fingerprints"):
        read_policy_file(bad)
    with pytest.raises(ConfigError, match="kind"):
        build_net({"kind": "transformer"})
    with pytest.raises(ConfigError, match="observations of 10"):
        build_net({"kind": "mlp", "obs_size": 10})


def test_policy_files_load_by_path_without_trust(tmp_path):
    """The registry loads a ``.safetensors`` policy file by path with no trust (no pickle inside): the file's
    network for its own role, a ConfigError for the other role, and evaluate() plays it by path."""
    from necro_env.agents.registry import check_policy, loader_suffixes, make_policy
    from necro_env.evaluate import evaluate

    torch.manual_seed(2)
    net = RegionNet(d=16, hidden=32, emb=4)
    path = tmp_path / "necro.safetensors"
    save_policy(net, path, "necromancer")
    assert ".safetensors" in loader_suffixes()
    check_policy(str(path), "necromancer")  # trusted=False (the default) is enough
    pol = make_policy(str(path), "necromancer")
    assert isinstance(pol, NetPolicy) and pol.name == "necro.safetensors" and pol.role == "necromancer"
    obs, masks = observations(3, True)
    assert np.array_equal(pol.logits(obs, masks).numpy(), NetPolicy(net).logits(obs, masks).numpy())
    with pytest.raises(ConfigError, match="necromancer policy, asked to play the player"):
        make_policy(str(path), "player")
    assert evaluate(3, str(path), "random", games=2, seed=0)["games"] == 2


@pytest.mark.parametrize("deterministic", [True, False])
def test_net_policy_plays_legal_actions(deterministic):
    """A fresh network plays whole games through act() without an illegal action (the engine would raise)."""
    from necro_env.evaluate import evaluate

    pol = NetPolicy(RegionNet(d=16, hidden=32, emb=4), deterministic=deterministic, role="necromancer")
    r = evaluate(3, pol, "random", games=3, seed=0)
    assert r["games"] == 3


def test_sb3_policy_wraps_the_network():
    """NetActorCriticPolicy: MaskablePPO trains it; its distribution gives illegal actions zero probability."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from necro_env.wrappers import SingleSeatEnv
    from training.sb3_net import NetActorCriticPolicy

    env = SingleSeatEnv(players=3, learner="necromancer", opponents="random")
    model = MaskablePPO(NetActorCriticPolicy, env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch_spec": {"kind": "region", "d": 16, "hidden": 32, "emb": 4}})
    model.learn(64)
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    dist = model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
    p = dist.distribution.probs[0].detach().numpy()
    assert np.all(p[~mask] == 0) and abs(p.sum() - 1) < 1e-5
    assert isinstance(model.policy.net, RegionNet)


def test_behaviour_cloning_learns_the_teacher():
    """pretrain() on a few heuristic games: the clone agrees with the teacher far more than chance."""
    from training.bc import DemoSpec, collect_demos, pretrain

    spec = DemoSpec(players=3, necromancer=True, learner="necromancer", teacher="heuristic", opponents="greedy")
    demos = collect_demos(spec, games=30, seed=0)
    assert demos["obs"].shape[1] == OBS_SIZE and len(demos["won"]) == 30
    assert set(np.unique(demos["ret"] / np.abs(demos["ret"]))) <= {-1.0, 1.0}
    torch.manual_seed(0)
    net = RegionNet(d=32, hidden=64, emb=8)
    rep = pretrain(net, demos, epochs=6, batch_size=128, lr=2e-3, holdout=0.2, log=None)
    from training.bc import unpack_masks
    chance = float(np.mean(1.0 / unpack_masks(demos["mask"], NUM_ACTIONS).sum(1)))
    assert rep["accuracy"] > 2 * chance, (rep, chance)


def test_cloned_critic_targets_are_the_return_the_env_gives():
    """The critic's targets: the discounted win reward plus, with shaping, the discounted progress terms;
    with gamma 1 the first decision's target is result + shaping * (phi(end) - phi(first decision))."""
    from training.bc import DemoSpec, collect_demos, discounted_returns

    assert np.allclose(discounted_returns(np.array([0.5, 0.0, 1.0]), 0.5), [0.75, 0.5, 1.0])
    kw = dict(players=3, necromancer=True, learner="necromancer", teacher="heuristic", opponents="greedy", gamma=1.0)
    plain = collect_demos(DemoSpec(**kw), games=4, seed=1)
    shaped = collect_demos(DemoSpec(**kw, shaping=2.0), games=4, seed=1)
    assert np.array_equal(plain["action"], shaped["action"])  # the same games
    assert set(np.unique(plain["ret"])) <= {-1.0, 1.0}
    diff = shaped["ret"] - plain["ret"]
    firsts = np.flatnonzero(np.r_[True, np.diff(shaped["game"]) != 0])
    assert np.all(diff[firsts] > 0)  # the Necromancer fields Ghosts in every game: progress is made
    # gamma 1: diff = 2 * (phi(end) - phi(decision)), and phi stays within [0, 1.5] (a quarter per Well token)
    assert np.all(np.abs(diff) <= 2.0 * 1.5)


def test_pretrained_short_names(tmp_path, monkeypatch):
    """``pretrained:NAME`` loads ``necro_env/pretrained/NAME.safetensors`` (no --trust-pickle); unknown names list
    the shipped ones."""
    import necro_env.agents.registry as reg

    monkeypatch.setattr(reg, "PRETRAINED_DIR", tmp_path)
    save_policy(RegionNet(d=16, hidden=32, emb=4), tmp_path / "necromancer_test.safetensors", "necromancer")
    assert reg.pretrained_names() == ["necromancer_test"]
    pol = reg.make_policy("pretrained:necromancer_test", "necromancer")
    assert pol.name == "pretrained:necromancer_test" and isinstance(pol, NetPolicy)
    with pytest.raises(ConfigError, match="shipped: necromancer_test"):
        reg.make_policy("pretrained:nope", "necromancer")


@pytest.mark.parametrize("arch", [
    {"kind": "region"}, {"kind": "region", "d": 16, "layers": 0, "hidden": 32, "emb": 4},
    {"kind": "region", "d": 24, "layers": 5, "hidden": 8, "emb": 1}, {"kind": "mlp"}, {"kind": "mlp", "hidden": [8]},
    {"kind": "mlp", "hidden": [32, 16, 8, 4]},
])
def test_the_parameter_count_and_shapes_are_those_of_the_built_network(arch):
    """``check_arch`` bounds a network by ``arch_parameters`` before building it: the formula (and the
    expected tensor shapes a file is checked against) must be the real network's."""
    args = check_arch(arch)
    net = build_net(arch)
    assert {k: tuple(v.shape) for k, v in net.state_dict().items()} == arch_shapes(args)
    assert arch_parameters(args) == sum(p.numel() for p in net.parameters())


def test_architectures_are_checked_before_anything_is_allocated():
    """Kinds, keys, plain-int bounds and the 50M-parameter budget, each a ConfigError naming the field."""
    from necro_env.agents.nets import MAX_PARAMETERS

    cases = {
        "hidden must be a list of 1": {"kind": "mlp", "hidden": []},
        "hidden must be a list": {"kind": "mlp", "hidden": [8, True]},
        "layers must be an int in 0..64": {"kind": "region", "layers": 10 ** 6},
        "emb must be an int": {"kind": "region", "emb": "16"},
        "unexpected \\['hiden'\\]": {"kind": "region", "hiden": 3},
        "at most 50,000,000": {"kind": "mlp", "hidden": [4096, 4096, 4096, 4096]},
        "observations of 10 and": {"kind": "mlp", "obs_size": 10},
        "'kind' in": ["region"],
    }
    for match, arch in cases.items():
        with pytest.raises(ConfigError, match=match):
            build_net(arch)
    assert check_arch({"kind": "mlp", "hidden": [2048] * 4})  # 14.4M parameters: allowed
    assert arch_parameters(check_arch({"kind": "mlp", "hidden": [2048] * 4})) <= MAX_PARAMETERS
    with pytest.raises(ConfigError, match="missing \\['obs_size', 'num_actions'\\]"):
        check_arch({"kind": "mlp", "hidden": [8]}, complete=True)  # a saved file states them all


def test_masked_logits_put_illegal_actions_below_any_legal_logit():
    """Legal logits of -1e9 (below the -1e8 once used as the fill) still beat every illegal action."""
    logits = torch.full((2, NUM_ACTIONS), -1e9)
    logits[:, 0] = 5.0  # an illegal action with a high logit
    mask = np.zeros((2, NUM_ACTIONS), dtype=bool)
    mask[:, [3, 7]] = True
    out = masked_logits(logits, mask)
    assert set(out.argmax(-1).tolist()) <= {3, 7}
    p = torch.softmax(out, -1)
    assert torch.all(p[~torch.as_tensor(mask)] == 0) and torch.allclose(p.sum(-1), torch.ones(2))

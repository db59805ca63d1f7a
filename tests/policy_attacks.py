"""Malicious and malformed policy files (issue 27): each attack the issue lists, built as a real
``.safetensors`` file. Used by tests/test_policy_files.py and by tools/policy_attacks_measure.py,
which runs ``necro-env evaluate`` on each file and reports its time and peak memory.

``REFUSED`` files must be refused with a ``PolicyFileError`` (a ``ConfigError``) matching the given
pattern; ``PLAYABLE`` files load (their weights are well-formed) and must only ever play legal actions.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

from necro_env.agents.nets import RegionNet, check_arch
from necro_env.agents.torch_policy import FORMAT, FORMAT_VERSION, save_policy
from necro_env.fingerprint import layout_fingerprint
from necro_env.game.actions import NUM_ACTIONS
from necro_env.observe import OBS_SIZE

SMALL = {"kind": "region", "d": 8, "layers": 1, "hidden": 8, "emb": 2}


def header(arch_text: str, **over: str) -> dict[str, str]:
    """A well-formed necro_env header around the ``arch`` JSON text ``arch_text`` (fields replaceable)."""
    meta = {"necro_env.format": FORMAT, "necro_env.version": str(FORMAT_VERSION),
            "necro_env.fingerprint": layout_fingerprint(), "necro_env.commit": "unknown",
            "necro_env.arch": arch_text, "necro_env.role": "necromancer", "necro_env.info": "{}"}
    meta.update(over)
    return meta


def _arch_attack(path: Path, arch: dict | str) -> None:
    """A file whose ``arch`` is ``arch`` (a dict gets this necro_env's ``obs_size``/``num_actions``, so the
    check that refuses it is the one under test; a string is written as it is), with ~300 KB of tensors
    like the issue's bomb (what the file holds never matters: the header is refused first)."""
    if isinstance(arch, dict):
        arch = json.dumps({"obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS, **arch})
    save_file({"w": torch.zeros(75_000)}, str(path), metadata=header(arch))


def _small_net(seed: int = 0) -> RegionNet:
    torch.manual_seed(seed)
    return RegionNet(**{k: v for k, v in SMALL.items() if k != "kind"})


def _with_tensors(path: Path, edit) -> None:
    """A small valid network's file with its tensors changed by ``edit(dict) -> dict``."""
    net = _small_net()
    tensors = edit({k: v.detach().clone() for k, v in net.state_dict().items()})
    save_file(tensors, str(path), metadata=header(json.dumps(check_arch(net.arch))))


def _nan(t: dict) -> dict:
    t["actor.0.weight"][0, 0] = float("nan")
    return t


def _int8(t: dict) -> dict:
    return {k: v.to(torch.int8) for k, v in t.items()}


def _low_logits(net: RegionNet) -> RegionNet:
    """Every logit -1e9 (zero logit weights, bias -1e9): below the -1e8 that used to mark illegal actions."""
    with torch.no_grad():
        for layer in (net.region_logits, net.other_logits):
            layer.weight.zero_()
            layer.bias.fill_(-1e9)
    return net


def _swapped_feature(path: Path) -> None:
    """A policy saved while glob.picked and glob.placed were swapped (another layout of the same size)."""
    from necro_env import observe

    saved = observe._GLOB_FEATURES, observe.OFFSETS
    feats = list(observe._GLOB_FEATURES)
    i = next(k for k, (n, _) in enumerate(feats) if n == "picked")
    j = next(k for k, (n, _) in enumerate(feats) if n == "placed")
    feats[i], feats[j] = feats[j], feats[i]
    try:
        observe._GLOB_FEATURES = tuple(feats)
        observe.OFFSETS = observe._build_offsets()[0]
        save_policy(_small_net(), path, "necromancer")
    finally:
        observe._GLOB_FEATURES, observe.OFFSETS = saved


def _deep(n: int) -> str:
    return "[" * n + "]" * n


#: name -> (builder(path), pattern the PolicyFileError message must match)
REFUSED = {
    "the issue's bomb as written": (lambda p: _arch_attack(p, '{"kind": "mlp", "hidden": [30000, 30000]}'),
                                    "missing \\['obs_size', 'num_actions'\\]"),
    "hidden 30000x30000": (lambda p: _arch_attack(p, {"kind": "mlp", "hidden": [30000, 30000]}),
                           "parameters; at most 50,000,000"),
    "d 4096 layers 64": (lambda p: _arch_attack(p, {**SMALL, "d": 4096, "layers": 64}), "parameters; at most"),
    "layers 10**6": (lambda p: _arch_attack(p, {**SMALL, "layers": 10 ** 6}), "layers must be an int in"),
    "hidden []": (lambda p: _arch_attack(p, {"kind": "mlp", "hidden": []}), "hidden must be a list of 1"),
    "hidden abc": (lambda p: _arch_attack(p, {"kind": "mlp", "hidden": "abc"}), "hidden must be a list"),
    "hidden [-5]": (lambda p: _arch_attack(p, {"kind": "mlp", "hidden": [-5]}), "hidden must be a list"),
    "d -1": (lambda p: _arch_attack(p, {**SMALL, "d": -1}), "d must be an int in 1..4096"),
    "d 10**6": (lambda p: _arch_attack(p, {**SMALL, "d": 10 ** 6}), "d must be an int in 1..4096"),
    "d true": (lambda p: _arch_attack(p, {**SMALL, "d": True}), "d must be an int"),
    "d 8.0": (lambda p: _arch_attack(p, {**SMALL, "d": 8.0}), "d must be an int"),
    "unknown key": (lambda p: _arch_attack(p, {**SMALL, "heads": 4}), "unexpected \\['heads'\\]"),
    "unknown kind": (lambda p: _arch_attack(p, {"kind": "transformer"}), "'kind' in"),
    "arch 10**5 deep": (lambda p: _arch_attack(p, _deep(10 ** 5)), "necro_env.arch is 200,000 characters long"),
    "arch 2000 deep": (lambda p: _arch_attack(p, _deep(2000)), "not valid JSON \\(RecursionError"),
    "info 10**5 deep": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata=header(
        json.dumps(SMALL), **{"necro_env.info": _deep(10 ** 5)})),
        "necro_env.info is not valid JSON \\(RecursionError"),
    "header 2 MB": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata=header(
        json.dumps(SMALL), **{"necro_env.info": json.dumps({"x": "y" * 2_000_000})})), "a header of 2,000,"),
    "int8 weights": (lambda p: _with_tensors(p, _int8), "must be float32 \\(F32\\); other dtypes"),
    "NaN weights": (lambda p: _with_tensors(p, _nan), "weights must be finite; NaN or infinite values in \\['actor"),
    "missing tensor": (lambda p: _with_tensors(p, lambda t: {k: v for k, v in t.items() if k != "value_out.bias"}),
                       "missing tensors \\['value_out.bias'\\]"),
    "wrong shape": (lambda p: _with_tensors(p, lambda t: {**t, "value_out.bias": torch.zeros(2)}),
                    "value_out.bias \\(2,\\) \\(expected \\(1,\\)\\)"),
    "wrong fingerprint": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata=header(
        json.dumps(SMALL), **{"necro_env.fingerprint": "0123456789abcdef"})),
        "its layout fingerprint is '0123456789abcdef', this necro_env's is '[0-9a-f]{16}'"),
    "no fingerprint": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata={
        k: v for k, v in header(json.dumps(SMALL)).items() if k != "necro_env.fingerprint"}),
        "no necro_env.fingerprint"),
    "format version 1": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata=header(
        json.dumps(SMALL), **{"necro_env.version": "1"})), "version 1, which predates layout fingerprints"),
    "bad commit": (lambda p: save_file({"w": torch.zeros(1)}, str(p), metadata=header(
        json.dumps(SMALL), **{"necro_env.commit": "$(rm -rf /)"})), "necro_env.commit must be 40 hex digits"),
    "swapped feature": (_swapped_feature, "trained on another observation layout"),
    "not safetensors": (lambda p: p.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}"), "not a readable"),
}

#: name -> builder(path): files that load and must play only legal actions
PLAYABLE = {
    "logits -1e9": lambda p: save_policy(_low_logits(_small_net()), p, "necromancer"),
}


def build(name: str, directory: Path) -> Path:
    """Write attack ``name`` (of ``REFUSED`` or ``PLAYABLE``) into ``directory``; its path."""
    path = Path(directory) / (name.replace(" ", "_").replace("*", "").replace("[", "").replace("]", "")
                              .replace("/", "_") + ".safetensors")
    builder = REFUSED[name][0] if name in REFUSED else PLAYABLE[name]
    builder(path)
    return path


__all__ = ["REFUSED", "PLAYABLE", "build", "header", "SMALL"]

"""Learned policies as weights-only files: a network of ``necro_env.agents.nets`` plus its architecture.

File format (``.safetensors``, https://github.com/huggingface/safetensors): the network's tensors, and in
the file's metadata header the JSON strings ``necro_env.arch`` (the ``arch`` dict that rebuilds the
network), ``necro_env.role`` (``player`` or ``necromancer``) and ``necro_env.info`` (free-form JSON:
training config, steps, measured win rates). Loading parses that header and copies tensors: nothing is
unpickled and no code from the file runs, so these files are safe to load from strangers (SB3 ``.zip``
files are not: they contain pickles, see the README's trust model).

``NetPolicy`` plays one with ``act(view, rng)``: the network's logits over the legal actions, the
arg-max (``deterministic=True``, the default) or a sample drawn with the ``rng`` it is handed.
torch is imported when this module is (only when a learned policy is built or loaded).
"""
from __future__ import annotations

import json
import os

import numpy as np
import torch

from necro_env.game.errors import ConfigError

from .base import ROLES, BasePolicy, View
from .nets import build_net, masked_logits

FORMAT = "necro_env/policy"
FORMAT_VERSION = 1


class NetPolicy(BasePolicy):
    """A network as a policy (see the module docstring)."""

    def __init__(self, net: torch.nn.Module, name: str = "net", deterministic: bool = True, role: str = "player") -> None:
        self.net = net.eval()
        self.name = name
        self.deterministic = deterministic
        self.role = role

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """Masked logits for one observation (1-D) or a batch (2-D)."""
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32)
            single = x.dim() == 1
            logits, _ = self.net(x[None] if single else x)
            out = masked_logits(logits, mask[None] if single else mask)
            return out[0] if single else out

    def act(self, view: View, rng: np.random.Generator) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        lg = self.logits(view.observation, view.mask.astype(bool))
        if self.deterministic:
            return int(torch.argmax(lg))
        p = torch.softmax(lg.double(), -1).numpy()[legal]
        return int(legal[int(rng.choice(len(legal), p=p / p.sum()))])


def save_policy(net: torch.nn.Module, path: str | os.PathLike, role: str, info: dict | None = None) -> None:
    """Write ``net`` (with ``net.arch``) as a weights-only policy file; the write is atomic (temp file + rename)."""
    from safetensors.torch import save_file

    if role not in ROLES:
        raise ConfigError(f"role must be one of {ROLES}, got {role!r}")
    meta = {"necro_env.format": FORMAT, "necro_env.version": str(FORMAT_VERSION),
            "necro_env.arch": json.dumps(net.arch, sort_keys=True), "necro_env.role": role,
            "necro_env.info": json.dumps(info or {}, sort_keys=True)}
    tensors = {k: v.detach().contiguous().cpu() for k, v in net.state_dict().items()}
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    save_file(tensors, tmp, metadata=meta)
    os.replace(tmp, path)


def read_policy_file(path: str | os.PathLike) -> tuple[torch.nn.Module, str, dict]:
    """``(network, role, info)`` from a policy file; ``ConfigError`` naming what is wrong with it."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        from safetensors import safe_open

        with safe_open(os.fspath(path), framework="pt") as f:
            meta = f.metadata() or {}
        tensors = load_file(os.fspath(path))
    except (SafetensorError, OSError, ValueError) as e:
        raise ConfigError(f"{path}: not a readable necro_env policy file (safetensors): {e}") from None
    if meta.get("necro_env.format") != FORMAT or meta.get("necro_env.version") != str(FORMAT_VERSION):
        raise ConfigError(f"{path}: not a necro_env policy file of format version {FORMAT_VERSION} "
                          f"(header says {meta.get('necro_env.format')!r} {meta.get('necro_env.version')!r})")
    try:
        arch = json.loads(meta["necro_env.arch"])
        info = json.loads(meta.get("necro_env.info", "{}"))
    except (KeyError, ValueError) as e:
        raise ConfigError(f"{path}: corrupt policy header: {e}") from None
    role = meta.get("necro_env.role")
    if role not in ROLES:
        raise ConfigError(f"{path}: policy role {role!r} is not one of {ROLES}")
    net = build_net(arch)
    try:
        net.load_state_dict(tensors, strict=True)
    except RuntimeError as e:
        raise ConfigError(f"{path}: the weights do not fit the architecture {arch}: {e}") from None
    return net, role, info


def load_policy(path: str | os.PathLike, role: str | None = None, deterministic: bool = True) -> NetPolicy:
    """A ``NetPolicy`` from a policy file; ``ConfigError`` if the file is not one or was trained for another role."""
    net, file_role, info = read_policy_file(path)
    if role is not None and role != file_role:
        raise ConfigError(f"{path} is a {file_role} policy, asked to play the {role}")
    pol = NetPolicy(net, name=os.path.basename(os.fspath(path)), deterministic=deterministic, role=file_role)
    pol.info = info  # type: ignore[attr-defined]
    return pol


__all__ = ["NetPolicy", "save_policy", "load_policy", "read_policy_file", "FORMAT", "FORMAT_VERSION"]

"""An RLlib checkpoint's RLModule as a policy: the ``rllib:PATH#MODULE`` spec of the policy registry.

``PATH`` is a checkpoint directory written by ``training/rllib_train.py`` (an ``Algorithm`` checkpoint:
``PATH/learner_group/learner/rl_module/<MODULE>/``), a ``MultiRLModule`` directory
(``.../rl_module``) or one module's directory. ``MODULE`` is the module (policy) id of the YAML's
policy mapping, e.g. ``players`` or ``necromancer``; it may be left out when the checkpoint holds a
single module. ``act`` feeds the module the AEC env's observation dict (``view.observation``,
``view.mask``) and plays the masked argmax (``deterministic=True``, the default) or samples from the
masked distribution with the ``rng`` it is handed, so seeded matches replay exactly.

**Trust.** RLlib checkpoints are pickles (``module_state.pkl``, ``class_and_ctor_args.pkl``): loading
one runs any code its author put in it, so these specs load only with ``trusted=True``
(``--trust-pickle``), like SB3 ``.zip`` files. ray is imported only when a checkpoint is loaded.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from necro_env.game.errors import ConfigError

from .base import BasePolicy, PolicyFileError, PolicyOutputError, UntrustedPolicyError, View

PREFIX = "rllib:"
_MODULE_STATE = "module_state.pkl"


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``rllib:PATH#MODULE`` -> ``(PATH, MODULE or None)``; ``ConfigError`` for an empty path."""
    rest = spec.strip()[len(PREFIX):]
    path, sep, module = rest.rpartition("#") if "#" in rest else (rest, "", "")
    if not path:
        raise ConfigError(f"an rllib policy spec is rllib:PATH#MODULE (e.g. rllib:runs/x/checkpoint#necromancer), "
                          f"got {spec!r}")
    if sep and not module:
        raise ConfigError(f"{spec!r} names no module after '#'")
    return path, (module or None)


def module_ids(path: str) -> dict[str, Path]:
    """The modules of a checkpoint directory: ``{module id: its directory}`` (nothing is loaded)."""
    root = Path(path)
    for base in (root / "learner_group" / "learner" / "rl_module", root):
        if base.is_dir():
            found = {d.name: d for d in sorted(base.iterdir()) if (d / _MODULE_STATE).is_file() and d.is_dir()}
            if found:
                return found
    return {}


def resolve_module_dir(path: str, module: str | None) -> Path:
    """The directory of ``module`` in the checkpoint at ``path``; ``ConfigError`` naming what exists."""
    if not os.path.isdir(path):
        raise ConfigError(f"rllib checkpoint {path} is not a directory")
    mods = module_ids(path)
    if not mods:
        if (Path(path) / _MODULE_STATE).is_file() and module is None:
            return Path(path)  # a single module's directory
        raise ConfigError(f"{path} is not an RLlib checkpoint with RLModules (no */{_MODULE_STATE} under "
                          f"learner_group/learner/rl_module)")
    if module is None:
        if len(mods) == 1:
            return next(iter(mods.values()))
        raise ConfigError(f"{path} holds the modules {sorted(mods)}: name one, e.g. rllib:{path}#{sorted(mods)[0]}")
    if module not in mods:
        raise ConfigError(f"{path} has no module {module!r}; it holds {sorted(mods)}")
    return mods[module]


def check_spec(spec: str, trusted: bool) -> tuple[str, str | None]:
    """Check ``spec`` without loading anything: its syntax, the directory and module, then the trust."""
    path, module = parse_spec(spec)
    resolve_module_dir(path, module)
    if not trusted:
        raise UntrustedPolicyError(
            f"refusing to load {spec}: RLlib checkpoints are pickles and loading one runs any code its author "
            f"put in it. Load only checkpoints you made or trust, with --trust-pickle (trusted=True in the API)")
    return path, module


class RLlibPolicy(BasePolicy):
    """Wraps an RLModule that takes ``{"observation", "action_mask"}`` (``rllib_module.MaskedPPOModule``)."""

    def __init__(self, module, name: str = "rllib", deterministic: bool = True) -> None:
        self.module = module
        self.name = name
        self.deterministic = deterministic

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The module's masked action logits for one observation."""
        import torch

        with torch.no_grad():
            batch = {"obs": {"observation": torch.as_tensor(obs, dtype=torch.float32)[None],
                             "action_mask": torch.as_tensor(mask, dtype=torch.int8)[None]}}
            out = self.module.forward_inference(batch)
            return out["action_dist_inputs"][0].numpy().astype(np.float64)

    def act(self, view: View, rng: np.random.Generator) -> int:
        """One of ``view.legal`` (only the legal actions' logits are ranked, so the module's mask value
        never matters); ``PolicyOutputError`` if those logits give no finite choice."""
        mask = view.mask
        legal = np.flatnonzero(mask)
        z = self.logits(view.observation, mask)[legal]
        if np.isnan(z).any() or (not self.deterministic and not np.isfinite(z.max())):
            raise PolicyOutputError(f"policy {self.name}: the module's logits of the legal actions are not finite")
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(legal[int(rng.choice(len(p), p=p / p.sum()))])


def load_rllib_policy(spec: str, role: str = "player", deterministic: bool = True, *,
                      trusted: bool = False) -> RLlibPolicy:
    """The module named by ``spec`` (``rllib:PATH#MODULE``) as a policy (see the module docstring)."""
    path, module = check_spec(spec, trusted)
    mdir = resolve_module_dir(path, module)
    try:
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ConfigError(f"loading {spec} needs ray[rllib] (pip install 'necro_env[rllib]'): {e}") from None
    torch.set_num_threads(1)
    try:
        rl_module = RLModule.from_checkpoint(str(mdir.resolve()))
    except Exception as e:  # a foreign or damaged directory fails in many ways inside RLlib
        raise PolicyFileError(f"{mdir} is not a loadable RLlib RLModule ({type(e).__name__}: {e})") from None
    from necro_env.game import NUM_ACTIONS
    from necro_env.observe import OBS_SIZE

    obs_space, act_space = getattr(rl_module, "observation_space", None), getattr(rl_module, "action_space", None)
    try:
        shape = obs_space["observation"].shape
    except (KeyError, TypeError):
        shape = None
    if shape != (OBS_SIZE,) or getattr(act_space, "n", None) != NUM_ACTIONS:
        raise PolicyFileError(f"{mdir} is a module for another env: observation {obs_space}, actions {act_space}; "
                              f"necro_env needs Dict(observation=({OBS_SIZE},), action_mask) and {NUM_ACTIONS}")
    rl_module.eval()
    name = f"rllib:{os.path.basename(os.path.normpath(path))}#{mdir.name}"
    return RLlibPolicy(rl_module, name=name, deterministic=deterministic)


__all__ = ["RLlibPolicy", "load_rllib_policy", "parse_spec", "module_ids", "check_spec", "PREFIX"]

"""Typed RLlib training configs (``training/rllib_train.py``): YAML -> dataclass. Unknown keys are an error.

Every key of a config file, with its meaning and default, is a field of :class:`RLlibConfig`.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from necro_env.env import agent_names
from necro_env.game import ConfigError, GameConfig

from training.config import MINUTES_RULE, TrainConfigError, is_minutes, read_yaml

_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MAPPINGS = ("shared", "per_agent")


@dataclass(frozen=True)
class RLlibConfig:
    """One multi-agent PPO run on RLlib's new API stack.

    name: experiment name (run directory ``<out_dir>/<name>__s<seed>``).
    players, necromancer, game_options, reward, max_cycles: the AEC env (``necro_env.env``); ``max_cycles``
        (agent steps, null: off) truncates long games. ``game_options`` are ``GameConfig`` fields
        (``hide_coins`` among them) other than ``players``/``necromancer``, which are keys of their own.
    policy_mapping: which RLModule (policy) each agent uses:
        "shared" (default): every ``player_N`` shares the module ``players``, ``necromancer_0`` has ``necromancer``;
        "per_agent": one module per agent, named after it (``player_0``, ..., ``necromancer_0``);
        or a mapping ``{agent: module id}`` that names every agent of the game (ids: letters, digits, '_').
    hidden: hidden layer sizes of every module's actor and critic MLPs (``MaskedPPOModule``).
    iterations: training iterations (each samples ``train_batch_size`` env steps, then updates).
    max_env_steps: stop after the first iteration that brings the env steps sampled (RLlib's count: every
        agent's step is one env step) to this many (null: ``iterations`` only); max_minutes: stop after
        the first iteration that ends past this wall time of training (null: none). Either one stopping
        the run ends it as ``iterations`` would: the final checkpoint and evaluation.
    num_env_runners: remote env runners (0: sample in the driver process); num_envs_per_env_runner:
        envs each runner steps; num_learners: remote learners (0: learn in the driver process).
    train_batch_size, minibatch_size, num_epochs, lr, gamma, lambda_, entropy_coeff, clip_param,
        vf_loss_coeff, grad_clip: PPO's settings (RLlib's names; ``train_batch_size`` is per learner).
    seed: RLlib's seed (env runners and modules); torch_threads: torch threads per process.
    checkpoint_every: iterations between checkpoints (0: only the final one).
    eval_every: iterations between evaluations through necro_env's harness (0: only at the end;
        ``eval_games: 0`` turns evaluation off). Each module that plays the Necromancer is evaluated
        against ``eval_players`` players, each module that plays a player seat in every player seat
        against ``eval_necromancer`` (win rates with 95% intervals, ``eval.csv``). Necromancer games only:
        base-game runs (``necromancer: false``) are not evaluated.
    out_dir: where run directories go.
    """

    name: str
    players: int = 3
    necromancer: bool = True
    game_options: dict = field(default_factory=dict)
    reward: str = "win"
    max_cycles: int | None = None
    policy_mapping: Any = "shared"
    hidden: tuple = (256, 256)
    iterations: int = 100
    max_env_steps: int | None = None
    max_minutes: float | None = None
    num_env_runners: int = 0
    num_envs_per_env_runner: int = 1
    num_learners: int = 0
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    vf_loss_coeff: float = 0.5
    grad_clip: float = 0.5
    seed: int = 0
    torch_threads: int = 1
    checkpoint_every: int = 10
    eval_every: int = 10
    eval_games: int = 100
    eval_players: str = "greedy"
    eval_necromancer: str = "heuristic"
    out_dir: str = "runs"

    def __post_init__(self) -> None:
        def need(cond: bool, msg: str) -> None:
            if not cond:
                raise TrainConfigError(msg)

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        need(isinstance(self.name, str) and bool(self.name) and self.name.replace("_", "").replace("-", "").isalnum(),
             f"name must be letters, digits, '-' or '_', got {self.name!r}")
        need(isinstance(self.necromancer, bool), f"necromancer must be true or false, got {self.necromancer!r}")
        need(isinstance(self.game_options, dict), "game_options must be a mapping")
        reserved = {"players", "necromancer"} & set(self.game_options)  # top-level keys of this config
        need(not reserved, f"game_options may not set {sorted(reserved)}")
        need(is_int(self.players), f"players must be an int, got {self.players!r}")
        try:  # the game checks the seats and every game option at load time
            GameConfig(players=self.players, necromancer=self.necromancer, **self.game_options)
        except (ConfigError, TypeError) as e:
            raise TrainConfigError(f"game_options: {e}") from None
        need(self.reward in ("win", "rank", "coins"), f"reward must be win, rank or coins, got {self.reward!r}")
        need(self.max_cycles is None or (is_int(self.max_cycles) and self.max_cycles >= 1),
             f"max_cycles must be null or an int >= 1, got {self.max_cycles!r}")
        need(isinstance(self.hidden, tuple) and len(self.hidden) >= 1
             and all(is_int(h) and 1 <= h <= 8192 for h in self.hidden),
             f"hidden must be a list of ints in 1..8192, got {self.hidden!r}")
        for k in ("iterations", "num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs",
                  "torch_threads"):
            v = getattr(self, k)
            need(is_int(v) and v >= 1, f"{k} must be an int >= 1, got {v!r}")
        for k in ("num_env_runners", "num_learners", "seed", "checkpoint_every", "eval_every", "eval_games"):
            v = getattr(self, k)
            need(is_int(v) and v >= 0, f"{k} must be an int >= 0, got {v!r}")
        need(self.max_env_steps is None or (is_int(self.max_env_steps) and self.max_env_steps >= 1),
             f"max_env_steps must be null or an int >= 1, got {self.max_env_steps!r}")
        need(self.max_minutes is None or is_minutes(self.max_minutes),
             f"max_minutes must be null or {MINUTES_RULE}, got {self.max_minutes!r}")
        need(self.minibatch_size <= self.train_batch_size,
             f"minibatch_size ({self.minibatch_size}) must not exceed train_batch_size ({self.train_batch_size})")
        for k in ("lr", "gamma", "lambda_", "entropy_coeff", "clip_param", "vf_loss_coeff", "grad_clip"):
            v = getattr(self, k)
            need(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
                 f"{k} must be a finite number, got {v!r}")
        need(0 < self.lr < 1, f"lr must be in (0, 1), got {self.lr}")
        need(0 < self.gamma <= 1 and 0 < self.lambda_ <= 1, "gamma and lambda_ must be in (0, 1]")
        need(self.entropy_coeff >= 0 and 0 < self.clip_param < 1 and self.vf_loss_coeff >= 0 and self.grad_clip > 0,
             "entropy_coeff >= 0, clip_param in (0, 1), vf_loss_coeff >= 0, grad_clip > 0")
        for k in ("eval_players", "eval_necromancer", "out_dir"):
            need(isinstance(getattr(self, k), str) and getattr(self, k), f"{k} must be a non-empty string")
        self.mapping()  # raises for a bad policy_mapping

    def agents(self) -> list[str]:
        """The env's agents (``possible_agents``)."""
        return agent_names(GameConfig(players=self.players, necromancer=self.necromancer, **self.game_options))

    def mapping(self) -> dict[str, str]:
        """``{agent: module id}`` for every agent of the game."""
        agents = self.agents()
        pm = self.policy_mapping
        if pm == "shared":
            return {a: ("necromancer" if a.startswith("necromancer") else "players") for a in agents}
        if pm == "per_agent":
            return {a: a for a in agents}
        if not isinstance(pm, dict):
            raise TrainConfigError(f"policy_mapping must be 'shared', 'per_agent' or a mapping {{agent: module id}}, "
                                   f"got {pm!r}")
        missing, unknown = sorted(set(agents) - set(pm)), sorted(map(str, set(pm) - set(agents)))
        if missing or unknown:
            raise TrainConfigError(f"policy_mapping must name exactly the agents {agents}"
                                   + (f"; missing {missing}" if missing else "") + (f"; unknown {unknown}" if unknown else ""))
        for a, mid in pm.items():
            if not (isinstance(mid, str) and _ID.match(mid)):
                raise TrainConfigError(f"policy_mapping: the module id of {a} must be letters, digits or '_' "
                                       f"starting with a letter, got {mid!r}")
        return {a: pm[a] for a in agents}

    def modules(self) -> list[str]:
        """The module ids, in the order of their first agent."""
        return list(dict.fromkeys(self.mapping().values()))

    def env_config(self) -> dict[str, Any]:
        """The keyword arguments of ``necro_env.env`` for this run."""
        cfg = dict(players=self.players, necromancer=self.necromancer, reward=self.reward, **self.game_options)
        if self.max_cycles is not None:
            cfg["max_cycles"] = self.max_cycles
        return cfg

    @property
    def run_name(self) -> str:
        return f"{self.name}__s{self.seed}"

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def config_from_dict(data: Any, where: str = "config") -> RLlibConfig:
    if not isinstance(data, dict):
        raise TrainConfigError(f"{where} must be a mapping, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = sorted(map(str, set(data) - known))
    if unknown:
        raise TrainConfigError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(known)}")
    if "name" not in data:
        raise TrainConfigError(f"{where}: the key 'name' is required")
    data = dict(data)
    if "hidden" in data:
        if not isinstance(data["hidden"], (list, tuple)):
            raise TrainConfigError(f"{where}: hidden must be a list of ints, got {data['hidden']!r}")
        data["hidden"] = tuple(data["hidden"])
    try:
        return RLlibConfig(**data)
    except (TrainConfigError, TypeError) as e:
        raise TrainConfigError(f"{where}: {e}") from None


def load_config(path: str | Path) -> RLlibConfig:
    """Read a YAML config; ``TrainConfigError`` names the file and the bad key or value."""
    return config_from_dict(read_yaml(path), where=str(Path(path)))


__all__ = ["RLlibConfig", "config_from_dict", "load_config", "MAPPINGS"]

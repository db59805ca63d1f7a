"""Typed training configs: YAML -> dataclass. Unknown keys are an error.

Every key of a config file, with its meaning and default, is a field below.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from necro_env.game import ConfigError, GameConfig


#: The wall-time caps' bound (``max_minutes``), in minutes: about two years, far beyond any run.
MAX_MINUTES = 1e6
#: What the errors of a bad cap say is allowed.
MINUTES_RULE = f"a positive number of minutes below {MAX_MINUTES:g}"


def is_minutes(value: Any) -> bool:
    """Whether ``value`` is a number of minutes in (0, ``MAX_MINUTES``) (not a bool): the wall-time caps'
    (``max_minutes``) one check, in every config and command that takes one."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < MAX_MINUTES


def policy_role(learner: str) -> str:
    """The role a policy file of ``learner`` records: "necromancer" or "player" (a "players" team
    network acts for any player seat, so its files are player policies)."""
    return "necromancer" if learner == "necromancer" else "player"


class TrainConfigError(ConfigError):
    """A training config has an unknown key or a value out of range (a ``ConfigError``, so a ``ValueError``)."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play: opponent seats are played by past snapshots of the learner.

    snapshot_every: steps between snapshots added to the pool.
    pool_size: opponents are drawn from the newest pool_size snapshots (all are kept on disk).
    p_snapshot: probability that an opponent seat uses a snapshot (else a baseline from
        ``TrainConfig.opponents``) in each episode.
    """

    snapshot_every: int = 20_000
    pool_size: int = 5
    p_snapshot: float = 0.5


@dataclass(frozen=True)
class WarmStartConfig:
    """Behaviour cloning before PPO (``training/bc.py``): a scripted teacher plays the learner's seat
    against the training opponents; the network's actor learns its decisions (masked cross-entropy)
    and its critic the discounted returns the env would give (the outcome plus the run's progress
    shaping). Skipped when a run resumes.

    teacher: policy spec of the teacher ("heuristic" for the Necromancer, "greedy" for a player).
    games: demonstration games; epochs, batch_size, learning_rate: the cloning's Adam run (the
        learning rate decays linearly to 0); value_coef: weight of the critic's loss; workers:
        processes that play the demonstration games.
    """

    teacher: str = "heuristic"
    games: int = 2000
    epochs: int = 6
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_coef: float = 0.5
    workers: int = 2


@dataclass(frozen=True)
class TrainConfig:
    """One training run.

    name: experiment name (run directory ``runs/<name>__s<seed>``).
    players: seats, the Necromancer included (3-6 with the Necromancer, 2-5 without).
    necromancer: play the Necromancer scenario.
    learner: "necromancer", "player" (one player seat, rotated) or "players" (one network plays every
        player seat against the Necromancer, with reward "coalition"; ``necro_env.single_seat``).
    opponents: policy spec for the player seats the learner does not play
        ("random", "greedy", or a path to a saved model).
    necromancer_opponent: policy spec for the Necromancer when the learner is a player.
    opponent_pool: optional pool of the player side, a list of ``{spec, weight}`` (weight > 0, default
        1): each episode draws one of its policies (probability proportional to the weight, with the
        env's own generator) to play every player seat the learner does not hold (for a Necromancer
        learner: the whole team). None: ``opponents`` plays them. Not with learner "players" or
        self-play. (training/league_train.py writes these from its mixture.)
    necromancer_pool: the same for the Necromancer (learner "player" or "players"); None:
        ``necromancer_opponent``. The periodic evaluation and the warm start still play
        ``opponents`` / ``necromancer_opponent``.
    reward: "win" (terminal +-1), "rank", "coins" or "coalition" (the players' team reward, for
        learner "players"; see necro_env.rewards).
    shaping: weight of the potential-based progress shaping (see necro_env.wrappers).
    total_steps, n_envs, seed.
    vec_env: "dummy" (every env in the learner's process), "subproc" (SB3's SubprocVecEnv: a process
        per env), "chunked" (``training/vec_env.py``: the envs split over ``env_workers`` processes,
        the action masks sent with each step; the way to use both cores of a 2-core machine) or
        "batched" (``training/vec_env.py``'s ``BatchedOpponentsVecEnv``: "dummy" whose learned opponents,
        self-play snapshots and policy files, decide for all envs in one forward pass per network;
        the one to use against learned opponents, with ``pipeline``).
    env_workers: worker processes of the "chunked" vec env.
    torch_threads: torch's threads in the learner's process while it collects rollouts;
        update_threads: while it runs the PPO update (None: torch_threads). With "chunked" the
        workers are idle during the update, so update_threads 2 uses both cores then.
    pipeline: overlap collection and update (``training/pipeline.py``): the next rollout is collected
        by a copy of the weights while the update runs in a thread, so on 2 cores each gets one
        (use with torch_threads 1 and vec_env "dummy" or "batched"); the data is one update stale.
    max_minutes: wall-time cap of the whole run, warm start included (None: none). When it is
        reached, PPO stops at the next step and the final policy is saved as if total_steps had been
        reached (its info records the steps actually taken).
    policy: the network (``necro_env.agents.nets``): "mlp" (hidden sizes ``net_arch``) or "region"
        (per-region weight-shared; its sizes in ``net``, e.g. ``{d: 64, layers: 2}``).
    net_arch: hidden layer sizes of the "mlp" policy's actor and critic.
    net: extra arguments of the network (``RegionNet``: d, layers, hidden, emb).
    lr_schedule: "constant" or "linear" (decays to 0 at total_steps).
    target_kl: stop an update's epochs early past this KL divergence (None: never).
    critic_warmup_steps: PPO's first steps train the critic only, the actor (and the shared trunk)
        frozen (0: none). After a warm start it lets the value catch up with the return of the
        cloned policy before that policy moves.
    average_last: the final policy is the mean of the weights of the newest ``average_last``
        checkpoints (the run's end included; every ``checkpoint_every`` steps); 1: the last weights.
    vf_coef, max_grad_norm: PPO's value-loss weight and gradient clipping.
    warm_start: optional WarmStartConfig (behaviour cloning before PPO).
    init_policy: optional policy spec (``pretrained:NAME`` or a ``.safetensors`` path) of the learner's
        role whose weights are PPO's starting point; its architecture must be the config's network.
        Not with ``warm_start`` (both choose the starting point). training/league_train.py uses it to
        go on from a side's previous generation.
    learning_rate, n_steps, batch_size, n_epochs, gamma, gae_lambda, ent_coef, clip_range: PPO.
    checkpoint_every: steps between resumable checkpoints (0 = only at the end).
    eval_every: steps between evaluations against the baselines (0 = none); eval_games per evaluation.
    eval_opponents: player policy spec used in the periodic evaluation ("": ``opponents``; "self", for
        learner "player" in the scenario: the learner's network plays every player seat and wins the
        games the Necromancer loses, as a "players" team does).
    game_options: extra GameConfig options (e.g. handicap).
    selfplay: optional SelfPlayConfig.
    out_dir: where run directories are created.
    """

    name: str
    players: int = 3
    necromancer: bool = True
    learner: str = "necromancer"
    opponents: str = "random"
    necromancer_opponent: str = "heuristic"
    opponent_pool: tuple[dict, ...] | None = None
    necromancer_pool: tuple[dict, ...] | None = None
    reward: str = "win"
    shaping: float = 0.0
    total_steps: int = 100_000
    max_minutes: float | None = None
    n_envs: int = 4
    vec_env: str = "dummy"
    env_workers: int = 2
    update_threads: int | None = None
    pipeline: bool = False
    seed: int = 0
    torch_threads: int = 1
    policy: str = "mlp"
    net_arch: tuple[int, ...] = (256, 256)
    net: dict = field(default_factory=dict)
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"
    target_kl: float | None = None
    critic_warmup_steps: int = 0
    average_last: int = 1
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.999
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    checkpoint_every: int = 50_000
    eval_every: int = 0
    eval_games: int = 100
    eval_opponents: str = ""
    game_options: dict = field(default_factory=dict)
    selfplay: SelfPlayConfig | None = None
    warm_start: WarmStartConfig | None = None
    init_policy: str | None = None
    out_dir: str = "runs"

    def __post_init__(self) -> None:
        def need(cond: bool, msg: str) -> None:
            if not cond:
                raise TrainConfigError(msg)

        for k in ("shaping", "learning_rate", "gamma", "gae_lambda", "ent_coef", "clip_range", "vf_coef",
                  "max_grad_norm"):
            v = getattr(self, k)
            need(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
                 f"{k} must be a finite number, got {v!r}")
        for k in ("opponents", "necromancer_opponent", "eval_opponents", "out_dir"):
            need(isinstance(getattr(self, k), str), f"{k} must be a string, got {getattr(self, k)!r}")
        need(isinstance(self.pipeline, bool), f"pipeline must be true or false, got {self.pipeline!r}")
        need(not self.pipeline or self.update_threads is None,
             "pipeline and update_threads do not mix: the update runs beside the collection, on torch_threads")
        need(isinstance(self.necromancer, bool), f"necromancer must be true or false, got {self.necromancer!r}")

        need(isinstance(self.name, str) and self.name.replace("_", "").replace("-", "").isalnum(),
             f"name must be letters, digits, '-' or '_', got {self.name!r}")
        need(self.learner in ("necromancer", "player", "players"),
             f"learner must be 'necromancer', 'player' or 'players', got {self.learner!r}")
        if self.learner in ("necromancer", "players"):
            need(self.necromancer, f"learner '{self.learner}' needs necromancer: true")
        need(self.reward in ("win", "rank", "coins", "coalition"),
             f"reward must be win, rank, coins or coalition, got {self.reward!r}")
        need((self.learner == "players") == (self.reward == "coalition"),
             "learner 'players' (every player seat on one trajectory) goes with reward 'coalition' and only with it, "
             f"got learner {self.learner!r} and reward {self.reward!r}")
        need(self.eval_opponents != "self" or (self.learner == "player" and self.necromancer),
             "eval_opponents 'self' (the learner's network in every player seat) needs learner 'player' and "
             f"necromancer: true, got learner {self.learner!r}, necromancer {self.necromancer!r}")
        need(self.learner != "players" or self.selfplay is None,
             "learner 'players' plays every player seat: there is no player seat left for self-play snapshots")
        need(isinstance(self.shaping, (int, float)) and self.shaping >= 0, f"shaping must be >= 0, got {self.shaping!r}")
        need(self.vec_env in ("dummy", "subproc", "chunked", "batched"),
             f"vec_env must be 'dummy', 'subproc', 'chunked' or 'batched', got {self.vec_env!r}")

        need(self.update_threads is None or (isinstance(self.update_threads, int)
                                             and not isinstance(self.update_threads, bool) and self.update_threads >= 1),
             f"update_threads must be null or an int >= 1, got {self.update_threads!r}")
        for k in ("total_steps", "n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads", "eval_games",
                  "average_last"):
            v = getattr(self, k)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{k} must be an int >= 1, got {v!r}")
        need(isinstance(self.env_workers, int) and not isinstance(self.env_workers, bool)
             and 1 <= self.env_workers <= (self.n_envs if self.vec_env == "chunked" else self.env_workers),
             f"env_workers must be an int in 1..n_envs ({self.n_envs}), got {self.env_workers!r}")
        for k in ("checkpoint_every", "eval_every", "seed", "critic_warmup_steps"):
            v = getattr(self, k)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"{k} must be an int >= 0, got {v!r}")
        need(all(isinstance(h, int) and not isinstance(h, bool) and h >= 1 for h in self.net_arch)
             and len(self.net_arch) >= 1,
             f"net_arch must be a list of positive ints, got {self.net_arch!r}")
        need(0 < self.learning_rate < 1, f"learning_rate must be in (0, 1), got {self.learning_rate}")
        need(0 < self.gamma <= 1 and 0 < self.gae_lambda <= 1, "gamma and gae_lambda must be in (0, 1]")
        need(self.ent_coef >= 0 and 0 < self.clip_range < 1, "ent_coef must be >= 0 and clip_range in (0, 1)")
        need(self.policy in ("mlp", "region"), f"policy must be 'mlp' or 'region', got {self.policy!r}")
        need(isinstance(self.net, dict) and all(isinstance(k, str) for k in self.net), "net must be a mapping")
        need(self.lr_schedule in ("constant", "linear"), f"lr_schedule must be 'constant' or 'linear', "
                                                        f"got {self.lr_schedule!r}")
        need(self.target_kl is None or (isinstance(self.target_kl, (int, float)) and not isinstance(self.target_kl, bool)
                                        and 0 < self.target_kl < 10),
             f"target_kl must be null or a number in (0, 10), got {self.target_kl!r}")
        need(self.max_minutes is None or is_minutes(self.max_minutes),
             f"max_minutes must be null or {MINUTES_RULE}, got {self.max_minutes!r}")
        need(self.vf_coef >= 0 and self.max_grad_norm > 0, "vf_coef must be >= 0 and max_grad_norm > 0")
        try:  # the network must build (unknown argument names, bad sizes)
            from necro_env.agents.nets import build_net
            build_net(self.net_spec)
        except ImportError:  # torch missing: train.py reports that itself
            pass
        except (ConfigError, ValueError, TypeError, RuntimeError) as e:
            raise TrainConfigError(f"net: {e}") from None
        if self.warm_start is not None:
            ws = self.warm_start
            for k in ("games", "epochs", "batch_size", "workers"):
                v = getattr(ws, k)
                need(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"warm_start: {k} must be an int >= 1")
            need(isinstance(ws.teacher, str), "warm_start: teacher must be a policy spec (a string)")
            need(0 < ws.learning_rate < 1 and ws.value_coef >= 0,
                 "warm_start: learning_rate in (0, 1), value_coef >= 0")
        if self.init_policy is not None:
            need(isinstance(self.init_policy, str) and self.init_policy.strip() != "",
                 f"init_policy must be null or a policy spec (pretrained:NAME or a .safetensors file), "
                 f"got {self.init_policy!r}")
            need(self.warm_start is None, "init_policy and warm_start both choose PPO's starting point: use one of them")
            need(self.init_policy.strip().lower().startswith("pretrained:") or self.init_policy.endswith(".safetensors"),
                 f"init_policy must be pretrained:NAME or a .safetensors policy file, got {self.init_policy!r}")
            self._check_init_policy()
        need(isinstance(self.game_options, dict), "game_options must be a mapping")
        reserved = {"players", "necromancer"} & set(self.game_options)
        need(not reserved, f"game_options may not set {sorted(reserved)}: use the top-level keys")
        try:  # the game itself checks the seats and every game option, at load time
            GameConfig(players=self.players, necromancer=self.necromancer, **self.game_options)
        except (ConfigError, TypeError) as e:
            raise TrainConfigError(f"game_options: {e}") from None
        for key, role in (("opponent_pool", "player"), ("necromancer_pool", "necromancer")):
            pool = getattr(self, key)
            if pool is None:
                continue
            if isinstance(pool, list):  # given from Python: stored as a tuple
                pool = tuple(pool)
                object.__setattr__(self, key, pool)
            need(isinstance(pool, tuple) and len(pool) >= 1, f"{key} must be null or a non-empty list of "
                                                             f"{{spec, weight}}, got {pool!r}")
            for i, e in enumerate(pool):
                need(isinstance(e, dict) and set(e) == {"spec", "weight"} and isinstance(e["spec"], str)
                     and e["spec"].strip() != "",
                     f"{key}[{i}] must be a mapping with a policy spec (a string) and an optional weight, got {e!r}")
                w = e["weight"]
                need(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) and w > 0,
                     f"{key}[{i}] weight must be a number > 0, got {w!r}")
                try:  # a known name, a shipped file or an existing file (loaded only by the envs)
                    from necro_env.agents.registry import check_policy
                    check_policy(e["spec"], role, trusted=True)
                except ConfigError as err:
                    raise TrainConfigError(f"{key}[{i}]: {err}") from None
            specs = [e["spec"] for e in pool]
            need(len(set(specs)) == len(specs), f"{key} names a spec twice: {specs}")
        need(self.opponent_pool is None or self.learner != "players",
             "opponent_pool: learner 'players' holds every player seat; there is no player opponent to draw")
        need(self.opponent_pool is None or self.selfplay is None,
             "opponent_pool and selfplay both choose the player opponents: use one of them")
        need(self.necromancer_pool is None or (self.learner != "necromancer" and self.necromancer),
             "necromancer_pool is for a player learner in a Necromancer game (the learner is not the Necromancer)")
        if self.selfplay is not None:
            sp = self.selfplay
            ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (sp.snapshot_every, sp.pool_size))
            need(ints and isinstance(sp.p_snapshot, (int, float)) and not isinstance(sp.p_snapshot, bool)
                 and sp.snapshot_every >= 1 and sp.pool_size >= 1 and 0 <= sp.p_snapshot <= 1,
                 "selfplay: snapshot_every >= 1, pool_size >= 1 (ints), p_snapshot in [0, 1]")

    def _check_init_policy(self) -> None:
        """``init_policy`` names a policy file of the learner's role whose network is the config's."""
        from necro_env.agents.registry import PRETRAINED_DIR, PRETRAINED_PREFIX, check_policy

        role = policy_role(self.learner)
        spec = self.init_policy.strip()
        try:
            check_policy(spec, role)
        except ConfigError as err:
            raise TrainConfigError(f"init_policy: {err}") from None
        path = (PRETRAINED_DIR / f"{spec[len(PRETRAINED_PREFIX):]}.safetensors"
                if spec.lower().startswith(PRETRAINED_PREFIX) else Path(spec))
        try:
            from necro_env.agents.nets import build_net
            from necro_env.agents.torch_policy import policy_header
        except ImportError:  # torch missing: train.py reports that itself
            return
        header = policy_header(path)  # PolicyFileError (a ConfigError) if it is not one
        if header["role"] != role:
            raise TrainConfigError(f"init_policy {spec}: a {header['role']} policy, the learner is the {role}")
        mine = build_net(self.net_spec).arch
        if header["arch"] != mine:
            raise TrainConfigError(f"init_policy {spec}: its network {header['arch']} is not the config's {mine} "
                                   f"(set policy and net to the file's)")

    @property
    def net_spec(self) -> dict:
        """The network's architecture dict (``necro_env.agents.nets.build_net``)."""
        if self.policy == "mlp":
            return {"kind": "mlp", "hidden": list(self.net_arch), **self.net}
        return {"kind": "region", **self.net}

    @property
    def run_name(self) -> str:
        return f"{self.name}__s{self.seed}"

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["net_arch"] = list(self.net_arch)
        for key in ("opponent_pool", "necromancer_pool"):
            if d[key] is not None:
                d[key] = [dict(e) for e in d[key]]
        return d


def check_keys(cls, data: Any, where: str, error: type[TrainConfigError] = TrainConfigError) -> dict:
    """``data`` if it is a mapping whose keys are all fields of the dataclass ``cls``; ``error`` otherwise,
    naming the unknown keys and the allowed ones."""
    if not isinstance(data, dict):
        raise error(f"{where} must be a mapping, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise error(f"unknown key(s) {unknown} in {where}; allowed: {sorted(known)}")
    return data


def config_from_dict(data: dict, where: str = "config") -> TrainConfig:
    data = dict(check_keys(TrainConfig, data, where))
    if data.get("selfplay") is not None:
        data["selfplay"] = SelfPlayConfig(**check_keys(SelfPlayConfig, data["selfplay"], f"{where}: selfplay"))
    if data.get("warm_start") is not None:
        data["warm_start"] = WarmStartConfig(**check_keys(WarmStartConfig, data["warm_start"], f"{where}: warm_start"))
    for key in ("opponent_pool", "necromancer_pool"):
        pool = data.get(key)
        if pool is None:
            continue
        if not isinstance(pool, (list, tuple)):
            raise TrainConfigError(f"{where}: {key} must be null or a list of {{spec, weight}}, got {pool!r}")
        entries = []
        for i, e in enumerate(pool):
            if not isinstance(e, dict) or set(e) - {"spec", "weight"} or "spec" not in e:
                raise TrainConfigError(f"{where}: {key}[{i}] must be a mapping with keys spec and an optional "
                                       f"weight, got {e!r}")
            entries.append({"spec": e["spec"], "weight": e.get("weight", 1.0)})
        data[key] = tuple(entries)
    if "net_arch" in data:
        if not isinstance(data["net_arch"], (list, tuple)):
            raise TrainConfigError(f"{where}: net_arch must be a list of positive ints, got {data['net_arch']!r}")
        data["net_arch"] = tuple(data["net_arch"])
    if "name" not in data:
        raise TrainConfigError(f"{where}: the key 'name' is required")
    try:
        return TrainConfig(**data)
    except (TrainConfigError, TypeError) as e:
        raise TrainConfigError(f"{where}: {e}") from None


def read_yaml(path: str | Path) -> Any:
    """A config file's YAML (``{}`` when empty); ``TrainConfigError`` if it is missing, unreadable or not YAML."""
    path = Path(path)
    if not path.is_file():
        raise TrainConfigError(f"config file {path} does not exist")
    try:
        with path.open(encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (yaml.YAMLError, ValueError, RecursionError) as e:  # ValueError: bad UTF-8, a 4,300+ digit int
        raise TrainConfigError(f"{path}: not a valid YAML config ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    except OSError as e:
        raise TrainConfigError(f"{path}: cannot read the config ({e})") from None
    return {} if data is None else data


def load_config(path: str | Path) -> TrainConfig:
    """Read a YAML config; ``TrainConfigError`` names the file and the bad key/value."""
    return config_from_dict(read_yaml(path), where=str(Path(path)))

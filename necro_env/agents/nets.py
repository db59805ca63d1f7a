"""Torch networks over necro_env observations: ``RegionNet`` (per-region, weight-shared) and ``MlpNet``.

Imported only when a learned policy is built or loaded (``import necro_env`` never imports torch).
Both map a batch of observation vectors (``necro_env.observe``, float32 ``(B, OBS_SIZE)``) to the
logits of every action of the table (``(B, NUM_ACTIONS)``, masking is the caller's) and a value
``(B,)``. Both are plain ``nn.Module``s: training wraps them in an SB3 policy (``training/``),
inference (``necro_env.agents.torch_policy``) runs them directly. ``build_net(arch)`` builds one
from a JSON-ready dict, so a saved policy is its weights plus that dict, never a pickle; the dict is
checked first (``check_arch``: kind, keys, integer bounds, at most ``MAX_PARAMETERS`` parameters counted
by ``arch_parameters`` from the tensor shapes ``arch_shapes`` lists), so nothing is allocated for a
hostile one.

``RegionNet`` (the default for learning; RULES of thumb from LEARNING.md §4):

* a token per region: its ``region_static`` and ``region`` columns plus the learning columns
  (``region_learn``, when the layout has them) and a learned embedding of (board, region id),
  through a shared MLP to ``d`` features, plus a projection of the global context (the seat,
  combo, necro and glob blocks) added to every token;
* ``layers`` rounds of message passing over the board's fixed borders (the boards' adjacency is a
  buffer, picked per sample by the observation's board one-hot): ``h += relu(W_self h + W_nbr mean_nbrs h)``;
* per-region logits from one shared ``Linear(d, 10)`` scattered into the ten 48-wide region blocks
  (ABANDON, CONQUER, FINAL, LIFT, PLACE, DRAGON, HERO, ENCAMP, FORTRESS, CONVERT);
* the 29 other actions and the value from the pooled tokens (mean and max over the board's regions)
  and the global context, through two small MLPs (actor and critic heads kept apart);
* orthogonal init, the logit layers scaled by 0.01 (so a fresh policy is near uniform).

``MlpNet`` is the flat baseline (the MLP of SB3's ``MlpPolicy``: separate actor and critic MLPs).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from necro_env.game.actions import NUM_ACTIONS, OFFSET, SIZES, Kind
from necro_env.game.board import BOARD_KEYS, MAX_REGIONS, load_board
from necro_env.observe import OBS_SIZE, OFFSETS

REGION_KINDS = (Kind.ABANDON, Kind.CONQUER, Kind.FINAL, Kind.LIFT, Kind.PLACE, Kind.DRAGON, Kind.HERO,
                Kind.ENCAMP, Kind.FORTRESS, Kind.CONVERT)
#: The actions that do not name a region, in action-index order.
OTHER_ACTIONS = tuple(a for k in Kind if k not in REGION_KINDS for a in range(OFFSET[k], OFFSET[k] + SIZES[k]))


def _region_blocks() -> list[tuple[int, int]]:
    """(start, width) in the observation of each per-region block, in order."""
    out = [OFFSETS["region_static"], OFFSETS["region"]]
    if "region_learn" in OFFSETS:
        out.append(OFFSETS["region_learn"])
    return out


def _global_slice() -> tuple[int, int]:
    """The observation entries after the per-region blocks (seat, combo, necro, glob), as (start, end)."""
    return OFFSETS["seat"][0], OBS_SIZE


def _adjacency() -> torch.Tensor:
    """(4, R, R): per board, row-normalised borders (a region's neighbours' mean); zero rows past the board."""
    a = torch.zeros(len(BOARD_KEYS), MAX_REGIONS, MAX_REGIONS)
    for i, key in enumerate(BOARD_KEYS):
        b = load_board(key)
        for u, v in b.edges:
            a[i, u, v] = a[i, v, u] = 1.0
    deg = a.sum(-1, keepdim=True).clamp(min=1.0)
    return a / deg


def _init(module: nn.Module, gain: float) -> None:
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=gain)
            nn.init.zeros_(m.bias)


def _mlp(sizes: list[int], last_act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class RegionNet(nn.Module):
    """Per-region weight-shared actor-critic (see the module docstring)."""

    def __init__(self, d: int = 64, layers: int = 2, hidden: int = 128, emb: int = 16) -> None:
        super().__init__()
        self.arch = {"kind": "region", "d": d, "layers": layers, "hidden": hidden, "emb": emb,
                     "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS}
        self._blocks = _region_blocks()
        self._glob = _global_slice()
        per_region = sum(w for _, w in self._blocks) // MAX_REGIONS
        n_glob = self._glob[1] - self._glob[0]
        b0, nb = OFFSETS["glob.board_onehot"]
        self._board = (b0, b0 + nb)
        self._exists_col = 0  # region_static column 0: the region exists on this board
        self.region_emb = nn.Embedding(len(BOARD_KEYS) * MAX_REGIONS, emb)
        self.token = _mlp([per_region + emb, d, d])
        self.context = _mlp([n_glob, hidden, d])
        self.mp_self = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.mp_nbr = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.region_logits = nn.Linear(d, len(REGION_KINDS))
        self.actor = _mlp([3 * d, hidden, hidden])
        self.other_logits = nn.Linear(hidden, len(OTHER_ACTIONS))
        self.critic = _mlp([3 * d, hidden, hidden])
        self.value_out = nn.Linear(hidden, 1)
        self.register_buffer("adj", _adjacency(), persistent=False)
        self.register_buffer("region_ids", torch.arange(MAX_REGIONS), persistent=False)
        idx = torch.tensor([[OFFSET[k] + r for k in REGION_KINDS] for r in range(MAX_REGIONS)])
        self.register_buffer("region_action", idx.reshape(-1), persistent=False)
        self.register_buffer("other_action", torch.tensor(OTHER_ACTIONS), persistent=False)
        _init(self, math.sqrt(2))
        _init(self.region_logits, 0.01)
        _init(self.other_logits, 0.01)
        _init(self.value_out, 1.0)
        nn.init.normal_(self.region_emb.weight, std=0.1)

    def trunk(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Region tokens ``(B, r, d)``, the existence mask ``(B, r, 1)`` and the pooled features ``(B, 3d)``,
        for the first ``r`` regions (up to the largest board in the batch: the rest do not exist)."""
        bsz = obs.shape[0]
        parts = [obs[:, s:s + w].reshape(bsz, MAX_REGIONS, -1) for s, w in self._blocks]
        exists = parts[0][:, :, self._exists_col:self._exists_col + 1]
        r = int(exists.amax(0).nonzero()[:, 0].max()) + 1 if bool(exists.any()) else 1
        if r < MAX_REGIONS:
            parts = [x[:, :r] for x in parts]
            exists = exists[:, :r]
        board = obs[:, self._board[0]:self._board[1]].argmax(-1)                       # (B,)
        ids = board[:, None] * MAX_REGIONS + self.region_ids[None, :r]                  # (B, r)
        x = torch.cat(parts + [self.region_emb(ids)], dim=-1)
        ctx = self.context(obs[:, self._glob[0]:self._glob[1]])                         # (B, d)
        h = (self.token(x) + ctx[:, None, :]) * exists
        adj = self.adj[board][:, :r, :r]                                                # (B, r, r)
        for w_self, w_nbr in zip(self.mp_self, self.mp_nbr):
            h = h + torch.relu(w_self(h) + w_nbr(torch.bmm(adj, h))) * exists
        n = exists.sum(1).clamp(min=1.0)
        mean = h.sum(1) / n
        top = (h - (1.0 - exists) * 1e4).amax(1)
        return h, exists, torch.cat([mean, top, ctx], dim=-1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, _, pooled = self.trunk(obs)
        logits = obs.new_zeros(obs.shape[0], NUM_ACTIONS)
        r = h.shape[1]
        logits[:, self.region_action[:r * len(REGION_KINDS)]] = self.region_logits(h).reshape(obs.shape[0], -1)
        logits[:, self.other_action] = self.other_logits(self.actor(pooled))
        return logits, self.value_out(self.critic(pooled)).squeeze(-1)


class MlpNet(nn.Module):
    """Flat baseline: separate actor and critic MLPs over the whole observation."""

    def __init__(self, hidden: tuple[int, ...] | list[int] = (256, 256)) -> None:
        super().__init__()
        hidden = [int(h) for h in hidden]
        self.arch = {"kind": "mlp", "hidden": hidden, "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS}
        self.actor = _mlp([OBS_SIZE, *hidden])
        self.logits = nn.Linear(hidden[-1], NUM_ACTIONS)
        self.critic = _mlp([OBS_SIZE, *hidden])
        self.value_out = nn.Linear(hidden[-1], 1)
        _init(self, math.sqrt(2))
        _init(self.logits, 0.01)
        _init(self.value_out, 1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.logits(self.actor(obs)), self.value_out(self.critic(obs)).squeeze(-1)


NETS = {"region": RegionNet, "mlp": MlpNet}

#: The most parameters an architecture may ask for (``check_arch``): about 200 MB of float32 weights.
MAX_PARAMETERS = 50_000_000
#: Per kind, every key an architecture dict may hold with its default (``None``: a key that is
#: always this necro_env's own value), and the bounds of each integer argument.
ARCH_KEYS = {
    "region": {"kind": None, "d": 64, "layers": 2, "hidden": 128, "emb": 16, "obs_size": None, "num_actions": None},
    "mlp": {"kind": None, "hidden": [256, 256], "obs_size": None, "num_actions": None},
}
ARCH_BOUNDS = {"d": (1, 4096), "layers": (0, 64), "hidden": (1, 65536), "emb": (1, 4096)}
MLP_MAX_LAYERS = 16


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_arch(arch: Any, complete: bool = False) -> dict[str, Any]:
    """The architecture ``arch`` with its defaults filled in, checked before anything is allocated:
    ``kind`` in ``NETS``; no key but the kind's (``ARCH_KEYS``; all of them when ``complete``, as in a
    saved file); integer fields plain ints within ``ARCH_BOUNDS`` (an MLP's ``hidden`` a list of 1 to
    ``MLP_MAX_LAYERS`` of them); ``obs_size``/``num_actions`` this necro_env's; at most
    ``MAX_PARAMETERS`` parameters (``arch_shapes``). ``ConfigError`` naming what is wrong otherwise."""
    from necro_env.game.errors import ConfigError, cap_message, short_list, short_repr

    def bad(what: str) -> ConfigError:
        return ConfigError(cap_message(f"bad network architecture: {what}"))

    if not isinstance(arch, dict) or arch.get("kind") not in NETS:
        kind = arch.get("kind") if isinstance(arch, dict) else None
        raise bad(f"it must be an object with 'kind' in {sorted(NETS)}, got "
                  + (f"kind {short_repr(kind)}" if isinstance(arch, dict) else short_repr(arch)))
    kind = arch["kind"]
    allowed = ARCH_KEYS[kind]
    extra = [k for k in arch if k not in allowed]
    missing = [k for k in allowed if k not in arch] if complete else []
    if extra or missing:
        raise bad(f"a {kind!r} network takes the keys {sorted(allowed)}"
                  + (f"; unexpected {short_list(extra)}" if extra else "")
                  + (f"; missing {short_list(missing)}" if missing else ""))
    out = {k: arch.get(k, v) for k, v in allowed.items()}
    out["kind"] = kind
    sizes = arch.get("obs_size", OBS_SIZE), arch.get("num_actions", NUM_ACTIONS)
    if not all(_is_int(v) for v in sizes) or sizes != (OBS_SIZE, NUM_ACTIONS):
        raise bad(f"it was built for observations of {short_repr(sizes[0])} and {short_repr(sizes[1])} actions; "
                  f"this necro_env has {OBS_SIZE} and {NUM_ACTIONS}")
    out["obs_size"], out["num_actions"] = OBS_SIZE, NUM_ACTIONS
    for key, v in out.items():
        if key in ("kind", "obs_size", "num_actions"):
            continue
        lo, hi = ARCH_BOUNDS[key]
        if kind == "mlp" and key == "hidden":
            if not isinstance(v, (list, tuple)) or not 1 <= len(v) <= MLP_MAX_LAYERS \
                    or not all(_is_int(h) and lo <= h <= hi for h in v):
                raise bad(f"hidden must be a list of 1 to {MLP_MAX_LAYERS} layer widths (ints in {lo}..{hi}), "
                          f"got {short_repr(v)}")
            out[key] = list(v)
        elif not _is_int(v) or not lo <= v <= hi:
            raise bad(f"{key} must be an int in {lo}..{hi}, got {short_repr(v)}")
    n = arch_parameters(out)
    if n > MAX_PARAMETERS:
        raise bad(f"{short_repr({k: v for k, v in out.items() if k not in ('obs_size', 'num_actions')}, 200)} "
                  f"has {n:,} parameters; at most {MAX_PARAMETERS:,} are allowed")
    return out


def _linear(shapes: dict, name: str, n_in: int, n_out: int) -> None:
    shapes[f"{name}.weight"] = (n_out, n_in)
    shapes[f"{name}.bias"] = (n_out,)


def _mlp_shapes(shapes: dict, name: str, sizes: list[int]) -> None:
    """The parameters of ``_mlp(sizes)`` (a Linear at every even index of the Sequential)."""
    for i in range(len(sizes) - 1):
        _linear(shapes, f"{name}.{2 * i}", sizes[i], sizes[i + 1])


def arch_shapes(arch: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor in the ``state_dict`` of the network ``arch`` describes (its
    defaults filled in, as ``check_arch`` returns it), computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    if arch["kind"] == "mlp":
        hidden = list(arch["hidden"])
        for branch in ("actor", "critic"):
            _mlp_shapes(shapes, branch, [OBS_SIZE, *hidden])
        _linear(shapes, "logits", hidden[-1], NUM_ACTIONS)
        _linear(shapes, "value_out", hidden[-1], 1)
        return shapes
    d, layers, hidden, emb = arch["d"], arch["layers"], arch["hidden"], arch["emb"]
    per_region = sum(w for _, w in _region_blocks()) // MAX_REGIONS
    g0, g1 = _global_slice()
    shapes["region_emb.weight"] = (len(BOARD_KEYS) * MAX_REGIONS, emb)
    _mlp_shapes(shapes, "token", [per_region + emb, d, d])
    _mlp_shapes(shapes, "context", [g1 - g0, hidden, d])
    for i in range(layers):
        _linear(shapes, f"mp_self.{i}", d, d)
    for i in range(layers):
        _linear(shapes, f"mp_nbr.{i}", d, d)
    _linear(shapes, "region_logits", d, len(REGION_KINDS))
    _mlp_shapes(shapes, "actor", [3 * d, hidden, hidden])
    _linear(shapes, "other_logits", hidden, len(OTHER_ACTIONS))
    _mlp_shapes(shapes, "critic", [3 * d, hidden, hidden])
    _linear(shapes, "value_out", hidden, 1)
    return shapes


def arch_parameters(arch: dict[str, Any]) -> int:
    """How many parameters the network ``arch`` describes has (``arch_shapes``; exact Python ints).
    The sum is formed layer by layer, so an absurd ``layers`` count is not walked one by one."""
    if arch["kind"] == "region":
        # mp_self/mp_nbr repeat one d x d layer: count one and multiply instead of listing them all
        one = dict(arch, layers=0)
        d = arch["d"]
        return sum(math.prod(s) for s in arch_shapes(one).values()) + 2 * arch["layers"] * (d * d + d)
    return sum(math.prod(s) for s in arch_shapes(arch).values())


def build_net(arch: dict[str, Any]) -> nn.Module:
    """A fresh network from its ``arch`` dict (``net.arch`` of a built one); ``ConfigError`` (from
    ``check_arch``, before anything is allocated) if it does not fit this necro_env (another observation
    size or action table, an unknown kind or key, a size out of bounds, too many parameters)."""
    args = check_arch(arch)
    kwargs = {k: v for k, v in args.items() if k not in ("kind", "obs_size", "num_actions")}
    return NETS[args["kind"]](**kwargs)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor | np.ndarray) -> torch.Tensor:
    """``logits`` with illegal actions (mask 0) at ``-inf``: zero probability after a softmax and below
    every legal logit, however low the network puts those (a finite fill value such as -1e8 is beaten
    by a legal logit of -1e9). A row must hold at least one legal action (a softmax of an all ``-inf``
    row is NaN); ``NetPolicy.act`` ranks the legal actions only, so it never depends on the fill."""
    m = torch.as_tensor(mask, dtype=torch.bool, device=logits.device)
    return logits.masked_fill(~m, float("-inf"))


__all__ = ["RegionNet", "MlpNet", "NETS", "build_net", "check_arch", "arch_shapes", "arch_parameters", "masked_logits",
           "REGION_KINDS", "OTHER_ACTIONS", "MAX_PARAMETERS", "ARCH_KEYS", "ARCH_BOUNDS"]

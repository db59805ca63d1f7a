"""Learned policies as weights-only files: a network of ``necro_env.agents.nets`` plus its architecture.

File format (``.safetensors``, https://github.com/huggingface/safetensors): the network's float32
tensors, and in the file's metadata header the strings

* ``necro_env.format`` (``necro_env/policy``) and ``necro_env.version`` (``2``);
* ``necro_env.fingerprint``: the layout fingerprint (``necro_env.fingerprint.layout_fingerprint``)
  of the observation layout and action table the network was trained on;
* ``necro_env.commit``: the git commit of the code that trained it (``source_commit``: 40 hex
  digits, ``-dirty`` when the checkout had uncommitted changes, or ``unknown``);
* ``necro_env.arch`` (JSON: the ``arch`` dict that rebuilds the network), ``necro_env.role``
  (``player`` or ``necromancer``) and ``necro_env.info`` (JSON object, free-form: training
  config, steps, measured win rates).

Loading (``read_policy_file``) checks, in this order and before the weights are read or a network
is built: the header's size (at most ``MAX_HEADER_BYTES``), the format and version (a version-1
file predates fingerprints and is refused), the fingerprint (a file made for another layout is
refused, naming both fingerprints), the commit's form, the role, the sizes and syntax of the JSON
fields, the architecture (``nets.check_arch``: kind, keys, integer bounds, at most
``nets.MAX_PARAMETERS`` parameters), and every tensor's name, shape and dtype (float32 only)
against the architecture; then it reads the tensors, refuses any that is not finite, and builds
the network. Every failure is a ``PolicyFileError`` (a ``ConfigError``) with a message of at
most about 2 kB. Nothing is unpickled and no code from the file runs, so these files are safe
to load from strangers (SB3 ``.zip`` files are not: they contain pickles; see docs/SAFETY.md).

``NetPolicy`` plays one with ``act(view, rng)``: the arg-max of the network's logits over the
legal actions (``deterministic=True``, the default) or a sample among the legal actions drawn with
the ``rng`` it is handed; only legal actions are ever ranked, so no weights can choose an illegal
one, and logits no action can be drawn from raise ``PolicyOutputError``. ``batch_act(views, rngs)``
decides many views with one forward pass, by the same rule for each row (a batchable policy: see
``necro_env.agents.base``).
torch is imported when this module is (only when a learned policy is built or loaded).
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
from typing import Any, Sequence

import numpy as np
import torch

from necro_env.fingerprint import is_commit, layout_fingerprint, source_commit
from necro_env.game.errors import ConfigError, cap_message, short_list, short_repr

from .base import ROLES, BasePolicy, PolicyFileError, PolicyOutputError, View
from .nets import arch_shapes, build_net, check_arch, masked_logits

FORMAT = "necro_env/policy"
FORMAT_VERSION = 2
#: The largest metadata header read (the shipped files' headers are about 3 kB).
MAX_HEADER_BYTES = 1 << 20
#: The longest ``necro_env.arch`` and ``necro_env.info`` strings read.
MAX_ARCH_CHARS = 4096
MAX_INFO_CHARS = 256 * 1024
#: The only tensor dtype a policy file may hold (safetensors' name for float32).
DTYPE = "F32"


class NetPolicy(BasePolicy):
    """A network as a policy (see the module docstring)."""

    def __init__(self, net: torch.nn.Module, name: str = "net", deterministic: bool = True, role: str = "player") -> None:
        self.net = net.eval()
        self.name = name
        self.deterministic = deterministic
        self.role = role
        self._digest: str | None = None  # batch_key's digest of the weights (computed when first asked)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """Masked logits (illegal actions at ``-inf``) for one observation (1-D) or a batch (2-D)."""
        with torch.no_grad():
            x = torch.as_tensor(obs, dtype=torch.float32)
            single = x.dim() == 1
            logits, _ = self.net(x[None] if single else x)
            out = masked_logits(logits, mask[None] if single else mask)
            return out[0] if single else out

    def act(self, view: View, rng: np.random.Generator) -> int:
        """One of ``view.legal``: the legal action with the highest logit (the lowest index on a tie), or
        a sample from the softmax over the legal actions; ``PolicyOutputError`` if the network's logits
        of the legal actions are NaN (arg-max) or give no finite distribution (sampling)."""
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        return self._choose(self.logits(view.observation, view.mask.astype(bool)), legal, rng)

    def batch_act(self, views: Sequence[View], rngs: Sequence[np.random.Generator]) -> list[int]:
        """``[act(v, r) for v, r in zip(views, rngs)]`` with one forward pass for every view that has more
        than one legal action (a view with one is answered without the network, as ``act`` answers it).
        Each choice is made by ``act``'s rule from its own row of logits and drawn from its own ``rngs[i]``;
        the rows of a batched forward pass can differ from single ones in the last float bits, so a
        near-tie may rarely be decided the other way."""
        if len(views) != len(rngs):
            raise ValueError(f"batch_act needs one generator per view, got {len(views)} views and {len(rngs)} "
                             f"generators")
        out: list[int] = [0] * len(views)
        rows = []
        for i, v in enumerate(views):
            legal = v.legal
            if len(legal) == 1:
                out[i] = legal[0]
            else:
                rows.append(i)
        if rows:
            obs = np.stack([views[i].observation for i in rows])
            mask = np.stack([views[i].mask for i in rows]).astype(bool)
            lg = self.logits(obs, mask)
            for k, i in enumerate(rows):
                out[i] = self._choose(lg[k], views[i].legal, rngs[i])
        return out

    def batch_key(self) -> tuple:
        """Policies with equal keys decide alike (``necro_env.agents.base.batch_key``): the class, the name,
        the acting rule and a digest of the architecture and weights (taken once, on the first call: the
        weights of a policy that is batched are treated as frozen). A subclass that computes its logits
        otherwise from settings of its own must add them to the key."""
        if getattr(self, "_digest", None) is None:
            h = hashlib.sha256(json.dumps(getattr(self.net, "arch", type(self.net).__name__), sort_keys=True,
                                          default=str).encode())
            for k, v in self.net.state_dict().items():
                t = v.detach().cpu().contiguous()
                h.update(f"{k}:{t.dtype}:{tuple(t.shape)}".encode())
                h.update(t.numpy().tobytes())
            self._digest = h.hexdigest()
        return (f"{type(self).__module__}.{type(self).__qualname__}", self.name, bool(self.deterministic), self._digest)

    def _choose(self, lg: torch.Tensor, legal: list[int], rng: np.random.Generator) -> int:
        """``act``'s rule on one row of masked logits: arg-max (lowest index on a tie) or a sample."""
        if self.deterministic:
            sub = lg[torch.as_tensor(legal)]
            if bool(torch.isnan(sub).any()):
                raise PolicyOutputError(f"policy {self.name}: the network's logits of the legal actions are NaN "
                                        f"(broken weights)")
            return int(legal[int(torch.argmax(sub))])
        p = torch.softmax(lg.double(), -1).numpy()[legal]
        total = float(p.sum())
        if not (np.isfinite(p).all() and np.isfinite(total) and total > 0):
            raise PolicyOutputError(f"policy {self.name}: the network's probabilities of the legal actions are not "
                                    f"finite (NaN or infinite logits: broken weights)")
        return int(legal[int(rng.choice(len(legal), p=p / total))])


def save_policy(net: torch.nn.Module, path: str | os.PathLike, role: str, info: dict | None = None,
                commit: str | None = None) -> None:
    """Write ``net`` (with ``net.arch``) as a weights-only policy file with this necro_env's layout
    fingerprint; the write is atomic (temp file + rename).

    commit: the commit of the code that trained ``net`` (default: ``source_commit()`` now; training
    passes the one it read when the run started)."""
    from safetensors.torch import save_file

    if role not in ROLES:
        raise ConfigError(f"role must be one of {ROLES}, got {role!r}")
    commit = source_commit() if commit is None else commit
    if not is_commit(commit):
        raise ConfigError(f"commit must be 40 hex digits (optionally -dirty) or 'unknown', got {short_repr(commit)}")
    arch = check_arch(net.arch, complete=True)
    tensors = {k: v.detach().contiguous().cpu() for k, v in net.state_dict().items()}
    bad = [k for k, v in tensors.items() if v.dtype != torch.float32]
    if bad:
        raise ConfigError(f"policy files hold float32 tensors only; not float32: {short_list(bad)}")
    meta = {"necro_env.format": FORMAT, "necro_env.version": str(FORMAT_VERSION),
            "necro_env.fingerprint": layout_fingerprint(), "necro_env.commit": commit,
            "necro_env.arch": json.dumps(arch, sort_keys=True), "necro_env.role": role,
            "necro_env.info": json.dumps(info or {}, sort_keys=True)}
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    save_file(tensors, tmp, metadata=meta)
    os.replace(tmp, path)


def _fail(path: Any, what: str) -> PolicyFileError:
    return PolicyFileError(cap_message(f"{os.fspath(path)}: {what}"))


def _json_field(path: Any, meta: dict, key: str, limit: int) -> Any:
    """The JSON value of header field ``key`` (at most ``limit`` characters; nesting past the stack refused)."""
    text = meta.get(key)
    if not isinstance(text, str):
        raise _fail(path, f"the header has no {key} field")
    if len(text) > limit:
        raise _fail(path, f"the header's {key} is {len(text):,} characters long; at most {limit:,} are read")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:  # RecursionError: nested deeper than the stack
        raise _fail(path, f"the header's {key} is not valid JSON ({type(e).__name__}: {str(e)[:200]})") from None


def policy_header(path: str | os.PathLike) -> dict[str, Any]:
    """The checked header of a policy file, without reading its weights: ``role``, ``arch`` (defaults
    filled in), ``info``, ``fingerprint``, ``commit`` and ``shapes`` (tensor name -> shape).
    ``PolicyFileError`` naming the first thing wrong (see the module docstring)."""
    from safetensors import SafetensorError, safe_open

    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        raise _fail(path, f"not a readable file ({type(e).__name__}: {e})") from None
    if len(head) < 8:
        raise _fail(path, "not a readable necro_env policy file (safetensors): shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", head)
    if n > MAX_HEADER_BYTES or 8 + n > size:
        raise _fail(path, f"not a readable necro_env policy file (safetensors): a header of {n:,} bytes "
                          f"(the file has {size:,}; at most {MAX_HEADER_BYTES:,} are read)")
    try:
        with safe_open(path, framework="pt") as f:
            meta = f.metadata() or {}
            shapes, dtypes = {}, {}
            for k in f.keys():
                sl = f.get_slice(k)
                shapes[k], dtypes[k] = tuple(sl.get_shape()), sl.get_dtype()
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise _fail(path, f"not a readable necro_env policy file (safetensors): {e}") from None
    version = meta.get("necro_env.version")
    if meta.get("necro_env.format") != FORMAT:
        raise _fail(path, f"not a necro_env policy file (header format {short_repr(meta.get('necro_env.format'))}, "
                          f"expected {FORMAT!r})")
    if version == "1":
        raise _fail(path, f"a policy file of format version 1, which predates layout fingerprints: nothing says "
                          f"which observation layout it was trained on, so it is refused (this necro_env reads "
                          f"version {FORMAT_VERSION}; its layout fingerprint is {layout_fingerprint()}). "
                          f"tools/resave_policy.py re-saves such a file once you know its layout is this one")
    if version != str(FORMAT_VERSION):
        raise _fail(path, f"policy file format version {short_repr(version)}; this necro_env reads version "
                          f"{FORMAT_VERSION}")
    mine, theirs = layout_fingerprint(), meta.get("necro_env.fingerprint")
    if theirs is None:
        raise _fail(path, f"the header has no necro_env.fingerprint: nothing says which observation layout it was "
                          f"trained on (this necro_env's is {mine})")
    if theirs != mine:
        raise _fail(path, f"the policy was trained on another observation layout or action table: its layout "
                          f"fingerprint is {short_repr(theirs)}, this necro_env's is {mine!r} (a network fed "
                          f"another layout plays nonsense; retrain it, or use the necro_env version that made it)")
    commit = meta.get("necro_env.commit")
    if not is_commit(commit):
        raise _fail(path, f"the header's necro_env.commit must be 40 hex digits (optionally -dirty) or 'unknown', "
                          f"got {short_repr(commit)}")
    role = meta.get("necro_env.role")
    if role not in ROLES:
        raise _fail(path, f"policy role {short_repr(role)} is not one of {ROLES}")
    arch_raw = _json_field(path, meta, "necro_env.arch", MAX_ARCH_CHARS)
    info = _json_field(path, meta, "necro_env.info", MAX_INFO_CHARS)
    if not isinstance(info, dict):
        raise _fail(path, f"the header's necro_env.info must be a JSON object, got {type(info).__name__}")
    try:
        arch = check_arch(arch_raw, complete=True)
    except ConfigError as e:
        raise _fail(path, str(e)) from None
    want = arch_shapes(arch)
    missing = [k for k in want if k not in shapes]
    extra = [k for k in shapes if k not in want]
    if missing or extra:
        parts = ([f"missing tensors {short_list(missing)}"] if missing else []) \
            + ([f"unexpected tensors {short_list(extra)}"] if extra else [])
        raise _fail(path, f"the weights do not fit the architecture {short_repr(arch, 200)}: {'; '.join(parts)}")
    wrong = [f"{k} {shapes[k]} (expected {want[k]})" for k in want if shapes[k] != want[k]]
    if wrong:
        raise _fail(path, f"the weights do not fit the architecture {short_repr(arch, 200)}: "
                          f"shapes {short_list(wrong)}")
    not_f32 = [f"{k} ({dtypes[k]})" for k in want if dtypes[k] != DTYPE]
    if not_f32:
        raise _fail(path, f"policy weights must be float32 ({DTYPE}); other dtypes: {short_list(not_f32)}")
    return {"role": role, "arch": arch, "info": info, "fingerprint": theirs, "commit": commit, "shapes": shapes}


def read_policy_file(path: str | os.PathLike) -> tuple[torch.nn.Module, str, dict]:
    """``(network, role, info)`` from a policy file; ``PolicyFileError`` naming what is wrong with it
    (``policy_header``'s checks, then non-finite weights). The tensors are read one at a time, twice
    (checked, then copied into the built network), so no second full copy of the weights is held."""
    from safetensors import SafetensorError, safe_open

    header = policy_header(path)
    names = list(header["shapes"])
    try:
        with safe_open(os.fspath(path), framework="pt") as f:
            bad = [k for k in names if not bool(torch.isfinite(f.get_tensor(k)).all())]
            if bad:
                raise _fail(path, f"weights must be finite; NaN or infinite values in {short_list(bad)}")
            net = build_net(header["arch"])
            state = net.state_dict()  # the parameters themselves (shared storage)
            with torch.no_grad():
                for k in names:
                    state[k].copy_(f.get_tensor(k))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        if isinstance(e, PolicyFileError):
            raise
        raise _fail(path, f"not a readable necro_env policy file (safetensors): {e}") from None
    return net, header["role"], header["info"]


def load_policy(path: str | os.PathLike, role: str | None = None, deterministic: bool = True) -> NetPolicy:
    """A ``NetPolicy`` from a policy file (``info`` and ``commit`` from its header as attributes);
    ``PolicyFileError`` if the file is not one, was made for another layout or another role."""
    header = policy_header(path)
    if role is not None and role != header["role"]:
        raise _fail(path, f"this is a {header['role']} policy, asked to play the {role}")
    net, file_role, info = read_policy_file(path)
    pol = NetPolicy(net, name=os.path.basename(os.fspath(path)), deterministic=deterministic, role=file_role)
    pol.info = info  # type: ignore[attr-defined]
    pol.commit = header["commit"]  # type: ignore[attr-defined]
    return pol


__all__ = ["NetPolicy", "save_policy", "load_policy", "read_policy_file", "policy_header", "FORMAT", "FORMAT_VERSION",
           "MAX_HEADER_BYTES", "MAX_ARCH_CHARS", "MAX_INFO_CHARS"]

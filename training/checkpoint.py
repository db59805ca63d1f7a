"""Resumable checkpoints of a training run: written atomically, verified when read, with fallback.

A checkpoint is two files in ``<run>/checkpoints/``:

    ckpt_<steps>.zip    the MaskablePPO model (weights, optimizer, step counter): SB3's format
    ckpt_<steps>.json   everything else (format, version, the layout fingerprint and commit of the
                        code that wrote it, steps, the zip's SHA-256, the last observations, every
                        random generator, each env's game in progress) and a SHA-256 of its own
                        content ("checksum")

Each file is written to a temporary name, flushed to disk and renamed into place, the zip
first: a ``.json`` marks a complete checkpoint, and a crash leaves at worst a stray temporary
file. ``--resume`` takes the newest checkpoint that is intact (both checksums match, every
field has its type and range, each env state passes the env's own ``set_state`` checks, the
model loads, and it was written for this observation layout and action table: its
``fingerprint`` is ``necro_env.fingerprint.layout_fingerprint()``); an unusable one is
reported in one line and the next older one is tried. A checkpoint of format version 1
predates fingerprints and is refused.

**Trust.** The zip is SB3's own format, which holds pickled Python objects: loading one can run
code. Checkpoints are for resuming *your own* runs; never resume from a checkpoint directory
someone else gave you. (The checksums catch corruption, not a forger.)
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from necro_env.fingerprint import is_commit, layout_fingerprint, source_commit
from necro_env.game.errors import StateError, cap_message, short_repr

FORMAT = "necro_env/checkpoint"
VERSION = 2
_NAME = re.compile(r"ckpt_([0-9]{10})\.json")
_KEYS = {"format", "version", "fingerprint", "commit",
         "num_timesteps", "zip_sha256", "last_obs", "last_episode_starts", "env_states",
         "torch_rng", "numpy_rng", "python_rng", "checksum"}


class CheckpointError(StateError):
    """A checkpoint is missing, corrupt, partial or does not fit this run."""


def _digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (never a half-written ``path``)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:  # make the rename itself durable (not possible on every platform)
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save_checkpoint(model, ckpt_dir: Path) -> Path:
    """Write ``ckpt_<steps>.zip`` then ``ckpt_<steps>.json`` (atomically); returns the common base path."""
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    steps = model.num_timesteps
    base = ckpt_dir / f"ckpt_{steps:010d}"
    buf = io.BytesIO()
    model.save(buf)
    blob = buf.getvalue()
    _write_atomic(base.with_suffix(".zip"), blob)
    np_state = np.random.get_state()
    py_state = random.getstate()
    body = {
        "format": FORMAT,
        "version": VERSION,
        "fingerprint": layout_fingerprint(),
        "commit": source_commit(),
        "num_timesteps": steps,
        "zip_sha256": hashlib.sha256(blob).hexdigest(),
        "last_obs": np.asarray(model._last_obs).tolist(),
        "last_episode_starts": np.asarray(model._last_episode_starts).astype(int).tolist(),
        "env_states": model.get_env().env_method("get_state"),
        "torch_rng": torch.get_rng_state().tolist(),
        "numpy_rng": [np_state[0], np_state[1].tolist(), int(np_state[2]), int(np_state[3]), float(np_state[4])],
        "python_rng": [py_state[0], list(py_state[1]), py_state[2]],
    }
    body["checksum"] = _digest(body)
    _write_atomic(base.with_suffix(".json"), json.dumps(body).encode())
    return base


def checkpoints(ckpt_dir: Path) -> list[Path]:
    """Base paths of the checkpoints marked complete (a ``.json``), newest first."""
    found = [p for p in ckpt_dir.glob("ckpt_*.json") if _NAME.fullmatch(p.name)] if ckpt_dir.is_dir() else []
    return [p.with_suffix("") for p in sorted(found, reverse=True)]


def checkpoint_step(base: Path) -> int:
    """The PPO step count in a checkpoint's name (``ckpt_0000400000`` -> 400000); ``ValueError`` for another name."""
    m = _NAME.fullmatch(base.with_suffix(".json").name)
    if m is None:
        raise ValueError(f"{base.name} is not a checkpoint name (ckpt_ and ten digits)")
    return int(m.group(1))


def _need(cond: bool, base: Path, what: str) -> None:
    if not cond:
        raise CheckpointError(cap_message(f"{base.name}: {what}"))


def _is_int(v: Any, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def read_checkpoint(base: Path, n_envs: int, obs_size: int) -> tuple[dict, bytes]:
    """The checked JSON body and the zip's bytes of checkpoint ``base``; ``CheckpointError`` saying why not."""
    js = base.with_suffix(".json")
    try:
        raw = js.read_bytes()
        body = json.loads(raw)
    except (OSError, ValueError, RecursionError) as e:  # ValueError: bad JSON, bad UTF-8, a 4,300+ digit int
        raise CheckpointError(f"{js.name}: not readable JSON ({type(e).__name__}: {e})") from None
    _need(isinstance(body, dict), base, f"the JSON must be an object with keys {sorted(_KEYS)}")
    fmt, version = body.get("format"), body.get("version")
    _need(not (fmt == FORMAT and type(version) is int and version == 1), base,
          f"a checkpoint of format version 1, which predates layout fingerprints: nothing says which observation "
          f"layout it was written for, so it cannot be resumed (this necro_env writes version {VERSION})")
    _need(fmt == FORMAT and type(version) is int and version == VERSION, base,
          f"format/version {short_repr(fmt)}/{short_repr(version)}, expected {FORMAT!r}/{VERSION}")
    _need(set(body) == _KEYS, base, f"the JSON must be an object with keys {sorted(_KEYS)}")
    checksum = body.pop("checksum")
    _need(checksum == _digest(body), base, "the JSON's checksum does not match its content (corrupt or edited)")
    mine = layout_fingerprint()
    _need(body["fingerprint"] == mine, base,
          f"written for another observation layout or action table: its layout fingerprint is "
          f"{short_repr(body['fingerprint'])}, this necro_env's is {mine!r} (a run cannot be resumed across a "
          f"layout change; start it again)")
    _need(is_commit(body["commit"]), base,
          f"commit must be 40 hex digits (optionally -dirty) or 'unknown', got {short_repr(body['commit'])}")
    zp = base.with_suffix(".zip")
    try:
        blob = zp.read_bytes()
    except OSError:
        raise CheckpointError(f"{base.name}: its model file {zp.name} is missing or unreadable") from None
    _need(hashlib.sha256(blob).hexdigest() == body["zip_sha256"], base,
          f"{zp.name} does not match the checksum in {js.name} (truncated or replaced)")
    steps = checkpoint_step(base)
    _need(_is_int(body["num_timesteps"], steps, steps), base, f"num_timesteps is not {steps}")
    obs = body["last_obs"]
    _need(isinstance(obs, list) and len(obs) == n_envs
          and all(isinstance(row, list) and len(row) == obs_size for row in obs)
          and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                  for row in obs for x in row), base,
          f"last_obs must be {n_envs} rows of {obs_size} finite numbers")
    starts = body["last_episode_starts"]
    _need(isinstance(starts, list) and len(starts) == n_envs and all(_is_int(x, 0, 1) for x in starts), base,
          f"last_episode_starts must be {n_envs} values 0/1")
    _need(isinstance(body["env_states"], list) and len(body["env_states"]) == n_envs, base,
          f"env_states must hold one state per env ({n_envs})")
    t = body["torch_rng"]
    size = torch.get_rng_state().numel()
    _need(isinstance(t, list) and len(t) == size and all(_is_int(x, 0, 255) for x in t), base,
          f"torch_rng must be {size} bytes")
    n = body["numpy_rng"]
    _need(isinstance(n, list) and len(n) == 5 and n[0] == "MT19937" and isinstance(n[1], list) and len(n[1]) == 624
          and all(_is_int(x, 0, 2**32 - 1) for x in n[1]) and _is_int(n[2], 0, 624) and _is_int(n[3], 0, 1)
          and isinstance(n[4], (int, float)) and not isinstance(n[4], bool) and math.isfinite(n[4]), base,
          "numpy_rng must be a numpy MT19937 state ['MT19937', 624 words, pos, has_gauss, cached_gaussian]")
    p = body["python_rng"]
    _need(isinstance(p, list) and len(p) == 3 and p[0] == 3 and isinstance(p[1], list) and len(p[1]) == 625
          and all(_is_int(x, 0, 2**32 - 1) for x in p[1][:624]) and _is_int(p[1][624], 0, 624)
          and (p[2] is None or (isinstance(p[2], float) and math.isfinite(p[2]))), base,
          "python_rng must be a random.getstate() of version 3")
    return body, blob


def checkpoint_net_weights(base: Path, n_envs: int, obs_size: int) -> dict[str, torch.Tensor]:
    """The policy network's weights (``policy.net``'s state dict) in checkpoint ``base``, checked as
    ``read_checkpoint`` checks it; read with ``torch.load(weights_only=True)``, so nothing is unpickled."""
    import zipfile

    _, blob = read_checkpoint(base, n_envs, obs_size)
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            state = torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)
    except (zipfile.BadZipFile, KeyError, RuntimeError, OSError) as e:
        raise CheckpointError(f"{base.name}: no readable policy weights ({type(e).__name__}: {e})") from None
    return {k[len("net."):]: v for k, v in state.items() if k.startswith("net.")}


def restore_checkpoint(body: dict, blob: bytes, env, tb_dir: Path, check_env_state: Callable[[dict], None]):
    """Load the model from ``blob`` and put every generator and env state back (``read_checkpoint``'s output).

    ``check_env_state(s)`` raises ``StateError`` for an env state the envs would refuse; every state
    is checked so before any env, generator or model changes."""
    from sb3_contrib import MaskablePPO

    for i, s in enumerate(body["env_states"]):
        try:
            check_env_state(s)
        except StateError as e:
            raise CheckpointError(f"env state {i}: {e}") from None
    try:
        model = MaskablePPO.load(io.BytesIO(blob), env=env, device="cpu", tensorboard_log=str(tb_dir))
    except Exception as e:  # noqa: BLE001 - SB3 fails in many ways on a foreign file; the checksum matched
        raise CheckpointError(f"the model does not load ({type(e).__name__}: {e})") from None
    old = torch.get_rng_state()
    try:
        torch.set_rng_state(torch.tensor(body["torch_rng"], dtype=torch.uint8))
    except RuntimeError as e:
        torch.set_rng_state(old)
        raise CheckpointError(f"torch_rng is not a generator state ({e})") from None
    env.reset()  # wrappers such as Monitor insist on a reset before the first step
    for i, s in enumerate(body["env_states"]):
        env.env_method("set_state", s, indices=[i])
    model._last_obs = np.asarray(body["last_obs"], dtype=np.float32)
    model._last_episode_starts = np.asarray(body["last_episode_starts"], dtype=bool)
    model.num_timesteps = body["num_timesteps"]
    n = body["numpy_rng"]
    np.random.set_state((n[0], np.asarray(n[1], dtype=np.uint32), n[2], n[3], n[4]))
    p = body["python_rng"]
    random.setstate((p[0], tuple(p[1]), p[2]))
    return model


def resume_latest(ckpt_dir: Path, env, tb_dir: Path, obs_size: int, check_env_state: Callable[[dict], None],
                  report: Callable[[str], None]):
    """``(base, model)`` from the newest intact checkpoint, ``None`` if there is none at all.

    Each unusable checkpoint is reported in one line (``report``) and skipped; ``CheckpointError``
    listing them when checkpoints exist but none is intact."""
    bases = checkpoints(ckpt_dir)
    problems = []
    for base in bases:
        try:
            body, blob = read_checkpoint(base, env.num_envs, obs_size)
            model = restore_checkpoint(body, blob, env, tb_dir, check_env_state)
        except CheckpointError as e:
            problems.append(str(e))
            report(f"checkpoint {base.name} is unusable, trying an older one: {e}")
            continue
        if problems:
            report(f"resuming from {base.name}")
        return base, model
    if problems or (ckpt_dir.is_dir() and any(ckpt_dir.iterdir())):
        raise CheckpointError(cap_message(f"no intact checkpoint in {ckpt_dir}"
                                          + (f" ({'; '.join(problems)})" if problems else "")))
    return None


__all__ = ["CheckpointError", "save_checkpoint", "checkpoints", "checkpoint_step", "checkpoint_net_weights",
           "read_checkpoint", "restore_checkpoint", "resume_latest"]

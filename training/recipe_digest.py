"""Digests of the weights a training recipe produces: at its start, after the warm start, after each PPO update.

    python training/recipe_digest.py [--config configs/digest_small.yaml] [--check | --write]

Runs ``training/train.py``'s ``train()`` on the config as it is (a small one: ``configs/digest_small.yaml``
is the 3-seat recipe in miniature, with the warm start, the RegionNet and the pipelined update) and
records the SHA-256 of the policy's weights at each stage: ``init`` (the network as built), ``warm_start``
(after the behaviour cloning, when the config has one) and ``update_1``, ``update_2``, ... (after each
PPO update, however ``train()`` runs them: in order, or in the pipeline's thread). A digest hashes every
tensor of the policy's ``state_dict`` in name order: its name, dtype, shape and bytes (floats must be
float32). torch runs on one thread with deterministic algorithms and the run is seeded by the config, so
the digests repeat exactly for one torch version on one kind of CPU kernels (``numeric_env()``: AVX2 and
AVX512 kernels round differently from the first weights on). Each stage also records ``moved``, how far
the weights moved since the stage before (root-mean-square change, 6 significant digits): the same under
either kernels, and readable in a diff.

The pinned record is ``tests/data/recipe_digests.json`` (``tests/test_recipe_digest.py`` compares it):
exact digests for this machine's setting and for AVX2 kernels (``EMULATED``, run in a subprocess), and
``moved``. Where it holds no digests for the setting at hand, the check compares ``moved`` only (within
``MOVED_RTOL``). Any change to the recipe's code path (rewards, shaping, observation, network, warm start,
PPO settings, seeding) changes the digests: rerun with ``--write`` and commit the new file, so the change
is a reviewed diff. ``--check`` (the default) exits 1 and names the stages that differ.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
from sb3_contrib import MaskablePPO

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = "configs/digest_small.yaml"
PINNED = ROOT / "tests" / "data" / "recipe_digests.json"
MOVED_RTOL = 1e-3  # how far ``moved`` may differ where no exact digests are pinned (rounding, other kernels)


def weights_digest(module: torch.nn.Module) -> str:
    """SHA-256 over the ``state_dict`` of ``module``: each tensor's name, dtype, shape and bytes, in name
    order. ``TypeError`` for a floating-point tensor that is not float32."""
    h = hashlib.sha256()
    for name, t in sorted(module.state_dict().items()):
        if t.is_floating_point() and t.dtype != torch.float32:
            raise TypeError(f"{name} is {t.dtype}; the digest hashes float32 weights only")
        t = t.detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


def _flat(module: torch.nn.Module) -> torch.Tensor:
    """Every floating-point weight of ``module`` in name order, as one float64 vector."""
    return torch.cat([t.detach().double().reshape(-1) for _, t in sorted(module.state_dict().items())
                      if t.is_floating_point()])


class _RecordingPPO(MaskablePPO):
    """MaskablePPO that records the policy's digest after every update (``train()``); the pipeline runs
    updates on a shallow copy of the model, which shares the ``_digest_stages`` list."""

    _digest_stages: list
    _digest_before: list

    def train(self) -> None:
        super().train()
        k = sum(1 for name, _ in self._digest_stages if name.startswith("update_")) + 1
        self._digest_stages.append((f"update_{k}", _stage(self.policy, self._digest_before)))


def _stage(policy: torch.nn.Module, before: list) -> dict:
    """The stage's digest and ``moved``: the root-mean-square change of the weights since the stage before,
    to 6 significant digits (readable in a diff, and the same under other kernels). ``before`` holds that
    stage's weights (empty at the first stage) and receives these."""
    now = _flat(policy)
    moved = float((now - before[0]).pow(2).mean().sqrt()) if before else 0.0
    before[:] = [now]
    return {"sha256": weights_digest(policy), "moved": float(f"{moved:.6g}")}


def recipe_digests(config: str | Path = DEFAULT_CONFIG) -> dict:
    """Train ``config`` (in a temporary directory) and return ``{stage: {"sha256", "rms"}}`` in stage order."""
    import training.train as tt
    from training.config import TrainConfig, load_config

    path = Path(config)
    cfg = load_config(path if path.is_absolute() or path.exists() else ROOT / path)
    stages: list = []
    before: list = []
    real_build, real_warm = tt.build_model, tt.warm_start

    def build(cfg_, env, tb_dir):
        model = real_build(cfg_, env, tb_dir)
        model.__class__ = _RecordingPPO  # the same object; only train() gains the recording
        model._digest_stages, model._digest_before = stages, before
        stages.append(("init", _stage(model.policy, before)))
        return model

    def warm(model, *args, **kwargs):
        report = real_warm(model, *args, **kwargs)
        stages.append(("warm_start", _stage(model.policy, before)))
        return report

    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    tt.build_model, tt.warm_start = build, warm
    try:
        with tempfile.TemporaryDirectory(prefix="recipe_digest_") as tmp:
            tt.train(TrainConfig(**{**cfg.__dict__, "out_dir": tmp}), force=True, progress=False)
    finally:
        tt.build_model, tt.warm_start = real_build, real_warm
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)
    return dict(stages)


def numeric_env() -> str:
    """The setting the exact digests hold for: torch's version and the CPU instructions its kernels use.
    Other kernels round differently (measured: AVX2 and AVX512 give other digests from the first weights
    on, and the same ``moved`` figures)."""
    return f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}"


#: Kernels ``--write`` also pins, in a subprocess, on a CPU that has more: torch's ATen kernels and MKL's
#: both told to use AVX2 (what a machine without AVX512 runs).
EMULATED = {"AVX2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}}


def _run_emulated(config: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--config", config, "--print-json"],
                         env={**os.environ, **env}, capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def pin(config: str) -> dict:
    """The pinned record of ``config``: exact digests for this setting and the emulated ones, and ``moved``."""
    got = recipe_digests(config)
    digests = {numeric_env(): {stage: d["sha256"] for stage, d in got.items()}}
    for cap, env in EMULATED.items():
        if cap in numeric_env():
            continue
        other = _run_emulated(config, env)
        if other["env"] in digests:  # the CPU lacks the instructions asked for: nothing new
            continue
        off = compare_moved({s: d["moved"] for s, d in got.items()}, other["stages"])
        if off:
            raise RuntimeError(f"{other['env']}: the weights move differently, not only rounding: {off}")
        digests[other["env"]] = {stage: d["sha256"] for stage, d in other["stages"].items()}
    return {"config": config, "moved": {stage: d["moved"] for stage, d in got.items()}, "digests": digests}


def compare_moved(pinned_moved: dict, got: dict, rtol: float = MOVED_RTOL) -> list[str]:
    """One line per stage whose ``moved`` differs from the pinned one by more than ``rtol`` (relative)."""
    lines = []
    for stage in list(pinned_moved) + [s for s in got if s not in pinned_moved]:
        a, b = pinned_moved.get(stage), got.get(stage, {}).get("moved")
        if a is None or b is None:
            lines.append(f"{stage}: {'missing' if b is None else 'new'}")
        elif abs(a - b) > rtol * max(abs(a), abs(b)) + 1e-12:
            lines.append(f"{stage}: moved {a} pinned, {b} now")
    return lines


def compare(pinned: dict, got: dict, env: str | None = None) -> tuple[str, list[str]]:
    """``("exact", differences)`` where ``pinned`` holds digests for ``env`` (default: this one), else
    ``("moved", differences)``: only how far each stage moved the weights, within ``MOVED_RTOL``."""
    env = numeric_env() if env is None else env
    if env not in pinned["digests"]:
        return "moved", compare_moved(pinned["moved"], got)
    want = pinned["digests"][env]
    lines = []
    for stage in list(want) + [s for s in got if s not in want]:
        a, b = want.get(stage), got.get(stage)
        if a is None or b is None:
            lines.append(f"{stage}: {'missing' if b is None else 'new'}")
        elif a != b["sha256"]:
            lines.append(f"{stage}: pinned {a[:16]}... (moved {pinned['moved'].get(stage)}), "
                         f"now {b['sha256'][:16]}... (moved {b['moved']})")
    return "exact", lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=DEFAULT_CONFIG, help=f"training config (default {DEFAULT_CONFIG})")
    p.add_argument("--pinned", default=str(PINNED), help="the pinned digests (default tests/data/recipe_digests.json)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare with the pinned digests (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the pinned digests (this setting and EMULATED)")
    mode.add_argument("--print-json", action="store_true", help=argparse.SUPPRESS)  # pin()'s subprocesses
    args = p.parse_args(argv)
    pinned_path = Path(args.pinned)
    if args.write:
        record = pin(args.config)
        pinned_path.parent.mkdir(parents=True, exist_ok=True)
        pinned_path.write_text(json.dumps(record, indent=1) + "\n")
        for env, stages in record["digests"].items():
            print(env)
            for stage, sha in stages.items():
                print(f"  {stage:<11} {sha}  moved {record['moved'][stage]}")
        print(f"written: {pinned_path}")
        return 0
    got = recipe_digests(args.config)
    if args.print_json:
        print(json.dumps({"env": numeric_env(), "stages": got}))
        return 0
    print(numeric_env())
    for stage, d in got.items():
        print(f"  {stage:<11} {d['sha256']}  moved {d['moved']}")
    if not pinned_path.is_file():
        print(f"recipe_digest: no pinned digests at {pinned_path}; run with --write", file=sys.stderr)
        return 2
    pinned = json.loads(pinned_path.read_text())
    if pinned.get("config") != args.config:
        print(f"recipe_digest: {pinned_path} pins {pinned.get('config')!r}, not {args.config!r}", file=sys.stderr)
        return 2
    how, diff = compare(pinned, got)
    if diff:
        print("the recipe's weights differ from the pinned ones (if the change is intended, rerun with --write "
              "and commit the file):\n  " + "\n  ".join(diff))
        return 1
    print(f"the same as {pinned_path}" + ("" if how == "exact" else
          f" in how far each stage moved the weights (within {MOVED_RTOL:g}); it pins no exact digests for "
          f"{numeric_env()}: rerun with --write on such a machine to pin them"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

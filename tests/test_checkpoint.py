"""Resume that survives (issue 15.5): every kind of broken last checkpoint is reported in one line
and the newest intact one is used; written atomically, with checksums."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from necro_env.observe import OBS_SIZE  # noqa: E402
from training.checkpoint import (  # noqa: E402
    CheckpointError, _digest, checkpoint_step, checkpoints, read_checkpoint, resume_latest, save_checkpoint,
)
from training.config import TrainConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def tiny(out: Path, **kw) -> TrainConfig:
    base = dict(name="ckpt", players=3, total_steps=128, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                net_arch=(16,), checkpoint_every=32, out_dir=str(out), seed=1)
    base.update(kw)
    return TrainConfig(**base)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished tiny run with two checkpoints (64 and 128 steps)."""
    from training.train import train

    torch.set_num_threads(1)
    cfg = tiny(tmp_path_factory.mktemp("runs"))
    run_dir = train(cfg, progress=False)
    bases = checkpoints(run_dir / "checkpoints")
    assert [b.name for b in bases] == ["ckpt_0000000128", "ckpt_0000000064"]
    return cfg, run_dir


def _copy(run, tmp_path: Path) -> tuple[TrainConfig, Path]:
    cfg, run_dir = run
    ckpts = tmp_path / "checkpoints"
    shutil.copytree(run_dir / "checkpoints", ckpts)
    return cfg, ckpts


def _resume(cfg: TrainConfig, ckpts: Path):
    from training.train import make_env_fn

    env = DummyVecEnv([make_env_fn(cfg, ckpts.parent) for _ in range(cfg.n_envs)])
    messages: list[str] = []
    checker = make_env_fn(cfg, ckpts.parent)().unwrapped.set_state
    found = resume_latest(ckpts, env, ckpts.parent / "tb", OBS_SIZE, checker, messages.append)
    return found, messages


def _resign(path: Path, edit) -> None:
    """Edit the JSON body and recompute its checksum (an edit that passes the checksum)."""
    body = json.loads(path.read_text())
    body.pop("checksum")
    edit(body)
    body["checksum"] = _digest(body)
    path.write_text(json.dumps(body))


NEWEST = "ckpt_0000000128"
BREAKAGES = {
    "truncated json": lambda c: (c / f"{NEWEST}.json").write_bytes((c / f"{NEWEST}.json").read_bytes()[:200]),
    "empty json": lambda c: (c / f"{NEWEST}.json").write_bytes(b""),
    "garbage zip": lambda c: (c / f"{NEWEST}.zip").write_bytes(b"garbage" * 100),
    "truncated zip": lambda c: (c / f"{NEWEST}.zip").write_bytes((c / f"{NEWEST}.zip").read_bytes()[:1000]),
    "deleted zip": lambda c: (c / f"{NEWEST}.zip").unlink(),
    "tampered env state": lambda c: _resign(c / f"{NEWEST}.json",
                                            lambda b: b["env_states"][0]["state"]["race_power"].__setitem__(15, -1)),
    "bad torch rng": lambda c: _resign(c / f"{NEWEST}.json", lambda b: b.update(torch_rng=[7] * 10)),
    "missing last_obs": lambda c: _resign(c / f"{NEWEST}.json", lambda b: b.pop("last_obs")),
    "edited json, old checksum": lambda c: (c / f"{NEWEST}.json").write_text(
        (c / f"{NEWEST}.json").read_text().replace('"num_timesteps": 128', '"num_timesteps": 129')),
}


@pytest.mark.parametrize("kind", sorted(BREAKAGES))
def test_broken_last_checkpoint_falls_back_to_the_newest_intact_one(run, tmp_path, kind):
    cfg, ckpts = _copy(run, tmp_path)
    BREAKAGES[kind](ckpts)
    (base, model), messages = _resume(cfg, ckpts)
    assert base.name == "ckpt_0000000064" and model.num_timesteps == 64
    assert len(messages) == 2 and messages[0].startswith(f"checkpoint {NEWEST} is unusable")
    assert messages[1] == "resuming from ckpt_0000000064"
    assert ".zip.zip" not in messages[0]
    if kind == "deleted zip":
        assert f"{NEWEST}.zip is missing" in messages[0]


def test_no_intact_checkpoint_is_an_error_listing_why(run, tmp_path):
    cfg, ckpts = _copy(run, tmp_path)
    for base in checkpoints(ckpts):
        base.with_suffix(".zip").write_bytes(b"x")
    with pytest.raises(CheckpointError, match="no intact checkpoint .*ckpt_0000000128.*ckpt_0000000064"):
        _resume(cfg, ckpts)


def test_resume_across_a_layout_change_is_refused(run, tmp_path, monkeypatch):
    """Issue 27.1: a checkpoint records the layout fingerprint; with another layout (here: two 1-wide glob
    features swapped) every checkpoint is refused with a CheckpointError naming both fingerprints, and a
    version-1 checkpoint (no fingerprint) says it predates fingerprints."""
    from layouts import swap_glob_features
    from necro_env.fingerprint import layout_fingerprint

    cfg, ckpts = _copy(run, tmp_path)
    theirs = json.loads((ckpts / f"{NEWEST}.json").read_text())["fingerprint"]
    assert theirs == layout_fingerprint()
    swap_glob_features(monkeypatch)
    mine = layout_fingerprint()
    assert mine != theirs
    with pytest.raises(CheckpointError, match=f"no intact checkpoint .*its layout fingerprint is '{theirs}', "
                                              f"this necro_env's is '{mine}'"):
        _resume(cfg, ckpts)
    monkeypatch.undo()
    _resign(ckpts / f"{NEWEST}.json", lambda b: (b.update(version=1), b.pop("fingerprint"), b.pop("commit")))
    with pytest.raises(CheckpointError, match="version 1, which predates layout fingerprints"):
        read_checkpoint(ckpts / NEWEST, cfg.n_envs, OBS_SIZE)


def test_checkpoint_holds_checksums_and_is_written_atomically(run):
    cfg, run_dir = run
    base = checkpoints(run_dir / "checkpoints")[0]
    body = json.loads(base.with_suffix(".json").read_text())
    assert body["zip_sha256"] == hashlib.sha256(base.with_suffix(".zip").read_bytes()).hexdigest()
    assert body.pop("checksum") == _digest(body)
    assert not list((run_dir / "checkpoints").glob("*.tmp"))  # temp files are renamed into place
    read_checkpoint(base, cfg.n_envs, OBS_SIZE)
    from necro_env.fingerprint import is_commit, layout_fingerprint

    assert body["fingerprint"] == layout_fingerprint() and is_commit(body["commit"])


def test_checkpoint_step_reads_the_name_and_rejects_others(run):
    cfg, run_dir = run
    assert [checkpoint_step(b) for b in checkpoints(run_dir / "checkpoints")] == [128, 64]
    assert checkpoint_step(Path("ckpt_0000400000")) == 400000
    for bad in ("ckpt_400000", "final", "ckpt_00004000x0"):
        with pytest.raises(ValueError, match="not a checkpoint name"):
            checkpoint_step(Path(bad))


def test_save_leaves_no_partial_file_when_the_model_cannot_be_written(tmp_path):
    """A failing save (here: the model raises while serialising) leaves no checkpoint file behind."""
    class Broken:
        num_timesteps = 5

        def save(self, f):
            f.write(b"partial")
            raise OSError("disk full")

    with pytest.raises(OSError):
        save_checkpoint(Broken(), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_train_cli_resume_reports_and_falls_back(run, tmp_path):
    """``train.py --resume`` with a corrupt last checkpoint: one line on stderr, exit 0, resumed from the older one."""
    cfg, run_dir = run
    out = tmp_path / "out"
    shutil.copytree(run_dir, out / run_dir.name)
    (out / run_dir.name / "checkpoints" / f"{NEWEST}.zip").write_bytes(b"")
    config = tmp_path / "cfg.yaml"
    config.write_text(json.dumps({**cfg.to_dict(), "out_dir": str(out), "selfplay": None}))
    proc = subprocess.run([sys.executable, str(ROOT / "training/train.py"), "--config", str(config), "--resume"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("train.py:")]
    assert lines[0].startswith(f"train.py: checkpoint {NEWEST} is unusable") and "Traceback" not in proc.stderr
    assert lines[1] == "train.py: resuming from ckpt_0000000064"


@pytest.mark.parametrize("text", ["name: x\nplayers: [3\n", "a: b: c\n", "[" * 3000, "\xff\xfe"])
def test_train_cli_reports_malformed_yaml_in_one_line(tmp_path, text):
    path = tmp_path / "bad.yaml"
    path.write_bytes(text.encode("latin-1"))
    proc = subprocess.run([sys.executable, str(ROOT / "training/train.py"), "--config", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "not a valid YAML config" in proc.stderr

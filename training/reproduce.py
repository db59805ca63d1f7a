"""Retrain a shipped policy from its config with the current code, then evaluate it as the docs do.

    python training/reproduce.py NAME [--out-dir runs/reproduce] [--dry-run]      (make reproduce NAME=...)

``NAME`` is a shipped policy (``necro_env/pretrained/NAME.safetensors``, e.g. ``necromancer_3p``). The
file's header records the config and seed that trained it; this script

1. compares that recorded config with ``configs/NAME.yaml`` as it is now and prints every learning
   key that differs (``name`` and ``out_dir`` are not learning keys; a key the record lacks is one
   added to the config later, shown with its value now);
2. runs ``training/train.py --config configs/NAME.yaml --seed SEED --out-dir OUT`` (the recorded seed);
3. evaluates the new ``final.safetensors`` and the shipped file with the command of
   docs/results/LEARNING.md (600 games of seed 2024: a Necromancer against greedy players; the player
   policy in the 2-seat base game, its seat rotated; a team of scenario players, ``learner: players``,
   in every player seat against the heuristic Necromancer, whose win rate is then the figure) and writes both summaries and their win rates to
   ``OUT/NAME__s<SEED>/reproduce.json``, whose path it prints.

A run directory that exists already is an error from train.py (delete it, or pass ``--resume``).
``--dry-run`` prints the plan (differences and commands) and runs nothing.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
REPORT_SEED = 2024
REPORT_GAMES = 600
NOT_LEARNING = ("name", "out_dir")  # where a run is written, not how it learns
#: Vec envs that step the same envs to the same results (tests/test_training.py: the chunked vec env steps
#: them as DummyVecEnv does, and trains the same weights with the pipeline): a change between them, or of
#: the chunked one's worker count (``env_workers``), is a speed setting, not a learning key.
SAME_RESULTS_VEC_ENVS = ("dummy", "chunked")


def recorded(name: str) -> tuple[str, dict]:
    """``(role, info header)`` of the shipped policy ``name``, whose ``config`` is the training config it
    records; ``ConfigError`` if there is none."""
    from necro_env.agents.registry import PRETRAINED_DIR, pretrained_names
    from necro_env.agents.torch_policy import read_policy_file
    from necro_env.game.errors import ConfigError

    if name not in pretrained_names():
        raise ConfigError(f"no shipped policy {name!r}; shipped: {', '.join(pretrained_names())}")
    _, role, info = read_policy_file(PRETRAINED_DIR / f"{name}.safetensors")
    if not isinstance(info.get("config"), dict) or not isinstance(info["config"].get("seed"), int):
        raise ConfigError(f"pretrained:{name} records no training config with a seed in its header")
    return role, info


def config_differences(record: dict, now: dict, cap_bound: bool = True, defaults: dict | None = None) -> list[str]:
    """One line per learning key whose recorded value differs from the config's value now.

    cap_bound: whether the recorded run was stopped by its wall-time cap (``max_minutes``); a cap that
    never bound (the run stopped at ``total_steps``) did not shape what was learned, so it is no
    learning key then. defaults: the keys' default values; a key added after the recorded run that is at
    its default now (e.g. an option that is off) changes nothing the run did, so it is not listed."""
    lines = []
    for key in sorted(set(record) | set(now)):
        if key in NOT_LEARNING or (key == "max_minutes" and not cap_bound):
            continue
        if key == "env_workers" or (key == "vec_env" and record.get(key, "dummy") in SAME_RESULTS_VEC_ENVS
                                    and now.get(key, "dummy") in SAME_RESULTS_VEC_ENVS):
            continue
        if key not in record:
            if defaults is not None and key in defaults and defaults[key] == now[key]:
                continue
            lines.append(f"{key}: not recorded (added later), now {now[key]!r}")
        elif key not in now:
            lines.append(f"{key}: recorded {record[key]!r}, no longer a key")
        elif record[key] != now[key]:
            lines.append(f"{key}: recorded {record[key]!r}, now {now[key]!r}")
    return lines


def evaluate_command(spec: str, role: str, players: int) -> list[str]:
    """The docs' evaluation of ``spec`` (docs/results/LEARNING.md, "Commands"), with ``--json``.

    ``role``: "necromancer" (against greedy players), "player" (the base game's rotated seat against greedy) or
    "players" (a team network in every player seat against the heuristic Necromancer)."""
    head = [sys.executable, "-m", "necro_env.cli", "evaluate", "--players", str(players)]
    if role == "necromancer":
        side = ["--necromancer", spec, "--players-policy", "greedy"]
    elif role == "players":  # the team in every player seat against the heuristic Necromancer
        side = ["--necromancer", "heuristic", "--players-policy", spec]
    else:
        side = ["--no-necromancer", "--players-policy", spec, "--opponents", "greedy"]
    return head + side + ["--games", str(REPORT_GAMES), "--seed", str(REPORT_SEED), "--quiet", "--json"]


def plan(name: str, out_dir: str, resume: bool = False) -> dict:
    """What ``reproduce`` runs for ``name``: the config differences, the training and evaluation commands."""
    from training.config import load_config

    role, info = recorded(name)
    record = info["config"]
    role = "players" if record.get("learner") == "players" else role  # a team: evaluated in every player seat
    config = ROOT / "configs" / f"{name}.yaml"
    if not config.is_file():
        from necro_env.game.errors import ConfigError

        league = name.rsplit("_", 1)[-1] if name.startswith("league_") else None
        if league is not None:
            raise ConfigError(f"pretrained:{name} is the last generation of its side in a league, not the run of one "
                              f"train config: rebuild it with `python training/league_train.py configs/league_{league}"
                              f".yaml` (it writes runs/league_{league}/{name}.safetensors)")
        if record.get("name", "").startswith("exploit_"):
            raise ConfigError(f"pretrained:{name} is the best response of a `necro-env exploit` run, not the run of one "
                              f"train config: rebuild it with the command in docs/results/STRATEGY.md "
                              f"(approximate exploitability; it writes the run's final.safetensors)")
        raise ConfigError(f"pretrained:{name} has no training config configs/{name}.yaml to rebuild it from")
    now = load_config(config).to_dict()
    from training.config import TrainConfig
    defaults = {f.name: f.default for f in dataclasses.fields(TrainConfig) if f.default is not dataclasses.MISSING}
    seed = record["seed"]
    run_dir = Path(out_dir) / f"{now['name']}__s{seed}"
    train = [sys.executable, str(ROOT / "training" / "train.py"), "--config", str(config), "--seed", str(seed),
             "--out-dir", out_dir] + (["--resume"] if resume else [])
    return {"name": name, "role": role, "seed": seed, "players": now["players"], "run_dir": str(run_dir),
            "shipped_steps": info.get("steps"), "shipped_stopped_by": info.get("stopped_by"),
            "differences": config_differences(record, now, info.get("stopped_by") == "max_minutes", defaults),
            "train": train,
            "evaluate": {"retrained": evaluate_command(str(run_dir / "final.safetensors"), role, now["players"]),
                         "shipped": evaluate_command(f"pretrained:{name}", role, now["players"])}}


def _win(summary: dict, role: str) -> dict:
    """The figure of the docs: the learner's win rate, or for a team ("players") the Necromancer's (lower is better)."""
    side = summary["necromancer"] if role in ("necromancer", "players") else next(
        g for g in summary["policies"] if g["group"] == "test")
    return {k: side[k] for k in ("wins", "games", "win_rate", "ci95")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name", help="a shipped policy (necromancer_3p, players_3p, ...)")
    p.add_argument("--out-dir", default="runs/reproduce", help="where the run is written (default runs/reproduce)")
    p.add_argument("--resume", action="store_true", help="continue the run from its latest checkpoint")
    p.add_argument("--dry-run", action="store_true", help="print the plan and run nothing")
    args = p.parse_args(argv)
    from necro_env.game.errors import NecroEnvError
    from training.config import TrainConfigError

    try:
        todo = plan(args.name, args.out_dir, args.resume)
    except (NecroEnvError, TrainConfigError) as e:
        print(f"reproduce: error: {e}", file=sys.stderr)
        return 2
    capped = todo["shipped_stopped_by"] == "max_minutes"
    print(f"pretrained:{args.name}: seed {todo['seed']}, {todo['shipped_steps']} PPO steps, stopped by "
          f"{todo['shipped_stopped_by']}"
          + (" (a wall-time cap: a rerun stops where this machine's time runs out, so its steps differ)" if capped else ""))
    print(f"configs/{args.name}.yaml against the config recorded in the shipped file: "
          + ("the same learning keys" if not todo["differences"] else "these learning keys differ:"))
    for line in todo["differences"]:
        print(f"  {line}")
    print("train:    " + " ".join(todo["train"]))
    for label, cmd in todo["evaluate"].items():
        print(f"evaluate ({label}): " + " ".join(cmd))
    if args.dry_run:
        return 0
    rc = subprocess.call(todo["train"], cwd=ROOT)
    if rc != 0:
        return rc
    results = {}
    for label, cmd in todo["evaluate"].items():
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return out.returncode
        results[label] = json.loads(out.stdout.strip().splitlines()[-1])
    wins = {label: _win(s, todo["role"]) for label, s in results.items()}
    path = ROOT / todo["run_dir"] / "reproduce.json"
    path.write_text(json.dumps({**todo, "win": wins, "summaries": results}, indent=1))
    what = "the heuristic Necromancer's win rate against it" if todo["role"] == "players" else "win rate"
    print(f"{what}:")
    for label, w in wins.items():
        print(f"{label:<10} {w['win_rate']:.3f} [{w['ci95'][0]:.3f}, {w['ci95'][1]:.3f}] over {w['games']} games "
              f"of seed {REPORT_SEED}")
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

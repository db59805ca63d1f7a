"""Average the weights of a run's newest checkpoints into a policy file (what ``average_last`` does at the end).

    python training/average.py runs/necromancer_3p__s0 --last 4 [--out PATH] [--eval-games 300]

For runs trained before ``average_last`` existed, or to try another number of checkpoints: the file is
written as ``train.py`` writes ``final.safetensors`` with ``average_last: N`` (weights only, the run's
config with ``average_last`` set, the steps of the averaged checkpoints), by default to
``<run>/final_avg<N>.safetensors``. ``--eval-games`` adds the training's own evaluation (tuning seeds
10000 + seed) to its info. The checkpoints are the run's own (checksums verified; the weights are read
with ``torch.load(weights_only=True)``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--last", type=int, default=4, help="how many of the newest checkpoints to average (>= 1)")
    p.add_argument("--out", default=None, help="the policy file (default: <run>/final_avg<N>.safetensors)")
    p.add_argument("--eval-games", type=int, default=0, help="evaluate it on the run's tuning seeds (0: no)")
    args = p.parse_args(argv)

    from necro_env.agents.torch_policy import policy_header, read_policy_file, save_policy
    from necro_env.game.errors import NecroEnvError
    from training.config import TrainConfig, TrainConfigError, load_config
    from training.policies import evaluate_net
    from training.train import averaged_net

    run = Path(args.run_dir)
    try:
        cfg = load_config(run / "config.yaml")
        cfg = TrainConfig(**{**cfg.__dict__, "average_last": args.last})
        net, role, info = read_policy_file(run / "final.safetensors")
        commit = policy_header(run / "final.safetensors")["commit"]  # the run's code, not this checkout's
        net, steps = averaged_net(net, run / "checkpoints", cfg)
    except (TrainConfigError, NecroEnvError, FileNotFoundError) as e:
        print(f"average.py: error: {e}", file=sys.stderr)
        return 2
    info = {**info, "config": cfg.to_dict(), "averaged_checkpoints": steps}
    if args.eval_games:
        info["last_evaluation"] = evaluate_net(net, cfg, args.eval_games, seed=10_000 + cfg.seed)
    out = Path(args.out) if args.out else run / f"final_avg{args.last}.safetensors"
    save_policy(net, out, role, info, commit=commit)
    last = info.get("last_evaluation")
    print(f"{out}: the mean of the checkpoints at steps {steps}"
          + (f"; tuning seeds {last['win_rate']:.3f} [{last['lo']:.3f}, {last['hi']:.3f}]" if args.eval_games else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

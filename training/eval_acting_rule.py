"""Win rate of one learned policy under different acting rules: the arg-max (what ``necro-env evaluate`` plays)
or a sample from its masked action distribution at a temperature.

    python training/eval_acting_rule.py pretrained:necromancer_3p --players 3 --seed 10000 --games 600 \\
        --rule argmax --rule 1.0 --rule 0.5

Each rule plays the same seeded games (the evaluation harness's: game i is seeded from ``(seed, i)``), the
policy in the Necromancer's seat against greedy players; one JSON line per rule. Measure on the tuning
seeds (10000 + training seed), never on the report seeds. docs/results/LEARNING.md quotes its figures.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.agents.torch_policy import NetPolicy  # noqa: E402


class TemperaturePolicy(NetPolicy):
    """``base``'s network, sampling from its masked logits divided by ``temperature`` (> 0)."""

    def __init__(self, base: NetPolicy, temperature: float) -> None:
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        super().__init__(base.net, name=f"{base.name}@T{temperature:g}", deterministic=False, role=base.role)
        self.temperature = float(temperature)

    def logits(self, obs, mask):
        return super().logits(obs, mask) / self.temperature


def acting_rule(base: NetPolicy, rule: str) -> NetPolicy:
    """``base`` itself for ``argmax``; a ``TemperaturePolicy`` for a number."""
    if rule == "argmax":
        return base
    try:
        t = float(rule)
    except ValueError:
        raise ValueError(f"a rule is 'argmax' or a temperature (a number > 0), got {rule!r}") from None
    return TemperaturePolicy(base, t)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("policy", help="a Necromancer policy file or pretrained:NAME")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=10000)
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rule", action="append", default=None, help="argmax or a temperature; repeat (default: argmax, 1.0)")
    args = p.parse_args(argv)

    from necro_env.agents import make_policy
    from necro_env.evaluate import evaluate

    base = make_policy(args.policy, "necromancer")
    if not isinstance(base, NetPolicy):
        p.error(f"{args.policy} is not a learned (network) policy")
    for rule in args.rule or ["argmax", "1.0"]:
        pol = acting_rule(base, rule)
        r = evaluate(args.players, pol, "greedy", games=args.games, seed=args.seed, workers=args.workers)
        n = r["necromancer"]
        print(json.dumps({"policy": args.policy, "rule": rule, "players": args.players, "seed": args.seed,
                          "games": args.games, "win_rate": n["win_rate"], "ci95": n["ci95"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

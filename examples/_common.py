"""What the examples in this folder share: counting what the library did to the env, turning the library's
trained network into a necro_env policy, evaluating it against the task's opponents, and the summary.

* ``Monitor`` wraps the AEC env each library trains on (``monitored_env``) and counts, over every game it
  sees: the actions given to ``step`` that the acting agent's mask forbids (``illegal_actions``, a number;
  the env's default ``illegal_action="terminate"`` then ends that game), each agent's steps, and each
  agent's return per finished game. Several envs of one run share one ``Monitor``.
* ``LearnedPolicy`` is a necro_env policy (``act(view, rng)``, see ``necro_env.agents.base``) made of a
  function ``choose(observation, mask) -> action`` that runs the library's own policy on the env's
  observation vector and its boolean action mask; an action outside ``view.legal`` is counted
  (``illegal_actions``) and replaced by a uniformly random legal one drawn from ``rng``, so the evaluation
  finishes and the count says how often that happened.
* ``evaluate_learner`` plays the learned policy in its seat against scripted opponents through
  ``necro_env.evaluate.evaluate`` (seeded games; Wilson 95% intervals), and the random policy in the same
  seat on the same games: the learner's win rate against the random policy's is the learning shown.
  The learner is the Necromancer on 3-6 seats (task ``necroN-OPPONENTS``: the player seats play
  ``OPPONENTS``), or ``player_0``'s network in the base game (task ``playerN-OPPONENTS``: the evaluation
  rotates its seat over all seats, every other seat plays ``OPPONENTS``).
* ``summary`` / ``report`` build and print the result: a few readable lines, or with ``--json`` one JSON
  object on the last line of stdout; ``finish`` does the evaluation, the summary and the report in turn.
* ``add_task_args`` gives an example's command line the options every example has (the task, the seed,
  the reward scheme, the evaluation, ``--json``).
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable

import numpy as np
from pettingzoo.utils import BaseWrapper

import necro_env
from necro_env.agents.base import BasePolicy, View
from necro_env.agents.random_agent import RandomAgent
from necro_env.evaluate import evaluate
from necro_env.rewards import REWARD_SCHEMES

#: Games of the final evaluation (each example's ``--eval-games`` default) and the seed they are drawn from.
EVAL_GAMES = 100
EVAL_SEED = 2024
#: How many of the last finished training games the training returns are averaged over.
RECENT_GAMES = 50


class Monitor:
    """Counts of one training run, shared by every env it wraps (see the module docstring)."""

    def __init__(self) -> None:
        self.illegal_actions = 0
        self.steps: dict[str, int] = {}
        self.returns: dict[str, list[float]] = {}

    def wrap(self, env) -> "MonitoredEnv":
        return MonitoredEnv(env, self)

    @property
    def games(self) -> int:
        """Finished games."""
        return max((len(r) for r in self.returns.values()), default=0)

    def mean_returns(self, last: int = RECENT_GAMES) -> dict[str, float | None]:
        """Each agent's mean return over its ``last`` finished games (None before the first one)."""
        return {a: (float(np.mean(r[-last:])) if r else None) for a, r in sorted(self.returns.items())}


class MonitoredEnv(BaseWrapper):
    """An AEC env whose ``step`` and ``reset`` report to a ``Monitor`` (everything else is the env's)."""

    def __init__(self, env, monitor: Monitor) -> None:
        super().__init__(env)
        self.monitor = monitor
        self._sums: dict[str, float] = {}
        self._open = False

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        self._sums = {a: 0.0 for a in self.possible_agents}
        self._open = True

    def step(self, action) -> None:
        agent = self.agent_selection
        alive = not (self.terminations.get(agent, False) or self.truncations.get(agent, False))
        if alive and action is not None:
            raw = self.env.unwrapped
            mask = raw.game.legal_action_mask(raw.game_state)
            a = int(action)
            if not 0 <= a < len(mask) or not mask[a]:
                self.monitor.illegal_actions += 1
            self.monitor.steps[agent] = self.monitor.steps.get(agent, 0) + 1
        super().step(action)
        for a, r in self.rewards.items():
            self._sums[a] = self._sums.get(a, 0.0) + float(r)
        if self._open and all(self.terminations.get(a, False) or self.truncations.get(a, False)
                              for a in self.possible_agents):
            for a, total in self._sums.items():
                self.monitor.returns.setdefault(a, []).append(total)
            self._open = False


class LearnedPolicy(BasePolicy):
    """A necro_env policy around ``choose(observation float32[OBS], mask bool[ACTIONS]) -> action``."""

    def __init__(self, name: str, choose: Callable[[np.ndarray, np.ndarray], Any]) -> None:
        self.name = name
        self.choose = choose
        self.illegal_actions = 0
        self.decisions = 0

    def act(self, view: View, rng: np.random.Generator) -> int:
        mask = view.mask
        a = int(self.choose(view.observation, mask.astype(bool)))
        self.decisions += 1
        if 0 <= a < len(mask) and mask[a]:
            return a
        self.illegal_actions += 1
        legal = view.legal
        return int(legal[int(rng.integers(len(legal)))])


def torchrl_group_policy(name: str, actor, group: str, agents: list[str], agent: str) -> LearnedPolicy:
    """``agent``'s action from a TorchRL policy module of its ``group`` (``agents``: the group's agents in
    order) that reads ``(group, "observation", "observation")`` and ``(group, "action_mask")`` and writes
    ``(group, "action")``, taken with TorchRL's deterministic exploration type (the mode of a masked
    categorical), as a necro_env policy; the group's other agents (none with TorchRL's default groups, one per
    agent) get a zero observation and an all-legal mask, and their actions are ignored."""
    import torch
    from tensordict import TensorDict
    from torchrl.envs.utils import ExplorationType, set_exploration_type

    row = agents.index(agent)

    def choose(observation: np.ndarray, mask: np.ndarray) -> int:
        obs = torch.zeros(len(agents), observation.shape[0])
        obs[row] = torch.as_tensor(observation)
        masks = torch.ones(len(agents), mask.shape[0], dtype=torch.bool)
        masks[row] = torch.as_tensor(mask)
        td = TensorDict({group: {"observation": {"observation": obs}, "action_mask": masks}}, batch_size=[])
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(td)[group, "action"][row])
    return LearnedPolicy(name, choose)


class _RandomInSeat(RandomAgent):
    """The random policy under a name of its own (so it is the learner's group even against ``random``)."""

    name = "random-in-learner-seat"


def learner_of(players: int) -> str:
    """The agent whose network is evaluated: the Necromancer when there is one, else ``player_0``."""
    return "necromancer_0" if "necromancer_0" in necro_env.env(players=players).possible_agents else "player_0"


def task_name(players: int, opponents: str) -> str:
    return f"{'necro' if learner_of(players) == 'necromancer_0' else 'player'}{players}-{opponents}"


def _seat_rate(policy: Any, players: int, opponents: str, games: int, seed: int) -> dict[str, Any]:
    if learner_of(players) == "necromancer_0":
        s = evaluate(players, necromancer_spec=policy, players_spec=opponents, games=games, seed=seed)
        return s["necromancer"]
    s = evaluate(players, players_spec=policy, opponents_spec=opponents, necromancer=False, games=games, seed=seed)
    return next(g for g in s["policies"] if g["group"] == "test")


def evaluate_learner(policy: LearnedPolicy, players: int, opponents: str = "greedy", games: int = EVAL_GAMES,
                     seed: int = EVAL_SEED) -> dict[str, Any]:
    """The learner's and the random policy's win rates in the learner's seat on the same seeded games."""
    t0 = time.perf_counter()
    learned = _seat_rate(policy, players, opponents, games, seed)
    rand = _seat_rate(_RandomInSeat(), players, opponents, games, seed)
    return {"task": task_name(players, opponents), "learner": learner_of(players), "opponents": opponents,
            "eval_games": games, "eval_seed": seed,
            "win_rate": learned["win_rate"], "ci95": learned["ci95"],
            "random_win_rate": rand["win_rate"], "random_ci95": rand["ci95"],
            "eval_decisions": policy.decisions, "eval_illegal_actions": policy.illegal_actions,
            "eval_seconds": round(time.perf_counter() - t0, 2)}


def summary(library: str, monitor: Monitor, result: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The example's result: ``extra`` (the library's own figures, ``steps`` among them), the training counts
    and the evaluation (``evaluate_learner``); ``illegal_actions`` adds training's and evaluation's."""
    learner = result["learner"]
    returns = monitor.mean_returns()
    out = {"library": library, "task": result["task"], **extra,
           "learner_steps": monitor.steps.get(learner, 0), "training_games": monitor.games,
           "learner_return": returns.get(learner), "returns": returns, "recent_games": RECENT_GAMES,
           **{k: v for k, v in result.items() if k != "task"}}
    out["train_illegal_actions"] = monitor.illegal_actions
    out["illegal_actions"] = monitor.illegal_actions + result["eval_illegal_actions"]
    return out


def finish(library: str, monitor: Monitor, policy: LearnedPolicy, players: int, opponents: str, eval_games: int,
           extra: dict[str, Any], verbose: bool, as_json: bool) -> dict[str, Any]:
    """Evaluate the learned ``policy`` (``evaluate_learner``), build the ``summary`` and, if ``verbose``,
    ``report`` it; the summary."""
    out = summary(library, monitor, evaluate_learner(policy, players, opponents, eval_games), extra)
    if verbose:
        report(out, as_json)
    return out


def add_task_args(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options every example has: ``--players --seed --reward --opponents --eval-games --json``."""
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", default="win", choices=REWARD_SCHEMES, help="the env's reward scheme")
    parser.add_argument("--opponents", default="greedy", help="the scripted opponents of the final evaluation")
    parser.add_argument("--eval-games", type=int, default=EVAL_GAMES)
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return parser


def report(out: dict[str, Any], as_json: bool) -> None:
    """Print ``out``: with ``as_json`` one JSON object on one line, else a few readable lines."""
    if as_json:
        print(json.dumps(out))
        return
    lo, hi = out["ci95"]
    rlo, rhi = out["random_ci95"]
    ret = out["learner_return"]
    print(f"{out['library']}: {out['steps']} env steps ({out['learner_steps']} by {out['learner']}), "
          f"{out['training_games']} training games, {out['learner']}'s mean return over the last "
          f"{out['recent_games']}: {'-' if ret is None else f'{ret:+.3f}'}")
    print(f"task {out['task']}: {out['learner']} wins {out['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] of "
          f"{out['eval_games']} games against {out['opponents']} (the random policy in that seat: "
          f"{out['random_win_rate']:.3f} [{rlo:.3f}, {rhi:.3f}])")
    print(f"illegal actions: {out['illegal_actions']} ({out['train_illegal_actions']} in training, "
          f"{out['eval_illegal_actions']} in evaluation)")

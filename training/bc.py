"""Warm start: clone a scripted teacher's decisions into a network (actor) and fit its outcomes (critic).

    demos = collect_demos(spec, games=3000, seed=0, workers=2)      # the teacher plays the learner's seat
    report = pretrain(net, demos, epochs=4)                          # masked cross-entropy + value regression

``collect_demos`` plays seeded games (``necro_env.evaluate.play_game``) in which the learner's seat is
played by the teacher (e.g. the heuristic Necromancer) against the training opponents, and keeps, for each
of the learner's decisions, its observation (the single-seat view's: the same ``Observer`` defaults), its
legal-action mask, the teacher's action and the discounted return the learner's env would give from there:
the rewards after each of its decisions come from the env's own reward bookkeeping
(``necro_env.rewards.RewardTracker`` with the env's scheme, default ``win``: +1 for a win, -1 otherwise at the
end, and with ``shaping`` the progress terms ``shaping * (phi(next decision) - phi(this one))``, the last
running to the end of the game), discounted by ``gamma``. So the critic starts from the teacher's value of
the very return PPO will fit. ``pretrain`` fits the actor with
cross-entropy over the legal actions only and the critic with squared error, holding out a share of the
games to report the actor's top-1 accuracy. LEARNING.md §2 gives the evidence for this recipe
(kickstarting, actor-critic pretraining).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

from necro_env.agents.nets import masked_logits
from necro_env.evaluate import game_seeds, play_game
from necro_env.rewards import RewardTracker


@dataclass(frozen=True)
class DemoSpec:
    """Who plays in the demonstration games (the same seats and opponents as the training env)."""

    players: int
    necromancer: bool
    learner: str              # "necromancer", "player" or "players" (the teacher plays every player seat)
    teacher: Any              # a policy spec for the learner's seat
    opponents: Any            # the other player seats
    necromancer_opponent: Any = "heuristic"
    gamma: float = 0.995
    shaping: float = 0.0      # the env's progress shaping weight (the critic's targets include it)
    reward: str = "win"       # the env's reward scheme (the critic's targets are its returns)
    game_options: tuple = ()
    trusted: bool = False     # the specs may name pickled policy files (--trust-pickle)


_W: dict[str, Any] = {}


def _init(spec: DemoSpec) -> None:
    import necro_env.agents.base as base
    from necro_env.agents.registry import make_policy
    from necro_env.env import make_config
    from necro_env.game import Game

    torch.set_num_threads(1)
    game = Game(make_config(spec.players, necromancer=spec.necromancer, **dict(spec.game_options)))  # the env's
    _W.update(spec=spec, game=game, observer=base.observer_for(game),
              teacher=make_policy(spec.teacher, "player" if spec.learner == "players" else spec.learner,
                                  trusted=spec.trusted),
              opponent=make_policy(spec.opponents, "player", trusted=spec.trusted),
              necro=(make_policy(spec.necromancer_opponent, "necromancer", trusted=spec.trusted)
                     if spec.necromancer else None))


def _one_game(args: tuple[int, int]) -> dict[str, np.ndarray]:
    seed, index = args
    spec, game = _W["spec"], _W["game"]
    n = game.num_seats
    players = [s for s in range(n) if s != game.necro_seat]
    if spec.learner == "necromancer":
        seat = game.necro_seat
    elif spec.learner == "players":
        seat = players[0]  # the team's reward is read at one player seat (every player seat gets the same)
    else:
        seat = players[index % len(players)]
    mine = set(players) if spec.learner == "players" else {seat}
    pols = []
    for s in range(n):
        if s in mine:
            pols.append(_W["teacher"])
        elif s == game.necro_seat:
            pols.append(_W["necro"])
        else:
            pols.append(_W["opponent"])
    obs, masks, acts, paid = [], [], [], []
    tracker = RewardTracker(game, spec.reward, spec.shaping, seats=(seat,))

    def record(view, action):
        if view.seat in mine:
            obs.append(view.observation.astype(np.float16))
            masks.append(np.packbits(view.mask.astype(bool)))
            acts.append(action)
            if len(acts) == 1:
                tracker.reset(view.state)  # the single-seat env pays from the learner's first decision
            else:
                paid.append(tracker.advance_seat(view.state, seat))  # the reward after the previous decision

    def end(game_, st):
        paid.append(tracker.advance_seat(st, seat))  # the reward after the last decision (terminal included)

    engine_seed, rngs = game_seeds(seed, index, n)
    rec = play_game(game, pols, engine_seed, rngs, on_decision=record, on_end=end)
    if spec.learner == "players":
        result = -1.0 if game.necro_seat in rec["winners"] else 1.0  # the team wins when the Necromancer loses
    else:
        result = 1.0 if seat in rec["winners"] else -1.0
    t = len(acts)
    rewards = np.asarray(paid, dtype=np.float64)
    ret = discounted_returns(rewards, spec.gamma)
    return {"obs": np.stack(obs), "mask": np.stack(masks), "action": np.asarray(acts, dtype=np.int16),
            "ret": ret.astype(np.float32), "game": np.full(t, index, dtype=np.int32),
            "won": np.asarray([result > 0])}


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """``ret[k] = sum_j gamma ** (j - k) * rewards[j]`` for j >= k (``rewards[k]``: the reward after decision k)."""
    ret = np.empty(len(rewards), dtype=np.float64)
    acc = 0.0
    for k in range(len(rewards) - 1, -1, -1):
        acc = rewards[k] + gamma * acc
        ret[k] = acc
    return ret


def collect_demos(spec: DemoSpec, games: int, seed: int = 0, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """Play ``games`` seeded games with the teacher in the learner's seat; arrays of every learner decision.

    Keys: ``obs`` (float16, N x OBS_SIZE), ``mask`` (packed bits, N x 64), ``action`` (N), ``ret`` (N, the
    discounted outcome), ``game`` (N, game index), ``won`` (games,)."""
    jobs = [(seed, i) for i in range(games)]
    parts = []
    if workers <= 1:
        _init(spec)
        for k, job in enumerate(jobs):
            parts.append(_one_game(job))
            if progress:
                progress(k + 1, games)
    else:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers, initializer=_init, initargs=(spec,)) as pool:
            for k, part in enumerate(pool.imap(_one_game, jobs, chunksize=8)):
                parts.append(part)
                if progress:
                    progress(k + 1, games)
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def unpack_masks(packed: np.ndarray, num_actions: int) -> np.ndarray:
    return np.unpackbits(packed, axis=-1, count=num_actions).astype(bool)


def pretrain(net: torch.nn.Module, demos: dict[str, np.ndarray], epochs: int = 4, batch_size: int = 512,
             lr: float = 1e-3, value_coef: float = 0.5, holdout: float = 0.05, seed: int = 0,
             log: Callable[[str], None] | None = print) -> dict[str, float]:
    """Behaviour cloning of ``net`` on ``demos`` (in place); returns held-out accuracy and losses."""
    from necro_env.game.actions import NUM_ACTIONS

    gen = torch.Generator().manual_seed(seed)
    games = np.unique(demos["game"])
    rng = np.random.default_rng(seed)
    held = set(rng.choice(games, size=max(1, int(len(games) * holdout)), replace=False).tolist())
    is_held = np.fromiter((g in held for g in demos["game"]), bool, len(demos["game"]))
    train_idx, test_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    obs = torch.from_numpy(demos["obs"])
    masks = torch.from_numpy(unpack_masks(demos["mask"], NUM_ACTIONS))
    acts = torch.from_numpy(demos["action"].astype(np.int64))
    rets = torch.from_numpy(demos["ret"])
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * math.ceil(len(train_idx) / batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - k / max(1, steps))
    net.train()
    t0 = time.time()
    for ep in range(epochs):
        perm = torch.from_numpy(train_idx)[torch.randperm(len(train_idx), generator=gen)]
        tot_pi = tot_v = 0.0
        for k in range(0, len(perm), batch_size):
            b = perm[k:k + batch_size]
            logits, value = net(obs[b].float())
            logp = torch.log_softmax(masked_logits(logits, masks[b]), -1)
            loss_pi = -logp.gather(1, acts[b][:, None]).mean()
            loss_v = ((value - rets[b]) ** 2).mean()
            loss = loss_pi + value_coef * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            sched.step()
            tot_pi += loss_pi.item() * len(b)
            tot_v += loss_v.item() * len(b)
        report = evaluate_clone(net, obs, masks, acts, rets, test_idx)
        report.update(epoch=ep + 1, train_pi=tot_pi / len(perm), train_v=tot_v / len(perm), seconds=time.time() - t0)
        if log:
            log(f"BC epoch {ep + 1}/{epochs}: train CE {report['train_pi']:.3f}, value MSE {report['train_v']:.3f}; "
                f"held-out top-1 {report['accuracy']:.3f}, value MSE {report['value_mse']:.3f} "
                f"({report['seconds']:.0f} s)")
    net.eval()
    return report


def evaluate_clone(net, obs, masks, acts, rets, idx, batch_size: int = 2048) -> dict[str, float]:
    """Top-1 agreement with the teacher and value MSE on the samples ``idx`` (decisions with >= 2 options)."""
    net.eval()
    hit = n = 0
    se = 0.0
    with torch.no_grad():
        for k in range(0, len(idx), batch_size):
            b = torch.from_numpy(idx[k:k + batch_size])
            logits, value = net(obs[b].float())
            pred = masked_logits(logits, masks[b]).argmax(-1)
            hit += int((pred == acts[b]).sum())
            n += len(b)
            se += float(((value - rets[b]) ** 2).sum())
    net.train()
    return {"accuracy": hit / max(1, n), "value_mse": se / max(1, n), "held_out": n}


__all__ = ["DemoSpec", "collect_demos", "discounted_returns", "pretrain", "evaluate_clone", "unpack_masks"]

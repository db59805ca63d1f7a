"""League training of both sides of the Necromancer scenario: a meta-game over two growing pools.

    python training/league_train.py configs/league_3p.yaml [--resume] [--force] [--quiet] [--out-dir D]

Two pools, one per side: the Necromancer's (scripts such as ``heuristic`` and ``random``, shipped files
such as ``pretrained:necromancer_3p``) and the players' (a player policy plays *every* player seat of a
game, a team: ``greedy``, ``random``, ...). Generation g trains one side (``first`` in the odd
generations, the other side in the even ones) with ``training/train.py`` against a mixture over the
other side's pool, adds the run's ``final.safetensors`` to its side's pool, and fills the payoff matrix.

* **Training.** The side's recipe (a train config: ``learner: necromancer`` for the Necromancer,
  ``learner: players`` with ``reward: coalition`` for the players), its ``overrides`` and the
  generation's ``total_steps``; the mixture goes into the generated config's ``opponent_pool`` (the
  players' pool) or ``necromancer_pool`` (the Necromancer's): each training episode draws one policy
  of the other side by its weight (``training.policies.PoolSampler``; learned files play the arg-max).
  Where a generation starts is the side's choice. By default it starts **fresh from the recipe** (its
  warm start, behaviour cloning of the scripted teacher against the recipe's own ``opponents`` /
  ``necromancer_opponent``, then PPO against the mixture): every generation is then a best response
  to its mixture from the same starting point, as in PSRO (Lanctot et al. 2017), and a generation that
  went wrong does not carry into the next. A side's ``init`` (a policy file, e.g. a shipped
  ``pretrained:NAME``) is instead the starting point of its generations (the train config's
  ``init_policy``, no warm start), and with ``carry_on`` every generation after the side's first goes on
  from the side's previous generation, as AlphaStar's main agents do: the league then spends its steps
  on the new opponents rather than on learning the game again. Run ``g`` is
  ``<league>/runs/g<gg>_<side>__s<seed+g>``.
* **Mixture** (``mixture``): ``uniform`` (every member of the other side's pool alike) or ``nash``: the
  Nash equilibrium of the two-side zero-sum meta-game on the current payoff matrix (the Necromancer's
  win rate is his payoff, the players' is its negative), the other side's half of it. It is solved by
  **fictitious play** with a fixed number of iterations (``NASH_ITERATIONS``; each side plays the best
  response to the other's empirical mixture, ties to the lower index, and the empirical frequencies are
  the answer), which needs no LP solver (scipy is not a dependency of necro_env), is deterministic, and
  comes with its own accuracy: the duality gap ``max(A y) - min(x A)``, recorded with the mixture
  (``nash_gap``: 0 at an exact equilibrium). ``uniform_share`` (0 by default) mixes that much of the
  uniform mixture into the Nash one, ``(1 - s) nash + s uniform``, so that no member of the pool is
  forgotten (a Necromancer trained only against the strongest team may lose to the greedy one).
  Members of zero weight are left out of the training pool.
* **Payoff matrix** (Necromancer pool x players pool): the Necromancer's win rate with a 95% Wilson
  interval over ``eval_games`` games seeded as ``necro-env evaluate --seed SEED`` seeds them (game i
  from ``SeedSequence([seed, i])``, the same games for every entry), through ``necro_env.evaluate``'s
  game runner. Seats: the player policy plays every player seat and the Necromancer sits last, as in
  the scenario's evaluation; with one policy in every player seat there is no player seat to rotate
  (each seat is covered in every game), and the Necromancer's seat is the scenario's. Entries already
  computed are kept (a resumed league never replays them); the missing ones are played in one batch
  (one process pool for all of them). Learned policies play the arg-max.
* **Ratings**: openskill Plackett-Luce ratings of every pool member over the matrix's games, in the
  order the entries were computed (``necro_env.league.rate``: the Necromancer first when he wins, else
  the players by their standing and he last).

Outputs, in ``<out_dir>/<name>/``:
    state.json        the league: pools, the matrix's games, each generation's mixture (checked on load)
    payoff.csv/.json  the matrix: wins, games, win rate and its interval per (Necromancer, players) pair
    payoff.png        the matrix as a heatmap
    eval.csv          per generation: the new policy's win rate (its side's: the players' = 1 - his)
                      against each member of the other side's pool (the scripts among them) and
                      against the mixture it trained on
    ratings.csv/.json openskill ratings of every pool member
    runs/             the generations' train.py runs
    league_necromancer_<N>p.safetensors, league_players_<N>p.safetensors: the last generation of each side

Resumable: ``--resume`` continues at the first unfinished generation (its train.py run resumes from its
newest checkpoint, exactly; a finished run is not retrained), reusing the mixture that generation
recorded. The state file is checked on load (``LeagueStateError``), including that it was made by the
same league config. Without ``--resume`` an existing league directory is an error unless ``--force``.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from necro_env.game.errors import ConfigError, NecroEnvError, StateError
from necro_env.stats import wilson
from training.config import TrainConfig, TrainConfigError, check_keys, config_from_dict, load_config, read_yaml

ROOT = Path(__file__).resolve().parents[1]
SIDES = ("necromancer", "players")
ROLE = {"necromancer": "necromancer", "players": "player"}
#: Fictitious-play iterations of the Nash mixture.
NASH_ITERATIONS = 20_000
STATE_VERSION = 1


class LeagueConfigError(TrainConfigError):
    """A league config has an unknown key or a bad value (a ``ConfigError``)."""


class LeagueStateError(StateError):
    """A league's state file is unreadable, malformed or made by another config."""


# ----------------------------------------------------------------------------------------- config
@dataclass(frozen=True)
class SideConfig:
    """One side's training recipe and starting pool.

    recipe: a train config (training/config.py) whose learner is the side's ("necromancer", or
        "players" with reward "coalition") and whose ``players`` is the league's.
    total_steps: PPO steps of each of this side's generations: one int for all of them, or a list
        with one per generation of this side (None: the recipe's).
    overrides: train-config keys set on top of the recipe (not name, players, learner, seed, out_dir,
        the pools or total_steps, which the league sets).
    pool: the side's initial pool, policy specs (scripts, shipped ``pretrained:NAME``, files).
    init: None (each generation starts from the recipe's warm start) or a policy file spec of the
        side's role (``pretrained:NAME``, a ``.safetensors`` path) whose weights are where its
        generations start (the recipe's network must be the file's).
    carry_on: every generation of the side after its first starts from the side's previous generation.
    """

    recipe: str
    pool: tuple[str, ...]
    total_steps: int | tuple[int, ...] | None = None
    overrides: dict = field(default_factory=dict)
    init: str | None = None
    carry_on: bool = False


@dataclass(frozen=True)
class LeagueTrainConfig:
    """A league (see the module docstring).

    name: the league's directory name (``<out_dir>/<name>``); players: seats, the Necromancer included;
    generations: how many policies are trained (alternating sides); first: the side trained in
    generation 1; mixture: "uniform" or "nash"; uniform_share: the part of the uniform mixture mixed
    into the Nash one (0 <= s < 1); eval_games: games per payoff-matrix entry;
    eval_workers: processes that play them; seed: the games' seed (generation g trains with seed + g).
    """

    name: str
    generations: int
    necromancer_side: SideConfig
    players_side: SideConfig
    players: int = 3
    first: str = "necromancer"
    mixture: str = "nash"
    uniform_share: float = 0.0
    eval_games: int = 200
    eval_workers: int = 1
    seed: int = 0
    out_dir: str = "runs"

    def side(self, side: str) -> SideConfig:
        return self.necromancer_side if side == "necromancer" else self.players_side

    def side_of(self, generation: int) -> str:
        """The side trained in ``generation`` (1-based)."""
        other = "players" if self.first == "necromancer" else "necromancer"
        return self.first if generation % 2 == 1 else other

    def side_index(self, generation: int) -> int:
        """How many generations of its side ``generation`` is (1-based)."""
        return sum(1 for g in range(1, generation + 1) if self.side_of(g) == self.side_of(generation))

    def steps_of(self, generation: int) -> int | None:
        ts = self.side(self.side_of(generation)).total_steps
        if ts is None or isinstance(ts, int):
            return ts
        return ts[self.side_index(generation) - 1]

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for s in ("necromancer_side", "players_side"):
            d[s]["pool"] = list(d[s]["pool"])
            if isinstance(d[s]["total_steps"], tuple):
                d[s]["total_steps"] = list(d[s]["total_steps"])
        return d

    def train_config(self, generation: int, league_dir: Path, pool: list[dict] | None,
                     init: str | None = None) -> TrainConfig:
        """The train config of ``generation``, training against ``pool`` ({spec, weight}; None: the recipe's
        own opponents, used to check the recipe), starting from the policy file ``init`` (None: the
        recipe's warm start)."""
        side = self.side_of(generation)
        sc = self.side(side)
        d = load_config(resolve(sc.recipe)).to_dict()
        d.update(sc.overrides)
        if init is not None:
            d.update(init_policy=init, warm_start=None)
        d.update(name=f"g{generation:02d}_{side}", out_dir=str(league_dir / "runs"), seed=self.seed + generation)
        steps = self.steps_of(generation)
        if steps is not None:
            d["total_steps"] = steps
        d["opponent_pool" if side == "necromancer" else "necromancer_pool"] = pool
        return config_from_dict(d, where=f"{sc.recipe} (generation {generation})")


SIDE_KEYS = {"recipe", "pool", "total_steps", "overrides", "init", "carry_on"}
LEAGUE_SET = {"name", "players", "learner", "seed", "out_dir", "opponent_pool", "necromancer_pool", "total_steps",
              "init_policy"}


def resolve(path: str) -> Path:
    """A recipe path: as given (absolute, or relative to the working directory), else relative to the repository."""
    p = Path(path)
    return p if p.is_absolute() or p.exists() else ROOT / p


def _side_from(data: Any, where: str, generations: int) -> SideConfig:
    if not isinstance(data, dict):
        raise LeagueConfigError(f"{where} must be a mapping with keys {sorted(SIDE_KEYS)}, got {data!r}")
    unknown = sorted(set(data) - SIDE_KEYS)
    if unknown:
        raise LeagueConfigError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(SIDE_KEYS)}")
    for key in ("recipe", "pool"):
        if key not in data:
            raise LeagueConfigError(f"{where}: the key {key!r} is required")
    recipe = data["recipe"]
    if not isinstance(recipe, str) or not resolve(recipe).is_file():
        raise LeagueConfigError(f"{where}: recipe must be the path of a train config, got {recipe!r} (not a file)")
    pool = data["pool"]
    if not isinstance(pool, list) or not pool or not all(isinstance(s, str) and s.strip() for s in pool):
        raise LeagueConfigError(f"{where}: pool must be a non-empty list of policy specs, got {pool!r}")
    if len(set(pool)) != len(pool):
        raise LeagueConfigError(f"{where}: pool names a spec twice: {pool}")
    steps = data.get("total_steps")

    def pos_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1

    if isinstance(steps, list):
        if len(steps) != generations or not all(pos_int(v) for v in steps):
            raise LeagueConfigError(f"{where}: total_steps as a list needs one int >= 1 per generation of this side "
                                    f"({generations}), got {steps!r}")
        steps = tuple(steps)
    elif steps is not None and not pos_int(steps):
        raise LeagueConfigError(f"{where}: total_steps must be an int >= 1 or a list of them, got {steps!r}")
    over = data.get("overrides") or {}
    if not isinstance(over, dict):
        raise LeagueConfigError(f"{where}: overrides must be a mapping of train-config keys, got {over!r}")
    taken = sorted(LEAGUE_SET & set(over))
    if taken:
        raise LeagueConfigError(f"{where}: overrides may not set {taken}: the league sets them (a side's "
                                f"starting point is its init)")
    init = data.get("init")
    if init is not None and not (isinstance(init, str) and (init.strip().lower().startswith("pretrained:")
                                                             or init.endswith(".safetensors"))):
        raise LeagueConfigError(f"{where}: init must be null or a policy file (pretrained:NAME or a .safetensors "
                                f"path), got {init!r}")
    carry_on = data.get("carry_on", False)
    if not isinstance(carry_on, bool):
        raise LeagueConfigError(f"{where}: carry_on must be true or false, got {carry_on!r}")
    return SideConfig(recipe, tuple(pool), steps, dict(over), init, carry_on)


def league_config_from_dict(data: Any, where: str = "league config") -> LeagueTrainConfig:
    """A checked ``LeagueTrainConfig``; ``LeagueConfigError`` names the bad key or value."""
    from necro_env.agents.registry import check_policy

    check_keys(LeagueTrainConfig, data, where, LeagueConfigError)
    for key in ("name", "generations", "necromancer_side", "players_side"):
        if key not in data:
            raise LeagueConfigError(f"{where}: the key {key!r} is required")

    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise LeagueConfigError(f"{where}: {msg}")

    name = data["name"]
    need(isinstance(name, str) and name.replace("_", "").replace("-", "").isalnum(),
         f"name must be letters, digits, '-' or '_', got {name!r}")
    for key, low in (("generations", 1), ("players", 3), ("eval_games", 1), ("eval_workers", 1), ("seed", 0)):
        v = data.get(key, 3 if key == "players" else low)
        need(isinstance(v, int) and not isinstance(v, bool) and v >= low, f"{key} must be an int >= {low}, got {v!r}")
    need(data.get("players", 3) <= 6, f"players must be 3-6 (the Necromancer included), got {data.get('players')!r}")
    need(data.get("first", "necromancer") in SIDES, f"first must be 'necromancer' or 'players', got {data.get('first')!r}")
    need(data.get("mixture", "nash") in ("uniform", "nash"), f"mixture must be 'uniform' or 'nash', "
                                                              f"got {data.get('mixture')!r}")
    need(isinstance(data.get("out_dir", "runs"), str), f"out_dir must be a string, got {data.get('out_dir')!r}")
    share = data.get("uniform_share", 0.0)
    need(isinstance(share, (int, float)) and not isinstance(share, bool) and 0 <= share < 1,
         f"uniform_share must be a number in [0, 1), got {share!r}")
    gens, first = data["generations"], data.get("first", "necromancer")
    n_first = (gens + 1) // 2
    counts = {first: n_first, ("players" if first == "necromancer" else "necromancer"): gens - n_first}
    d = dict(data)
    d["necromancer_side"] = _side_from(data["necromancer_side"], f"{where}: necromancer_side", counts["necromancer"])
    d["players_side"] = _side_from(data["players_side"], f"{where}: players_side", counts["players"])
    cfg = LeagueTrainConfig(**d)
    for side in SIDES:  # the recipes: right learner and seats, overrides that load; the pools' specs exist
        sc = cfg.side(side)
        for spec in sc.pool:
            try:
                check_policy(spec, ROLE[side], trusted=True)
            except ConfigError as e:
                raise LeagueConfigError(f"{where}: {side}_side pool: {e}") from None
        gen = next((g for g in range(1, gens + 1) if cfg.side_of(g) == side), None)
        try:
            tc = cfg.train_config(gen or 1, Path(cfg.out_dir) / cfg.name, None, sc.init)
        except TrainConfigError as e:
            raise LeagueConfigError(f"{where}: {side}_side: {e}") from None
        need(tc.learner == side, f"{side}_side: the recipe {sc.recipe} trains learner {tc.learner!r}, not {side!r}")
        need(tc.players == cfg.players, f"{side}_side: the recipe {sc.recipe} plays {tc.players} seats, "
                                        f"the league {cfg.players}")
        need(tc.necromancer, f"{side}_side: the recipe {sc.recipe} does not play the Necromancer scenario")
    return cfg


def load_league_config(path: str | Path) -> LeagueTrainConfig:
    return league_config_from_dict(read_yaml(path), where=str(path))


# ------------------------------------------------------------------------------------- meta-game
def nash_zero_sum(payoff: Any, iterations: int = NASH_ITERATIONS) -> dict[str, Any]:
    """An approximate Nash equilibrium of the zero-sum matrix game ``payoff`` (the row player maximises,
    the column player minimises) by fictitious play: ``iterations`` rounds in which each side plays its
    best response (ties: the lowest index) to the other's empirical mixture so far, starting from the
    best responses to the uniform mixtures. Returns ``row``, ``col`` (the empirical mixtures), ``value``
    (midpoint of the bounds below) and ``gap = max_i (A y)_i - min_j (x A)_j`` (>= 0; each mixture is
    within ``gap`` of a best response to the other)."""
    a = np.asarray(payoff, dtype=np.float64)
    if a.ndim != 2 or a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"payoff must be a non-empty finite matrix, got shape {a.shape}")
    m, n = a.shape
    rows, cols = np.zeros(m), np.zeros(n)
    row_total, col_total = np.zeros(m), np.zeros(n)  # each row's payoff against the columns played so far, ...
    i, j = int(np.argmax(a.mean(axis=1))), int(np.argmin(a.mean(axis=0)))
    for _ in range(iterations):
        rows[i] += 1
        cols[j] += 1
        row_total += a[:, j]
        col_total += a[i, :]
        i, j = int(np.argmax(row_total)), int(np.argmin(col_total))
    x, y = rows / iterations, cols / iterations
    upper, lower = float(np.max(a @ y)), float(np.min(x @ a))
    return {"row": x.tolist(), "col": y.tolist(), "value": (upper + lower) / 2, "gap": upper - lower}


# ----------------------------------------------------------------------------------------- state
def _check_state(data: Any, cfg_dict: dict, path: Path) -> dict:
    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise LeagueStateError(f"{path}: {msg}")

    need(isinstance(data, dict), "a league state must be a JSON object")
    keys = {"version", "config", "pools", "matrix", "generations"}
    need(set(data) == keys, f"a league state has the keys {sorted(keys)}, got {sorted(map(str, data))}")
    need(data["version"] == STATE_VERSION, f"state version {data['version']!r}, this code reads {STATE_VERSION}")
    need(data["config"] == cfg_dict, "this league was started with another config (its state records it): "
                                     "use the same config, or --force to start over")
    pools = data["pools"]
    need(isinstance(pools, dict) and set(pools) == set(SIDES), "pools must map 'necromancer' and 'players' to lists")
    names: set[str] = set()
    for side in SIDES:
        need(isinstance(pools[side], list) and pools[side], f"pools[{side!r}] must be a non-empty list")
        for e in pools[side]:
            need(isinstance(e, dict) and set(e) == {"name", "spec", "generation"}
                 and isinstance(e["name"], str) and isinstance(e["spec"], str)
                 and isinstance(e["generation"], int) and not isinstance(e["generation"], bool) and e["generation"] >= 0,
                 f"pools[{side!r}] entries are {{name, spec, generation}}, got {e!r}")
            need((side, e["name"]) not in names, f"pools[{side!r}] names {e['name']!r} twice")
            names.add((side, e["name"]))
            if e["generation"]:
                need((path.parent / e["spec"]).is_file(), f"the policy file {e['spec']} of {e['name']} is missing")
    need(isinstance(data["matrix"], list), "matrix must be a list of entries")
    games, seats = cfg_dict["eval_games"], cfg_dict["players"]
    for e in data["matrix"]:
        need(isinstance(e, dict) and set(e) == {"necromancer", "players", "necro_won", "placements"}
             and ("necromancer", e["necromancer"]) in names and ("players", e["players"]) in names
             and isinstance(e["necro_won"], list) and all(isinstance(w, bool) for w in e["necro_won"])
             and isinstance(e["placements"], list) and len(e["placements"]) == len(e["necro_won"]) == games
             and all(isinstance(p, list) and len(p) == seats and all(isinstance(r, int) for r in p)
                     for p in e["placements"]),
             f"matrix entries are {{necromancer, players, necro_won, placements}} of pool members, one per game "
             f"({games}), got {str(e)[:200]}")
    need(isinstance(data["generations"], list), "generations must be a list")
    for k, g in enumerate(data["generations"], start=1):
        need(isinstance(g, dict) and g.get("generation") == k and g.get("side") in SIDES
             and isinstance(g.get("mixture"), dict) and isinstance(g.get("done"), bool),
             f"generations[{k - 1}] must describe generation {k} (side, mixture, done), got {str(g)[:200]}")
        for name, w in g["mixture"].items():
            other = "players" if g["side"] == "necromancer" else "necromancer"
            need((other, name) in names and isinstance(w, (int, float)) and not isinstance(w, bool) and 0 < w <= 1,
                 f"generation {k}'s mixture weighs {name!r} by {w!r}: not a member of the {other}' pool or "
                 f"not a weight in (0, 1]")
    return data


def load_state(path: Path, cfg_dict: dict) -> dict:
    """The league state at ``path``, checked (``LeagueStateError``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise LeagueStateError(f"{path}: cannot read the league state ({type(e).__name__}: {e})") from None
    return _check_state(data, cfg_dict, path)


def save_state(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(path)


# ------------------------------------------------------------------------------------------ league
class League:
    """A league in its directory: its config, its state, and the steps of a generation."""

    def __init__(self, cfg: LeagueTrainConfig, progress: bool = True, trusted: bool = False):
        self.cfg = cfg
        self.dir = Path(cfg.out_dir) / cfg.name
        self.state_path = self.dir / "state.json"
        self.progress = progress
        self.trusted = trusted
        self.cfg_dict = {k: v for k, v in cfg.to_dict().items() if k != "out_dir"}
        self.state: dict = {}

    # the pools
    def pool(self, side: str) -> list[dict]:
        return self.state["pools"][side]

    def spec(self, entry: dict) -> str:
        """A member's policy spec as the game runner needs it (a generation's file: its absolute path)."""
        return str((self.dir / entry["spec"]).resolve()) if entry["generation"] else entry["spec"]

    # the matrix
    def entries(self) -> dict[tuple[str, str], dict]:
        return {(e["necromancer"], e["players"]): e for e in self.state["matrix"]}

    def fill_matrix(self) -> None:
        """Play every missing (Necromancer, players) entry, all in one batch of games (one process pool for
        all of them), and save the state."""
        from necro_env.evaluate import run_games
        from necro_env.game import GameConfig

        have = self.entries()
        missing = [(n, p) for n in self.pool("necromancer") for p in self.pool("players")
                   if (n["name"], p["name"]) not in have]
        if not missing:
            return
        game_cfg = GameConfig(players=self.cfg.players, necromancer=True)
        specs = {f"n{k}": (self.spec(e), "necromancer") for k, e in enumerate(self.pool("necromancer"))}
        specs.update({f"p{k}": (self.spec(e), "player") for k, e in enumerate(self.pool("players"))})
        label = {("necromancer", e["name"]): f"n{k}" for k, e in enumerate(self.pool("necromancer"))}
        label.update({("players", e["name"]): f"p{k}" for k, e in enumerate(self.pool("players"))})
        tasks = [(i, self.cfg.seed, (label[("players", p["name"])],) * game_cfg.num_players
                  + (label[("necromancer", n["name"])],))
                 for n, p in missing for i in range(self.cfg.eval_games)]  # game i: necro-env evaluate's game i
        recs = run_games(game_cfg.to_dict(), specs, tasks, workers=self.cfg.eval_workers, trusted=self.trusted)
        for k, (n, p) in enumerate(missing):
            part = recs[k * self.cfg.eval_games:(k + 1) * self.cfg.eval_games]
            self.state["matrix"].append({"necromancer": n["name"], "players": p["name"],
                                         "necro_won": [bool(r["necro_won"]) for r in part],
                                         "placements": [r["placements"] for r in part]})
        save_state(self.state_path, self.state)

    @staticmethod
    def necro_wins(e: dict) -> int:
        """The Necromancer's wins in a matrix entry."""
        return sum(e["necro_won"])

    def matrix(self) -> np.ndarray:
        have = self.entries()
        return np.array([[self.necro_wins(have[(n["name"], p["name"])]) / self.cfg.eval_games
                          for p in self.pool("players")] for n in self.pool("necromancer")])

    def mixture(self, side: str) -> tuple[dict[str, float], float | None, float | None]:
        """The mixture over the pool of the side ``side`` trains against (name -> weight > 0), the
        meta-game's value and the solver's gap (None for "uniform")."""
        other = "players" if side == "necromancer" else "necromancer"
        names = [e["name"] for e in self.pool(other)]
        if self.cfg.mixture == "uniform":
            return {n: 1.0 / len(names) for n in names}, None, None
        sol = nash_zero_sum(self.matrix())
        share = self.cfg.uniform_share
        weights = [(1 - share) * w + share / len(names)
                   for w in (sol["col"] if other == "players" else sol["row"])]
        return {n: w for n, w in zip(names, weights) if w > 0}, sol["value"], sol["gap"]

    # a run
    def start(self, resume: bool, force: bool) -> None:
        if self.dir.exists() and not resume:
            if not force:
                raise LeagueConfigError(f"league directory {self.dir} exists: pass --resume to continue it or "
                                        f"--force to start over")
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        if resume and self.state_path.exists():
            self.state = load_state(self.state_path, self.cfg_dict)
            return
        self.state = {"version": STATE_VERSION, "config": self.cfg_dict, "matrix": [], "generations": [],
                      "pools": {side: [{"name": s, "spec": s, "generation": 0} for s in self.cfg.side(side).pool]
                                for side in SIDES}}
        save_state(self.state_path, self.state)

    def init_of(self, g: int) -> str | None:
        """Where generation ``g`` starts: the side's previous generation (``carry_on``, after its first),
        else the side's ``init`` (None: the recipe's warm start)."""
        side = self.cfg.side_of(g)
        sc = self.cfg.side(side)
        earlier = [e for e in self.pool(side) if 0 < e["generation"] < g]
        if sc.carry_on and earlier:
            return self.spec(earlier[-1])
        return sc.init

    def train_generation(self, g: int, stop_after: int | None = None) -> bool:
        """Train generation ``g`` (resuming its run when it has a checkpoint) and add it to its side's pool;
        False when ``stop_after`` stopped it before its end (a test's stand-in for a killed league)."""
        from training.checkpoint import checkpoints
        from training.train import train

        side = self.cfg.side_of(g)
        gens = self.state["generations"]
        if len(gens) < g:  # the generation's mixture is fixed when it starts, and kept for a resume
            mix, value, gap = self.mixture(side)
            gens.append({"generation": g, "side": side, "name": f"{side}_g{g}", "mixture": mix, "nash_value": value,
                         "nash_gap": gap, "done": False})
            save_state(self.state_path, self.state)
        gen = gens[g - 1]
        other = "players" if side == "necromancer" else "necromancer"
        by_name = {e["name"]: e for e in self.pool(other)}
        pool = [{"spec": self.spec(by_name[n]), "weight": w} for n, w in gen["mixture"].items()]
        tc = self.cfg.train_config(g, self.dir, pool, self.init_of(g))
        run_dir = Path(tc.out_dir) / tc.run_name
        if any(e["name"] == gen["name"] for e in self.pool(side)):
            return True  # trained and added before the league stopped
        if not (run_dir / "final.safetensors").is_file():
            resume = (run_dir / "checkpoints").is_dir() and bool(checkpoints(run_dir / "checkpoints"))
            t0 = time.time()
            train(tc, resume=resume, force=not resume, progress=self.progress, stop_after=stop_after,
                  trusted=self.trusted)
            gen["train_seconds"] = round(time.time() - t0 + gen.get("train_seconds", 0))
            if not (run_dir / "final.safetensors").is_file():
                save_state(self.state_path, self.state)
                return False
        info = json.loads(_header_info(run_dir / "final.safetensors"))
        gen["steps"] = info.get("steps")
        self.pool(side).append({"name": gen["name"], "spec": str((run_dir / "final.safetensors").relative_to(self.dir)),
                                "generation": g})
        save_state(self.state_path, self.state)
        return True

    # outputs
    def write_outputs(self) -> None:
        n_names = [e["name"] for e in self.pool("necromancer")]
        p_names = [e["name"] for e in self.pool("players")]
        have = self.entries()
        games = self.cfg.eval_games
        rows = []
        for n in n_names:
            for p in p_names:
                e = have.get((n, p))
                if e is None:
                    continue
                k = self.necro_wins(e)
                lo, hi = wilson(k, games)
                rows.append({"necromancer": n, "players": p, "wins": k, "games": games, "win_rate": k / games,
                             "lo": lo, "hi": hi})
        _write_csv(self.dir / "payoff.csv", rows, ["necromancer", "players", "wins", "games", "win_rate", "lo", "hi"])
        cell = {(r["necromancer"], r["players"]): r for r in rows}
        grid = {k: [[cell[(n, p)][k] if (n, p) in cell else None for p in p_names] for n in n_names]
                for k in ("win_rate", "lo", "hi")}
        (self.dir / "payoff.json").write_text(json.dumps({
            "necromancer": n_names, "players": p_names, "games": games, "seed": self.cfg.seed,
            "payoff": "the Necromancer's win rate (Wilson 95% interval: lo, hi)", **grid}, indent=1))
        self._write_eval(cell)
        self._write_ratings()
        if len(cell) == len(n_names) * len(p_names):
            _heatmap(self.dir / "payoff.png", np.array(grid["win_rate"], dtype=float), n_names, p_names,
                     f"{self.cfg.name}: the Necromancer's win rate ({games} games each)")

    def _write_eval(self, cell: dict) -> None:
        from necro_env.agents.registry import policy_names

        out = []
        for gen in self.state["generations"]:
            side, name = gen["side"], gen["name"]
            other = "players" if side == "necromancer" else "necromancer"
            scored = []
            for e in self.pool(other):
                key = (name, e["name"]) if side == "necromancer" else (e["name"], name)
                if key not in cell:
                    continue
                r = cell[key]
                wins = r["wins"] if side == "necromancer" else r["games"] - r["wins"]
                lo, hi = wilson(wins, r["games"])
                row = {"generation": gen["generation"], "side": side, "policy": name, "opponent": e["name"],
                       "opponent_kind": "script" if e["spec"] in policy_names() else "learned",
                       "weight": gen["mixture"].get(e["name"], 0.0), "wins": wins, "games": r["games"],
                       "win_rate": wins / r["games"], "lo": lo, "hi": hi}
                scored.append(row)
            if not scored:
                continue
            out.extend(scored)
            mix = sum(r["weight"] * r["win_rate"] for r in scored)
            total = sum(r["weight"] for r in scored)
            out.append({"generation": gen["generation"], "side": side, "policy": name, "opponent": "mixture",
                        "opponent_kind": self.cfg.mixture, "weight": total, "wins": "", "games": "",
                        "win_rate": mix / total if total else "", "lo": "", "hi": ""})
        _write_csv(self.dir / "eval.csv", out, ["generation", "side", "policy", "opponent", "opponent_kind", "weight",
                                                "wins", "games", "win_rate", "lo", "hi"])

    def _write_ratings(self) -> None:
        from necro_env.league import rate

        names = {e["name"] for e in self.pool("players")}
        clash = names & {e["name"] for e in self.pool("necromancer")}
        label = {("players", n): (f"players:{n}" if n in clash else n) for n in names}
        label.update({("necromancer", e["name"]): (f"necromancer:{e['name']}" if e["name"] in clash else e["name"])
                      for e in self.pool("necromancer")})
        seats = self.cfg.players - 1
        records = [{"seats": [label[("players", e["players"])]] * seats + [label[("necromancer", e["necromancer"])]],
                    "placements": pl} for e in self.state["matrix"] for pl in e["placements"]]
        ratings = rate(records, list(label.values()), self.cfg.players - 1)
        rows = [{"name": label[(side, e["name"])], "side": side, "generation": e["generation"],
                 "mu": ratings[label[(side, e["name"])]].mu, "sigma": ratings[label[(side, e["name"])]].sigma,
                 "ordinal": ratings[label[(side, e["name"])]].ordinal()}
                for side in SIDES for e in self.pool(side)]
        rows.sort(key=lambda r: -r["ordinal"])
        _write_csv(self.dir / "ratings.csv", rows, ["name", "side", "generation", "mu", "sigma", "ordinal"])
        (self.dir / "ratings.json").write_text(json.dumps(
            {"model": "openskill PlackettLuce (mu0 25, sigma0 25/3); ordinal = mu - 3 sigma", "ratings": rows},
            indent=1))

    def ship(self) -> list[Path]:
        """Copy the last generation of each side to ``league_<side>_<N>p.safetensors``."""
        out = []
        for side in SIDES:
            learned = [e for e in self.pool(side) if e["generation"]]
            if learned:
                dst = self.dir / f"league_{side}_{self.cfg.players}p.safetensors"
                shutil.copyfile(self.dir / learned[-1]["spec"], dst)
                out.append(dst)
        return out


def _header_info(path: Path) -> str:
    from necro_env.agents.torch_policy import policy_header

    return json.dumps(policy_header(path).get("info") or {})


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    def fmt(v: Any) -> Any:
        return f"{v:.4f}" if isinstance(v, float) else v

    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([fmt(r[c]) for c in columns])


def _heatmap(path: Path, values: np.ndarray, rows: list[str], cols: list[str], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(cols), 1.4 + 0.6 * len(rows)))
    im = ax.imshow(values, cmap="RdBu_r", vmin=0.0, vmax=1.0, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if abs(values[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_xlabel("players (every player seat)")
    ax.set_ylabel("Necromancer")
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, label="Necromancer win rate")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run_league(cfg: LeagueTrainConfig, resume: bool = False, force: bool = False, progress: bool = True,
               trusted: bool = False, stop: tuple[int, int | None] | None = None) -> League:
    """Run (or resume) the league; returns it. ``stop=(g, steps)`` (tests) stops inside generation ``g``
    after ``steps`` PPO steps (``None``: after its training, before its matrix entries), as a kill would."""
    league = League(cfg, progress=progress, trusted=trusted)
    league.start(resume, force)
    league.fill_matrix()  # generation 0: the initial pools
    league.write_outputs()
    done = sum(1 for g in league.state["generations"] if g["done"])
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.generations, initial=done, unit="gen", desc=f"league {cfg.name}", dynamic_ncols=True)
    try:
        for g in range(done + 1, cfg.generations + 1):
            if bar is not None:
                bar.set_postfix_str(f"training the {cfg.side_of(g)} (generation {g})")
            halt = stop is not None and stop[0] == g
            if not league.train_generation(g, stop_after=stop[1] if halt and stop[1] is not None else None):
                return league
            if halt and stop[1] is None:
                return league
            if bar is not None:
                bar.set_postfix_str(f"payoff matrix (generation {g})")
            league.fill_matrix()
            league.state["generations"][g - 1]["done"] = True
            save_state(league.state_path, league.state)
            league.write_outputs()
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    league.ship()
    return league


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("config", metavar="CONFIG.yaml", help="league config (see configs/league_3p.yaml)")
    p.add_argument("--resume", action="store_true", help="continue at the first unfinished generation")
    p.add_argument("--force", action="store_true", help="delete an existing league directory and start over")
    p.add_argument("--quiet", action="store_true", help="no progress bars or messages")
    p.add_argument("--out-dir", default=None, help="override out_dir (the league is <out_dir>/<name>)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow pool members given as SB3 .zip files (pickles: they can run code when loaded)")
    args = p.parse_args(argv)
    try:
        cfg = load_league_config(args.config)
        if args.out_dir is not None:
            cfg = dataclasses.replace(cfg, out_dir=args.out_dir)
        league = run_league(cfg, resume=args.resume, force=args.force, progress=not args.quiet,
                            trusted=args.trust_pickle)
    except TrainConfigError as e:
        print(f"league_train.py: error: {e}", file=sys.stderr)
        return 2
    except NecroEnvError as e:  # a bad state file, no intact checkpoint, an untrusted policy file
        print(f"league_train.py: error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        m = league.matrix()
        print(f"league {cfg.name}: {cfg.generations} generations -> {league.dir}; the Necromancer's mean win rate "
              f"over the matrix {m.mean():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Score policies on the frozen benchmark suite, or aggregate many runs' scores (IQM, bootstrap intervals).

The suite ``necro-bench-v1`` (``SUITE_VERSION``) is a registry of frozen tasks (``TASKS``, ``get_task``).
A task fixes the seats, the scenario (on/off), the learner's role, its opponents, the game options,
the learner's env-step budgets, the training seeds to report, and the evaluation (seed and games):

==================  =====  ========  ==========================  ==============================================
task                seats  scenario  learner                     opponents (the other side)
==================  =====  ========  ==========================  ==============================================
necro3-greedy       3      yes       the Necromancer             greedy players
necro6-greedy       6      yes       the Necromancer             greedy players
players3-heuristic  3      yes       every player seat (a team)  the heuristic Necromancer
player2-greedy      2      no        one player seat (rotated)   a greedy player
selfplay3           3      yes       both sides: a Necromancer   teams {greedy, pretrained:players_3p};
                                     and a team                  Necromancers {heuristic, pretrained:necromancer_3p}
==================  =====  ========  ==========================  ==============================================

**Evaluation.** Every side of a task plays ``eval_games`` games (seed ``eval_seed``) against each of its
opponents through ``necro_env.evaluate.evaluate`` (game i seeded from (seed, i); in ``player2-greedy``
the learner's seat rotates over both seats, game i: seat ``i mod 2``). A side's *win rate* is its wins
over all its games (a shared win counts; a team wins when the Necromancer does not); its *score* is the
normalized win rate ``(w - w_random) / (w_reference - w_random)``, where ``w_random`` is the uniform random
policy's win rate in the same seat(s) and games and ``w_reference`` the scripted reference's (the heuristic
Necromancer; the greedy player; for a team, greedy players in every player seat). 0 is random play, 1 the
scripted reference; scores below 0 and above 1 are allowed. A task's win rate pools its sides' games; its
score is the mean of its sides' scores (``selfplay3``: the Necromancer's and the team's, each against the
other side's pool).

**Anchors.** ``w_random`` and ``w_reference`` were measured once with this evaluation (the task's seed
and games) and are stored in the tasks as win counts per opponent (``Side.random_wins``,
``Side.reference_wins``); ``necro-env benchmark --measure-anchors`` measures them again and compares.

**Frozen.** Tasks are frozen dataclasses; ``task_digest`` hashes a task's fields, the resolved game
options and the env version, and the tests pin every digest of this suite version. A task that changes
(its options, its opponents, an anchor, a shipped opponent's file: ``Task.pinned_files``) needs a new
suite version. The shipped opponent files are checked against their pinned SHA-256 before a score is made.

**Results files.** One JSON object per run (``necro-env benchmark --json`` prints one on its last line;
``--out FILE`` writes it): ``benchmark``, ``task``, ``library``, ``seed`` (the training seed), ``budget``
(``small``/``large`` or a step count), ``win_rate``, ``score``, and more (``RESULT_FIELDS``).
``necro-env benchmark --results DIR`` reads every ``*.json`` of DIR and reports, per budget, per task and
library and over the tasks every library ran, the mean and the IQM (interquartile mean) of the scores
with 95% stratified-bootstrap intervals, and performance profiles (rliable, the optional ``bench``
extra).
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from .game.errors import ConfigError
from .stats import format_interval, wilson
from .versions import ENV_ID

SUITE_VERSION = "necro-bench-v1"
#: The policy whose win rate is a score of 0, and the scripted reference (a score of 1) of each learner.
RANDOM_SPEC = "random"
REFERENCE_SPEC = {"necromancer": "heuristic", "player": "greedy", "players": "greedy"}
LEARNERS = tuple(REFERENCE_SPEC)
BUDGETS = (("small", 1_000_000), ("large", 5_000_000))
EVAL_SEED = 2024
EVAL_GAMES = 600
HELDOUT_SEEDS = (2025, 2026)
TRAIN_SEEDS = (0, 1, 2)
BENCH_EXTRA_HINT = "pip install 'necro_env[bench]' (in a clone: pip install -e '.[bench]')"


# ---------------------------------------------------------------------------------- the suite
@dataclass(frozen=True)
class Side:
    """One learned side of a task and how it is scored.

    learner: ``necromancer`` (his seat), ``players`` (every player seat, one team policy) or ``player``
    (one seat of the base game, rotated; every other seat plays the opponent).
    opponents: the other side's policy specs; the side plays the task's games against each.
    random_wins / reference_wins: the anchors, one win count per opponent (out of the task's
    ``eval_games``) of ``RANDOM_SPEC`` / ``REFERENCE_SPEC[learner]`` in the learner's seat(s).
    """

    learner: str
    opponents: tuple[str, ...]
    random_wins: tuple[int, ...]
    reference_wins: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.learner not in LEARNERS:
            raise ConfigError(f"a side's learner must be one of {', '.join(LEARNERS)}, got {self.learner!r}")
        if not self.opponents or not all(isinstance(o, str) and o for o in self.opponents):
            raise ConfigError(f"a side needs at least one opponent spec (strings), got {self.opponents!r}")
        for name in ("random_wins", "reference_wins"):
            wins = getattr(self, name)
            if len(wins) != len(self.opponents) or not all(isinstance(k, int) and k >= 0 for k in wins):
                raise ConfigError(f"{name} needs one win count >= 0 per opponent ({len(self.opponents)}), got {wins!r}")
        if sum(self.random_wins) == sum(self.reference_wins):
            raise ConfigError("the random and the reference anchors are equal: no normalized score can be made")


@dataclass(frozen=True)
class Task:
    """One frozen task of the suite (see the module docstring)."""

    name: str
    description: str
    players: int  # seats, the Necromancer included
    necromancer: bool
    sides: tuple[Side, ...]
    game_options: tuple[tuple[str, Any], ...] = ()  # GameConfig options besides players/necromancer
    budgets: tuple[tuple[str, int], ...] = BUDGETS
    eval_seed: int = EVAL_SEED
    eval_games: int = EVAL_GAMES
    heldout_seeds: tuple[int, ...] = HELDOUT_SEEDS
    train_seeds: tuple[int, ...] = TRAIN_SEEDS
    #: (``pretrained:NAME`` opponent, SHA-256 of its shipped file) for every shipped opponent.
    pinned_files: tuple[tuple[str, str], ...] = ()
    version: str = field(default=SUITE_VERSION)

    def __post_init__(self) -> None:
        self.config()  # the seats and options make a valid game (ConfigError otherwise)
        if not self.sides:
            raise ConfigError(f"task {self.name!r} has no side")
        for side in self.sides:
            if (side.learner == "player") == self.necromancer:
                raise ConfigError(f"task {self.name!r}: learner {side.learner!r} "
                                  + ("is for the base game" if side.learner == "player" else "needs the Necromancer"))
        pinned = dict(self.pinned_files)
        for side in self.sides:
            for spec in side.opponents:
                if spec.startswith("pretrained:") and spec not in pinned:
                    raise ConfigError(f"task {self.name!r}: the shipped opponent {spec} needs a pinned SHA-256")

    def config(self):
        """The task's ``GameConfig``."""
        from .game import GameConfig

        return GameConfig(players=self.players, necromancer=self.necromancer, **dict(self.game_options))

    @property
    def games_per_evaluation(self) -> int:
        """Games one evaluation plays: ``eval_games`` against each opponent of each side."""
        return self.eval_games * sum(len(s.opponents) for s in self.sides)

    def budget_steps(self, budget: str) -> int:
        """The env steps of a named budget (``ConfigError`` naming the task's budgets)."""
        for name, steps in self.budgets:
            if name == budget:
                return steps
        raise ConfigError(f"task {self.name!r} has the budgets {', '.join(n for n, _ in self.budgets)}, got {budget!r}")

    def single_seat_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``SingleSeatEnv`` (or ``gymnasium.make(SINGLE_SEAT_ENV_ID, ...)``) for a
        one-sided task with one opponent: the training environment of the task (its reward is the
        suite's suggestion, ``win`` or ``coalition``; shaping is the learner's own choice)."""
        if len(self.sides) != 1 or len(self.sides[0].opponents) != 1:
            raise ConfigError(f"task {self.name!r} has {len(self.sides)} sides and opponent pools: it has no single "
                              f"single-seat environment (train each side against the other's pool, e.g. "
                              f"training/league_train.py)")
        side = self.sides[0]
        opp = side.opponents[0]
        kw: dict[str, Any] = {"players": self.players, "learner": side.learner, **dict(self.game_options)}
        if side.learner == "necromancer":
            kw.update(opponents=opp, reward="win")
        elif side.learner == "players":
            kw.update(necromancer_opponent=opp, reward="coalition")
        else:
            kw.update(opponents=opp, necromancer=False, reward="win")
        return kw


def task_definition(task: Task) -> dict[str, Any]:
    """Everything that defines a task, as plain JSON data (what ``task_digest`` hashes)."""
    d = dataclasses.asdict(task)
    d["resolved_config"] = task.config().to_dict()
    d["env_id"] = ENV_ID
    return json.loads(json.dumps(d, sort_keys=True))  # tuples become lists


def task_digest(task: Task) -> str:
    """SHA-256 of ``task_definition(task)`` (canonical JSON)."""
    text = json.dumps(task_definition(task), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


_PLAYERS_3P = ("pretrained:players_3p", "bda9547446ad8c2773a4494d4595ea60190d687b509daa35397b0c68418a61c7")
_NECROMANCER_3P = ("pretrained:necromancer_3p", "173186d1619c5ebcc564726162645c99785c28358821465098f986c47468d2f2")

#: The suite, by name (insertion order is the listing order).
TASKS: dict[str, Task] = {t.name: t for t in (
    Task("necro3-greedy", "the Necromancer learns against greedy players, 3 seats",
         players=3, necromancer=True,
         sides=(Side("necromancer", ("greedy",), random_wins=(3,), reference_wins=(281,)),)),
    Task("necro6-greedy", "the Necromancer learns against greedy players, 6 seats",
         players=6, necromancer=True,
         sides=(Side("necromancer", ("greedy",), random_wins=(13,), reference_wins=(273,)),)),
    Task("players3-heuristic", "one team policy plays both player seats against the heuristic Necromancer, 3 seats",
         players=3, necromancer=True,
         sides=(Side("players", ("heuristic",), random_wins=(3,), reference_wins=(319,)),)),
    Task("player2-greedy", "one player seat (rotated) of the 2-seat base game against a greedy player",
         players=2, necromancer=False,
         sides=(Side("player", ("greedy",), random_wins=(6,), reference_wins=(307,)),)),
    Task("selfplay3", "both sides learned, 3 seats: a Necromancer scored against the team pool "
                      "{greedy, pretrained:players_3p}, a team against the Necromancer pool "
                      "{heuristic, pretrained:necromancer_3p}; the score is the mean of the two",
         players=3, necromancer=True,
         sides=(Side("necromancer", ("greedy", _PLAYERS_3P[0]), random_wins=(3, 0), reference_wins=(281, 4)),
                Side("players", ("heuristic", _NECROMANCER_3P[0]), random_wins=(3, 1), reference_wins=(319, 200))),
         pinned_files=(_NECROMANCER_3P, _PLAYERS_3P)),
)}


def get_task(name: str) -> Task:
    """The task called ``name`` (``ConfigError`` listing the suite's tasks)."""
    try:
        return TASKS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown task {name!r} in {SUITE_VERSION}; the tasks are: {', '.join(TASKS)}") from None


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_pinned_files(task: Task) -> None:
    """``ConfigError`` unless every shipped opponent file of ``task`` has its pinned SHA-256."""
    from .agents.registry import PRETRAINED_DIR

    for spec, digest in task.pinned_files:
        path = PRETRAINED_DIR / (spec.split(":", 1)[1] + ".safetensors")
        if not path.is_file():
            raise ConfigError(f"task {task.name!r} needs the shipped policy {spec} ({path} is missing)")
        found = file_sha256(path)
        if found != digest:
            raise ConfigError(f"task {task.name!r} of {SUITE_VERSION} was defined with {spec} of SHA-256 {digest}; "
                              f"this installation ships {found}: a changed opponent needs a new suite version")


# ---------------------------------------------------------------------------------- scores
def normalized_score(win_rate: float, random_rate: float, reference_rate: float) -> float:
    """``(win_rate - random_rate) / (reference_rate - random_rate)``: 0 = random play, 1 = the reference."""
    if reference_rate == random_rate:
        raise ConfigError(f"the anchors are equal ({random_rate}): no normalized score")
    return (win_rate - random_rate) / (reference_rate - random_rate)


def anchor_rates(task: Task, side: Side) -> tuple[float, float]:
    """(random, reference) win rates of ``side``: its anchors' wins over its games."""
    n = task.eval_games * len(side.opponents)
    return sum(side.random_wins) / n, sum(side.reference_wins) / n


def matchup_wins(task: Task, side: Side, spec: Any, opponent: str, games: int, seed: int, workers: int = 1,
                 trusted: bool = False, progress: bool = False) -> int:
    """Games ``spec`` (in the side's seats) wins against ``opponent`` through ``necro_env.evaluate``."""
    from .evaluate import evaluate

    options = dict(task.game_options)
    handicap = options.pop("handicap", 0)
    common = dict(games=games, seed=seed, workers=workers, progress=progress, handicap=handicap,
                  config=options or None, trusted=trusted)
    if side.learner == "necromancer":
        s = evaluate(task.players, necromancer_spec=spec, players_spec=opponent, necromancer=True, **common)
        return int(s["necromancer"]["wins"])
    if side.learner == "players":
        s = evaluate(task.players, necromancer_spec=opponent, players_spec=spec, necromancer=True, **common)
        return int(s["games"] - s["necromancer"]["wins"])  # the team wins when he does not
    s = evaluate(task.players, players_spec=spec, opponents_spec=opponent, necromancer=False, test_seat=True, **common)
    (group,) = [g for g in s["policies"] if g["group"] == "test"]
    return int(group["wins"])


def _rate(wins: int, games: int) -> dict[str, Any]:
    return {"wins": wins, "games": games, "win_rate": wins / games, "ci95": list(wilson(wins, games))}


def score_side(task: Task, side: Side, spec: Any, games: int | None = None, seed: int | None = None,
               workers: int = 1, trusted: bool = False, progress: bool = False) -> dict[str, Any]:
    """Evaluate ``spec`` as ``side`` of ``task``: per-opponent and pooled win rates, and the side's score."""
    from .evaluate import spec_name

    games = task.eval_games if games is None else games
    seed = task.eval_seed if seed is None else seed
    rows, total = [], 0
    for opp in side.opponents:
        k = matchup_wins(task, side, spec, opp, games, seed, workers, trusted, progress)
        rows.append({"opponent": opp, **_rate(k, games)})
        total += k
    out = {"learner": side.learner, "policy": spec_name(spec), **_rate(total, games * len(side.opponents))}
    lo, hi = anchor_rates(task, side)
    out["anchors"] = {"random": lo, "reference": hi}
    out["score"] = normalized_score(out["win_rate"], lo, hi)
    out["matchups"] = rows
    return out


def score_policy(task: Task | str, policies: Sequence[Any], games: int | None = None, seed: int | None = None,
                 workers: int = 1, trusted: bool = False, progress: bool = False) -> dict[str, Any]:
    """Evaluate one policy per side of ``task`` (``policies[i]`` plays ``task.sides[i]``); returns the run's
    result (the JSON of ``necro-env benchmark --json``, without the run's metadata)."""
    task = get_task(task) if isinstance(task, str) else task
    if len(policies) != len(task.sides):
        roles = " and ".join(s.learner for s in task.sides)
        raise ConfigError(f"task {task.name!r} needs {len(task.sides)} polic{'y' if len(task.sides) == 1 else 'ies'} "
                          f"({roles}), got {len(policies)}")
    games = task.eval_games if games is None else games
    seed = task.eval_seed if seed is None else seed
    for name, v, low in (("games", games, 1), ("workers", workers, 1), ("seed", seed, 0)):
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ConfigError(f"{name} must be an int >= {low}, got {v!r}")
    check_pinned_files(task)
    sides = [score_side(task, side, spec, games, seed, workers, trusted, progress)
             for side, spec in zip(task.sides, policies)]
    wins = sum(s["wins"] for s in sides)
    n = sum(s["games"] for s in sides)
    return {
        "benchmark": SUITE_VERSION, "task": task.name, "task_digest": task_digest(task),
        "policy": " + ".join(s["policy"] for s in sides),
        **_rate(wins, n),
        "score": sum(s["score"] for s in sides) / len(sides),
        "eval_seed": seed, "eval_games": games,
        "protocol": games == task.eval_games and (seed == task.eval_seed or seed in task.heldout_seeds),
        "sides": sides,
    }


def measure_anchors(task: Task, games: int | None = None, workers: int = 1, progress: bool = False) -> list[dict]:
    """The anchors of every side of ``task``, measured again: per side, the wins of the random and of the
    reference policy against each opponent (``games`` defaults to the task's)."""
    games = task.eval_games if games is None else games
    check_pinned_files(task)
    out = []
    for side in task.sides:
        row = {"learner": side.learner, "opponents": list(side.opponents)}
        for key, spec in (("random_wins", RANDOM_SPEC), ("reference_wins", REFERENCE_SPEC[side.learner])):
            row[key] = [matchup_wins(task, side, spec, opp, games, task.eval_seed, workers, progress=progress)
                        for opp in side.opponents]
        row["stored"] = {"random_wins": list(side.random_wins), "reference_wins": list(side.reference_wins)}
        out.append(row)
    return out


# ---------------------------------------------------------------------------------- results files
#: Fields of a results file: (name, required by the aggregation, meaning).
RESULT_FIELDS = (
    ("benchmark", True, "the suite version, e.g. necro-bench-v1"),
    ("task", True, "a task name of that version"),
    ("library", True, "who trained the policy (e.g. sb3, rllib, benchmarl, tianshou)"),
    ("seed", True, "the training seed (an int)"),
    ("budget", True, "the budget's name (small, large) or its env steps"),
    ("win_rate", True, "the pooled win rate, in [0, 1]"),
    ("score", True, "the normalized score (finite; may be < 0 or > 1)"),
    ("algorithm", False, "e.g. MaskablePPO, IPPO, DQN"),
    ("env_steps", False, "env steps the policy was trained for"),
    ("policy", False, "the evaluated policy spec(s)"),
    ("ci95", False, "the win rate's Wilson interval"),
    ("eval_seed", False, "evaluation seed"),
    ("eval_games", False, "games per opponent"),
    ("protocol", False, "whether the evaluation used the task's games and seed (or a held-out seed)"),
    ("sides", False, "per side: win rate, score, anchors, per-opponent matchups"),
    ("task_digest", False, "the digest of the task that scored it"),
    ("budget_steps", False, "the budget's env steps (reference runs)"),
    ("capped", False, "true when the wall-time cap stopped training before the budget (reference runs)"),
    ("max_minutes", False, "the wall-time cap of training, in minutes (reference runs)"),
    ("train_seconds", False, "wall time of training (reference runs; also eval_seconds, wall_seconds)"),
    ("policy_files", False, "the trained policy's files (reference runs)"),
    ("training", False, "the library's settings: recipe, run directory, config (reference runs)"),
)


class ResultsFileError(ConfigError):
    """A results file (``necro-env benchmark --results DIR``) that cannot be read or aggregated."""


class MissingExtraError(ConfigError):
    """An optional dependency (rliable, the ``bench`` extra) is not installed."""


def _require_rliable():
    try:
        from rliable import library as rly, metrics
    except ImportError as e:
        raise MissingExtraError(f"aggregating results needs rliable ({e}): {BENCH_EXTRA_HINT}") from None
    return rly, metrics


def check_result(data: Any, where: str) -> dict[str, Any]:
    """The run of a results file, checked (``ResultsFileError`` saying which file and what is wrong)."""
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: expected one JSON object, got {type(data).__name__}")
    missing = [name for name, required, _ in RESULT_FIELDS if required and name not in data]
    if missing:
        raise ResultsFileError(f"{where}: missing field(s) {', '.join(missing)} (a results file needs "
                               f"{', '.join(n for n, r, _ in RESULT_FIELDS if r)}; `necro-env benchmark --library L "
                               f"--train-seed S --budget B --out FILE` writes one)")
    if data["benchmark"] != SUITE_VERSION:
        raise ResultsFileError(f"{where}: benchmark {data['benchmark']!r} is not this suite's ({SUITE_VERSION})")
    if data["task"] not in TASKS:
        raise ResultsFileError(f"{where}: unknown task {data['task']!r}; the tasks are: {', '.join(TASKS)}")
    if not isinstance(data["library"], str) or not data["library"].strip():
        raise ResultsFileError(f"{where}: library must be a non-empty string, got {data['library']!r}")
    if not isinstance(data["seed"], int) or isinstance(data["seed"], bool):
        raise ResultsFileError(f"{where}: seed must be an int (the training seed), got {data['seed']!r}")
    budget = data["budget"]
    if not (isinstance(budget, str) and budget.strip()) and not (isinstance(budget, int) and not isinstance(budget, bool)
                                                                  and budget > 0):
        raise ResultsFileError(f"{where}: budget must be a name (small, large) or a positive step count, got {budget!r}")
    if "capped" in data and not isinstance(data["capped"], bool):
        raise ResultsFileError(f"{where}: capped must be true or false (whether the wall-time cap stopped "
                               f"training), got {data['capped']!r}")
    for name, low, high in (("win_rate", 0.0, 1.0), ("score", -math.inf, math.inf)):
        v = data[name]
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or not low <= v <= high:
            bounds = "a number in [0, 1]" if name == "win_rate" else "a finite number"
            raise ResultsFileError(f"{where}: {name} must be {bounds}, got {v!r}")
    return data


def load_results(directory) -> list[dict[str, Any]]:
    """Every run of ``directory``'s ``*.json`` files (sorted by name), checked; ``file`` added to each."""
    d = Path(directory)
    if not d.is_dir():
        raise ResultsFileError(f"{d}: not a folder (--results takes a folder of one JSON file per run)")
    files = sorted(d.glob("*.json"))
    if not files:
        raise ResultsFileError(f"{d}: no *.json results file")
    runs, seen = [], {}
    for f in files:
        try:
            data = json.loads(f.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ResultsFileError(f"{f}: not a JSON file ({e})") from None
        run = dict(check_result(data, str(f)))
        key = (run["library"], run["task"], str(run["budget"]), run["seed"])
        if key in seen:
            raise ResultsFileError(f"{f}: the same run (library {key[0]}, task {key[1]}, budget {key[2]}, seed "
                                   f"{key[3]}) as {seen[key]}")
        seen[key] = f.name
        run["file"] = f.name
        runs.append(run)
    return runs


# ---------------------------------------------------------------------------------- aggregation
def _with_global_seed(seed: int, call, *args, **kwargs):
    """``call(*args, **kwargs)`` with NumPy's global generator seeded by ``seed``, its state restored after
    (nothing outside sees a change). rliable 1.2 draws its bootstrap resamples from the global generator
    whatever ``random_state`` says, so this is how its results are made reproducible."""
    import numpy as np

    saved = np.random.get_state()
    try:
        np.random.seed(seed)
        return call(*args, **kwargs)
    finally:
        np.random.set_state(saved)


def _per_key(call, score_dict: dict[str, Any], *args, seed: int, **kwargs) -> tuple[dict, dict]:
    """rliable's ``call`` (which returns a pair of dicts keyed like ``score_dict``) on each key alone, seeded
    the same (``_with_global_seed``): rliable draws every key's resamples from one stream, so one call for all
    would let a library's runs move another library's intervals."""
    first: dict = {}
    second: dict = {}
    for k, v in score_dict.items():
        a, b = _with_global_seed(seed, call, {k: v}, *args, **kwargs)
        first[k], second[k] = a[k], b[k]
    return first, second


def _bootstrap(score_dict: dict[str, Any], func, reps: int, seed: int):
    """rliable's stratified-bootstrap estimates, seeded, each key's independent of the others (``_per_key``)."""
    rly, _ = _require_rliable()
    return _per_key(rly.get_interval_estimates, score_dict, func, seed=seed, reps=reps)


def _profiles(score_dict: dict[str, Any], taus, reps: int, seed: int):
    """rliable's performance profiles with bootstrap intervals, seeded, each key's on its own (``_per_key``)."""
    rly, _ = _require_rliable()
    return _per_key(rly.create_performance_profile, score_dict, taus, seed=seed, reps=reps)


def interval_estimates(score_dict: Mapping[str, Any], reps: int = 2000, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Mean and IQM of each ``(runs x tasks)`` score matrix with 95% stratified-bootstrap intervals (rliable)."""
    import numpy as np

    _, metrics = _require_rliable()
    mats = {k: np.asarray(v, dtype=float) for k, v in score_dict.items()}
    func = lambda x: np.array([metrics.aggregate_mean(x), metrics.aggregate_iqm(x)])  # noqa: E731
    points, cis = _bootstrap(mats, func, reps, seed)
    out = {}
    for k in mats:
        out[k] = {"runs": int(mats[k].shape[0]), "mean": float(points[k][0]), "mean_ci95": [float(cis[k][0, 0]), float(cis[k][1, 0])],
                  "iqm": float(points[k][1]), "iqm_ci95": [float(cis[k][0, 1]), float(cis[k][1, 1])]}
    return out


def aggregate(runs: list[dict[str, Any]], reps: int = 2000, seed: int = 0, profile_points: int = 51) -> dict[str, Any]:
    """Per budget: per task and library, and over the tasks every library ran (on the training seeds each
    ran on all of them), the mean and IQM of the scores with 95% stratified-bootstrap intervals and the
    performance profile (the fraction of runs whose score exceeds tau, with its 95% interval)."""
    import numpy as np

    _require_rliable()
    out: dict[str, Any] = {"benchmark": SUITE_VERSION, "runs": len(runs), "reps": reps, "bootstrap_seed": seed,
                           "off_protocol": sorted(r["file"] for r in runs if r.get("protocol") is False),
                           "budgets": {}}
    for budget in sorted({str(r["budget"]) for r in runs}):
        rs = [r for r in runs if str(r["budget"]) == budget]
        libs = sorted({r["library"] for r in rs})
        tasks = [t for t in TASKS if any(r["task"] == t for r in rs)]
        per_task: dict[str, Any] = {}
        for t in tasks:
            cells = {lib: [r for r in rs if r["library"] == lib and r["task"] == t] for lib in libs}
            cells = {lib: c for lib, c in cells.items() if c}
            est = interval_estimates({lib: np.array([[r["score"]] for r in c]) for lib, c in cells.items()}, reps, seed)
            for lib, c in cells.items():
                est[lib]["seeds"] = sorted(r["seed"] for r in c)
                est[lib]["win_rate_mean"] = float(np.mean([r["win_rate"] for r in c]))
            per_task[t] = est
        common = [t for t in tasks if all(any(r["task"] == t and r["library"] == lib for r in rs) for lib in libs)]
        overall: dict[str, Any] = {"tasks": common, "libraries": {}, "profiles": None}
        mats = {}
        for lib in libs:
            seeds = sorted(set.intersection(*[{r["seed"] for r in rs if r["library"] == lib and r["task"] == t}
                                              for t in common])) if common else []
            if not seeds:
                continue
            score = {(r["task"], r["seed"]): r["score"] for r in rs if r["library"] == lib}
            mats[lib] = np.array([[score[(t, s)] for t in common] for s in seeds])
        if mats:
            overall["libraries"] = interval_estimates(mats, reps, seed)
            for lib in mats:
                overall["libraries"][lib]["seeds"] = sorted(
                    set.intersection(*[{r["seed"] for r in rs if r["library"] == lib and r["task"] == t} for t in common]))
            allv = np.concatenate([m.ravel() for m in mats.values()])
            taus = np.linspace(min(0.0, float(allv.min())), max(1.0, float(allv.max())), profile_points)
            prof, prof_ci = _profiles(mats, taus, reps, seed)
            overall["profiles"] = {"tau": [float(x) for x in taus],
                                   "libraries": {lib: {"fraction": [float(x) for x in prof[lib]],
                                                       "ci95": [[float(x) for x in prof_ci[lib][0]],
                                                                [float(x) for x in prof_ci[lib][1]]]}
                                                 for lib in mats}}
        out["budgets"][budget] = {"libraries": libs, "tasks": per_task, "overall": overall}
    return out


def format_aggregate(agg: dict[str, Any]) -> str:
    """The human-readable report of ``necro-env benchmark --results``."""
    lines = [f"{agg['benchmark']}: {agg['runs']} runs; 95% stratified-bootstrap intervals ({agg['reps']} resamples)"]
    if agg["off_protocol"]:
        lines.append(f"note: not evaluated on the tasks' games and seeds: {', '.join(agg['off_protocol'])}")
    for budget, b in agg["budgets"].items():
        lines.append("")
        lines.append(f"budget {budget}")
        head = f"{'task':<20} {'library':<14} {'runs':>4} {'win rate':>8} {'mean score':>10} {'95% CI':<16} {'IQM':>7} {'95% CI':<16}"
        lines.append(head)
        lines.append("-" * len(head))
        for t, cells in b["tasks"].items():
            for lib, e in cells.items():
                lines.append(f"{t:<20} {lib:<14} {e['runs']:>4} {e['win_rate_mean']:>8.3f} {e['mean']:>10.3f} "
                             f"{format_interval(*e['mean_ci95']):<16} {e['iqm']:>7.3f} {format_interval(*e['iqm_ci95']):<16}")
        o = b["overall"]
        if o["libraries"]:
            lines.append(f"over the tasks every library ran ({', '.join(o['tasks'])}):")
            for lib, e in o["libraries"].items():
                lines.append(f"  {lib:<14} {e['runs']} seeds: mean {e['mean']:.3f} {format_interval(*e['mean_ci95'])}, "
                             f"IQM {e['iqm']:.3f} {format_interval(*e['iqm_ci95'])}")
        else:
            lines.append("no task was run by every library: no aggregate over tasks")
    return "\n".join(lines)


def write_plot(agg: dict[str, Any], path) -> str:
    """One row per budget: mean scores per task and library, the IQM and mean over tasks, the performance profile."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    budgets = list(agg["budgets"].items())
    fig, axes = plt.subplots(len(budgets), 3, figsize=(16, 4.2 * len(budgets)), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for row, (budget, b) in enumerate(budgets):
        libs = b["libraries"]
        color = {lib: colors[i % len(colors)] for i, lib in enumerate(libs)}
        ax = axes[row][0]
        tasks = list(b["tasks"])
        width = 0.8 / max(1, len(libs))
        for i, lib in enumerate(libs):
            xs, ys, err = [], [], [[], []]
            for j, t in enumerate(tasks):
                e = b["tasks"][t].get(lib)
                if e is None:
                    continue
                xs.append(j + (i - (len(libs) - 1) / 2) * width)
                ys.append(e["iqm"])
                err[0].append(e["iqm"] - e["iqm_ci95"][0])
                err[1].append(e["iqm_ci95"][1] - e["iqm"])
            ax.bar(xs, ys, width, yerr=err, capsize=3, label=lib, color=color[lib])
        ax.axhline(0, color="grey", lw=0.8)
        ax.axhline(1, color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(len(tasks)), tasks, rotation=20, ha="right")
        ax.set_ylabel("normalized score, IQM (95% CI)")
        ax.set_title(f"{budget}: per task")
        ax.legend(fontsize=8)
        ax = axes[row][1]
        o = b["overall"]
        for i, (lib, e) in enumerate(o["libraries"].items()):
            for k, (metric, marker) in enumerate((("iqm", "o"), ("mean", "s"))):
                y = i + (0.15 if k else -0.15)
                lo, hi = e[f"{metric}_ci95"]
                ax.plot([lo, hi], [y, y], color=color[lib], lw=3, alpha=0.6)
                ax.plot([e[metric]], [y], marker, color=color[lib], label=metric.upper() if i == 0 else None)
        ax.set_yticks(range(len(o["libraries"])), list(o["libraries"]))
        ax.axvline(0, color="grey", lw=0.8)
        ax.axvline(1, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("normalized score (IQM: circle, mean: square; 95% CI)")
        ax.set_title(f"over {', '.join(o['tasks']) or 'no common task'}", fontsize=9)
        ax = axes[row][2]
        if o["profiles"]:
            taus = np.array(o["profiles"]["tau"])
            for lib, p in o["profiles"]["libraries"].items():
                ax.plot(taus, p["fraction"], color=color[lib], label=lib)
                ax.fill_between(taus, p["ci95"][0], p["ci95"][1], color=color[lib], alpha=0.2)
            ax.legend(fontsize=8)
        ax.set_xlabel("normalized score tau")
        ax.set_ylabel("fraction of runs with score > tau")
        ax.set_title("performance profile")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return str(path)


# ---------------------------------------------------------------------------------- command line
def format_tasks() -> str:
    """The ``--list`` table."""
    lines = [f"{SUITE_VERSION}: {len(TASKS)} tasks (evaluation: the task's games against each opponent; "
             f"score 0 = random, 1 = scripted reference)"]
    for t in TASKS.values():
        budgets = ", ".join(f"{n} {s:,}" for n, s in t.budgets)
        lines.append(f"{t.name:<20} {t.players} seats, {'scenario' if t.necromancer else 'base game'}; budgets {budgets}; "
                     f"seed {t.eval_seed}, {t.eval_games} games (held out: {', '.join(map(str, t.heldout_seeds))})")
        lines.append(f"  {t.description}")
        for s in t.sides:
            lo, hi = anchor_rates(t, s)
            lines.append(f"  learner {s.learner} vs {', '.join(s.opponents)}: anchors random {lo:.3f}, "
                         f"{REFERENCE_SPEC[s.learner]} {hi:.3f}")
    return "\n".join(lines)


def format_result(res: dict[str, Any]) -> str:
    """The human-readable report of one evaluation."""
    lines = [f"{res['benchmark']} {res['task']}: {res['policy']}, {res['eval_games']} games a matchup, "
             f"seed {res['eval_seed']}" + ("" if res["protocol"] else " (not the task's protocol)")]
    for s in res["sides"]:
        for m in s["matchups"]:
            lines.append(f"  {s['learner']:<12} vs {m['opponent']:<28} {m['wins']:>5}/{m['games']:<5} "
                         f"{m['win_rate']:.3f} {format_interval(*m['ci95'])}")
        a = s["anchors"]
        lines.append(f"  {s['learner']:<12} win rate {s['win_rate']:.3f} {format_interval(*s['ci95'])}, score "
                     f"{s['score']:.3f} (random {a['random']:.3f} -> 0, {REFERENCE_SPEC[s['learner']]} {a['reference']:.3f} -> 1)")
    lines.append(f"win rate {res['win_rate']:.3f} {format_interval(*res['ci95'])}; normalized score {res['score']:.3f}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .cli_args import add_trust_argument, nonneg_int, positive_int

    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true", help="list the suite's tasks, their anchors and budgets")
    mode.add_argument("--task", metavar="T", help="evaluate --policy on task T (or, with --measure-anchors, "
                                                  "measure its anchors)")
    mode.add_argument("--results", metavar="DIR", help="aggregate the runs of DIR (one JSON file per run): mean, IQM, "
                                                       "95%% stratified-bootstrap intervals, performance profiles (rliable)")
    parser.add_argument("--policy", metavar="SPEC", help="the learned policy (a name, a file, pretrained:NAME or "
                                                         "rllib:CHECKPOINT#MODULE); selfplay3: the Necromancer's")
    parser.add_argument("--players-policy", metavar="SPEC", help="selfplay3 only: the team's policy")
    parser.add_argument("--measure-anchors", action="store_true",
                        help="measure the task's anchors (random and reference policies) again and compare with the stored ones")
    parser.add_argument("--games", type=positive_int, default=None,
                        help="games per opponent (default: the task's; another count is not the task's protocol)")
    parser.add_argument("--seed", type=nonneg_int, default=None,
                        help="evaluation seed (default: the task's; its held-out seeds are also the protocol)")
    parser.add_argument("--workers", type=positive_int, default=1, help="parallel processes (default 1)")
    parser.add_argument("--library", default=None, help="recorded in the result: who trained the policy")
    parser.add_argument("--algorithm", default=None, help="recorded in the result: the algorithm")
    parser.add_argument("--train-seed", type=int, default=None, help="recorded in the result as seed: the training seed")
    parser.add_argument("--budget", default=None, help="recorded in the result: small, large or the env steps")
    parser.add_argument("--env-steps", type=nonneg_int, default=None, help="recorded in the result: env steps trained")
    parser.add_argument("--out", metavar="FILE", default=None, help="write the result's JSON to FILE (a results file)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    parser.add_argument("--plot", metavar="OUT", default=None, help="with --results: write the plots to OUT (a .png)")
    parser.add_argument("--reps", type=positive_int, default=2000, help="with --results: bootstrap resamples (default 2000)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        print(format_tasks())
        if args.json:
            print(json.dumps({"benchmark": SUITE_VERSION, "tasks": {n: {**task_definition(t), "digest": task_digest(t)}
                                                                    for n, t in TASKS.items()}}, sort_keys=True))
        return 0
    if args.results is not None:
        if args.policy or args.players_policy or args.measure_anchors:
            raise ConfigError("--results aggregates result files: it takes no --policy, --players-policy or --measure-anchors")
        _require_rliable()
        agg = aggregate(load_results(args.results), reps=args.reps)
        print(format_aggregate(agg))
        if args.plot:
            print(f"wrote {write_plot(agg, args.plot)}")
        if args.json:
            print(json.dumps(agg, sort_keys=True))
        return 0
    task = get_task(args.task)
    if args.measure_anchors:
        if args.policy or args.players_policy:
            raise ConfigError("--measure-anchors measures the random and reference policies: it takes no --policy")
        rows = measure_anchors(task, args.games, args.workers, progress=not args.quiet)
        same = True
        for r in rows:
            match = r["random_wins"] == r["stored"]["random_wins"] and r["reference_wins"] == r["stored"]["reference_wins"]
            same = same and match
            print(f"{task.name} {r['learner']} vs {', '.join(r['opponents'])}: random wins {r['random_wins']}, "
                  f"{REFERENCE_SPEC[r['learner']]} wins {r['reference_wins']} (stored: {r['stored']['random_wins']}, "
                  f"{r['stored']['reference_wins']}) {'same' if match else 'DIFFERENT'}")
        if args.json:
            print(json.dumps({"benchmark": SUITE_VERSION, "task": task.name, "games": args.games or task.eval_games,
                              "seed": task.eval_seed, "sides": rows, "same_as_stored": same}, sort_keys=True))
        return 0
    if not args.policy:
        raise ConfigError(f"--task {task.name} needs --policy SPEC (or --measure-anchors)")
    if len(task.sides) == 2:
        if not args.players_policy:
            raise ConfigError(f"task {task.name} has two learned sides: --policy is the Necromancer's, "
                              f"--players-policy the team's (both needed)")
        policies = [args.policy, args.players_policy]
    else:
        if args.players_policy:
            raise ConfigError(f"--players-policy is for the two-sided task selfplay3; {task.name}'s only "
                              f"policy is --policy")
        policies = [args.policy]
    budget: Any = args.budget
    if budget is not None and budget.isdigit():
        budget = int(budget)
    elif budget is not None:
        task.budget_steps(budget)  # a name of the task's budgets
    res = score_policy(task, policies, args.games, args.seed, args.workers, args.trust_pickle, progress=not args.quiet)
    res.update({"library": args.library, "algorithm": args.algorithm, "seed": args.train_seed, "budget": budget,
                "env_steps": args.env_steps if args.env_steps is not None
                else (task.budget_steps(budget) if isinstance(budget, str) else budget)})
    print(format_result(res))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, sort_keys=True, indent=1) + "\n")
        print(f"wrote {args.out}")
    if args.json:
        print(json.dumps(res, sort_keys=True))
    return 0


__all__ = ["SUITE_VERSION", "TASKS", "Task", "Side", "get_task", "task_definition", "task_digest", "normalized_score",
           "anchor_rates", "score_side", "score_policy", "measure_anchors", "check_pinned_files", "RESULT_FIELDS",
           "check_result", "load_results", "interval_estimates", "aggregate", "format_aggregate", "write_plot",
           "ResultsFileError", "MissingExtraError", "add_arguments", "run"]

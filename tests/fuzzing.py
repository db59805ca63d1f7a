"""Helpers of the loader fuzz suite (``test_fuzz_loading.py``): a per-case time limit, JSON
mutations drawn by hypothesis, and random play that checks every invariant on the way.

``NECRO_FUZZ_SCALE`` (an int, default 1) multiplies every fuzz test's number of cases:
``make fuzz`` runs the suite with a large scale (see the Makefile).
"""
from __future__ import annotations

import copy
import os
import random
import signal
from contextlib import contextmanager
from typing import Any, Iterator

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from necro_env.game.errors import short_repr

SCALE = int(os.environ.get("NECRO_FUZZ_SCALE", "1"))
CASE_SECONDS = float(os.environ.get("NECRO_FUZZ_CASE_SECONDS", "10"))
PLAY_LIMIT = 6_000  # engine decisions after an accepted state: more means a game that does not end


def fuzz_settings(examples: int) -> settings:
    """``examples * NECRO_FUZZ_SCALE`` cases, no hypothesis deadline (``time_limit`` is the hang check)."""
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=list(HealthCheck), database=None)


class Hang(BaseException):
    """A case ran past its time limit (a BaseException: no ``except Exception`` in the code swallows it)."""


@contextmanager
def time_limit(seconds: float = CASE_SECONDS) -> Iterator[None]:
    """Raise ``Hang`` in this (main) thread if the block runs longer than ``seconds``."""
    def on_alarm(signum, frame):
        raise Hang(f"the case ran longer than {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def rejected(e: BaseException) -> None:
    """Check a loader's error is typed and says something; count it by kind (``--hypothesis-show-statistics``)."""
    from necro_env.game.errors import NecroEnvError

    assert isinstance(e, NecroEnvError) and isinstance(e, ValueError), f"untyped error {type(e).__name__}: {e}"
    assert str(e), "an error without a message"
    event("rejected: " + " ".join(str(e).split(":")[0].split()[:6]))


# ------------------------------------------------------------------------------------------- values
BOUNDARY = [-(1 << 64), -(1 << 60), -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15, 16, 19, 20, 23, 30, 39, 47, 48,
            63, 64, 255, 256, 1 << 25, 1 << 31, 1 << 48, 1 << 60, (1 << 64) - 1, 1 << 64, 10 ** 30, 10 ** 300,
            10 ** 5000, -(10 ** 5000)]  # (more digits than str() prints: messages must not print them)
ODD = [None, True, False, 0.0, 1.0, 1.5, -0.5, float("inf"), float("nan"), "", "x", "player_0", "necromancer_0",
       [], [0], [-1], [1, 2], {}, {"a": 1}, [[0]], "0"]


def values(original: Any) -> st.SearchStrategy:
    """Replacement values for ``original``: near it (the likeliest to get past shallow checks),
    boundaries, any int, other types."""
    # A fresh copy of ODD's lists and dicts: a later edit of the same case must not change ODD itself.
    options = [st.sampled_from(BOUNDARY), st.sampled_from(ODD).map(copy.deepcopy), st.integers()]
    if isinstance(original, int) and not isinstance(original, bool):
        options += [st.integers(-3, 3).map(lambda d: original + d)] * 3
        options += [st.integers(0, 70).map(lambda k: original ^ (1 << k)), st.just(-original - 1)]
    elif isinstance(original, float):
        options += [st.floats(allow_nan=True, allow_infinity=True), st.just(-original), st.just(original * 1e12)]
    elif isinstance(original, list):
        options += [st.just(original[::-1]), st.just(original + original[:1]), st.just(original[:-1]),
                    st.lists(st.integers(-2, 50), max_size=8)]
    elif isinstance(original, bool):
        options += [st.just(not original), st.just(int(original))]
    elif isinstance(original, str):
        options += [st.text(max_size=12), st.just(original.upper()), st.just(original + "_1")]
    return st.one_of(*options)


def _paths(obj: Any, max_depth: int = 3) -> list[tuple]:
    """Every (key path) down to ``max_depth`` into dicts and lists (long lists: a sample of indices)."""
    out: list[tuple] = []
    stack = [(obj, ())]
    while stack:
        node, path = stack.pop()
        if len(path) >= max_depth:
            continue
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            idx = range(len(node)) if len(node) <= 60 else sorted({0, 1, len(node) // 2, len(node) - 2, len(node) - 1})
            items = [(i, node[i]) for i in idx]
        else:
            continue
        for k, v in items:
            out.append(path + (k,))
            stack.append((v, path + (k,)))
    out.sort(key=repr)
    return out


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


KINDS = ("set", "set", "set", "set", "delete", "insert", "swap", "dup", "retype")


def mutate(data: st.DataObject, original: Any, max_mutations: int = 3) -> tuple[Any, list[str]]:
    """A deep copy of the JSON ``original`` with 1..max_mutations single-field or structural edits."""
    obj = copy.deepcopy(original)
    log: list[str] = []
    for _ in range(data.draw(st.integers(1, max_mutations), label="mutations")):
        paths = _paths(obj)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="path")
        parent, key = _get(obj, path[:-1]), path[-1]
        kind = data.draw(st.sampled_from(KINDS), label="kind")
        old = parent[key]
        if kind == "set":
            parent[key] = data.draw(values(old), label=f"value at {path}")
        elif kind == "delete":
            del parent[key]
        elif kind == "insert":
            if isinstance(parent, dict):
                parent[data.draw(st.sampled_from(["extra", "", "state", "version", "0"]), label="new key")] = \
                    data.draw(values(old), label="new value")
            else:
                parent.insert(key, data.draw(values(old), label="inserted"))
        elif kind == "swap":
            other = data.draw(st.sampled_from(list(parent.keys()) if isinstance(parent, dict) else
                                              list(range(len(parent)))), label="swap with")
            parent[key], parent[other] = parent[other], parent[key]
        elif kind == "dup" and isinstance(old, list) and old:
            old.append(copy.deepcopy(old[data.draw(st.integers(0, len(old) - 1), label="dup index")]))
        elif kind == "retype":
            parent[key] = {"list": lambda v: list(v) if isinstance(v, dict) else [v],
                           "dict": lambda v: {str(i): x for i, x in enumerate(v)} if isinstance(v, list) else {"v": v},
                           "str": short_repr, "float": lambda v: float(v) if isinstance(v, int) and abs(v) < 1e300 else 0.5,
                           }[data.draw(st.sampled_from(["list", "dict", "str", "float"]), label="retype")](old)
        log.append(f"{kind} {path}")
    return obj, log


# ------------------------------------------------------------------------------------------- play
def play_on(game, state, seed: int, check_every: int = 1) -> int:
    """Random legal play from ``state`` to the end, ``check_invariants`` after every ``check_every``
    decisions and the full ``validate_state`` at the end; returns the decisions made."""
    from necro_env.game import State

    rnd = random.Random(seed)
    steps = 0
    while not state.over:
        legal = game.legal_actions(state)
        assert legal, "a live game without a legal action"
        game.apply(state, legal[rnd.randrange(len(legal))])
        steps += 1
        if steps % check_every == 0:
            game.check_invariants(state)
        assert steps <= PLAY_LIMIT, f"the game did not end within {PLAY_LIMIT} decisions"
    game.check_invariants(state)
    game.validate_state(State.from_dict(state.to_dict()))
    return steps

"""Search players: OpenSpiel's Python MCTS and information-set MCTS bots as policies (``mcts:SIMS``, ``ismcts:SIMS``).

Specs (``make_policy``, ``necro-env evaluate|league --necromancer mcts:50`` ...)::

    mcts:SIMS[:option=value...]      ismcts:SIMS[:option=value...]

SIMS is the number of simulations per decision (1..100000). Options:

* ``rollout=random`` (default) or ``rollout=greedy``: how a leaf is evaluated: one game played to its end
  from the leaf, each seat choosing uniformly among its legal actions, or each seat played by the scripted
  baseline of its role (``GreedyAgent``, ``NecromancerHeuristic``); either way the rollout runs on the
  engine directly (no OpenSpiel call per move);
* ``uct_c=FLOAT`` (default 2.0): the exploration constant of UCT;
* ``prior=uniform`` (default) or ``prior=greedy`` (``mcts:`` only): the prior over a node's moves. With
  ``greedy`` the scripted baseline of the deciding seat's role (``GreedyAgent``, ``NecromancerHeuristic``)
  puts half the mass on its own choice and the rest is spread evenly, and the tree selects by PUCT
  (``MCTSBot``'s ``SearchNode.puct_value``), so a search with fewer simulations than legal moves tries the
  script's move first instead of a random one. ``ismcts:`` refuses it: OpenSpiel's ``ISMCTSBot`` tries a
  node's unvisited moves in random order whatever their prior;
* ``reward=win|rank|coalition`` (default ``win``): the returns each seat of the search maximises
  (``necro_env.openspiel``'s schemes).

**What the searches see.** ``mcts:`` is OpenSpiel's perfect-information ``MCTSBot`` run on a clone of the
real game (``python_necro_island``): it sees everything the engine state holds, the hidden badges and
coins, the order of the decks and even the generator, so the die rolls and reshuffles its simulations
meet are the ones the game will produce. It is a *clairvoyant* reference player, stronger than any
player with the seat's information could be, not a fair opponent. ``ismcts:`` is OpenSpiel's
``ISMCTSBot``: every simulation starts from ``resample_from_infostate`` of the deciding seat (the deck
orders, the generator and, for a player, the Necromancer's unplayed badges redrawn; see
``necro_env.openspiel``), so it uses only what the seat observes; its tree is keyed by the seat's
observation (the information-state string), with ``allow_inconsistent_action_sets`` since different
draws allow different moves.

Both are deterministic from the ``rng`` handed to ``act``: a numpy ``RandomState`` seeded from it drives the
bot, its rollouts and its resampling (no global random state). The C++ bots (``pyspiel.MCTSBot``,
``pyspiel.ISMCTSBot``) are not used: the C++ ISMCTS bot crashed the process on a Python game.
OpenSpiel is imported when a search policy first acts (``pip install 'necro_env[openspiel]'``).
"""
from __future__ import annotations

import importlib.util
import math
import time
from typing import Any

import numpy as np

from necro_env.game.errors import ConfigError, short_repr

from .base import BasePolicy, View

SEARCH_KINDS = ("mcts", "ismcts")
ROLLOUTS = ("random", "greedy")
MAX_SIMS = 100_000
_RETURNS = ("win", "rank", "coalition")
PRIORS = ("uniform", "greedy")
SCRIPT_PRIOR = 0.5  # the prior mass of the scripted move under prior=greedy (the rest spread evenly)


def parse_search_spec(spec: str) -> dict[str, Any]:
    """``{"kind", "sims", "rollout", "uct_c", "reward"}`` of a ``mcts:SIMS[:opt=val...]`` spec; ``ConfigError``
    saying what was wrong and what is allowed."""
    text = spec.strip()
    parts = text.split(":")
    kind = parts[0].lower()
    if kind not in SEARCH_KINDS:
        raise ConfigError(f"a search spec starts with one of {', '.join(k + ':' for k in SEARCH_KINDS)}, got {short_repr(spec)}")
    usage = f"{kind}:SIMS[:rollout=random|greedy][:uct_c=FLOAT][:reward=win|rank|coalition]" + (
        "[:prior=uniform|greedy]" if kind == "mcts" else "")
    if len(parts) < 2 or not parts[1].strip():
        raise ConfigError(f"{short_repr(spec)}: give the simulations per move, e.g. {kind}:50 ({usage})")
    sims_text = parts[1].strip()
    if not sims_text.isdigit() or not 1 <= int(sims_text) <= MAX_SIMS:
        raise ConfigError(f"{short_repr(spec)}: SIMS must be a whole number in 1..{MAX_SIMS}, got "
                          f"{short_repr(sims_text)} ({usage})")
    out: dict[str, Any] = {"kind": kind, "sims": int(sims_text), "rollout": "random", "uct_c": 2.0, "reward": "win",
                           "prior": "uniform"}
    seen = set()
    for opt in parts[2:]:
        key, eq, value = opt.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or key not in ("rollout", "uct_c", "reward", "prior") or key in seen:
            raise ConfigError(f"{short_repr(spec)}: unknown or repeated option {short_repr(opt)}; options: "
                              f"rollout=random|greedy, uct_c=FLOAT, reward=win|rank|coalition"
                              f"{', prior=uniform|greedy (mcts: only)' if kind == 'mcts' else ''} ({usage})")
        seen.add(key)
        if key == "rollout":
            if value.lower() not in ROLLOUTS:
                raise ConfigError(f"{short_repr(spec)}: rollout must be one of {ROLLOUTS}, got {short_repr(value)}")
            out["rollout"] = value.lower()
        elif key == "uct_c":
            try:
                c = float(value)
            except ValueError:
                c = float("nan")
            if not math.isfinite(c) or c < 0:
                raise ConfigError(f"{short_repr(spec)}: uct_c must be a finite number >= 0, got {short_repr(value)}")
            out["uct_c"] = c
        elif key == "prior":
            if value.lower() not in PRIORS:
                raise ConfigError(f"{short_repr(spec)}: prior must be one of {PRIORS}, got {short_repr(value)}")
            if kind != "mcts" and value.lower() != "uniform":
                raise ConfigError(f"{short_repr(spec)}: prior=greedy is for mcts: only (OpenSpiel's ISMCTSBot tries "
                                  f"a node's unvisited moves in random order whatever their prior)")
            out["prior"] = value.lower()
        else:
            if value.lower() not in _RETURNS:
                raise ConfigError(f"{short_repr(spec)}: reward must be one of {_RETURNS}, got {short_repr(value)}")
            out["reward"] = value.lower()
    return out


def check_openspiel() -> None:
    """``ConfigError`` when OpenSpiel is not installed (checked without importing it)."""
    if importlib.util.find_spec("pyspiel") is None:
        raise ConfigError("mcts:/ismcts: policies need OpenSpiel: pip install 'necro_env[openspiel]'")


class SearchPolicy(BasePolicy):
    """``mcts:``/``ismcts:`` (see the module docstring). ``reset`` keeps nothing: each decision searches afresh."""

    def __init__(self, kind: str, sims: int, rollout: str = "random", uct_c: float = 2.0, reward: str = "win",
                 name: str | None = None, prior: str = "uniform") -> None:
        self.kind, self.sims, self.rollout, self.uct_c, self.reward = kind, int(sims), rollout, float(uct_c), reward
        self.prior = prior
        self.name = name or f"{kind}:{sims}" + ("" if rollout == "random" else f":rollout={rollout}")
        self._games: dict[str, Any] = {}
        self.decisions = 0  # decisions searched (a single legal action is played without a search)
        self.search_seconds = 0.0  # wall-clock seconds of those searches (for timing reports)

    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        d["_games"] = {}  # OpenSpiel games are rebuilt where the policy is used
        return d

    def _os_game(self, view: View):
        from necro_env import openspiel as O

        key = repr(sorted(view.game.config.to_dict().items()))
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = O.load(view.game.config, reward=self.reward)
        return game

    def act(self, view: View, rng: np.random.Generator) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        from open_spiel.python.algorithms import ismcts, mcts

        start = time.perf_counter()
        game = self._os_game(view)
        state = game.from_engine(view.state)
        rs = np.random.RandomState(int(rng.integers(2**31 - 1)))
        evaluator = _EngineRollout(game, self.rollout, rs, mcts.Evaluator, self.prior)
        if self.kind == "mcts":
            select = mcts.SearchNode.puct_value if self.prior == "greedy" else mcts.SearchNode.uct_value
            bot = mcts.MCTSBot(game, self.uct_c, self.sims, evaluator, solve=True, random_state=rs,
                               child_selection_fn=select)
        else:
            bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.sims, random_state=rs,
                                   allow_inconsistent_action_sets=True)
            bot.set_resampler(lambda s, player: s.resample_from_infostate(player, rs.random_sample))
        action = int(bot.step(state))
        self.decisions += 1
        self.search_seconds += time.perf_counter() - start
        if action not in legal:  # pragma: no cover - the bots choose among legal_actions()
            raise ConfigError(f"{self.name} chose {action}, not a legal action ({legal[:12]})")
        return action


def _EngineRollout(game, rollout: str, rs: np.random.RandomState, base: type, prior: str = "uniform"):
    """An OpenSpiel ``Evaluator`` playing one rollout on the engine (``base``: ``mcts.Evaluator``, imported lazily);
    its prior is uniform or leans on the scripted move (``prior="greedy"``)."""

    class EngineRollout(base):
        def __init__(self) -> None:
            self._players = None

        def _policies(self):
            if self._players is None:
                from .greedy import GreedyAgent
                from .necromancer import NecromancerHeuristic

                eng = game.engine
                self._players = [NecromancerHeuristic() if s == eng.necro_seat else GreedyAgent()
                                 for s in range(eng.num_seats)]
            return self._players

        def evaluate(self, state):
            from necro_env.rewards import terminal_rewards

            eng = game.engine
            st = state.engine_state.clone()
            if rollout == "random":
                while not st.over:
                    legal = eng.legal_actions(st)
                    eng.apply(st, legal[rs.randint(len(legal))])
            else:
                pols = self._policies()
                gen = np.random.default_rng(rs.randint(2**31 - 1))
                while not st.over:
                    seat = st.decider
                    eng.apply(st, pols[seat].act(View(eng, st, seat), gen))
            return np.asarray(terminal_rewards(eng, st, game.reward), dtype=float)

        def prior(self, state):
            legal = state.legal_actions()
            if prior == "uniform" or len(legal) == 1:
                return [(a, 1.0 / len(legal)) for a in legal]
            st = state.engine_state
            seat = st.decider
            scripted = self._policies()[seat].act(View(game.engine, st, seat),
                                                  np.random.default_rng(rs.randint(2**31 - 1)))
            rest = (1.0 - SCRIPT_PRIOR) / len(legal)
            return [(a, rest + (SCRIPT_PRIOR if a == scripted else 0.0)) for a in legal]

    return EngineRollout()


def make_search_policy(spec: str) -> SearchPolicy:
    """The policy of a ``mcts:``/``ismcts:`` spec (``ConfigError`` for a bad spec or a missing OpenSpiel)."""
    opts = parse_search_spec(spec)
    check_openspiel()
    return SearchPolicy(opts["kind"], opts["sims"], opts["rollout"], opts["uct_c"], opts["reward"], name=spec.strip(),
                        prior=opts["prior"])


__all__ = ["SEARCH_KINDS", "ROLLOUTS", "PRIORS", "MAX_SIMS", "SearchPolicy", "parse_search_spec", "make_search_policy",
           "check_openspiel"]

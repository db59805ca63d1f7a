"""Golden playthroughs (OpenSpiel style): seeded games written out action by action with a digest of
what every seat observes, so any change to the rules or the observations shows up as a diff here.

    python tests/golden/regenerate.py          # rewrite the .txt files next to this script

Each file holds the game's config and seed, then one line per decision: the step, the deciding
seat, the number of legal actions, the action (index and description) and a digest of the
position before it (the legal actions, every seat's observation and the state vector), and a
last line with the final position's digest and the result. The actions are drawn uniformly at
random (``numpy.random.default_rng(seed)``) when the files are written; ``test_golden_playthroughs``
replays the stored actions and requires every line to come out the same. Review the diff of a
regeneration before committing it: it is the change in behaviour.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from necro_env.game import Game, GameConfig
from necro_env.observe import Observer
from necro_env.record import describe
from necro_env.versions import ENV_ID

HERE = Path(__file__).resolve().parent
# file name -> (GameConfig options, seed)
GAMES = {
    "base_3p.txt": (dict(players=3, necromancer=False), 11),
    "necromancer_4p.txt": (dict(players=4, necromancer=True, skip_forced=True), 12),
    "necromancer_6p_hidden_coins.txt": (dict(players=6, necromancer=True, skip_forced=True, hide_coins=True,
                                              final_die="any"), 13),
}


def digest(game: Game, observer: Observer, st) -> str:
    """16 hex digits of sha256 over the legal actions, every seat's observation and the state vector."""
    h = hashlib.sha256(repr(game.legal_actions(st) if not st.over else []).encode())
    for seat in range(game.num_seats):
        h.update(observer.observe(st, seat).tobytes())
    h.update(observer.state_vector(st).tobytes())
    return h.hexdigest()[:16]


def header(options: dict, seed: int) -> list[str]:
    config = GameConfig(**options)
    return [
        "# necro_env golden playthrough; regenerate with: python tests/golden/regenerate.py",
        f"# env {ENV_ID}",
        f"# config {json.dumps(config.to_dict(), sort_keys=True)}",
        f"# seed {seed}",
        "# step seat legal action description | digest (legal actions, every seat's observation, state vector)",
    ]


def playthrough(options: dict, seed: int, actions: list[int] | None = None) -> list[str]:
    """The file's lines: random actions from ``default_rng(seed)`` if ``actions`` is None, else these."""
    game = Game(GameConfig(**options))
    observer = Observer(game)
    st = game.new_state(seed)
    rng = np.random.default_rng(seed)
    lines = header(options, seed)
    k = 0
    while not st.over:
        legal = game.legal_actions(st)
        if actions is None:
            a = legal[int(rng.integers(len(legal)))]
        elif k < len(actions):
            a = actions[k]
        else:
            raise ValueError(f"the stored actions end at step {k} but the game goes on")
        lines.append(f"{k} {st.decider} {len(legal)} {a} {describe(game, st, a)} | {digest(game, observer, st)}")
        game.apply(st, a)  # IllegalActionError if a stored action is no longer legal
        k += 1
    res = game.result(st)
    lines.append(f"end {res['rounds_played']} rounds, winners {res['winners']}, coins {res['coins']} | "
                 f"{digest(game, observer, st)}")
    return lines


def stored_actions(lines: list[str]) -> list[int]:
    """The actions of a golden file's lines."""
    return [int(line.split()[3]) for line in lines if line and line[0].isdigit()]


def main() -> int:
    for name, (options, seed) in GAMES.items():
        lines = playthrough(options, seed)
        (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {name}: {len(lines)} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``--save-games DIR`` of ``necro-env simulate`` and ``necro-env evaluate``: one game record per file.

Game ``i`` of a run is written to ``DIR/game_<i>.json`` in the record format of
``necro_env.record`` (the one ``env.unwrapped.record()`` returns), so every simulated or
evaluated game can be replayed (``necro-env replay DIR/game_3.json``) or watched
(``necro-env replay DIR/game_3.json --html game_3.html``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .game import GameConfig
from .record import RECORD_FORMAT, RECORD_VERSION, agent_names
from .versions import ENV_ID


def game_record(config: GameConfig, seed: int, actions: list[int], result: dict[str, Any] | None) -> dict[str, Any]:
    """The record of a game played by the engine from ``new_state(seed)`` with ``actions``.

    ``result``: ``Game.result`` of the final state when the game is over, else ``None``.
    """
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "env_id": ENV_ID,
        "config": config.to_dict(),
        "seed": int(seed),
        "agents": agent_names(config),
        "actions": [int(a) for a in actions],
        "illegal": None,
        "over": result is not None,
        "result": result,
    }


def game_path(directory: str | Path, index: int) -> Path:
    """``DIR/game_<index>.json``."""
    return Path(directory) / f"game_{index}.json"


def save_game(directory: str | Path, index: int, record: dict[str, Any]) -> Path:
    """Write ``record`` as ``DIR/game_<index>.json`` (the folder is created); returns the path."""
    path = game_path(directory, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


def add_save_games_argument(parser) -> None:
    """The ``--save-games DIR`` option."""
    parser.add_argument("--save-games", metavar="DIR", default=None,
                        help="write every game's record to DIR/game_<i>.json (replay or watch them with "
                             "necro-env replay FILE [--html OUT.html])")

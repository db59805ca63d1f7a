"""The rules engine of Small World and the Necromancer Island scenario.

Pure Python + numpy: nothing here imports gymnasium, pettingzoo or torch (a test
enforces it). ``Game`` is built once from a ``GameConfig``; ``State`` is the
mutable part (``clone()``, ``to_dict()``/``from_dict()``). See ``engine.py`` for
the turn flow and ``actions.py`` for the action table.
"""
from .actions import NUM_ACTIONS, Action, Kind, action_table, decode, encode
from .board import Board, load_board
from .catalog import GHOST, LOST_TRIBE, POWERS, RACES, OCCUPANT_NAMES
from .config import GameConfig
from .engine import DIE_FACES, Game
from .errors import BoardDataError, ConfigError, IllegalActionError, NecroEnvError, StateError
from .state import Phase, State

__all__ = [
    "NUM_ACTIONS", "Action", "Kind", "action_table", "decode", "encode", "Board", "load_board",
    "GHOST", "LOST_TRIBE", "POWERS", "RACES", "OCCUPANT_NAMES", "GameConfig", "DIE_FACES", "Game",
    "BoardDataError", "ConfigError", "IllegalActionError", "NecroEnvError", "StateError", "Phase", "State",
]

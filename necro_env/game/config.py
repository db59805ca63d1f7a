"""``GameConfig``: everything that fixes a game before its seed.

Reward-neutral options only (observation and reward options belong to the env). Every
option here has this one home: the env, the single-seat view, the observer, the renderer
and the records read ``game.config`` (``hide_coins`` included) and keep no copy.
``hide_necro_reserve`` is not here: it only changes what an observation shows, never the
engine's turn flow, so it is an env option.
Invalid values raise :class:`ConfigError` (a ``ValueError``) naming the allowed
range. The scenario readings of RULES.md §4.3 marked **Config** are options here,
with the recommended reading as the default.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, fields, asdict
from typing import Any

import numpy as np

from .catalog import POWERS, RACES, race_id, power_id
from .errors import ConfigError, UnknownOptionError, short_repr

VICTORY_CHECKS = ("end_of_turn", "anytime")
FINAL_DIE_READINGS = ("when_short", "any")


@dataclass(frozen=True)
class GameConfig:
    """Seats and options of one game.

    players: total seats, the Necromancer included (2-5 base game, 3-6 scenario).
    necromancer: play the Necromancer Island scenario; ``None`` means "yes for 3+ seats".
        With the Necromancer the board is the one for ``players - 1`` (RULES §4.1 rule 1).
    starting_coins: coins each player starts with (RULES §1.2: 5).
    game_turns: override the board's turn track (A2); ``None`` = the board's own.
    necromancer_starting_coins: whether the Necromancer starts with the standard coins (A3).
    handicap: Ghosts removed from the Necromancer's reserve before play, 0-2 (rule 6).
    victory_check: "end_of_turn" (rule 14, A11 default) or "anytime" (also after every spawn).
    island_redeploy: let the Necromancer move any Ghost onto the Island while redeploying
        (A14 alternative). Default False: Island Ghosts he does not use stay there (in his
        redeployment the Island may be refilled up to the number it held when his conquests
        began), and no other Ghost may go onto it (A14).
    necromancer_diplomat: the Necromancer's own Diplomat works (A17, default True).
    conversion_to_well: a Sorcerer conversion's victim goes to the Well (A20, default True).
    forced_combos: ``(race, power)`` name pairs put on top of the decks, in order, so
        they form the first combos of the column (tests and experiments).
    necromancer_powers: names of the 6 powers the Necromancer draws (tests); ``None`` = random.
    skip_forced: when a decision has a single legal action, the engine applies it itself
        (so every decision left to an agent is a real choice; DESIGN.md §2). Off by default
        in the engine so rule tests can step through every phase; on by default in the env
        and the single-seat view. Reward-neutral: it changes who presses the button, not the game.
        Under ``hide_coins`` the PICK and BUY decisions are never skipped (see ``hide_coins``).
    final_die: when the reinforcement die may be used (RULES §1.6). "when_short" (default):
        only when no conquest is affordable outright, on a region at most 3 tokens short;
        "any": the last conquest of any turn may be a die attempt on a region the tokens in
        hand cannot take outright but are at most 3 short of (the reading of many players and
        of the official app). Either way at least 1 token must be in hand, and conquests end
        after the roll.
    hide_coins: coins are hidden information (also what observations show: the env's
        ``hide_coins`` argument is this option). The engine
        then never lets a seat's coins decide what the others could observe: the
        Necromancer's BUY step is entered at the start of each of his turns and stays open
        after each purchase until he plays END_BUY, whether or not he can pay (END_BUY alone
        is then a real, if trivial, decision), and ``skip_forced`` never skips a PICK or BUY
        decision (a single legal PICK would reveal 0 coins).
    """

    players: int = 4
    necromancer: bool | None = None
    starting_coins: int = 5
    game_turns: int | None = None
    necromancer_starting_coins: bool = True
    handicap: int = 0
    victory_check: str = "end_of_turn"
    island_redeploy: bool = False
    necromancer_diplomat: bool = True
    conversion_to_well: bool = True
    forced_combos: tuple[tuple[str, str], ...] = ()
    necromancer_powers: tuple[str, ...] | None = None
    skip_forced: bool = False
    final_die: str = "when_short"
    hide_coins: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):  # numpy scalars (np.int64(4), np.True_) mean their Python values
            v = getattr(self, f.name)
            if isinstance(v, (np.integer, np.bool_)):
                object.__setattr__(self, f.name, v.item())

        def need(cond: bool, msg: str) -> None:
            if not cond:
                raise ConfigError(msg)

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        need(is_int(self.players), f"players must be an int, got {short_repr(self.players)}")
        if self.necromancer is None:
            object.__setattr__(self, "necromancer", self.players >= 3)
        need(isinstance(self.necromancer, bool), f"necromancer must be a bool or None, got {short_repr(self.necromancer)}")
        if self.necromancer:
            need(3 <= self.players <= 6,
                 f"players must be 3-6 with the Necromancer (got {short_repr(self.players)}); use necromancer=False "
                 "for 2 seats")
        else:
            need(2 <= self.players <= 5, f"players must be 2-5 without the Necromancer (got {short_repr(self.players)})")
        need(is_int(self.starting_coins) and 0 <= self.starting_coins <= 1000,
             f"starting_coins must be an int in 0..1000, got {short_repr(self.starting_coins)}")
        need(self.game_turns is None or (is_int(self.game_turns) and 1 <= self.game_turns <= 20),
             f"game_turns must be None or an int in 1..20, got {short_repr(self.game_turns)}")
        need(is_int(self.handicap) and 0 <= self.handicap <= 2, f"handicap must be 0, 1 or 2, got {short_repr(self.handicap)}")
        need(self.handicap == 0 or self.necromancer, "handicap removes the Necromancer's Ghosts: it needs necromancer=True")
        need(self.victory_check in VICTORY_CHECKS,
             f"victory_check must be one of {VICTORY_CHECKS}, got {short_repr(self.victory_check)}")
        need(self.final_die in FINAL_DIE_READINGS,
             f"final_die must be one of {FINAL_DIE_READINGS}, got {short_repr(self.final_die)}")
        for name in ("necromancer_starting_coins", "island_redeploy", "necromancer_diplomat", "conversion_to_well",
                     "skip_forced", "hide_coins"):
            need(isinstance(getattr(self, name), bool), f"{name} must be a bool, got {short_repr(getattr(self, name))}")
        # a list or tuple (JSON gives lists): a dict, set or string would iterate into something else
        need(isinstance(self.forced_combos, (list, tuple)),
             f"forced_combos must be a list of (race, power) name pairs, got {short_repr(self.forced_combos)}")
        races_seen, powers_seen = set(), set()
        for pair in self.forced_combos:
            need(isinstance(pair, (list, tuple)) and len(pair) == 2,
                 f"forced_combos entries must be (race, power) pairs, got {short_repr(pair)}")
            try:
                r, p = race_id(pair[0]), power_id(pair[1])
            except ValueError as e:
                raise ConfigError(f"forced_combos: {e}") from None
            need(r not in races_seen and p not in powers_seen,
                 f"forced_combos repeats a race or a power: {short_repr(pair)}")
            races_seen.add(r)
            powers_seen.add(p)
        object.__setattr__(self, "forced_combos", tuple(tuple(c) for c in self.forced_combos))
        if self.necromancer_powers is not None:
            need(self.necromancer, "necromancer_powers needs necromancer=True")
            need(isinstance(self.necromancer_powers, (list, tuple)),
                 f"necromancer_powers must be None or a list of 6 power names, got {short_repr(self.necromancer_powers)}")
            pw = tuple(self.necromancer_powers)
            object.__setattr__(self, "necromancer_powers", pw)
            need(len(pw) == 6 and len(set(p.strip().lower() if isinstance(p, str) else short_repr(p) for p in pw)) == 6,
                 f"necromancer_powers must name 6 different powers, got {short_repr(pw)}")
            for p in pw:
                try:
                    pid = power_id(p)
                except ValueError as e:
                    raise ConfigError(f"necromancer_powers: {e}") from None
                need(POWERS[pid].necromancer_ok,
                     f"necromancer_powers: {p} cannot be drawn by the Necromancer; allowed: "
                     + ", ".join(q.name for q in POWERS if q.necromancer_ok))
                need(pid not in powers_seen, f"necromancer_powers: {p} is also in forced_combos")

    @property
    def board_key(self) -> int:
        """The board used: players, or players - 1 with the Necromancer (rule 1)."""
        return self.players - 1 if self.necromancer else self.players

    @property
    def num_players(self) -> int:
        """Seats that play races (all seats but the Necromancer's)."""
        return self.players - 1 if self.necromancer else self.players

    def to_dict(self) -> dict:
        d = asdict(self)
        d["forced_combos"] = [list(c) for c in self.forced_combos]
        if self.necromancer_powers is not None:
            d["necromancer_powers"] = list(self.necromancer_powers)
        return d

    @classmethod
    def from_dict(cls, d: dict, complete: bool = False) -> "GameConfig":
        """Inverse of ``to_dict``; ``complete``: every field must be given (saved games and records)."""
        if not isinstance(d, dict):
            raise ConfigError(f"a config must be a dict, got {type(d).__name__}")
        check_option_names(d, "config keys")
        missing = sorted(_FIELD_NAMES - set(d)) if complete else []
        if missing:
            raise ConfigError(f"missing config keys {missing} (a saved config lists every option)")
        return cls(**d)  # __post_init__ turns the lists of JSON into tuples


_FIELD_NAMES = frozenset(f.name for f in fields(GameConfig))
_dataclass_init = GameConfig.__init__


def check_option_names(options: Any, what: str = "GameConfig options") -> None:
    """``UnknownOptionError`` (a ``ConfigError`` and a ``TypeError``) naming unknown keys and the allowed ones."""
    unknown = sorted(k if isinstance(k, str) else short_repr(k) for k in set(options) - _FIELD_NAMES)
    if unknown:
        raise UnknownOptionError(f"unknown {what} {unknown}; allowed: {sorted(_FIELD_NAMES)}")


def _init(self, *args: Any, **kwargs: Any) -> None:
    if len(args) > len(_FIELD_NAMES):
        raise UnknownOptionError(f"GameConfig takes at most {len(_FIELD_NAMES)} positional values, got {len(args)}")
    check_option_names(kwargs)
    _dataclass_init(self, *args, **kwargs)


_init.__doc__ = _dataclass_init.__doc__
_init.__signature__ = inspect.signature(_dataclass_init)
GameConfig.__init__ = _init  # unknown names raise a typed error (the dataclass's own is a bare TypeError)

__all__ = ["GameConfig", "check_option_names", "VICTORY_CHECKS", "FINAL_DIE_READINGS", "RACES", "POWERS"]

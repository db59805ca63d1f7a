"""What the viewer shows at every step of a recorded game, computed by replaying it through the engine.

``game_frames(record)`` replays a game record (``necro_env.record`` format) with
``iter_replay`` and returns a :class:`GameFrames`: one *view* per step (``views[0]`` before
the first action, ``views[k]`` after action ``k``), the words of every action (the text of
``necro-env replay``), the steps where turns and rounds begin, and the per-round series the
charts draw. A view is a flat dict of ints and lists of ints (field names below); the page
stores the first view whole and every later one as its differences from the one before
(:func:`deltas`), so the browser only copies values: no game logic runs in JavaScript.

View fields (S seats, R regions; -1 = none):

=========  ===========================================================================
occ[R]     occupant id (a race 0-13, Lost Tribe 14, Ghosts 15)      tok[R] its tokens
own[R]     seat owning the occupant                                 dec[R] 1 = in decline
pc[R]      pieces bitmask (PIECES order)                            enc[R] encampments
coins[S]   coins                                                    act[S] active race
apow[S]    the active race's powers (bitmask)                       hand[S] its tokens in hand
dcl[S]     in-decline race                                          dpow[S] its last powers
spr[S]     in-decline Spirit race                                   pact[S] Diplomat pact
cr, cp, cc the combo column: races, powers, coins on each
res isl    the Necromancer's Reserve and Island                     well   tokens in the Well
wg souls   Ghosts in the Well, bonus souls                          price  next purchase
gip        Ghosts in play                                           npow   his powers in use
nres       his reserve power slots (-1 bought)                      ndraw  drawn start badges
rnd ts     round, turn seat                                         who    seat to decide
ph         phase (``Phase`` value)                                  over   1 = game over
win        winning seats                                            die    last die roll
lc         region of this turn's last conquest (or -1)
=========  ===========================================================================
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game import Game, State
from ..game.actions import Kind, decode
from ..game.catalog import GHOST
from ..game.state import DECLINED
from ..record import agent_names, iter_replay, parse_record

#: Piece bits of ``pc``, lowest first.
PIECES = ("lair", "fortress", "hole", "hero", "dragon")
_CONQUESTS = (Kind.CONQUER, Kind.FINAL, Kind.DRAGON, Kind.CONVERT)


@dataclass
class GameFrames:
    """A replayed game, ready for the page (see the module docstring)."""

    game: Game
    names: list[str]
    seed: int
    views: list[dict[str, Any]]
    steps: list[dict[str, Any]]        # per action: seat, round (before it), text
    turn_starts: list[int]             # view indices where a turn begins (and the last one at the end)
    round_starts: list[int]            # view indices where a round begins (and the last one at the end)
    coins_by_round: list[list[int]]    # per seat, coins after each round
    ghost_curve: list[int]             # Ghosts in play after each round
    ghost_total: int                   # the Necromancer wins with this many Ghosts in play (0: base game)
    final: State


def ghost_total(game: Game, st: State) -> int:
    """Ghosts the Necromancer owns (in play, Reserve, hand and Well): all of them in play wins (rule 14)."""
    return game.ghosts_in_play(st) + st.tray[GHOST] + st.hand[GHOST] + st.well[GHOST]


def view(game: Game, st: State, last_power: list[int], conquest: int) -> dict[str, Any]:
    """The view of ``st`` (``last_power[race]``: the powers it had when last active)."""
    owner = st.race_owner
    occ = st.occ
    own = [owner[x] if x >= 0 else -1 for x in occ]
    dec = [1 if x >= 0 and st.race_status[x] == DECLINED else 0 for x in occ]
    pc = [st.lair[r] | st.fort[r] << 1 | st.hole[r] << 2 | st.hero[r] << 3 | (st.dragon == r) << 4
          for r in range(game.num_regions)]
    active = st.active
    v: dict[str, Any] = {
        "occ": list(occ), "tok": list(st.tok), "own": own, "dec": dec, "pc": pc, "enc": list(st.encamp),
        "coins": list(st.coins), "act": list(active),
        "apow": [st.race_power[a] if a >= 0 else 0 for a in active],
        "hand": [st.hand[a] if a >= 0 else 0 for a in active],
        "dcl": list(st.decl), "dpow": [last_power[x] if x >= 0 else 0 for x in st.decl],
        "spr": list(st.decl_spirit), "pact": list(st.pact),
        "cr": list(st.col_race), "cp": list(st.col_power), "cc": list(st.col_coins),
        "rnd": min(st.round, game.game_turns), "ts": st.turn_seat, "who": st.decider if not st.over else -1,
        "ph": st.phase, "over": int(bool(st.over)), "win": list(st.winners), "die": st.last_die, "lc": conquest,
    }
    if game.necromancer:
        v.update({
            "res": st.tray[GHOST], "isl": st.island, "well": sum(st.well), "wg": st.well[GHOST], "souls": st.souls,
            "price": game.purchase_price(st), "gip": game.ghosts_in_play(st), "npow": st.race_power[GHOST],
            "nres": list(st.necro_reserve), "ndraw": list(st.necro_draw),
        })
    return v


def game_frames(record: dict) -> GameFrames:
    """Replay ``record`` and collect every view; ``StateError`` if the record does not replay."""
    config, _options, seed, _actions = parse_record(record)
    game = Game(config)
    st = game.new_state(seed)
    last_power = [0] * len(st.race_power)
    conquest = -1
    views = [view(game, st, last_power, conquest)]
    steps: list[dict[str, Any]] = []
    turn_starts, round_starts = [0], [0]
    coins_by_round: list[list[int]] = [[] for _ in range(game.num_seats)]
    total = ghost_total(game, st) if game.necromancer else 0
    for k, seat, action, text, before, _game, st in iter_replay(record):
        for x, mask in enumerate(st.race_power):
            if mask:
                last_power[x] = mask
        kind, arg = decode(action)
        if (st.round, st.turn_seat) != before:
            conquest = -1
        elif kind in _CONQUESTS and st.occ[arg] >= 0 and st.race_owner[st.occ[arg]] == seat:
            conquest = arg
        views.append(view(game, st, last_power, conquest))
        steps.append({"seat": seat, "round": before[0], "text": text})
        if st.over or (st.round, st.turn_seat) != before:
            turn_starts.append(k + 1)
        if st.over or st.round != before[0]:
            round_starts.append(k + 1)
            for s in range(game.num_seats):
                coins_by_round[s].append(st.coins[s])
    return GameFrames(game, agent_names(config), seed, views, steps, turn_starts, round_starts, coins_by_round,
                      list(st.ghost_curve), total, st)


def deltas(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each view after the first as its changes from the one before.

    A changed scalar is given as is; a changed list of the same length as ``{index: value}``
    when that is shorter, else whole. ``apply_deltas`` (and the page's script) undo it.
    """
    out = []
    for prev, cur in zip(views, views[1:]):
        d: dict[str, Any] = {}
        for key, value in cur.items():
            old = prev.get(key)
            if value == old:
                continue
            if isinstance(value, list) and isinstance(old, list) and len(value) == len(old):
                changed = {str(i): x for i, (x, y) in enumerate(zip(value, old)) if x != y}
                d[key] = changed if 2 * len(changed) < len(value) else value
            else:
                d[key] = value
        out.append(d)
    return out


def apply_deltas(first: dict[str, Any], changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Inverse of ``deltas``: the full views again (used by the tests to check the encoding)."""
    views = [first]
    for d in changes:
        cur = dict(views[-1])
        for key, value in d.items():
            if isinstance(value, dict):
                lst = list(cur[key])
                for i, x in value.items():
                    lst[int(i)] = x
                cur[key] = lst
            else:
                cur[key] = value
        views.append(cur)
    return views

"""Hand-built positions: the supported way to edit a game state (for rule tests, puzzles, curricula).

A position starts from a real new game (so decks, coins and the generator are valid), then
the board is cleared or edited with the helpers below, which keep every conservation law
(tokens come from and go back to the tray; banners leave the deck/column when a seat takes
them) and keep the engine's derived fields and legal-action cache right. Finish with
``begin(...)`` to give a seat the turn in the phase you want, or ``Game.begin_turn`` to
start its turn exactly as the engine does between turns.

    g, st = empty_position(players=3)                    # base game, 3p board, no Lost Tribes
    give_race(g, st, seat=0, race="Orcs", power="Commando", hand=5)
    put(g, st, 4, "Orcs", 2)                            # 2 Orc tokens in region 4
    put(g, st, 5, "Lost Tribe", 1)
    begin(g, st, seat=0)                                 # seat 0's turn, CONQUER with Orcs
    g.apply(st, encode((Kind.CONQUER, 5)))

Any other change to a ``State``'s fields must be followed by ``Game.invalidate(st)``.
Race/power arguments take names (case-insensitive) or ids.
"""
from __future__ import annotations

from .catalog import GHOST, LOST_TRIBE, OCCUPANT_NAMES, power_id, race_id
from .config import GameConfig
from .engine import Game
from .state import ACTIVE, DECLINED, MAIN_SEGMENT, Phase, State

_OCC_BY_NAME = {n.lower(): i for i, n in enumerate(OCCUPANT_NAMES)}
_OCC_BY_NAME.update({"lt": LOST_TRIBE, "lost tribes": LOST_TRIBE, "ghost": GHOST})


def occ(x: int | str) -> int:
    """Occupant id from a name ("Orcs", "Lost Tribe", "Ghosts") or an id."""
    if isinstance(x, int):
        return x
    return _OCC_BY_NAME[x.lower()] if x.lower() in _OCC_BY_NAME else race_id(x)


def pw(x: int | str) -> int:
    """Power id from a name or an id."""
    return x if isinstance(x, int) else power_id(x)


def new_position(players: int = 3, necromancer: bool = False, seed: int = 0, **options) -> tuple[Game, State]:
    """A real new game; with the Necromancer, his starting power is chosen (draw slot 0)."""
    g = Game(GameConfig(players=players, necromancer=necromancer, **options))
    st = g.new_state(seed)
    if necromancer:
        g.apply(st, g.legal_actions(st)[0])  # NECRO_START 0 -> seat 0's turn begins
    return g, st


def empty_position(players: int = 3, necromancer: bool = False, seed: int = 0, **options) -> tuple[Game, State]:
    """A new game with every Lost Tribe removed (and the Island emptied back to 1 Ghost)."""
    g, st = new_position(players, necromancer, seed, **options)
    for r in range(g.num_regions):
        if st.occ[r] >= 0:
            remove(g, st, r)
    return g, st


def remove(g: Game, st: State, r: int) -> None:
    """Empty region ``r`` (tokens back to the tray, markers cleared)."""
    x = st.occ[r]
    if x >= 0:
        st.tray[x] += st.tok[r]
        st.regions[x] &= ~(1 << r)
    st.occ[r] = -1
    st.tok[r] = 0
    st.lair[r] = st.fort[r] = st.hole[r] = st.hero[r] = st.encamp[r] = 0
    if st.dragon == r:
        st.dragon = -1
    g.invalidate(st)


def put(g: Game, st: State, r: int, occupant: int | str, n: int = 1, **markers: int) -> None:
    """Put ``n`` tokens of ``occupant`` on region ``r`` (replacing what was there).

    markers: lair=1, fort=1, hole=1, hero=1, encamp=k, dragon=1.
    """
    remove(g, st, r)
    x = occ(occupant)
    if st.tray[x] < n:
        raise ValueError(f"tray of {OCCUPANT_NAMES[x]} holds only {st.tray[x]} tokens")
    st.tray[x] -= n
    st.occ[r] = x
    st.tok[r] = n
    st.regions[x] |= 1 << r
    for k, v in markers.items():
        if k == "dragon":
            if v:
                st.dragon = r
        elif k in ("lair", "fort", "hole", "hero", "encamp"):
            getattr(st, k)[r] = v
        else:
            raise ValueError(f"unknown marker {k}")
    g.invalidate(st)


def _take_banner(st: State, race: int) -> None:
    if race in st.race_deck:
        st.race_deck.remove(race)
    elif race in st.col_race:
        k = st.col_race.index(race)
        st.col_race.pop(k)
        p = st.col_power.pop(k)
        st.col_coins.pop(k)
        st.power_deck.append(p)


def _take_badge(st: State, power: int) -> None:
    if power in st.power_deck:
        st.power_deck.remove(power)
    elif power in st.col_power:
        k = st.col_power.index(power)
        st.col_power[k] = st.power_deck.pop(0)
    elif power in st.power_discard:
        st.power_discard.remove(power)


def give_race(g: Game, st: State, seat: int, race: int | str, power: int | str | None = None,
              hand: int = 0, declined: bool = False, spirit: bool = False) -> int:
    """Make ``race`` the seat's active race (or its in-decline race) with ``hand`` tokens in hand."""
    x = occ(race)
    _take_banner(st, x)
    st.race_owner[x] = seat
    if declined:
        st.race_status[x] = DECLINED
        st.race_power[x] = 0
        if spirit:
            st.decl_spirit[seat] = x
        else:
            st.decl[seat] = x
    else:
        st.race_status[x] = ACTIVE
        st.active[seat] = x
        if power is not None:
            p = pw(power)
            _take_badge(st, p)
            st.race_power[x] = 1 << p
    if hand:
        if st.tray[x] < hand:
            raise ValueError(f"tray of {OCCUPANT_NAMES[x]} holds only {st.tray[x]} tokens")
        st.tray[x] -= hand
        st.hand[x] += hand
    g._refill_column(st)
    g.invalidate(st)
    return x


def set_necro_powers(g: Game, st: State, *powers: int | str) -> None:
    """The Necromancer's powers in use (replaces them)."""
    m = 0
    for p in powers:
        m |= 1 << pw(p)
    st.race_power[GHOST] = m
    g.invalidate(st)


def set_hand(g: Game, st: State, race: int | str, n: int) -> None:
    """Give ``race`` exactly ``n`` tokens in hand, moving the difference from/to its tray."""
    x = occ(race)
    if st.tray[x] < n - st.hand[x]:
        raise ValueError(f"tray of {OCCUPANT_NAMES[x]} holds only {st.tray[x]} tokens")
    st.tray[x] -= n - st.hand[x]
    st.hand[x] = n
    g.invalidate(st)


def begin(g: Game, st: State, seat: int, phase: Phase = Phase.CONQUER, ready: bool = False) -> None:
    """Give ``seat`` the turn: CONQUER with its active race (troops readied only if ``ready``; without
    readying DECLINE is not offered), or PICK / BUY / any phase with the seat deciding.

    Unlike ``Game.begin_turn`` this enters the phase directly (no BUY step, no Ghoul segment first)."""
    st.turn_seat = seat
    st.decider = seat
    st.picked = 0 if ready else 1   # picked=1 skips readying and forbids DECLINE
    st.dragon_used = st.fort_used = 0
    st.converted = st.attacked = 0
    st.berserk = -1
    st.pact[seat] = -1
    if phase == Phase.CONQUER:
        g._start_segment(st, st.active[seat], MAIN_SEGMENT)
        if ready:
            st.picked = 0
    else:
        st.phase = int(phase)
        st.cur_race = st.active[seat]
        st.segment = MAIN_SEGMENT
    g.invalidate(st)


__all__ = ["occ", "pw", "new_position", "empty_position", "remove", "put", "give_race", "set_necro_powers",
           "set_hand", "begin"]

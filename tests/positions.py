"""Helpers for rule tests: building positions (``necro_env.game.positions``, re-exported here), playing
actions by kind, reading the legal set, finishing a turn, rigging the die.

    g, st = empty_position(players=3)
    give_race(g, st, seat=0, race="Orcs", power="Commando", hand=5)
    put(g, st, 4, "Orcs", 2)
    begin(g, st, seat=0)
    play(g, st, (Kind.CONQUER, 5))
    assert kinds(g, st, "CONQUER") == {...}
"""
from __future__ import annotations

from necro_env.game import DIE_FACES, Game, Kind, Phase, State, decode, encode
from necro_env.game import rng as R
from necro_env.game.positions import (
    begin, empty_position, give_race, new_position, occ, put, pw, remove, set_hand, set_necro_powers,
)


def play(g: Game, st: State, *actions) -> None:
    """Apply actions given as (Kind, arg) pairs or indices."""
    for a in actions:
        g.apply(st, a if isinstance(a, int) else encode(a))


def legal(g: Game, st: State) -> set:
    """Legal actions as a set of ``(kind name, arg)`` pairs, for readable asserts."""
    return {(decode(a).kind.name, decode(a).arg) for a in g.legal_actions(st)}


def kinds(g: Game, st: State, kind: str) -> set[int]:
    """Arguments of the legal actions of one kind (e.g. the regions of every CONQUER)."""
    return {a for k, a in legal(g, st) if k == kind}


def regions_of(st: State, race: int) -> list[int]:
    """The regions ``race`` holds, lowest first."""
    return [r for r in range(len(st.occ)) if (st.regions[race] >> r) & 1]


def finish_turn(g: Game, st: State) -> None:
    """End conquest if needed, put every token in hand (beyond the Amazons' hold) on the race's
    lowest region, end redeployment."""
    if st.phase == Phase.CONQUER:
        play(g, st, (Kind.END_CONQUEST,))
    race = st.cur_race
    while st.phase == Phase.REDEPLOY and st.hand[race] > st.hold:
        play(g, st, (Kind.PLACE, regions_of(st, race)[0]))
    if st.phase == Phase.REDEPLOY:
        play(g, st, (Kind.END_REDEPLOY,))


def die_rng(face: int) -> int:
    """A generator state whose next die roll shows ``face`` (assign it to ``st.rng``)."""
    for v in range(1, 100_000):
        if DIE_FACES[R.below(v, 6)[1]] == face:
            return v
    raise AssertionError("no generator state found")


def rig_die(g: Game, st: State, face: int) -> None:
    """Make the next die roll of ``st`` show ``face``."""
    st.rng = die_rng(face)
    g.invalidate(st)


def die_rolls(rng: int, n: int) -> list[int]:
    """The faces of the next ``n`` die rolls from generator state ``rng`` (what the engine's die shows)."""
    out = []
    for _ in range(n):
        rng, i = R.below(rng, 6)
        out.append(DIE_FACES[i])
    return out


__all__ = ["begin", "empty_position", "give_race", "new_position", "occ", "put", "pw", "remove", "set_hand",
           "set_necro_powers", "play", "legal", "kinds", "regions_of", "finish_turn", "die_rng", "rig_die", "die_rolls"]

"""RULES §4.2: the Czech worked example of the Necromancer Island scenario, replayed as a golden test.

Three seats on the 2-player board (RULES §4.1 rule 1): seat 0 Amazons, seat 1 Dwarves, seat 2 the
Necromancer whose starting power is Commando. The position is hand-built so that every conquest of a
Ghost region kills exactly one Ghost (each Ghost region holds 1 Ghost), then the example is played with
real actions through ``Game.apply``; the Well, the Ghost reserve, the Island and the coins are checked
after every step.

2-player board (RULES §3.3): lake 7, its neighbours 2, 6, 8, 12, 13 (the Necromancer's entry regions).
Start: Amazons on 1 and 5 (1 token each) with 10 in hand; Dwarves on 11 (1), 16 (4), 17 (1);
Ghosts on 2, 6, 12 (1 each) and the Island (1); the Necromancer has 4 coins.
"""
from __future__ import annotations

import dataclasses

import pytest

from necro_env.game import Game, Kind, Phase, encode
from necro_env.game.catalog import AMAZONS, COMMANDO, DWARVES, GHOST, MOUNTED

from positions import begin, empty_position, give_race, legal, play, put

NECRO_POWERS = ("Commando", "Alchemist", "Flying", "Heroic", "Mounted", "Underworld")
AMAZON_SEAT, DWARF_SEAT, NECRO_SEAT = 0, 1, 2
LAKE = 7


def ghost_count(g, st) -> int:
    """All 14 Ghosts: reserve + Island + regions + hand + Well + handicap pile (RULES §4.3 A27)."""
    on_map = sum(st.tok[r] for r in range(g.num_regions) if st.occ[r] == GHOST)
    return st.tray[GHOST] + st.island + on_map + st.hand[GHOST] + st.well[GHOST] + st.ghosts_removed


def well_total(st) -> int:
    return sum(st.well) + st.souls


def build():
    """The hand-built position of the example, at the start of the Amazons' turn."""
    g, st = empty_position(players=3, necromancer=True, necromancer_powers=NECRO_POWERS)
    # new_position chose draw slot 0 = Commando as the starting power.
    assert st.race_power[GHOST] == 1 << COMMANDO
    give_race(g, st, AMAZON_SEAT, "Amazons", "Swamp", hand=10)
    put(g, st, 1, "Amazons", 1)
    put(g, st, 5, "Amazons", 1)
    give_race(g, st, DWARF_SEAT, "Dwarves", "Forest")
    put(g, st, 11, "Dwarves", 1)
    put(g, st, 16, "Dwarves", 4)
    put(g, st, 17, "Dwarves", 1)
    for r in (2, 6, 12):
        put(g, st, r, "Ghosts", 1)
    st.coins[NECRO_SEAT] = 4
    # Seat 0's turn begins: CONQUER with the Amazons, nothing readied (every region holds 1 token).
    begin(g, st, AMAZON_SEAT, ready=True)
    g.check_invariants(st)
    return g, st


def test_czech_worked_example_step_by_step():
    """RULES §4.2 (a)-(d): Well = 3 after the Amazons, spawn after the Dwarves, price 1 + 3 = 4, 1 coin and 1 soul per region."""
    g, st = build()
    assert g.board.lake == LAKE and set(g.board.lake_neighbors) == {2, 6, 8, 12, 13}
    assert st.island == 1 and st.tray[GHOST] == 10 and well_total(st) == 0
    assert g.ghosts_in_play(st) == 4
    assert ghost_count(g, st) == 14
    tray_dwarves, tray_amazons = st.tray[DWARVES], st.tray[AMAZONS]

    # --- The Amazons take 2 Ghost regions and 1 Dwarf region. ---------------------------------------
    assert g.conquest_cost(st, 6) == 3  # 2 + 1 Ghost
    play(g, st, (Kind.CONQUER, 6))
    assert st.well[GHOST] == 1 and st.hand[GHOST] == 0  # the lone Ghost dies, nothing flees
    play(g, st, (Kind.CONQUER, 2))
    assert st.well[GHOST] == 2
    assert g.conquest_cost(st, 11) == 3  # 2 + 1 Dwarf
    play(g, st, (Kind.CONQUER, 11))
    assert st.well[GHOST] == 2 and st.well[DWARVES] == 1 and well_total(st) == 3
    assert st.tray[DWARVES] == tray_dwarves  # the dead Dwarf went to the Well, not the tray
    play(g, st, (Kind.END_CONQUEST,))
    # Amazons keep 4 tokens back after redeploying (RULES §2.1): lift 3 more, leaving 1 token on 11.
    play(g, st, (Kind.LIFT, 11), (Kind.LIFT, 11), (Kind.LIFT, 6), (Kind.END_REDEPLOY,))
    assert st.amazon_held == 4 and st.tok[11] == 1
    # 3 tokens in the Well: no spawn; the Well carries over into the Dwarves' turn (RULES §4.2 (b)).
    assert st.turn_seat == DWARF_SEAT and st.phase == Phase.CONQUER
    assert st.well[GHOST] == 2 and st.well[DWARVES] == 1 and well_total(st) == 3
    assert st.island == 1 and st.tray[GHOST] == 10
    assert g.ghosts_in_play(st) == 2
    assert st.coins == [5 + 5, 5, 4]  # Amazons: 5 regions, no swamp
    assert ghost_count(g, st) == 14
    g.check_invariants(st)

    # --- The Dwarves take 1 Amazon region: the Well reaches 4. --------------------------------------
    assert st.hand[DWARVES] == 3  # troops readied from region 16
    assert g.conquest_cost(st, 11) == 3
    play(g, st, (Kind.CONQUER, 11))
    assert st.well[AMAZONS] == 1 and well_total(st) == 4
    play(g, st, (Kind.END_CONQUEST,))
    assert well_total(st) == 4 and st.island == 1  # spawning waits for the end of the turn
    play(g, st, (Kind.END_REDEPLOY,))
    # End of the Dwarves' turn (RULES §4.2 (a)): the 2 Ghosts return to the reserve, the Dwarf and the
    # Amazon go to the tray, and one reserve Ghost spawns on the Island.
    assert well_total(st) == 0 and st.well == [0] * len(st.well)
    assert st.tray[GHOST] == 10 + 2 - 1
    assert st.island == 2
    assert st.tray[DWARVES] == tray_dwarves + 1 and st.tray[AMAZONS] == tray_amazons + 1
    assert st.coins == [10, 5 + 3, 4]  # Dwarves: 3 regions, no mine
    assert ghost_count(g, st) == 14
    g.check_invariants(st)

    # --- The Necromancer's turn: 1 power + 3 Ghosts in play = 4 coins per purchase. -----------------
    assert st.turn_seat == NECRO_SEAT and st.decider == NECRO_SEAT and st.phase == Phase.BUY
    assert g.ghosts_in_play(st) == 3  # region 12 + 2 on the Island (RULES §4.2 (c): tokens, not regions)
    assert g.purchase_price(st) == 1 + 3
    options = legal(g, st)
    assert ("BUY_GHOST", 0) in options
    assert {("BUY_POWER", k) for k in range(5)} <= options  # he could have bought a power instead
    play(g, st, (Kind.BUY_GHOST,))
    assert st.coins[NECRO_SEAT] == 0 and st.tray[GHOST] == 10 and st.bought_ghosts == 1
    # He cannot pay the next price (5), so buying ends and his Ghosts are readied off the Island.
    assert st.phase == Phase.CONQUER and st.island == 0 and st.hand[GHOST] == 3
    assert g.ghosts_in_play(st) == 1  # region 12 only; 3 Ghosts are in hand
    # Commando: an empty lake neighbour costs 2 - 1 = 1.
    for r in (13, 18, 14):
        assert g.conquest_cost(st, r) == 1
        play(g, st, (Kind.CONQUER, r))
    assert st.regions[GHOST] == (1 << 12) | (1 << 13) | (1 << 18) | (1 << 14)
    play(g, st, (Kind.END_CONQUEST,))
    assert legal(g, st) == {("END_REDEPLOY", 0)}
    play(g, st, (Kind.END_REDEPLOY,))
    # 1 coin per Ghost region (4) and 1 soul per Ghost region (4): one more Ghost spawns on the Island.
    assert st.coins[NECRO_SEAT] == 4
    assert well_total(st) == 0 and st.island == 1 and st.tray[GHOST] == 9
    assert g.ghosts_in_play(st) == 5
    # Reserve not empty: no victory; the next round begins with the Amazons.
    assert not st.over and st.round == 2 and st.turn_seat == AMAZON_SEAT
    assert st.ghost_curve == [5]
    assert ghost_count(g, st) == 14
    g.check_invariants(st)


def _to_necro_end_of_turn():
    """Replay the example up to the Necromancer's last decision (END_REDEPLOY)."""
    g, st = build()
    play(g, st, (Kind.CONQUER, 6), (Kind.CONQUER, 2), (Kind.CONQUER, 11), (Kind.END_CONQUEST,),
         (Kind.LIFT, 11), (Kind.LIFT, 11), (Kind.LIFT, 6), (Kind.END_REDEPLOY,))
    play(g, st, (Kind.CONQUER, 11), (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))
    play(g, st, (Kind.BUY_GHOST,), (Kind.CONQUER, 13), (Kind.CONQUER, 18), (Kind.CONQUER, 14),
         (Kind.END_CONQUEST,))
    assert st.decider == NECRO_SEAT and legal(g, st) == {("END_REDEPLOY", 0)}
    return g, st


@pytest.mark.parametrize("victory_check", ["end_of_turn", "anytime"])
def test_czech_last_reserve_ghost_wins_at_once(victory_check):
    """RULES §4.2 / rule 14: if the Ghost spawned from his 4 souls was his last reserve Ghost, he wins at once.

    The reserve is cut to exactly 1 Ghost by moving the others to the pile of removed Ghosts (the
    handicap pile), which keeps the 14 Ghosts accounted for; everything else is the example's play.
    """
    g, st = _to_necro_end_of_turn()
    g = Game(dataclasses.replace(g.config, victory_check=victory_check))
    moved = st.tray[GHOST] - 1
    st.tray[GHOST] -= moved
    st.ghosts_removed += moved
    g.check_invariants(st)
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.tray[GHOST] == 0 and st.well[GHOST] == 0 and st.island == 1
    res = g.result(st)
    assert res["over"] and res["necromancer_won"]
    assert res["winners"] == [NECRO_SEAT]
    assert res["coins"] == [10, 8, 4]
    assert res["ghost_curve"] == [5]
    assert st.phase == Phase.OVER and g.legal_actions(st) == [] and g.current_seat(st) == -1


def test_czech_with_a_reserve_ghost_left_no_win():
    """Rule 14: with 2 reserve Ghosts before the spawn, one is left afterwards, so the game goes on."""
    g, st = _to_necro_end_of_turn()
    moved = st.tray[GHOST] - 2
    st.tray[GHOST] -= moved
    st.ghosts_removed += moved
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.tray[GHOST] == 1 and not st.over and not st.necro_won
    assert st.turn_seat == AMAZON_SEAT and st.round == 2


def test_czech_power_instead_of_ghost():
    """RULES §4.2: with the same 4 coins he could buy a reserve power instead; effects stack (rule 11)."""
    g, st = build()
    play(g, st, (Kind.CONQUER, 6), (Kind.CONQUER, 2), (Kind.CONQUER, 11), (Kind.END_CONQUEST,),
         (Kind.LIFT, 11), (Kind.LIFT, 11), (Kind.LIFT, 6), (Kind.END_REDEPLOY,))
    play(g, st, (Kind.CONQUER, 11), (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))
    assert st.phase == Phase.BUY and g.purchase_price(st) == 4
    slot = st.necro_reserve.index(MOUNTED)
    g.apply(st, encode((Kind.BUY_POWER, slot)))
    assert st.race_power[GHOST] == (1 << COMMANDO) | (1 << MOUNTED)
    assert st.necro_reserve[slot] == -1 and st.coins[NECRO_SEAT] == 0
    assert st.island == 0 and st.hand[GHOST] == 2 and st.tray[GHOST] == 11
    # Commando + Mounted on farmland 13 (empty): 2 - 1 - 1 = 0, but a conquest always needs 1 token.
    assert g.conquest_cost(st, 13) == 1
    # Amazons hold 6 with 2 tokens; 6 is a hill: 2 + 2 - 2 = 2.
    assert st.occ[6] == AMAZONS and st.tok[6] == 2
    assert g.conquest_cost(st, 6) == 2

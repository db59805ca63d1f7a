"""Rule-clause tests for the 14 races (RULES.md §2.1, and the Giants pitfall of §5).

Positions are hand-built on the 3-player base-game board (RULES §3.3): region 3 is farmland
(neighbours 2 4 9 10), 2 / 10 / 12 / 15 are mountains, 9 is a hill on the lake shore (coastal
by the lake only), 1 is a forest on the sea, 7 and 18 are farmland with a magic source,
1 / 6 / 10 mine regions, 8 / 11 / 13 / 16 interior regions.
"""
from __future__ import annotations

import pytest

from necro_env.game import Game, GameConfig, Kind, Phase
from necro_env.game.catalog import (
    AMAZONS, ELVES, GHOULS, GIANTS, ORCS, POWERS, RACES, RATMEN, SKELETONS, SORCERERS, power_id,
)
from necro_env.game.state import DECLINED

from positions import begin, empty_position, give_race, legal, occ, play, kinds, put, set_hand


# ----------------------------------------------------------------------------- helpers


def score_now(g, st, seat: int) -> int:
    """Let ``seat`` play an empty turn (no conquest, nothing to redeploy) and return the coins gained."""
    before = st.coins[seat]
    begin(g, st, seat)
    play(g, st, (Kind.END_CONQUEST,))
    if st.phase == Phase.REDEPLOY:
        play(g, st, (Kind.END_REDEPLOY,))
    return st.coins[seat] - before


def pick_forced(race: str, power: str) -> tuple[Game, object]:
    g = Game(GameConfig(players=2, forced_combos=((race, power),)))
    st = g.new_state(0)
    play(g, st, (Kind.PICK, 0))
    return g, st


# ----------------------------------------------------------------------------- token counts
@pytest.mark.parametrize("race", [r.name for r in RACES])
def test_tokens_at_pickup_are_banner_plus_badge(race):
    """RULES §1.3/§2.1: a picked race gets banner + badge tokens (Amazons +4), within its box."""
    g, st = pick_forced(race, "Merchant")
    x = occ(race)
    expected = RACES[x].banner + POWERS[power_id("Merchant")].badge + (4 if x == AMAZONS else 0)
    assert st.hand[x] == expected <= RACES[x].box
    assert st.tray[x] == RACES[x].box - expected


def test_ratmen_have_eight_tokens_and_no_ability():
    """RULES §2.1 Ratmen: banner 8 (8 + badge at pick-up), no ability: plain costs, plain score."""
    g, st = pick_forced("Ratmen", "Hill")
    assert st.hand[RATMEN] == 8 + 4 and RACES[RATMEN].banner == 8
    play(g, st, (Kind.CONQUER, 1))             # 2p board: region 1 farmland, coastal
    assert g.conquest_cost(st, 2) == 2
    play(g, st, (Kind.END_CONQUEST,))
    while st.hand[RATMEN]:
        play(g, st, (Kind.PLACE, 1))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.coins[0] == 5 + 1


# ----------------------------------------------------------------------------- Amazons
def test_amazons_hold_four_back_after_redeployment_and_get_them_back():
    """RULES §2.1 Amazons: after redeployment 4 tokens are held off the map; they return when troops are readied."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Amazons", hand=10)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 1), (Kind.CONQUER, 2), (Kind.END_CONQUEST,))   # 2 + 3 tokens
    assert st.hand[AMAZONS] == 5 and st.hold == 4
    assert kinds(g, st, "PLACE") == {1, 2} and ("END_REDEPLOY", 0) not in legal(g, st)
    play(g, st, (Kind.PLACE, 1))
    assert kinds(g, st, "PLACE") == set() and ("END_REDEPLOY", 0) in legal(g, st)
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.amazon_held == 4 and st.hand[AMAZONS] == 0
    assert st.tok[1] + st.tok[2] == 6
    g.check_invariants(st)
    begin(g, st, 0, ready=True)
    assert st.amazon_held == 0 and st.hand[AMAZONS] == 4 + (6 - 2)


def test_amazons_must_lift_to_hold_four():
    """RULES §2.1 Amazons: the 4 are taken off the map, so with an empty hand they must be lifted."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Amazons", hand=0)
    put(g, st, 3, "Amazons", 5)
    put(g, st, 4, "Amazons", 3)
    begin(g, st, 0)
    play(g, st, (Kind.END_CONQUEST,))
    assert st.hold == 4 and ("END_REDEPLOY", 0) not in legal(g, st)
    play(g, st, (Kind.LIFT, 3), (Kind.LIFT, 3), (Kind.LIFT, 4), (Kind.LIFT, 4))
    assert ("END_REDEPLOY", 0) in legal(g, st) and not kinds(g, st, "PLACE")
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.amazon_held == 4 and (st.tok[3], st.tok[4]) == (3, 1)


def test_amazons_keep_one_token_per_region_when_short():
    """RULES §2.1 Amazons: the 4 held back never strip a region (keep >= 1 per region): fewer are held."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Amazons", hand=2)
    for r in (1, 2, 3, 4, 5):
        put(g, st, r, "Amazons", 1)
    begin(g, st, 0)
    play(g, st, (Kind.END_CONQUEST,))
    assert st.hold == 2 and ("END_REDEPLOY", 0) in legal(g, st)
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.amazon_held == 2 and all(st.tok[r] == 1 for r in (1, 2, 3, 4, 5))


def test_amazons_extra_four_gone_in_decline():
    """RULES §2.1 Amazons: in decline the +4 is gone (the held tokens return to the tray)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Amazons", hand=0)
    put(g, st, 3, "Amazons", 2)
    put(g, st, 4, "Amazons", 1)
    set_hand(g, st, "Amazons", 4)
    st.hand[AMAZONS], st.amazon_held = 0, 4
    begin(g, st, 0, ready=True)
    assert st.hand[AMAZONS] == 5
    play(g, st, (Kind.DECLINE,))
    assert st.amazon_held == 0 and st.hand[AMAZONS] == 0
    assert st.tray[AMAZONS] == RACES[AMAZONS].box - 2
    g.check_invariants(st)


# ----------------------------------------------------------------------------- Dwarves
@pytest.mark.parametrize("race,bonus,plain", [("Dwarves", (1, 6), 3), ("Humans", (3, 7), 4), ("Wizards", (7, 9), 4)])
def test_terrain_races_score_their_regions_while_active(race, bonus, plain):
    """RULES §2.1 Dwarves (Mines), Humans (Farmlands), Wizards (Magic Sources): +1 coin per such region held."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, race)
    for r in bonus + (plain,):
        put(g, st, r, race, 1)
    assert score_now(g, st, 0) == 3 + 2


def test_dwarves_score_mines_in_decline():
    """RULES §2.1 Dwarves: the mine bonus persists in decline."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Dwarves", declined=True)
    put(g, st, 1, "Dwarves", 1)
    put(g, st, 6, "Dwarves", 1)
    put(g, st, 3, "Dwarves", 1)
    give_race(g, st, 0, "Ratmen")
    assert score_now(g, st, 0) == 3 + 2


def test_dwarves_score_mines_on_their_decline_turn():
    """RULES §2.1 Dwarves / §1.10: the decline turn's score already counts the in-decline mine bonus."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Dwarves", hand=0)
    put(g, st, 1, "Dwarves", 2)
    put(g, st, 6, "Dwarves", 1)
    put(g, st, 3, "Dwarves", 1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.coins[0] == 5 + 3 + 2


# ----------------------------------------------------------------------------- Elves
def _attack_elves(declined: bool):
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Orcs", hand=9)
    put(g, st, 3, "Orcs", 1)
    give_race(g, st, 2, "Elves", declined=declined)
    put(g, st, 4, "Elves", 1 if declined else 3)
    put(g, st, 28, "Elves", 1)
    begin(g, st, 0)
    return g, st


def test_elves_lose_no_token_when_conquered():
    """RULES §2.1 Elves: when an active Elf region is conquered, all its tokens return to hand."""
    g, st = _attack_elves(declined=False)
    tray = st.tray[ELVES]
    play(g, st, (Kind.CONQUER, 4))
    assert st.tray[ELVES] == tray and st.hand[ELVES] == 3
    play(g, st, (Kind.END_CONQUEST,))
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 3))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.tok[28] == 4 and st.tray[ELVES] == tray
    g.check_invariants(st)


def test_elves_in_decline_lose_the_token():
    """RULES §2.1 Elves: the ability is an active one; in-decline Elves lose their token."""
    g, st = _attack_elves(declined=True)
    tray = st.tray[ELVES]
    play(g, st, (Kind.CONQUER, 4))
    assert st.tray[ELVES] == tray + 1 and st.hand[ELVES] == 0


def test_elves_still_lose_the_token_to_conversion():
    """RULES §2.1 Elves: a Sorcerer conversion still costs them the token."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    give_race(g, st, 1, "Elves")
    put(g, st, 4, "Elves", 1)
    put(g, st, 28, "Elves", 1)
    begin(g, st, 0)
    tray = st.tray[ELVES]
    play(g, st, (Kind.CONVERT, 4))
    assert st.tray[ELVES] == tray + 1 and st.hand[ELVES] == 0 and st.occ[4] == SORCERERS


# ----------------------------------------------------------------------------- Ghouls
def test_ghouls_keep_all_tokens_on_decline():
    """RULES §2.1 Ghouls: on decline all tokens stay on the map (not 1 per region)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ghouls", hand=0)
    put(g, st, 3, "Ghouls", 3)
    put(g, st, 4, "Ghouls", 2)
    begin(g, st, 0, ready=True)
    tray = st.tray[GHOULS]
    play(g, st, (Kind.DECLINE,))
    assert (st.tok[3], st.tok[4]) == (3, 2) and st.tray[GHOULS] == tray
    assert st.race_status[GHOULS] == DECLINED
    g.check_invariants(st)


def _declined_ghouls():
    """Seat 0: in-decline Ghouls at 3 (5) and 4 (1), active Ratmen at 10 (1 token, 3 in hand)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ghouls", declined=True)
    put(g, st, 3, "Ghouls", 5)
    put(g, st, 4, "Ghouls", 1)
    give_race(g, st, 0, "Ratmen", hand=3)
    put(g, st, 10, "Ratmen", 1)
    g.begin_turn(st, 0)
    return g, st


def test_declined_ghouls_conquer_before_the_active_race():
    """RULES §2.1 Ghouls: in-decline Ghouls conquer at the start of the owner's turn, before the active race."""
    g, st = _declined_ghouls()
    assert st.phase == Phase.CONQUER and st.cur_race == GHOULS and st.decider == 0
    assert st.hand[GHOULS] == 4 and st.tok[3] == 1          # Ghoul troops readied
    la = legal(g, st)
    assert ("DECLINE", 0) not in la
    assert {2, 5, 9, 11} <= kinds(g, st, "CONQUER")
    play(g, st, (Kind.CONQUER, 9), (Kind.END_CONQUEST,))
    assert st.phase == Phase.REDEPLOY and st.cur_race == GHOULS
    play(g, st, (Kind.PLACE, 3), (Kind.PLACE, 9), (Kind.END_REDEPLOY,))
    assert st.occ[9] == GHOULS and st.race_status[GHOULS] == DECLINED
    # Then the active race takes its part of the turn.
    assert st.phase == Phase.CONQUER and st.cur_race == RATMEN and st.turn_seat == 0
    assert ("DECLINE", 0) in legal(g, st)
    g.check_invariants(st)


def test_declined_ghouls_may_attack_own_active_race():
    """RULES §2.1 Ghouls: in-decline Ghouls may even attack their owner's active race."""
    g, st = _declined_ghouls()
    assert g.conquest_cost(st, 10) == 2 + 1 + 1
    assert 10 in kinds(g, st, "CONQUER")
    tray = st.tray[RATMEN]
    play(g, st, (Kind.CONQUER, 10))
    assert st.occ[10] == GHOULS and st.tray[RATMEN] == tray + 1
    g.check_invariants(st)


def test_declined_ghouls_act_before_picking_a_new_combo():
    """RULES §2.1 Ghouls / §1.10: with no active race the in-decline Ghouls conquer first, then the player picks."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ghouls", declined=True)
    put(g, st, 3, "Ghouls", 4)
    g.begin_turn(st, 0)
    assert st.cur_race == GHOULS and st.phase == Phase.CONQUER and st.hand[GHOULS] == 3
    play(g, st, (Kind.CONQUER, 4), (Kind.END_CONQUEST,), (Kind.PLACE, 4), (Kind.END_REDEPLOY,))
    assert st.phase == Phase.PICK and st.decider == 0
    assert (st.tok[3], st.tok[4]) == (1, 3)


def test_non_ghoul_declined_race_does_not_act():
    """RULES §1.10/§2.1: only Ghouls keep conquering in decline; another in-decline race gets no segment."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", declined=True)
    put(g, st, 3, "Ratmen", 1)
    g.begin_turn(st, 0)
    assert st.phase == Phase.PICK


# ----------------------------------------------------------------------------- Giants
def test_giants_discount_next_to_a_mountain_they_hold():
    """RULES §2.1 Giants / §5 pitfall: -1 next to a Mountain region THEY hold, not next to any mountain."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Giants", hand=5)
    put(g, st, 3, "Giants", 1)
    begin(g, st, 0)
    # 4 and 9 border mountains 10 (and 2) that the Giants do not hold: full price.
    assert g.conquest_cost(st, 4) == 2 and g.conquest_cost(st, 9) == 2
    give_race(g, st, 1, "Orcs")
    put(g, st, 2, "Orcs", 1)                 # a mountain held by someone else: no discount
    assert g.conquest_cost(st, 9) == 2
    put(g, st, 10, "Giants", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 4) == 1 and g.conquest_cost(st, 9) == 1 and g.conquest_cost(st, 11) == 1
    assert g.conquest_cost(st, 15) == 2 + 1 - 1                   # a mountain next to theirs
    set_hand(g, st, "Giants", 1)
    assert {4, 9, 11} <= kinds(g, st, "CONQUER") and 15 not in kinds(g, st, "CONQUER")
    play(g, st, (Kind.CONQUER, 11))
    assert st.tok[11] == 1 and st.hand[GIANTS] == 0


def test_giants_discount_not_for_other_races():
    """RULES §2.1 Giants: the mountain discount is theirs alone."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=5)
    put(g, st, 10, "Ratmen", 1)
    put(g, st, 3, "Ratmen", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 4) == 2 and g.conquest_cost(st, 11) == 2


# ----------------------------------------------------------------------------- Halflings
def test_halflings_first_conquest_anywhere():
    """RULES §2.1 Halflings: their first conquest may be any land region (not only border regions)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Halflings", hand=8)
    begin(g, st, 0)
    la = kinds(g, st, "CONQUER")
    assert {8, 11, 13, 16} <= la                  # interior regions
    assert la == {r for r in range(g.num_regions) if g.board.terrain[r] < 5}
    assert not {0, 14, 24} & la


def test_halflings_holes_in_first_two_regions_make_them_immune():
    """RULES §2.1 Halflings: a Hole goes into each of the first 2 regions conquered; those are immune."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Halflings", hand=9)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 8), (Kind.CONQUER, 9), (Kind.CONQUER, 13))
    assert (st.hole[8], st.hole[9], st.hole[13]) == (1, 1, 0)
    assert st.immune == (1 << 8) | (1 << 9)
    # Another race cannot conquer the holed regions, but can take the third.
    give_race(g, st, 1, "Ratmen", hand=10)
    put(g, st, 12, "Ratmen", 1)             # 12 borders 8 and 13
    put(g, st, 2, "Ratmen", 1)              # 2 borders 8 and 9
    begin(g, st, 1)
    la = kinds(g, st, "CONQUER")
    assert 8 not in la and 9 not in la and 13 in la
    g.check_invariants(st)


def test_halfling_holes_protect_from_conversion():
    """RULES §2.1 Halflings: holed regions are immune to other races' powers (Sorcerer conversion)."""
    g, st = empty_position(players=3)
    give_race(g, st, 1, "Halflings")
    put(g, st, 4, "Halflings", 1, hole=1)
    put(g, st, 9, "Halflings", 1)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    begin(g, st, 0)
    assert kinds(g, st, "CONVERT") == {9}


def test_halfling_holes_removed_on_decline():
    """RULES §2.1 Halflings: holes are removed when the race goes into decline."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Halflings", hand=0)
    put(g, st, 3, "Halflings", 2, hole=1)
    put(g, st, 4, "Halflings", 1, hole=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.hole[3] == st.hole[4] == 0 and st.immune == 0


def test_halfling_hole_removed_on_abandon():
    """RULES §2.1 Halflings: a hole is removed when its region is abandoned."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Halflings", hand=0)
    put(g, st, 3, "Halflings", 2, hole=1)
    put(g, st, 4, "Halflings", 1, hole=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.ABANDON, 4))
    assert st.hole[4] == 0 and st.hole[3] == 1 and st.immune == 1 << 3


# ----------------------------------------------------------------------------- Humans, Wizards
@pytest.mark.parametrize("race,regions", [("Humans", (3, 7, 4)), ("Wizards", (7, 9, 4))])
def test_humans_and_wizards_lose_their_bonus_in_decline(race, regions):
    """RULES §2.1/§1.8 Humans, Wizards: in decline the farmland / magic source bonus stops (Dwarves keep theirs)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, race, declined=True)
    for r in regions:
        put(g, st, r, race, 1)
    give_race(g, st, 0, "Ratmen")
    assert score_now(g, st, 0) == 3


# ----------------------------------------------------------------------------- Orcs
def test_orcs_score_non_empty_conquests():
    """RULES §2.1 Orcs / §1.9: +1 coin per non-empty region conquered this turn (Lost Tribe or race token)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Orcs", hand=9)
    put(g, st, 3, "Orcs", 1)
    put(g, st, 4, "Lost Tribe", 1)
    give_race(g, st, 1, "Ratmen")
    put(g, st, 9, "Ratmen", 1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 4), (Kind.CONQUER, 9), (Kind.CONQUER, 2), (Kind.END_CONQUEST,))
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 3))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.coins[0] == 5 + 4 + 2           # 4 regions, 2 non-empty conquests (2 was empty)


def test_orcs_no_bonus_for_empty_conquests_or_next_turn():
    """RULES §2.1 Orcs: only this turn's non-empty conquests count."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Orcs", hand=4)
    put(g, st, 3, "Orcs", 1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 4), (Kind.CONQUER, 9), (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))
    assert st.coins[0] == 5 + 3


# ----------------------------------------------------------------------------- Skeletons
@pytest.mark.parametrize("lost_tribes, bonus", [(1, 0), (2, 1), (3, 1), (4, 2)])
def test_skeletons_reinforce_one_per_two_non_empty_conquests(lost_tribes, bonus):
    """RULES §2.1 Skeletons: at redeployment +1 token from the tray per 2 non-empty regions conquered (floor)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Skeletons", hand=15)
    put(g, st, 3, "Skeletons", 1)
    targets = [4, 9, 5, 11][:lost_tribes]
    for r in targets:
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    for r in targets:
        play(g, st, (Kind.CONQUER, r))
    play(g, st, (Kind.CONQUER, 2))          # an empty mountain: does not count
    hand = st.hand[SKELETONS]
    tray = st.tray[SKELETONS]
    play(g, st, (Kind.END_CONQUEST,))
    assert st.hand[SKELETONS] == hand + bonus and st.tray[SKELETONS] == tray - bonus
    g.check_invariants(st)


def test_skeletons_reinforcement_limited_by_tray():
    """RULES §2.1 Skeletons: reinforcements only while tokens remain in the tray."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Skeletons", hand=19)
    put(g, st, 3, "Skeletons", 1)
    for r in (4, 9):
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    assert st.tray[SKELETONS] == 0
    play(g, st, (Kind.CONQUER, 4), (Kind.CONQUER, 9))
    hand = st.hand[SKELETONS]
    play(g, st, (Kind.END_CONQUEST,))
    assert st.hand[SKELETONS] == hand and st.tray[SKELETONS] == 0
    g.check_invariants(st)


# ----------------------------------------------------------------------------- Sorcerers
def _sorcerer_position():
    """Seat 0 Sorcerers at 3 (nbrs 2 4 9 10); seat 1 Orcs lone at 4 and 9; seat 2 Ratmen lone at 10 (mountain)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    give_race(g, st, 1, "Orcs")
    put(g, st, 4, "Orcs", 1)
    put(g, st, 9, "Orcs", 1)
    give_race(g, st, 2, "Ratmen")
    put(g, st, 10, "Ratmen", 1)
    begin(g, st, 0)
    return g, st


def test_sorcerers_convert_lone_active_token():
    """RULES §2.1 Sorcerers: a lone active enemy token next to a Sorcerer region is replaced from the tray."""
    g, st = _sorcerer_position()
    assert kinds(g, st, "CONVERT") == {4, 9, 10}        # the mountain gives no protection
    s_tray, o_tray = st.tray[SORCERERS], st.tray[ORCS]
    play(g, st, (Kind.CONVERT, 4))
    assert st.occ[4] == SORCERERS and st.tok[4] == 1
    assert st.tray[SORCERERS] == s_tray - 1 and st.tray[ORCS] == o_tray + 1
    assert st.hand[ORCS] == 0
    g.check_invariants(st)


def test_sorcerers_once_per_opponent_per_turn():
    """RULES §2.1 Sorcerers: at most one conversion per opponent per turn."""
    g, st = _sorcerer_position()
    play(g, st, (Kind.CONVERT, 4))
    assert kinds(g, st, "CONVERT") == {10}              # Orcs (seat 1) used; Ratmen (seat 2) still open
    play(g, st, (Kind.CONVERT, 10))
    assert kinds(g, st, "CONVERT") == set()


def test_sorcerers_only_lone_active_tokens():
    """RULES §2.1 Sorcerers: not two tokens, not in-decline tokens, not Lost Tribes, not own tokens."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    give_race(g, st, 1, "Orcs")
    put(g, st, 4, "Orcs", 2)
    give_race(g, st, 1, "Humans", declined=True)
    put(g, st, 9, "Humans", 1)
    put(g, st, 2, "Lost Tribe", 1)
    give_race(g, st, 0, "Wizards", declined=True)
    put(g, st, 10, "Wizards", 1)
    begin(g, st, 0)
    assert kinds(g, st, "CONVERT") == set()


def test_sorcerers_encampment_protects_lair_and_fortress_do_not():
    """RULES §2.1 Sorcerers: an Encampment protects a lone token; a Troll Lair or Fortress does not."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    give_race(g, st, 1, "Orcs", power="Bivouacking")
    put(g, st, 4, "Orcs", 1, encamp=1)
    give_race(g, st, 2, "Trolls", power="Fortified")
    put(g, st, 9, "Trolls", 1, lair=1)
    put(g, st, 2, "Trolls", 1, fort=1)
    begin(g, st, 0)
    assert kinds(g, st, "CONVERT") == {2, 9}
    play(g, st, (Kind.CONVERT, 9))
    assert st.lair[9] == 0 and st.occ[9] == SORCERERS


def test_sorcerers_cannot_convert_with_empty_tray():
    """RULES §2.1 Sorcerers: impossible when no Sorcerer token remains in the tray."""
    g, st = _sorcerer_position()
    set_hand(g, st, "Sorcerers", st.tray[SORCERERS])
    assert st.tray[SORCERERS] == 0
    assert kinds(g, st, "CONVERT") == set()


def test_sorcerers_conversion_needs_adjacency():
    """RULES §2.1 Sorcerers: the target must be adjacent to a Sorcerer region."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Sorcerers", hand=0)
    put(g, st, 3, "Sorcerers", 1)
    give_race(g, st, 1, "Orcs")
    put(g, st, 28, "Orcs", 1)
    begin(g, st, 0)
    assert kinds(g, st, "CONVERT") == set()


# ----------------------------------------------------------------------------- Tritons
def test_tritons_discount_on_coastal_regions_including_lake_shore():
    """RULES §2.1 Tritons: -1 to conquer a coastal region (sea or lake shore), min 1."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Tritons", hand=6)
    put(g, st, 3, "Tritons", 1)
    put(g, st, 2, "Tritons", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 9) == 1          # lake shore
    assert g.conquest_cost(st, 1) == 1          # sea shore
    assert g.conquest_cost(st, 10) == 2         # coastal mountain: 3 - 1
    assert g.conquest_cost(st, 4) == 2          # inland
    assert g.conquest_cost(st, 8) == 2          # inland
    set_hand(g, st, "Tritons", 1)
    assert kinds(g, st, "CONQUER") == {1, 9}


# ----------------------------------------------------------------------------- Trolls
def test_trolls_put_a_lair_in_every_conquered_region():
    """RULES §2.1 Trolls: a Troll Lair in every region they conquer; +1 defence."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Trolls", hand=6)
    put(g, st, 3, "Trolls", 1, lair=1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 4), (Kind.CONQUER, 9))
    assert st.lair[4] == st.lair[9] == 1
    assert g.conquest_cost(st, 4, race=RATMEN) == 2 + 2 + 1


def test_trolls_lair_stays_after_decline():
    """RULES §2.1 Trolls: the lair stays (and defends) after the race declines."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Trolls", hand=0)
    put(g, st, 3, "Trolls", 3, lair=1)
    put(g, st, 4, "Trolls", 1, lair=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.lair[3] == st.lair[4] == 1
    give_race(g, st, 1, "Ratmen", hand=10)
    put(g, st, 9, "Ratmen", 1)
    begin(g, st, 1)
    assert g.conquest_cost(st, 3) == 2 + 1 + 1


def test_trolls_lair_removed_when_conquered():
    """RULES §2.1 Trolls / §1.6: a lair is removed when its region is conquered."""
    g, st = empty_position(players=3)
    give_race(g, st, 1, "Trolls")
    put(g, st, 4, "Trolls", 1, lair=1)
    give_race(g, st, 0, "Ratmen", hand=10)
    put(g, st, 3, "Ratmen", 1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 4))
    assert st.lair[4] == 0 and st.occ[4] == RATMEN and st.tok[4] == 4


def test_trolls_lair_removed_when_abandoned():
    """RULES §2.1 Trolls: a lair is removed if its region is abandoned."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Trolls", hand=0)
    put(g, st, 3, "Trolls", 2, lair=1)
    put(g, st, 4, "Trolls", 1, lair=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.ABANDON, 4))
    assert st.lair[4] == 0 and st.lair[3] == 1

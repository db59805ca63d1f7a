"""Rule-clause tests for the base game (RULES.md §1 and the base-game pitfalls of §5).

Every test builds its position by hand (tests/positions.py) and checks one clause: the docstring
names the section. Board facts used (3-player board, RULES §3.3): region 3 is farmland with
neighbours 2 4 9 10; 2, 10, 12 are mountains; 8, 9, 11, 13 are interior (no First Conquest);
14 is the lake, 0 and 24 the seas.
"""
from __future__ import annotations

import pytest

from necro_env.game import DIE_FACES, Game, GameConfig, IllegalActionError, Kind, Phase, encode
from necro_env.game.catalog import (
    AMAZONS, HALFLINGS, HUMANS, LOST_TRIBE, ORCS, POWERS, RACES, RATMEN, WIZARDS, power_id,
)
from necro_env.game.state import DECLINED, UNUSED

from positions import (
    begin, die_rolls, empty_position, finish_turn, give_race, kinds, legal, new_position, play, put, rig_die,
    set_hand,
)

TURNS = {2: 10, 3: 10, 4: 9, 5: 8}


# ----------------------------------------------------------------------------- helpers
def act(kind: Kind, arg: int = 0) -> int:
    return encode((kind, arg))


def ratmen_at_3(hand: int = 10, players: int = 3, **extra):
    """Seat 0: active Ratmen (no power) holding region 3 with 1 token, ``hand`` in hand, CONQUER."""
    g, st = empty_position(players=players, **extra)
    give_race(g, st, 0, "Ratmen", hand=hand)
    put(g, st, 3, "Ratmen", 1)
    begin(g, st, 0)
    return g, st


# ----------------------------------------------------------------------------- §1.2 set-up
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_coins_lost_tribes_column_turns(players):
    """RULES §1.2/§1.4: 5 coins each, a Lost Tribe on every LT region, 6 combos, 10/10/9/8 turns, seat 0 picks."""
    g = Game(GameConfig(players=players, necromancer=False))
    st = g.new_state(7)
    b = g.board
    assert st.coins == [5] * players
    for r in range(g.num_regions):
        if b.lost_tribe[r]:
            assert (st.occ[r], st.tok[r]) == (LOST_TRIBE, 1)
        else:
            assert st.occ[r] == -1 and st.tok[r] == 0
    assert len(st.col_race) == len(st.col_power) == 6
    assert st.col_coins == [0] * 6
    assert g.game_turns == TURNS[players]
    assert st.round == 1
    assert st.phase == Phase.PICK and st.decider == 0 and g.current_seat(st) == 0
    assert kinds(g, st, "PICK") == set(range(6))
    g.check_invariants(st)


# ----------------------------------------------------------------------------- §1.3 picking
def test_pick_pays_one_coin_per_combo_above_and_collects_coins():
    """RULES §1.3: combo k costs k coins (1 on each combo above); coins on it are collected; the column slides up."""
    g, st = new_position(players=3)
    st.col_coins[2] = 3
    st.col_coins[4] = 2
    races, powers = st.col_race[:], st.col_power[:]
    next_race = st.race_deck[0]
    race, power = races[2], powers[2]
    tray = st.tray[race]
    play(g, st, (Kind.PICK, 2))
    assert st.coins[0] == 5 - 2 + 3
    assert st.col_coins == [1, 1, 0, 2, 0, 0]          # paid coins stay, the rest slid up
    assert st.col_race == races[:2] + races[3:] + [next_race]
    assert len(st.col_race) == len(st.col_power) == 6
    assert st.active[0] == race
    n = RACES[race].banner + POWERS[power].badge + (4 if race == AMAZONS else 0)
    assert st.hand[race] == n and st.tray[race] == tray - n
    assert st.phase == Phase.CONQUER
    g.check_invariants(st)


def test_pick_top_combo_is_free():
    """RULES §1.3: combo 0 costs nothing and its tokens are banner + badge."""
    g = Game(GameConfig(players=2, forced_combos=(("Wizards", "Hill"),)))
    st = g.new_state(0)
    play(g, st, (Kind.PICK, 0))
    assert st.coins[0] == 5 and st.active[0] == WIZARDS
    assert st.hand[WIZARDS] == 5 + 4


def test_pick_amazons_get_four_extra():
    """RULES §1.3/§2.1: Amazons take banner + badge + 4 tokens."""
    g = Game(GameConfig(players=2, forced_combos=(("Amazons", "Merchant"),)))
    st = g.new_state(0)
    play(g, st, (Kind.PICK, 0))
    assert st.hand[AMAZONS] == 6 + 2 + 4


def test_cannot_pick_unaffordable_combo():
    """RULES §1.3: a combo whose price exceeds the player's coins cannot be taken."""
    g, st = new_position(players=3)
    st.coins[0] = 2
    g.invalidate(st)
    assert kinds(g, st, "PICK") == {0, 1, 2}
    with pytest.raises(IllegalActionError):
        play(g, st, (Kind.PICK, 3))
    assert st.coins[0] == 2 and len(st.col_race) == 6


def test_pick_reshuffles_discarded_badges_when_the_stack_runs_out():
    """RULES §1.3: discarded badges are reshuffled when the badge stack runs out; the column stays at 6."""
    g, st = new_position(players=3)
    discard = st.power_deck[:]
    st.power_discard, st.power_deck = discard[:], []
    play(g, st, (Kind.PICK, 0))
    assert len(st.col_race) == len(st.col_power) == 6
    assert st.col_power[-1] in discard and st.power_discard == []
    assert sorted(st.power_deck + [st.col_power[-1]]) == sorted(discard)
    g.check_invariants(st)


# ----------------------------------------------------------------------------- §1.5 turn structure
def test_first_turn_pick_conquer_redeploy_score():
    """RULES §1.5: first turn = pick -> conquer -> redeploy -> score; no decline on it."""
    g = Game(GameConfig(players=2, forced_combos=(("Ratmen", "Merchant"),)))
    st = g.new_state(0)
    assert {k for k, _ in legal(g, st)} == {"PICK"}
    play(g, st, (Kind.PICK, 0))
    assert st.phase == Phase.CONQUER and st.hand[RATMEN] == 10
    assert ("DECLINE", 0) not in legal(g, st)
    play(g, st, (Kind.CONQUER, 1))                      # empty edge region: costs 2
    assert st.tok[1] == 2 and st.hand[RATMEN] == 8
    play(g, st, (Kind.END_CONQUEST,))
    assert st.phase == Phase.REDEPLOY
    for _ in range(8):
        play(g, st, (Kind.PLACE, 1))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.coins[0] == 5 + 1 + 1                     # 1 region + Merchant
    assert st.phase == Phase.PICK and st.decider == 1 and st.round == 1
    g.check_invariants(st)


def test_later_turn_offers_decline_or_expand_and_readies_troops():
    """RULES §1.5: a later turn readies troops (1 stays per region) and offers decline or expansion."""
    g = Game(GameConfig(players=2, forced_combos=(("Ratmen", "Merchant"), ("Orcs", "Hill"))))
    st = g.new_state(0)
    play(g, st, (Kind.PICK, 0), (Kind.CONQUER, 1), (Kind.CONQUER, 2), (Kind.END_CONQUEST,))
    for _ in range(6):
        play(g, st, (Kind.PLACE, 1))
    play(g, st, (Kind.END_REDEPLOY,))
    play(g, st, (Kind.PICK, 0), (Kind.CONQUER, 19), (Kind.END_CONQUEST,))
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 19))
    play(g, st, (Kind.END_REDEPLOY,))
    # Round 2, seat 0: the turn marker advanced and the Ratmen readied their troops.
    assert st.round == 2 and st.decider == 0 and st.phase == Phase.CONQUER
    assert st.tok[1] == 1 and st.tok[2] == 1 and st.hand[RATMEN] == 7 + 1
    la = legal(g, st)
    assert ("DECLINE", 0) in la and ("ABANDON", 1) in la and ("ABANDON", 2) in la
    assert not any(k == "PICK" for k, _ in la)


def test_no_decline_after_a_conquest():
    """RULES §1.5/§1.10: declining replaces the whole turn; once a conquest is made it is no longer possible."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 4)
    begin(g, st, 0, ready=True)
    assert ("DECLINE", 0) in legal(g, st)
    play(g, st, (Kind.CONQUER, 4))
    assert ("DECLINE", 0) not in legal(g, st)
    play(g, st, (Kind.END_CONQUEST,))
    assert ("DECLINE", 0) not in legal(g, st)


def test_readying_leaves_one_token_per_region():
    """RULES §1.5: readying troops takes every active token beyond 1 per region into hand."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 4)
    put(g, st, 4, "Ratmen", 1)
    put(g, st, 9, "Ratmen", 3)
    begin(g, st, 0, ready=True)
    assert (st.tok[3], st.tok[4], st.tok[9]) == (1, 1, 1)
    assert st.hand[RATMEN] == 3 + 2
    g.check_invariants(st)


def test_abandon_only_before_first_conquest_and_forbids_decline():
    """RULES §1.5: abandoning happens before conquering; an abandoning player has chosen to expand."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 3)
    put(g, st, 4, "Ratmen", 1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.ABANDON, 4))
    assert st.occ[4] == -1 and st.hand[RATMEN] == 3
    la = legal(g, st)
    assert ("DECLINE", 0) not in la and ("ABANDON", 3) in la
    play(g, st, (Kind.CONQUER, 9))
    assert not kinds(g, st, "ABANDON")
    g.check_invariants(st)


def test_abandoned_region_scores_nothing():
    """RULES §1.5: an abandoned region no longer belongs to the player and scores nothing."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 2)
    put(g, st, 4, "Ratmen", 2)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.ABANDON, 4), (Kind.END_CONQUEST,))
    while st.hand[RATMEN]:
        play(g, st, (Kind.PLACE, 3))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.coins[0] == 5 + 1


def test_abandoning_everything_makes_next_conquest_a_first_conquest():
    """RULES §1.5/§1.6: after abandoning every region the next conquest follows the First-Conquest rule."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 8, "Ratmen", 5)              # interior region, neighbours 1 2 7 9 12 13
    begin(g, st, 0, ready=True)
    before = kinds(g, st, "CONQUER")
    assert {9, 13} <= before and 28 not in before
    play(g, st, (Kind.ABANDON, 8))
    after = kinds(g, st, "CONQUER")
    fc = {r for r in range(g.num_regions) if g.board.first_conquest_ok[r]}
    assert after == fc
    assert 9 not in after and 13 not in after and 28 in after


def test_turn_marker_advances_after_last_seat():
    """RULES §1.5: a new round starts (turn marker +1) after the last seat's turn."""
    g, st = empty_position(players=3)
    give_race(g, st, 2, "Ratmen", hand=0)
    begin(g, st, 2)
    finish_turn(g, st)
    assert st.round == 2 and st.turn_seat == 0 and not st.over


def test_game_ends_after_last_round():
    """RULES §1.5/§1.11: after the round on the last track space the game is over with winners set."""
    g, st = empty_position(players=3)
    assert g.game_turns == 10
    give_race(g, st, 2, "Ratmen", hand=0)
    st.round = 10
    st.coins = [5, 12, 7]
    begin(g, st, 2)
    finish_turn(g, st)
    assert st.over and st.phase == Phase.OVER
    assert st.winners == [1]
    assert g.legal_actions(st) == [] and g.current_seat(st) == -1
    assert g.result(st)["winners"] == [1]
    with pytest.raises(IllegalActionError):
        play(g, st, (Kind.END_CONQUEST,))


def test_game_turns_config_override_ends_earlier():
    """RULES §1.4: the game lasts the board's game turns; GameConfig.game_turns overrides it."""
    g = Game(GameConfig(players=2, game_turns=1, forced_combos=(("Ratmen", "Hill"), ("Orcs", "Swamp"))))
    st = g.new_state(0)
    play(g, st, (Kind.PICK, 0), (Kind.END_CONQUEST,))
    # Ratmen hold nothing: redeployment ends at once and the turn passes.
    assert st.decider == 1 and st.phase == Phase.PICK
    play(g, st, (Kind.PICK, 0), (Kind.END_CONQUEST,))
    assert st.over and sorted(st.winners) == [0, 1]


# ----------------------------------------------------------------------------- §1.6 conquest cost
def _cost_case(g, st, case: str) -> int:
    """Build region 4 (swamp) or 2 (mountain) next to the Ratmen at 3; return the target region."""
    if case == "empty":
        return 4
    if case == "mountain":
        return 2
    if case == "lost_tribe":
        put(g, st, 4, "Lost Tribe", 1)
        return 4
    if case == "enemy3":
        give_race(g, st, 1, "Orcs")
        put(g, st, 4, "Orcs", 3)
        return 4
    if case == "lair":
        give_race(g, st, 1, "Trolls")
        put(g, st, 4, "Trolls", 1, lair=1)
        return 4
    if case == "fortress":
        give_race(g, st, 1, "Orcs", power="Fortified")
        put(g, st, 4, "Orcs", 1, fort=1)
        return 4
    if case == "encampments":
        give_race(g, st, 1, "Orcs", power="Bivouacking")
        put(g, st, 4, "Orcs", 1, encamp=2)
        return 4
    if case == "declined":
        give_race(g, st, 1, "Humans", declined=True)
        put(g, st, 4, "Humans", 1)
        return 4
    if case == "everything":
        give_race(g, st, 1, "Trolls", power="Fortified")
        put(g, st, 2, "Trolls", 2, lair=1, fort=1)
        return 2
    raise ValueError(case)


COST_CASES = {
    "empty": 2, "mountain": 3, "lost_tribe": 3, "enemy3": 5, "lair": 4, "fortress": 4,
    "encampments": 5, "declined": 3, "everything": 2 + 2 + 1 + 1 + 1,
}


@pytest.mark.parametrize("case", sorted(COST_CASES))
def test_conquest_cost_formula_and_legality(case):
    """RULES §1.6: cost = 2 + tokens + mountain + lair + fortress + encampments; CONQUER legal iff hand >= cost."""
    expected = COST_CASES[case]
    g, st = ratmen_at_3(hand=expected)
    r = _cost_case(g, st, case)
    assert g.conquest_cost(st, r) == expected
    assert ("CONQUER", r) in legal(g, st)
    set_hand(g, st, RATMEN, expected - 1)
    assert ("CONQUER", r) not in legal(g, st)
    set_hand(g, st, RATMEN, expected)
    play(g, st, (Kind.CONQUER, r))
    assert st.occ[r] == RATMEN and st.tok[r] == expected and st.hand[RATMEN] == 0
    g.check_invariants(st)


def test_empty_region_costs_two():
    """RULES §1.6 / §5 pitfall: an empty (non-mountain) region costs 2 tokens, not 3."""
    g, st = ratmen_at_3(hand=2)
    assert g.conquest_cost(st, 4) == 2 and g.conquest_cost(st, 9) == 2
    assert {4, 9} <= kinds(g, st, "CONQUER")


def test_discounts_never_below_one_token():
    """RULES §1.6: discounts subtract but at least 1 token is placed (Tritons + Commando on a coast)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Tritons", power="Commando", hand=3)
    put(g, st, 3, "Tritons", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 9) == 1           # 2 - 1 (coastal: lake shore) - 1 (Commando) = 0 -> 1
    play(g, st, (Kind.CONQUER, 9))
    assert st.tok[9] == 1 and st.hand[11] == 2


def test_conquest_needs_a_token_in_hand():
    """RULES §1.6: with no token in hand no conquest (not even with the die) can start."""
    g, st = ratmen_at_3(hand=0)
    la = legal(g, st)
    assert ("END_CONQUEST", 0) in la
    assert not {k for k, _ in la} & {"CONQUER", "FINAL", "DRAGON", "BERSERK_ROLL"}


def test_cannot_conquer_own_active_region():
    """RULES §1.6: a player cannot conquer a region held by his own active race."""
    g, st = ratmen_at_3(hand=10)
    put(g, st, 4, "Ratmen", 1)
    la = kinds(g, st, "CONQUER")
    assert 3 not in la and 4 not in la and 9 in la


def test_may_conquer_own_declined_region():
    """RULES §1.6: a player may conquer his own in-decline region, losing that token."""
    g, st = ratmen_at_3(hand=10)
    give_race(g, st, 0, "Orcs", declined=True)
    put(g, st, 4, "Orcs", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 4) == 3 and ("CONQUER", 4) in legal(g, st)
    tray = st.tray[ORCS]
    play(g, st, (Kind.CONQUER, 4))
    assert st.occ[4] == RATMEN and st.tray[ORCS] == tray + 1
    # The old race left the map: its banner returns to the stack (RULES §1.10).
    assert st.decl[0] == -1 and st.race_status[ORCS] == UNUSED and st.race_owner[ORCS] == -1
    assert st.race_deck[-1] == ORCS            # bottom of the banner stack (the column is full)
    g.check_invariants(st)


def test_first_conquest_only_on_border_regions():
    """RULES §1.6: a race entering the map must conquer a First-Conquest (border) region."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=10)
    begin(g, st, 0)
    fc = {r for r in range(g.num_regions) if g.board.first_conquest_ok[r]}
    assert kinds(g, st, "CONQUER") == fc
    assert not {8, 9, 11, 13, 16} & fc


def test_later_conquests_must_be_adjacent():
    """RULES §1.6: following conquests must be adjacent to a region the active race holds."""
    g, st = ratmen_at_3(hand=10)
    assert kinds(g, st, "CONQUER") == {2, 4, 9, 10}
    play(g, st, (Kind.CONQUER, 4))
    assert kinds(g, st, "CONQUER") == {2, 5, 9, 10, 11}


def test_seas_and_lake_not_conquerable():
    """RULES §1.6: seas and the lake cannot be conquered (without Seafaring)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=10)
    put(g, st, 1, "Ratmen", 1)          # next to sea 0
    put(g, st, 9, "Ratmen", 1)          # next to the lake 14
    begin(g, st, 0)
    la = kinds(g, st, "CONQUER")
    assert 0 not in la and 14 not in la and 24 not in la
    assert 0 not in kinds(g, st, "FINAL")


def test_seafaring_may_conquer_seas_and_lake():
    """RULES §1.6/§2.2: a Seafaring race treats the seas (and, in the base game, the lake) as empty regions."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", power="Seafaring", hand=10)
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 9, "Ratmen", 1)
    begin(g, st, 0)
    la = kinds(g, st, "CONQUER")
    assert {0, 14} <= la and g.conquest_cost(st, 0) == 2 and g.conquest_cost(st, 14) == 2


# ----------------------------------------------------------------------------- §1.6 defender's losses
def _attack_ratmen(regions: dict[int, int], attacker_hand: int = 9):
    """Seat 0 Orcs at 3; seat 2 active Ratmen on ``regions`` (seat 1 has no race yet)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Orcs", hand=attacker_hand)
    put(g, st, 3, "Orcs", 1)
    give_race(g, st, 2, "Ratmen")
    for r, n in regions.items():
        put(g, st, r, "Ratmen", n)
    begin(g, st, 0)
    return g, st


def test_defender_loses_one_token_and_redeploys_at_end_of_turn():
    """RULES §1.6 / §5 pitfall: the defender discards 1 token and redeploys the rest at the END of the attacker's turn."""
    g, st = _attack_ratmen({4: 3, 5: 1, 6: 1})
    tray = st.tray[RATMEN]
    play(g, st, (Kind.CONQUER, 4))
    assert st.tray[RATMEN] == tray + 1 and st.hand[RATMEN] == 2
    assert st.occ[4] == ORCS and st.tok[4] == 5
    # Still in hand during the attacker's turn.
    play(g, st, (Kind.END_CONQUEST,))
    assert st.hand[RATMEN] == 2 and st.decider == 0
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 4))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.phase == Phase.DEFEND and st.decider == 2 and st.defend_race == RATMEN
    assert legal(g, st) == {("PLACE", 5), ("PLACE", 6)}
    assert st.coins[0] == 5 + 2 + 1            # the attacker scored before the defender places
    play(g, st, (Kind.PLACE, 6), (Kind.PLACE, 6))
    assert st.tok[6] == 3 and st.tok[5] == 1 and st.hand[RATMEN] == 0
    # Then the next seat's turn starts.
    assert st.turn_seat == 1 and st.phase == Phase.PICK and st.decider == 1
    g.check_invariants(st)


def test_defender_with_single_region_is_placed_automatically():
    """RULES §1.6: survivors go to the race's remaining region; with one region there is nothing to decide."""
    g, st = _attack_ratmen({4: 3, 6: 1})
    play(g, st, (Kind.CONQUER, 4), (Kind.END_CONQUEST,))
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 3))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.tok[6] == 3 and st.hand[RATMEN] == 0
    assert st.turn_seat == 1 and st.phase == Phase.PICK
    g.check_invariants(st)


def test_defender_with_no_region_keeps_survivors_for_first_conquest():
    """RULES §1.6: a defender holding no region keeps the survivors in hand and re-enters as a First Conquest."""
    g, st = _attack_ratmen({4: 4})
    play(g, st, (Kind.CONQUER, 4), (Kind.END_CONQUEST,))
    while st.hand[ORCS]:
        play(g, st, (Kind.PLACE, 3))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.turn_seat == 1 and st.phase == Phase.PICK
    assert st.hand[RATMEN] == 3 and not st.regions[RATMEN]
    begin(g, st, 2, ready=True)
    assert st.hand[RATMEN] == 3
    fc = {r for r in range(g.num_regions) if g.board.first_conquest_ok[r]}
    assert kinds(g, st, "CONQUER") <= fc and 1 in kinds(g, st, "CONQUER")
    g.check_invariants(st)


def test_lone_defender_token_is_simply_lost():
    """RULES §1.6: a region with a single defending token just loses it (Lost Tribe to the tray)."""
    g, st = ratmen_at_3(hand=10)
    put(g, st, 4, "Lost Tribe", 1)
    tray = st.tray[LOST_TRIBE]
    play(g, st, (Kind.CONQUER, 4))
    assert st.tray[LOST_TRIBE] == tray + 1 and st.hand[LOST_TRIBE] == 0


# ----------------------------------------------------------------------------- §1.6 final conquest (die)
def test_die_faces():
    """RULES §1.1: the reinforcement die shows 0, 0, 0, 1, 2, 3 (each face equally likely)."""
    assert tuple(sorted(DIE_FACES)) == (0, 0, 0, 1, 2, 3)
    g, st = empty_position(players=2)
    counts = {f: 0 for f in (0, 1, 2, 3)}
    for face in die_rolls(st.rng, 3000):
        counts[face] += 1
    assert 1350 < counts[0] < 1650
    for f in (1, 2, 3):
        assert 420 < counts[f] < 580


def _final_position(hand: int, **options):
    """Ratmen at 3; neighbours: 2 mountain (3), 4 empty (2), 9 Orcs x4 (6), 10 mountain + Orc (4)."""
    g, st = ratmen_at_3(hand=hand, **options)
    give_race(g, st, 1, "Orcs")
    put(g, st, 9, "Orcs", 4)
    put(g, st, 10, "Orcs", 1)
    begin(g, st, 0)
    return g, st


def test_final_conquest_offered_only_when_nothing_affordable():
    """RULES §1.6: the die is offered only when no conquest is affordable, on targets at most 3 short."""
    g, st = _final_position(hand=1)
    assert not kinds(g, st, "CONQUER")
    assert kinds(g, st, "FINAL") == {2, 4, 10}      # 9 costs 6: 5 short
    set_hand(g, st, RATMEN, 2)
    assert kinds(g, st, "CONQUER") == {4}
    assert not kinds(g, st, "FINAL")


@pytest.mark.parametrize("final_die", ["when_short", "any"])
def test_final_die_reading_is_an_option(final_die):
    """RULES §1.6 and GameConfig.final_die: with "when_short" (default) the die is offered only when nothing is
    affordable; with "any" it is also offered beside affordable conquests, on the targets 1-3 tokens short
    (never on an affordable one), and a roll still ends the conquests."""
    g, st = _final_position(hand=3, final_die=final_die)
    assert kinds(g, st, "CONQUER") == {2, 4}          # 2 costs 3, 4 costs 2
    if final_die == "when_short":
        assert not kinds(g, st, "FINAL")
    else:
        assert kinds(g, st, "FINAL") == {9, 10}       # 6 = 3 short, 4 = 1 short
        rig_die(g, st, 1)
        play(g, st, (Kind.FINAL, 10))                 # 3 + 1 >= 4: all 3 tokens go there
        assert st.occ[10] == RATMEN and st.tok[10] == 3 and st.phase == Phase.REDEPLOY
        g.check_invariants(st)
    g2, st2 = _final_position(hand=1, final_die=final_die)   # nothing affordable: both readings agree
    assert kinds(g2, st2, "FINAL") == {2, 4, 10}


def test_final_die_option_is_checked():
    """GameConfig.final_die takes only the two documented readings."""
    from necro_env.game import ConfigError

    with pytest.raises(ConfigError, match="final_die must be one of"):
        GameConfig(players=3, final_die="always")


def test_final_conquest_success_places_all_tokens():
    """RULES §1.6: if hand + die >= cost, all remaining tokens go to the target; conquests end."""
    g, st = ratmen_at_3(hand=2)
    for r in (2, 4, 9, 10):
        if r in (4, 9):
            put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    assert kinds(g, st, "FINAL") == {2, 4, 9, 10}
    rig_die(g, st, 1)
    play(g, st, (Kind.FINAL, 4))
    assert st.last_die == 1
    assert st.occ[4] == RATMEN and st.tok[4] == 2 and st.hand[RATMEN] == 0
    assert st.phase == Phase.REDEPLOY and not kinds(g, st, "CONQUER")
    g.check_invariants(st)


def test_final_conquest_with_three_short_needs_a_three():
    """RULES §1.6: the largest face (3) covers a target exactly 3 short."""
    g, st = _final_position(hand=1)
    rig_die(g, st, 3)
    play(g, st, (Kind.FINAL, 10))
    assert st.occ[10] == RATMEN and st.tok[10] == 1 and st.last_die == 3


def test_final_conquest_failure_keeps_tokens_for_redeployment():
    """RULES §1.6: a failed roll leaves the tokens to be redeployed in held regions; conquests end."""
    g, st = _final_position(hand=1)
    rig_die(g, st, 2)
    play(g, st, (Kind.FINAL, 10))                  # 1 + 2 < 4
    assert st.last_die == 2
    assert st.occ[10] == ORCS and st.hand[RATMEN] == 1
    assert st.phase == Phase.REDEPLOY
    assert legal(g, st) == {("PLACE", 3)}
    play(g, st, (Kind.PLACE, 3), (Kind.END_REDEPLOY,))
    assert st.tok[3] == 2


# ----------------------------------------------------------------------------- §1.7 redeployment
def test_redeploy_lift_only_before_first_place_and_one_per_region():
    """RULES §1.7: tokens move freely (lift, then place) but every held region keeps >= 1 token."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=2)
    put(g, st, 3, "Ratmen", 3)
    put(g, st, 28, "Ratmen", 1)             # not adjacent to 3: no adjacency needed
    begin(g, st, 0)
    play(g, st, (Kind.END_CONQUEST,))
    la = legal(g, st)
    assert ("LIFT", 3) in la and ("LIFT", 28) not in la
    assert {("PLACE", 3), ("PLACE", 28)} <= la
    assert ("END_REDEPLOY", 0) not in la
    play(g, st, (Kind.LIFT, 3), (Kind.LIFT, 3))
    assert st.tok[3] == 1 and ("LIFT", 3) not in legal(g, st)
    play(g, st, (Kind.PLACE, 28))
    assert not kinds(g, st, "LIFT")
    play(g, st, (Kind.PLACE, 28), (Kind.PLACE, 28))
    assert ("END_REDEPLOY", 0) not in legal(g, st)
    play(g, st, (Kind.PLACE, 3))
    assert st.hand[RATMEN] == 0 and ("END_REDEPLOY", 0) in legal(g, st)
    play(g, st, (Kind.END_REDEPLOY,))
    assert (st.tok[3], st.tok[28]) == (2, 4)


# ----------------------------------------------------------------------------- §1.8 scoring
def test_scoring_one_per_region_active_and_declined():
    """RULES §1.8: 1 coin per active region and per in-decline region, plus active bonuses only."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Wizards", hand=0)
    put(g, st, 7, "Wizards", 1)          # magic
    put(g, st, 3, "Wizards", 1)
    give_race(g, st, 0, "Humans", declined=True)
    put(g, st, 11, "Humans", 1)          # farmland: no bonus in decline
    put(g, st, 18, "Humans", 1)          # farmland + magic
    begin(g, st, 0)
    finish_turn(g, st)
    assert st.coins[0] == 5 + 4 + 1


def test_declined_powers_give_nothing():
    """RULES §1.8: an in-decline race's power gives nothing (its badge is gone)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", power="Merchant", hand=0)
    put(g, st, 3, "Ratmen", 2)
    put(g, st, 4, "Ratmen", 1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.coins[0] == 5 + 2                 # no Merchant bonus for a declining race
    assert st.race_power[RATMEN] == 0 and power_id("Merchant") in st.power_discard


# ----------------------------------------------------------------------------- §1.10 decline
def test_decline_leaves_one_token_per_region_and_ends_turn():
    """RULES §1.10: one token stays per region (rest to tray), badge discarded, score, turn ends without conquest."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", power="Hill", hand=0)
    put(g, st, 3, "Ratmen", 4)
    put(g, st, 4, "Ratmen", 1)
    put(g, st, 9, "Ratmen", 3)
    begin(g, st, 0, ready=True)
    box = RACES[RATMEN].box
    play(g, st, (Kind.DECLINE,))
    assert (st.tok[3], st.tok[4], st.tok[9]) == (1, 1, 1)
    assert st.hand[RATMEN] == 0 and st.tray[RATMEN] == box - 3
    assert st.race_status[RATMEN] == DECLINED and st.decl[0] == RATMEN and st.active[0] == -1
    assert power_id("Hill") in st.power_discard
    assert st.coins[0] == 5 + 3
    assert st.turn_seat == 1                  # no conquest that turn
    g.check_invariants(st)


def test_after_decline_next_turn_picks_new_combo():
    """RULES §1.10: on the next turn the player picks a new combo and plays with First-Conquest rules."""
    g, st = empty_position(players=2)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 2)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    give_race(g, st, 1, "Orcs", hand=0)
    begin(g, st, 1)
    finish_turn(g, st)
    assert st.turn_seat == 0 and st.round == 2 and st.phase == Phase.PICK
    st.col_coins[1] = 2
    play(g, st, (Kind.PICK, 1))
    assert st.coins[0] == 5 + 1 - 1 + 2 and st.col_coins[0] == 1
    race = st.active[0]
    assert race not in (RATMEN, -1) and st.phase == Phase.CONQUER
    assert st.decl[0] == RATMEN and st.tok[3] == 1
    fc = {r for r in range(g.num_regions) if g.board.first_conquest_ok[r]}
    assert race != HALFLINGS
    assert kinds(g, st, "CONQUER") == fc          # incl. region 3 of the own in-decline Ratmen


def test_second_decline_removes_the_old_declined_race():
    """RULES §1.10: a new decline first removes every token of the old in-decline race; its banner returns."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Humans", declined=True)
    put(g, st, 11, "Humans", 1)
    put(g, st, 16, "Humans", 1)
    give_race(g, st, 0, "Ratmen", hand=0)
    put(g, st, 3, "Ratmen", 2)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.occ[11] == -1 and st.occ[16] == -1 and st.tray[HUMANS] == RACES[HUMANS].box
    assert st.race_status[HUMANS] == UNUSED and st.race_owner[HUMANS] == -1
    assert HUMANS in st.race_deck or HUMANS in st.col_race
    assert st.decl[0] == RATMEN
    assert st.coins[0] == 5 + 1
    g.check_invariants(st)


def test_decline_removes_race_pieces_but_keeps_lairs_and_fortresses():
    """RULES §1.10: holes, heroes, encampments and the dragon go on decline; lairs and fortresses stay."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Halflings", power="Dragon Master", hand=0)
    put(g, st, 3, "Halflings", 2, hole=1)
    put(g, st, 4, "Halflings", 1, hole=1)
    put(g, st, 9, "Halflings", 1, dragon=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert sum(st.hole) == 0 and st.dragon == -1 and st.immune == 0

    g, st = empty_position(players=3)
    give_race(g, st, 0, "Trolls", power="Fortified", hand=0)
    put(g, st, 3, "Trolls", 2, lair=1, fort=1)
    put(g, st, 4, "Trolls", 1, lair=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.lair[3] == st.lair[4] == 1 and st.fort[3] == 1

    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", power="Bivouacking", hand=0)
    put(g, st, 3, "Ratmen", 2, encamp=3)
    put(g, st, 4, "Ratmen", 1, encamp=2)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert sum(st.encamp) == 0 and st.encamp_pool == 0

    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", power="Heroic", hand=0)
    put(g, st, 3, "Ratmen", 2, hero=1)
    put(g, st, 4, "Ratmen", 1, hero=1)
    begin(g, st, 0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert sum(st.hero) == 0 and st.hero_pool == 0 and st.immune == 0
    g.check_invariants(st)


# ----------------------------------------------------------------------------- §1.11 end and tie-break
def _final_round(coins: list[int], seat0_tokens: int):
    """2 players, last round, seat 1 (last seat) about to finish; seat 1 holds 4 Ratmen tokens on 2 regions."""
    g, st = empty_position(players=2)
    give_race(g, st, 0, "Orcs", hand=0)
    for i in range(seat0_tokens):
        put(g, st, [1, 2, 3, 4, 5][i], "Orcs", 1)
    give_race(g, st, 1, "Ratmen", hand=0)
    put(g, st, 19, "Ratmen", 2)
    put(g, st, 20, "Ratmen", 2)
    st.round = g.game_turns
    st.coins = list(coins)
    begin(g, st, 1)
    finish_turn(g, st)          # seat 1 scores 2
    assert st.over
    return g, st


def test_end_most_coins_wins():
    """RULES §1.11: most coins wins."""
    _, st = _final_round([10, 7], seat0_tokens=5)
    assert st.coins == [10, 9] and st.winners == [0]


def test_end_tie_broken_by_tokens_on_board():
    """RULES §1.11: a coin tie goes to the player with the most race tokens on the board."""
    g, st = _final_round([9, 7], seat0_tokens=3)
    assert st.coins == [9, 9]
    assert g.tokens_on_board(st, 0) == 3 and g.tokens_on_board(st, 1) == 4
    assert st.winners == [1]


def test_end_tie_on_tokens_counts_declined_tokens():
    """RULES §1.11: in-decline tokens count toward the tie-break."""
    g, st = empty_position(players=2)
    give_race(g, st, 0, "Orcs", hand=0)
    put(g, st, 1, "Orcs", 2)
    give_race(g, st, 0, "Humans", declined=True)
    put(g, st, 9, "Humans", 1)
    put(g, st, 11, "Humans", 1)
    give_race(g, st, 1, "Ratmen", hand=0)
    put(g, st, 19, "Ratmen", 3)
    st.round = g.game_turns
    st.coins = [9, 8]
    begin(g, st, 1)
    finish_turn(g, st)
    assert st.coins == [9, 9] and g.tokens_on_board(st, 0) == 4
    assert st.winners == [0]


def test_end_full_tie_shares_the_win():
    """RULES §1.11: with coins and tokens equal, the winners are shared."""
    _, st = _final_round([9, 7], seat0_tokens=4)
    assert sorted(st.winners) == [0, 1]


# ----------------------------------------------------------------------------- §5 pitfalls
def test_pitfall_column_holds_six_combos_after_picks():
    """RULES §5 pitfall / §1.2: the column shows 6 combos (not 5), also after combos are taken."""
    g = Game(GameConfig(players=2, necromancer=False))
    st = g.new_state(3)
    assert len(st.col_race) == 6
    play(g, st, (Kind.PICK, 0), (Kind.END_CONQUEST,))
    assert len(st.col_race) == 6


def test_pitfall_player_count_is_per_game():
    """RULES §5 pitfall: games of different sizes run side by side in one process."""
    g2 = Game(GameConfig(players=2, necromancer=False))
    g5 = Game(GameConfig(players=5, necromancer=False))
    s2, s5 = g2.new_state(1), g5.new_state(1)
    assert (g2.num_seats, g5.num_seats) == (2, 5)
    assert (g2.num_regions, g5.num_regions) == (23, 48)
    assert (g2.game_turns, g5.game_turns) == (10, 8)
    for _ in range(3):
        for g, s in ((g2, s2), (g5, s5)):
            g.apply(s, g.legal_actions(s)[0])
    assert len(s2.coins) == 2 and len(s5.coins) == 5
    assert len(s2.occ) == 23 and len(s5.occ) == 48
    g2.check_invariants(s2)
    g5.check_invariants(s5)
    # A state of one size is rejected by a game of the other.
    with pytest.raises(Exception):
        g5.validate_state(s2)

"""RULES §4: the Necromancer Island scenario, one test (or more) per numbered rule of §4.1 and per
Config reading of §4.3 (A2, A3, A11, A14, A17, A20, both settings), from hand-built positions.

Unless said otherwise a position has 3 seats on the 2-player board (rule 1): seats 0 and 1 play races,
seat 2 is the Necromancer. 2-player board facts used below (RULES §3.3): lake 7 with neighbours
2, 6, 8, 12, 13; sea 0 (next to 1 and 5); mountains 5, 8, 15, 19; region 1 touches the board edge.
"""
from __future__ import annotations

import random

import pytest

from necro_env.game import ConfigError, Game, GameConfig, Kind, Phase, encode
from necro_env.game.catalog import (
    ALCHEMIST, AMAZONS, COMMANDO, ELVES, GHOST, HUMANS, LOST_TRIBE, MOUNTED, NUM_POWERS,
    POWERS, RATMEN, SORCERERS, SPIRIT, STOUT, WEALTHY,
)
from necro_env.game.state import UNUSED

from positions import begin, empty_position, give_race, kinds, legal, play, put, rig_die, set_necro_powers

NP = ("Commando", "Alchemist", "Flying", "Heroic", "Mounted", "Underworld")
LAKE = 7
LAKE_NBRS = {2, 6, 8, 12, 13}
P0, P1, NECRO = 0, 1, 2


# ----------------------------------------------------------------------------- helpers
def scen(players: int = 3, powers=NP, **options):
    """A scenario position with no Lost Tribe; the Necromancer chose draw slot 0 (Commando by default)."""
    return empty_position(players=players, necromancer=True, necromancer_powers=powers, **options)


def ghosts_total(g, st) -> int:
    on_map = sum(st.tok[r] for r in range(g.num_regions) if st.occ[r] == GHOST)
    return st.tray[GHOST] + st.island + on_map + st.hand[GHOST] + st.well[GHOST] + st.ghosts_removed


def to_well(g, st, occupant: int, n: int) -> None:
    """Move ``n`` tokens from the tray (for Ghosts: the reserve) into the Well."""
    assert st.tray[occupant] >= n
    st.tray[occupant] -= n
    st.well[occupant] += n
    g.invalidate(st)


def to_island(g, st, n: int) -> None:
    """Move ``n`` reserve Ghosts onto the Island."""
    assert st.tray[GHOST] >= n
    st.tray[GHOST] -= n
    st.island += n
    g.invalidate(st)


def well_total(st) -> int:
    return sum(st.well) + st.souls


def conquer_targets(g, st) -> set[int]:
    return {a for k, a in legal(g, st) if k == "CONQUER"}


def end_turn(g, st) -> None:
    """END_CONQUEST then END_REDEPLOY (the hand must be empty)."""
    play(g, st, (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))


def ratmen_turn(g, st, seat: int = P0, hand: int = 6, regions=(1,), power: str = "Hill"):
    """Give ``seat`` active Ratmen on ``regions`` (1 token each) and ``hand`` tokens, and start its turn."""
    give_race(g, st, seat, "Ratmen", power, hand=hand)
    for r in regions:
        put(g, st, r, "Ratmen", 1)
    begin(g, st, seat)


# ============================================================================= set-up: rules 1-6
@pytest.mark.parametrize("players,regions,turns", [(3, 23, 10), (4, 30, 10), (5, 39, 9), (6, 48, 8)])
def test_rule1_board_for_players_minus_one(players, regions, turns):
    """RULES §4.1 rule 1 / A1 / A2 default: N seats use the board for N-1 players and that board's turn track."""
    g = Game(GameConfig(players=players))
    assert g.necromancer and g.config.board_key == players - 1
    assert g.board.num_regions == regions
    assert g.game_turns == turns
    assert g.necro_seat == players - 1


def _end_round(g, st):
    """The Necromancer buys nothing and ends his turn at once (nothing of his on the map): the round is over."""
    g.begin_turn(st, NECRO)
    if st.phase == Phase.BUY:
        play(g, st, (Kind.END_BUY,))
    play(g, st, (Kind.END_CONQUEST,))


@pytest.mark.parametrize("game_turns", [None, 3])
def test_A2_game_turns_board_track_or_override(game_turns):
    """RULES §4.3 A2 (Config): the board's own track (2p board: 10 turns) by default; ``game_turns`` overrides it."""
    g, st = scen(game_turns=game_turns)
    expected = 10 if game_turns is None else 3
    assert g.game_turns == expected
    st.round = 3
    _end_round(g, st)
    if game_turns is None:
        assert not st.over and st.round == 4 and st.turn_seat == P0
    else:
        assert st.over and g.result(st)["rounds_played"] == 3
    st2 = scen(game_turns=game_turns)[1]
    st2.round = expected
    _end_round(g, st2)
    assert st2.over


def test_rule2_island_one_ghost_thirteen_in_reserve():
    """RULES §4.1 rules 2-3 / A27: 1 Ghost on the Island (the Lake stays an empty non-region), 13 in the reserve, Well empty."""
    g = Game(GameConfig(players=4))
    st = g.new_state(7)
    lake = g.board.lake
    assert st.island == 1 and st.occ[lake] == -1 and st.tok[lake] == 0
    assert st.tray[GHOST] == 13 and st.well == [0] * len(st.well) and st.souls == 0
    assert st.hand[GHOST] == 0 and st.regions[GHOST] == 0 and st.ghosts_removed == 0
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_rule3_necromancer_is_the_last_seat(players):
    """RULES §4.1 rule 3 / A4: the seat to the right of the starting player (the last seat) owns the Ghosts."""
    g = Game(GameConfig(players=players))
    st = g.new_state(1)
    ns = players - 1
    assert st.active[ns] == GHOST and st.race_owner[GHOST] == ns
    assert all(st.active[s] == -1 for s in range(ns))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_rule4_draw_six_powers_never_spirit_or_stout(players):
    """RULES §4.1 rule 4 / A24: over many seeds he draws 6 distinct powers, never Spirit or Stout, removed from the badge stack."""
    g = Game(GameConfig(players=players))
    seen = set()
    for seed in range(150):
        st = g.new_state(seed)
        draw = st.necro_draw
        assert len(draw) == 6 and len(set(draw)) == 6
        assert SPIRIT not in draw and STOUT not in draw
        assert all(POWERS[p].necromancer_ok for p in draw)
        elsewhere = st.col_power + st.power_deck + st.power_discard
        assert not set(draw) & set(elsewhere)
        assert sorted(draw + elsewhere) == list(range(NUM_POWERS))  # every badge exactly once
        seen.update(draw)
    assert seen == set(range(NUM_POWERS)) - {SPIRIT, STOUT}  # the draw really is random


@pytest.mark.parametrize("players", [3, 6])
def test_rule4_start_power_is_the_first_decision(players):
    """RULES §4.1 rule 4: the very first decision is the Necromancer's (last seat) choice of 1 of his 6 powers; 5 stay in reserve."""
    g = Game(GameConfig(players=players))
    st = g.new_state(3)
    assert st.phase == Phase.NECRO_START
    assert g.current_seat(st) == players - 1
    assert legal(g, st) == {("NECRO_START", k) for k in range(6)}
    draw = list(st.necro_draw)
    coins = list(st.coins)
    g.apply(st, encode((Kind.NECRO_START, 4)))
    assert st.race_power[GHOST] == 1 << draw[4]
    assert st.necro_reserve == draw[:4] + draw[5:]
    assert st.necro_draw == []
    assert st.coins == coins
    # Then the ordinary game begins with the starting player picking a combo.
    assert st.turn_seat == 0 and st.decider == 0 and st.phase == Phase.PICK
    g.check_invariants(st)


def test_rule4_forced_draw_and_refused_powers():
    """RULES §4.1 rule 4: ``necromancer_powers`` fixes his draw; Spirit and Stout are refused (they are redrawn in play)."""
    g = Game(GameConfig(players=3, necromancer_powers=NP))
    st = g.new_state(0)
    assert [POWERS[p].name for p in st.necro_draw] == list(NP)
    for bad in ("Spirit", "Stout"):
        with pytest.raises(ConfigError):
            GameConfig(players=3, necromancer_powers=("Commando", "Alchemist", "Flying", "Heroic", "Mounted", bad))


def test_rule5_standard_setup():
    """RULES §4.1 rule 5: Lost Tribes on their regions, a 6-combo column, 5 coins for every player."""
    g = Game(GameConfig(players=3))
    st = g.new_state(11)
    b = g.board
    lt = [r for r in range(b.num_regions) if b.lost_tribe[r]]
    assert len(lt) == 9  # 2-player board
    assert all(st.occ[r] == LOST_TRIBE and st.tok[r] == 1 for r in lt)
    assert len(st.col_race) == 6 and len(st.col_power) == 6
    assert st.coins == [5, 5, 5]


@pytest.mark.parametrize("standard", [True, False])
def test_A3_necromancer_starting_coins(standard):
    """RULES §4.3 A3 (Config): the Necromancer starts with the standard 5 coins (default) or with none."""
    g = Game(GameConfig(players=4, necromancer_starting_coins=standard))
    st = g.new_state(0)
    assert st.coins[:3] == [5, 5, 5]
    assert st.coins[3] == (5 if standard else 0)


@pytest.mark.parametrize("handicap", [0, 1, 2])
def test_rule6_handicap_removes_ghosts(handicap):
    """RULES §4.1 rule 6: the handicap removes 0-2 Ghosts from the reserve; they stay out of the game."""
    g = Game(GameConfig(players=5, handicap=handicap))
    st = g.new_state(2)
    assert st.tray[GHOST] == 13 - handicap and st.ghosts_removed == handicap and st.island == 1
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)
    with pytest.raises(ConfigError):
        GameConfig(players=5, handicap=3)


def test_rule6_removed_ghosts_are_not_needed_to_win():
    """RULES §4.1 rules 6 and 14: with handicap 2 he wins once the other 12 Ghosts are all in play."""
    g, st = scen(handicap=2)
    to_island(g, st, st.tray[GHOST])
    assert g.ghosts_in_play(st) == 12
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))  # no region held: the readied Ghosts go back to the Island
    assert st.over and st.necro_won and st.winners == [NECRO]


# ============================================================================= other players' turns: 7-10
def test_rule7_lost_tribe_goes_to_the_well():
    """RULES §4.1 rule 7 / A23: a Lost Tribe killed in a conquest goes into the Well, not the tray."""
    g, st = scen()
    put(g, st, 11, "Lost Tribe", 1)
    tray_lt = st.tray[LOST_TRIBE]
    ratmen_turn(g, st, regions=())
    play(g, st, (Kind.CONQUER, 11))
    assert st.well[LOST_TRIBE] == 1 and st.tray[LOST_TRIBE] == tray_lt
    g.check_invariants(st)


def test_rule7_race_token_goes_to_the_well_survivors_redeploy():
    """RULES §4.1 rule 7: the defender's 1 lost token goes to the Well; its survivors are redeployed at the end of the turn."""
    g, st = scen()
    give_race(g, st, P1, "Humans", "Forest")
    put(g, st, 2, "Humans", 3)
    put(g, st, 3, "Humans", 1)
    tray_h = st.tray[HUMANS]
    ratmen_turn(g, st, hand=6)
    assert g.conquest_cost(st, 2) == 5
    play(g, st, (Kind.CONQUER, 2))
    assert st.well[HUMANS] == 1 and st.hand[HUMANS] == 2 and st.tray[HUMANS] == tray_h
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    # A single region left: placed there without a decision; then seat 1's turn readies them again.
    assert st.turn_seat == P1 and st.cur_race == HUMANS
    assert st.tok[3] == 1 and st.hand[HUMANS] == 2 and st.ready_taken == [3, 2]
    assert st.well[HUMANS] == 1
    g.check_invariants(st)


def test_rule7_own_in_decline_token_goes_to_the_well():
    """RULES §4.1 rule 7 / A21: a player's own in-decline token lost when he conquers it is a conquest loss -> Well."""
    g, st = scen()
    give_race(g, st, P0, "Humans", declined=True)
    put(g, st, 2, "Humans", 1)
    ratmen_turn(g, st, hand=5)
    assert 2 in conquer_targets(g, st)
    play(g, st, (Kind.CONQUER, 2))
    assert st.well[HUMANS] == 1
    assert st.decl[P0] == -1 and st.race_status[HUMANS] == UNUSED  # the banner went back to the stack
    g.check_invariants(st)


def test_rule7_base_game_losses_go_to_the_tray():
    """RULES §4.1 rule 7 applies to the scenario only: in the base game the lost tokens go to the tray."""
    g, st = empty_position(players=2, necromancer=False)
    put(g, st, 11, "Lost Tribe", 1)
    tray_lt = st.tray[LOST_TRIBE]
    ratmen_turn(g, st, regions=())
    play(g, st, (Kind.CONQUER, 11))
    assert st.well[LOST_TRIBE] == 0 and st.tray[LOST_TRIBE] == tray_lt + 1


def test_rule8_decline_surplus_goes_to_the_tray():
    """RULES §4.1 rule 8: tokens removed because a race goes into decline go to the tray, not the Well."""
    g, st = scen()
    give_race(g, st, P0, "Ratmen", "Hill")
    put(g, st, 1, "Ratmen", 3)
    put(g, st, 2, "Ratmen", 3)
    tray_r = st.tray[RATMEN]
    begin(g, st, P0, ready=True)
    assert ("DECLINE", 0) in legal(g, st)
    play(g, st, (Kind.DECLINE,))
    assert st.tray[RATMEN] == tray_r + 4
    assert st.tok[1] == 1 and st.tok[2] == 1 and st.decl[P0] == RATMEN
    assert well_total(st) == 0
    g.check_invariants(st)


def test_rule8_older_decline_and_amazon_tokens_go_to_the_tray():
    """RULES §4.1 rule 8 / A21: an older in-decline race wiped by a new decline and the Amazons' 4 held tokens -> tray."""
    g, st = scen()
    give_race(g, st, P0, "Humans", declined=True)
    put(g, st, 3, "Humans", 1)
    put(g, st, 4, "Humans", 1)
    give_race(g, st, P0, "Amazons", "Hill")
    put(g, st, 1, "Amazons", 2)
    st.tray[AMAZONS] -= 4
    st.amazon_held = 4
    tray_h, tray_a = st.tray[HUMANS], st.tray[AMAZONS]
    begin(g, st, P0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.tray[HUMANS] == tray_h + 2 and st.regions[HUMANS] == 0
    assert st.tray[AMAZONS] == tray_a + 4 + 1 and st.amazon_held == 0 and st.tok[1] == 1
    assert well_total(st) == 0
    g.check_invariants(st)


def test_rule9_ghost_region_cost():
    """RULES §4.1 rule 9: a Ghost region costs 2 + 1 per Ghost + markers (a Mountain adds 1)."""
    g, st = scen()
    put(g, st, 2, "Ghosts", 3)
    put(g, st, 5, "Ghosts", 2)
    ratmen_turn(g, st, regions=(1,), hand=8)
    assert g.conquest_cost(st, 2) == 2 + 3
    assert g.conquest_cost(st, 5) == 2 + 2 + 1


def test_rule9_one_ghost_to_the_well_rest_to_his_single_region():
    """RULES §4.1 rule 9: one Ghost dies (Well), the others go to his hand and onto his only Ghost region at the turn's end."""
    g, st = scen()
    put(g, st, 2, "Ghosts", 3)
    put(g, st, 12, "Ghosts", 1)
    ratmen_turn(g, st, hand=6)
    play(g, st, (Kind.CONQUER, 2))
    assert st.well[GHOST] == 1 and st.hand[GHOST] == 2
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    assert st.hand[GHOST] == 0 and st.tok[12] == 3
    assert st.turn_seat == P1
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)


def test_rule9_he_redeploys_fleeing_ghosts_in_defend_then_spawn():
    """RULES §4.1 rules 9-10: with 2+ Ghost regions he (DEFEND, decider = his seat) places them; spawning comes after."""
    g, st = scen()
    put(g, st, 2, "Ghosts", 3)
    put(g, st, 12, "Ghosts", 1)
    put(g, st, 13, "Ghosts", 1)
    to_well(g, st, LOST_TRIBE, 3)
    ratmen_turn(g, st, hand=6)
    play(g, st, (Kind.CONQUER, 2), (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    assert st.phase == Phase.DEFEND and st.decider == NECRO and st.turn_seat == P0
    assert st.defend_race == GHOST
    assert legal(g, st) == {("PLACE", 12), ("PLACE", 13)}
    assert well_total(st) == 4 and st.island == 1  # no spawn before the redeployment is over
    play(g, st, (Kind.PLACE, 13))
    assert st.phase == Phase.DEFEND and st.decider == NECRO
    play(g, st, (Kind.PLACE, 13))
    assert st.tok[13] == 3 and st.hand[GHOST] == 0
    assert well_total(st) == 0 and st.island == 2  # spawned at the end of seat 0's turn
    assert st.turn_seat == P1
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)


def test_rule9_no_ghost_region_left_ghosts_go_to_the_island():
    """RULES §4.1 rule 9: if no Ghost region is left, the fleeing Ghosts go onto the Island."""
    g, st = scen()
    put(g, st, 2, "Ghosts", 3)
    ratmen_turn(g, st, hand=6)
    play(g, st, (Kind.CONQUER, 2), (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    assert st.hand[GHOST] == 0 and st.regions[GHOST] == 0
    assert st.island == 1 + 2 and st.well[GHOST] == 1
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)


@pytest.mark.parametrize("well,island_gain,left", [
    ({GHOST: 4}, 1, {}),                                    # 4 Ghosts -> back to the reserve, 1 spawns
    ({GHOST: 1, RATMEN: 4}, 1, {RATMEN: 1}),                # Ghosts first, 1 Ratman carries over
    ({GHOST: 3, LOST_TRIBE: 6}, 2, {LOST_TRIBE: 1}),        # two full sets -> two Ghosts
    ({HUMANS: 2, RATMEN: 1}, 0, {HUMANS: 2, RATMEN: 1}),    # fewer than 4: nothing happens
])
def test_rule10_spawning_at_the_end_of_a_players_turn(well, island_gain, left):
    """RULES §4.1 rule 10 / A8 / A9: each set of 4 Well tokens (Ghosts first) -> 1 reserve Ghost on the Island; Ghosts back to
    the reserve, others to the tray; the rest carries over."""
    g, st = scen()
    for x, n in well.items():
        to_well(g, st, x, n)
    trays = list(st.tray)
    ratmen_turn(g, st, hand=0, regions=(1,))
    assert st.island == 1
    end_turn(g, st)
    assert st.turn_seat == P1
    assert st.island == 1 + island_gain
    for x in range(len(st.well)):
        assert st.well[x] == left.get(x, 0)
        if x == GHOST:
            assert st.tray[GHOST] == trays[GHOST] + well.get(GHOST, 0) - island_gain
        elif x != RATMEN:
            assert st.tray[x] == trays[x] + well.get(x, 0) - left.get(x, 0)
    assert well_total(st) < 4
    assert ghosts_total(g, st) == 14
    g.check_invariants(st)


def test_A9_empty_reserve_keeps_the_well():
    """RULES §4.3 A9: a set is removed only if a Ghost can then be taken from the Reserve; with an empty Reserve and
    no Ghost in the Well, 5 Elf tokens stay in the Well (none vanish) and nothing spawns."""
    g, st = scen()
    to_island(g, st, st.tray[GHOST])
    to_well(g, st, ELVES, 5)
    tray_elves = st.tray[ELVES]
    ratmen_turn(g, st, hand=0)
    end_turn(g, st)
    assert st.island == 14 and st.tray[GHOST] == 0
    assert st.well[ELVES] == 5 and st.tray[ELVES] == tray_elves
    assert not st.over  # A11 default: only checked at the end of his turn
    g.check_invariants(st)


def test_A9_a_sets_own_ghosts_refill_the_reserve_first():
    """RULES §4.3 A9: the set's Ghosts return to the Reserve first, so with an empty Reserve a set holding a Ghost still
    spawns; the next set (no Ghost left anywhere to take) stays in the Well."""
    g, st = scen()
    to_island(g, st, st.tray[GHOST] - 1)
    to_well(g, st, GHOST, 1)            # Reserve 0, 1 Ghost in the Well
    to_well(g, st, LOST_TRIBE, 7)
    ratmen_turn(g, st, hand=0)
    end_turn(g, st)
    # set 1: the Ghost + 3 Lost Tribes -> the Ghost back to the Reserve, then to the Island; set 2 cannot spawn
    assert st.tray[GHOST] == 0 and st.island == 14 and st.well[GHOST] == 0
    assert st.well[LOST_TRIBE] == 4
    g.check_invariants(st)


def test_A9_several_sets_spawn_while_ghosts_last():
    """RULES §4.3 A9: 2 Ghosts + 6 others in the Well, Reserve empty: two sets, two spawns (the first set's 2 Ghosts
    refill the Reserve), nothing left."""
    g, st = scen()
    to_island(g, st, st.tray[GHOST] - 2)
    to_well(g, st, GHOST, 2)
    to_well(g, st, LOST_TRIBE, 6)
    ratmen_turn(g, st, hand=0)
    end_turn(g, st)
    assert st.tray[GHOST] == 0 and st.island == 14 and well_total(st) == 0
    g.check_invariants(st)


# ============================================================================= the Necromancer's turn: 11-15
def test_rule11_price_is_powers_plus_ghosts_in_play_recomputed():
    """RULES §4.1 rule 11 / A5: price = powers in use + Ghosts on regions and the Island (Well excluded), +1 after each buy."""
    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    put(g, st, 13, "Ghosts", 2)
    to_well(g, st, GHOST, 3)  # Ghosts in the Well do not count
    st.coins[NECRO] = 20
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.BUY and st.decider == NECRO
    assert g.purchase_price(st) == 1 + (1 + 2 + 1)
    play(g, st, (Kind.BUY_GHOST,))
    assert st.coins[NECRO] == 15 and st.island == 2 and st.tray[GHOST] == 13 - 3 - 3 - 1
    assert g.purchase_price(st) == 6
    play(g, st, (Kind.BUY_POWER, 0))  # Alchemist
    assert st.coins[NECRO] == 9
    assert st.race_power[GHOST] == (1 << COMMANDO) | (1 << ALCHEMIST)
    assert st.necro_reserve[0] == -1 and st.bought_powers == 1 and st.bought_ghosts == 1
    assert g.purchase_price(st) == 7
    assert ("BUY_POWER", 0) not in legal(g, st)
    play(g, st, (Kind.END_BUY,))
    # A6: the bought Ghost is readied with the others and may conquer this very turn.
    assert st.phase == Phase.CONQUER and st.island == 0 and st.hand[GHOST] == 2 + 1
    g.check_invariants(st)


def test_rule11_needs_the_full_price():
    """RULES §4.1 rule 11: with coins = price he may buy; with one coin less the BUY step is skipped."""
    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    price = 1 + 2
    st.coins[NECRO] = price - 1
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.CONQUER
    assert not any(k.startswith("BUY") for k, _ in legal(g, st))
    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    st.coins[NECRO] = price
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.BUY and g.purchase_price(st) == price
    play(g, st, (Kind.BUY_GHOST,))
    assert st.coins[NECRO] == 0 and st.phase == Phase.CONQUER  # nothing more affordable: buying ends


def test_rule11_no_ghost_left_in_reserve_powers_still_for_sale():
    """RULES §4.1 rule 11: a Ghost can only be bought from the reserve; powers remain on sale."""
    g, st = scen()
    to_island(g, st, st.tray[GHOST])
    st.coins[NECRO] = 100
    g.begin_turn(st, NECRO)
    opts = legal(g, st)
    assert ("BUY_GHOST", 0) not in opts
    assert {("BUY_POWER", k) for k in range(5)} <= opts


def test_rule11_bought_powers_stack():
    """RULES §4.1 rule 11: effects of his powers stack, e.g. Commando + Mounted take 2 off a farmland conquest."""
    g, st = scen()
    put(g, st, 13, "Lost Tribe", 1)  # farmland next to the lake
    put(g, st, 12, "Lost Tribe", 1)  # forest next to the lake
    st.coins[NECRO] = 100
    g.begin_turn(st, NECRO)
    assert g.conquest_cost(st, 13) == 3 - 1 and g.conquest_cost(st, 12) == 3 - 1
    play(g, st, (Kind.BUY_POWER, st.necro_reserve.index(MOUNTED)))
    assert g.conquest_cost(st, 13) == 3 - 2 and g.conquest_cost(st, 12) == 3 - 1


def test_rule12_enters_via_the_lake_neighbours_only():
    """RULES §4.1 rule 12 / A13: with no Ghost region his entry regions are the Lake's neighbours (not the board edge)."""
    g, st = scen(powers=("Alchemist", "Commando", "Flying", "Heroic", "Mounted", "Underworld"))
    to_island(g, st, 4)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.CONQUER and st.hand[GHOST] == 5 and st.island == 0  # no Ghost must stay home
    assert conquer_targets(g, st) == LAKE_NBRS
    assert not {("PICK", k) for k in range(6)} & legal(g, st)
    assert ("DECLINE", 0) not in legal(g, st)


def test_rule12_lake_entry_also_while_holding_regions_elsewhere():
    """RULES §4.1 rule 12 / A13: the Island stays a launch pad while he holds regions away from the Lake."""
    g, st = scen(powers=("Alchemist", "Commando", "Flying", "Heroic", "Mounted", "Underworld"))
    put(g, st, 19, "Ghosts", 1)  # mountain on the edge, not next to the lake
    to_island(g, st, 2)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert conquer_targets(g, st) == LAKE_NBRS | {18, 20}  # 13 is both
    assert 1 not in conquer_targets(g, st)


def test_rule12_his_kills_go_to_the_well_and_victims_redeploy():
    """RULES §4.1 rule 12: tokens the Ghosts kill go to the Well; the victim redeploys its survivors at the end of his turn."""
    g, st = scen(powers=("Alchemist", "Commando", "Flying", "Heroic", "Mounted", "Underworld"))
    give_race(g, st, P0, "Ratmen", "Hill")
    put(g, st, 12, "Ratmen", 3)
    put(g, st, 16, "Ratmen", 1)
    put(g, st, 17, "Ratmen", 1)
    put(g, st, 13, "Lost Tribe", 1)
    to_island(g, st, 7)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 8
    assert g.conquest_cost(st, 12) == 5 and g.conquest_cost(st, 13) == 3
    play(g, st, (Kind.CONQUER, 12), (Kind.CONQUER, 13))
    assert st.well[RATMEN] == 1 and st.well[LOST_TRIBE] == 1 and st.hand[RATMEN] == 2
    play(g, st, (Kind.END_CONQUEST,))
    assert st.phase == Phase.REDEPLOY and st.hand[GHOST] == 0 and ("END_REDEPLOY", 0) in legal(g, st)
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.phase == Phase.DEFEND and st.decider == P0 and st.defend_race == RATMEN
    assert legal(g, st) == {("PLACE", 16), ("PLACE", 17)}
    play(g, st, (Kind.PLACE, 16), (Kind.PLACE, 17))
    assert st.turn_seat == P0 and st.round == 2
    # Score: 2 regions + Alchemist; souls: 2 -> Well = 2 kills + 2 souls = 4 -> one Ghost spawned.
    assert st.coins[NECRO] == 2 + 2
    assert well_total(st) == 0 and st.island == 1
    g.check_invariants(st)


@pytest.mark.parametrize("necromancer", [True, False])
def test_rule12_nobody_enters_the_lake(necromancer):
    """RULES §4.1 rule 12 / A26: with the Necromancer nobody may enter the Lake, Seafaring included (seas stay open);
    in the base game a Seafaring race may take the Lake."""
    g, st = empty_position(players=3 if necromancer else 2, necromancer=necromancer)
    assert g.board.lake == LAKE
    give_race(g, st, P0, "Ratmen", "Seafaring", hand=8)
    for r in (1, 6):
        put(g, st, r, "Ratmen", 1)
    begin(g, st, P0)
    targets = conquer_targets(g, st)
    assert 0 in targets  # a sea next to region 1
    assert (LAKE in targets) == (not necromancer)


def test_rule12_flying_and_seafaring_necromancer_never_target_the_lake():
    """RULES §4.1 rules 12 / 17: neither a Flying player nor a Seafaring Necromancer may conquer the Lake."""
    g, st = scen()
    give_race(g, st, P0, "Ratmen", "Flying", hand=8)
    put(g, st, 6, "Ratmen", 1)
    begin(g, st, P0)
    assert LAKE not in conquer_targets(g, st) and len(conquer_targets(g, st)) > 10
    g, st = scen()
    set_necro_powers(g, st, "Seafaring")
    put(g, st, 2, "Ghosts", 1)
    put(g, st, 20, "Ghosts", 1)  # next to sea 22
    to_island(g, st, 4)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    targets = conquer_targets(g, st)
    assert 22 in targets and LAKE not in targets


def test_rule13_scores_regions_and_powers_souls_per_region():
    """RULES §4.1 rule 13 / A10: 1 coin per Ghost region + power bonuses (Alchemist +2); 1 bonus soul per Ghost region."""
    g, st = scen(powers=("Alchemist", "Commando", "Flying", "Heroic", "Mounted", "Underworld"))
    for r in (12, 13, 18):
        put(g, st, r, "Ghosts", 1)
    to_island(g, st, 2)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.CONQUER and st.hand[GHOST] == 3
    play(g, st, (Kind.END_CONQUEST,))
    # A14: he may leave the 3 Island Ghosts there; here he puts them on his regions.
    assert kinds(g, st, "PLACE") == {12, 13, 18, LAKE}
    play(g, st, (Kind.PLACE, 12), (Kind.PLACE, 12), (Kind.PLACE, 18), (Kind.END_REDEPLOY,))
    assert st.coins[NECRO] == 3 + 2
    assert st.souls == 3 and well_total(st) == 3 and st.island == 0  # < 4: no spawn, carried over
    assert st.round == 2 and st.turn_seat == P0
    g.check_invariants(st)


def test_rule13_four_souls_spawn_a_ghost():
    """RULES §4.1 rule 13: 4 Ghost regions -> 4 souls -> 1 Ghost spawns from the reserve at the end of his turn."""
    g, st = scen()
    for r in (2, 6, 12, 13):
        put(g, st, r, "Ghosts", 1)
    st.coins[NECRO] = 0
    reserve = st.tray[GHOST]
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    assert st.coins[NECRO] == 4
    assert well_total(st) == 0 and st.island == 1 and st.tray[GHOST] == reserve - 1


@pytest.mark.parametrize("last_round", [False, True])
def test_rule14_wins_at_once_when_reserve_and_well_hold_no_ghost(last_round):
    """RULES §4.1 rule 14: no Ghost in reserve nor Well at the end of his turn -> he wins immediately (last round too)."""
    g, st = scen()
    if last_round:
        st.round = g.game_turns
    put(g, st, 12, "Ghosts", 5)
    to_island(g, st, st.tray[GHOST])
    st.coins[NECRO] = 3
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))
    while ("PLACE", 12) in legal(g, st):
        play(g, st, (Kind.PLACE, 12))
    play(g, st, (Kind.END_REDEPLOY,))
    res = g.result(st)
    assert res["over"] and res["necromancer_won"] and res["winners"] == [NECRO]
    assert st.phase == Phase.OVER and g.current_seat(st) == -1 and g.legal_actions(st) == []
    assert res["ghost_curve"] == [14]
    assert res["rounds_played"] == st.round


@pytest.mark.parametrize("where", ["reserve", "well"])
def test_rule14_no_win_with_a_ghost_in_reserve_or_well(where):
    """RULES §4.1 rule 14: one Ghost still in the reserve, or in the Well, means no victory."""
    g, st = scen()
    to_island(g, st, st.tray[GHOST] - 1)
    if where == "well":
        to_well(g, st, GHOST, 1)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))
    assert not st.over and not st.necro_won and st.turn_seat == P0


def test_rule14_souls_turn_the_last_well_ghost_into_a_win():
    """RULES §4.1 rules 13-14: a Ghost in the Well returns to the reserve when souls complete a set, then spawns: he wins."""
    g, st = scen()
    for r in (2, 6, 12):
        put(g, st, r, "Ghosts", 1)
    to_island(g, st, st.tray[GHOST] - 1)
    to_well(g, st, GHOST, 1)
    assert st.tray[GHOST] == 0
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))
    while ("PLACE", 2) in legal(g, st):
        play(g, st, (Kind.PLACE, 2))
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.over and st.necro_won and st.winners == [NECRO]
    assert st.tray[GHOST] == 0 and st.well[GHOST] == 0 and st.souls == 0


@pytest.mark.parametrize("victory_check", ["end_of_turn", "anytime"])
def test_A11_victory_timing(victory_check):
    """RULES §4.3 A11 (Config): a spawn at the end of a player's turn that empties reserve and Well wins at once only with
    "anytime"; with "end_of_turn" the check waits for the end of his own turn."""
    g, st = scen(victory_check=victory_check)
    to_island(g, st, st.tray[GHOST] - 1)
    to_well(g, st, LOST_TRIBE, 3)
    put(g, st, 11, "Lost Tribe", 1)
    ratmen_turn(g, st, regions=(), hand=4)
    play(g, st, (Kind.CONQUER, 11), (Kind.END_CONQUEST,), (Kind.PLACE, 11), (Kind.END_REDEPLOY,))
    assert st.tray[GHOST] == 0 and st.well[GHOST] == 0 and st.island == 14
    if victory_check == "anytime":
        assert st.over and st.necro_won and st.winners == [NECRO]
        assert g.result(st)["ghost_curve"] == [14]
        return
    assert not st.over and st.turn_seat == P1
    # Nobody kills a Ghost: he wins at the end of his own turn.
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))
    assert st.over and st.necro_won and st.winners == [NECRO]


def test_rule15_winner_among_the_other_players_only():
    """RULES §4.1 rule 15 / A7: after the last turn the richest *player* wins, even if the Necromancer has more coins."""
    g, st = scen()
    st.round = g.game_turns
    st.coins = [7, 9, 500]
    _end_round(g, st)
    res = g.result(st)
    assert res["over"] and not res["necromancer_won"]
    assert res["winners"] == [P1] and res["coins"] == [7, 9, 500]
    assert NECRO not in res["winners"]


def test_rule15_tie_break_by_tokens_on_the_board():
    """RULES §4.1 rule 15 / RULES §1.11: a coin tie between players is broken by race tokens on the board."""
    g, st = scen()
    give_race(g, st, P0, "Ratmen", "Hill")
    put(g, st, 1, "Ratmen", 3)
    give_race(g, st, P1, "Humans", "Forest")
    put(g, st, 16, "Humans", 2)
    st.round = g.game_turns
    st.coins = [9, 9, 9]
    _end_round(g, st)
    assert st.winners == [P0]


# ============================================================================= other rules: 16-19
def test_rule16_no_diplomat_pact_with_the_necromancer():
    """RULES §4.1 rule 16 / A15: a player's Diplomat may name another player, never the Necromancer."""
    g, st = scen()
    give_race(g, st, P1, "Humans", "Forest")
    put(g, st, 16, "Humans", 1)
    ratmen_turn(g, st, hand=0, power="Diplomat")
    end_turn(g, st)
    assert st.phase == Phase.DIPLOMAT and st.decider == P0
    assert legal(g, st) == {("DIPLOMAT", 1)}  # offset 1 = seat 1; offset 2 (the Necromancer) is not offered


def test_rule16_sorcerers_cannot_convert_ghosts():
    """RULES §4.1 rule 16 / A15: Sorcerers convert lone *active* tokens only, so never a Ghost."""
    g, st = scen()
    give_race(g, st, P0, "Sorcerers", "Hill")
    put(g, st, 1, "Sorcerers", 1)
    put(g, st, 2, "Ghosts", 1)
    give_race(g, st, P1, "Ratmen", "Forest")
    put(g, st, 6, "Ratmen", 1)
    begin(g, st, P0)
    converts = {a for k, a in legal(g, st) if k == "CONVERT"}
    assert converts == {6}


@pytest.mark.parametrize("race,power", [("Orcs", "Hill"), ("Ratmen", "Pillaging")])
def test_rule16_ghost_regions_are_non_empty(race, power):
    """RULES §4.1 rule 16 / A15: a conquered Ghost region is non-empty (Orcs and Pillaging score +1 for it)."""
    g, st = scen()
    put(g, st, 2, "Ghosts", 1)
    give_race(g, st, P0, race, power, hand=3)
    put(g, st, 1, race, 1)
    begin(g, st, P0)
    coins = st.coins[P0]
    play(g, st, (Kind.CONQUER, 2))
    assert st.nonempty == 1
    end_turn(g, st)
    assert st.coins[P0] == coins + 2 + 1  # 2 regions + 1 non-empty conquest (region 2: forest, Hill scores 0)


def test_A16_necromancer_diplomat_does_not_bind_in_decline_ghouls():
    """RULES §4.3 A16: a pact with the Necromancer binds the player's active race, not its in-decline Ghouls."""
    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    give_race(g, st, P0, "Ghouls", declined=True)
    put(g, st, 6, "Ghouls", 4)
    give_race(g, st, P0, "Ratmen", "Hill", hand=6)
    put(g, st, 11, "Ratmen", 1)
    st.pact[NECRO] = P0
    g.begin_turn(st, P0)
    assert st.cur_race == 3 and 12 in conquer_targets(g, st)  # Ghouls act first and may attack Ghosts
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, 6), (Kind.PLACE, 6), (Kind.PLACE, 6), (Kind.END_REDEPLOY,))
    assert st.cur_race == RATMEN and st.hand[RATMEN] >= g.conquest_cost(st, 12)
    assert 12 not in conquer_targets(g, st) and 17 in conquer_targets(g, st)


def test_rule17_island_gives_no_coin_and_no_soul():
    """RULES §4.1 rule 17: Ghosts on the Island score no coin and bring no soul (here he holds no region at all)."""
    g, st = scen(powers=("Hill", "Commando", "Flying", "Heroic", "Mounted", "Underworld"))
    to_island(g, st, 5)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_CONQUEST,))
    assert st.island == 6 and st.coins[NECRO] == 0 and well_total(st) == 0 and st.souls == 0


def test_rule18_never_picks_a_combo_nor_declines_no_racial_ability():
    """RULES §4.1 rule 18: his turn offers no PICK and no DECLINE; Ghosts have no racial discount (empty region: 2)."""
    g, st = scen()
    set_necro_powers(g, st)  # no power at all
    put(g, st, 12, "Ghosts", 2)
    to_island(g, st, 1)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    kinds = {k for k, _ in legal(g, st)}
    assert "PICK" not in kinds and "DECLINE" not in kinds
    assert g.conquest_cost(st, 13) == 2 and g.conquest_cost(st, 8) == 3  # 8: mountain
    assert st.col_race and len(st.col_race) == 6  # the column is untouched


def test_rule19_conquered_elves_send_nothing_to_the_well():
    """RULES §4.1 rule 19: active Elves lose no token when conquered, so nothing goes to the Well."""
    g, st = scen()
    give_race(g, st, P1, "Elves", "Forest")
    put(g, st, 2, "Elves", 3)
    put(g, st, 3, "Elves", 1)
    ratmen_turn(g, st, hand=6)
    play(g, st, (Kind.CONQUER, 2))
    assert well_total(st) == 0 and st.hand[ELVES] == 3
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, 2), (Kind.END_REDEPLOY,))
    # All 3 went onto region 3; seat 1's turn has begun and readied them back into hand.
    assert st.turn_seat == P1 and st.ready_taken == [3, 3] and st.hand[ELVES] == 3
    assert well_total(st) == 0
    g.check_invariants(st)


def test_rule19_in_decline_elves_conquered_lose_one_to_the_well():
    """RULES §4.1 rules 7 / 19: the Elves' ability works only while active; an in-decline Elf token conquered goes to the Well."""
    g, st = scen()
    give_race(g, st, P1, "Elves", declined=True)
    put(g, st, 2, "Elves", 1)
    ratmen_turn(g, st, hand=6)
    play(g, st, (Kind.CONQUER, 2))
    assert st.well[ELVES] == 1 and st.hand[ELVES] == 0 and st.regions[ELVES] == 0
    g.check_invariants(st)


def test_rule19_elves_going_into_decline_feed_the_well_and_spawn():
    """RULES §4.1 rule 19 / A22: the surplus Elf tokens removed at decline go to the Well; the spawn follows that turn."""
    g, st = scen()
    give_race(g, st, P0, "Elves", "Hill")
    put(g, st, 1, "Elves", 3)
    put(g, st, 2, "Elves", 2)
    to_well(g, st, GHOST, 1)
    tray_e = st.tray[ELVES]
    begin(g, st, P0, ready=True)
    play(g, st, (Kind.DECLINE,))
    # Well: 1 Ghost + 3 Elves = 4 -> spawned at the end of this decline turn.
    assert st.turn_seat == P1
    assert well_total(st) == 0 and st.island == 2
    assert st.tray[ELVES] == tray_e + 3  # the 3 Elves went Well -> tray when the set was used
    assert st.tray[GHOST] == 13 - 1 + 1 - 1  # the Well Ghost came back, one reserve Ghost spawned
    g.check_invariants(st)


def test_A22_in_decline_elves_wiped_by_a_new_decline_go_to_the_tray():
    """RULES §4.3 A22: an in-decline Elf race removed by its owner's next decline goes to the tray, not the Well."""
    g, st = scen()
    give_race(g, st, P0, "Elves", declined=True)
    put(g, st, 3, "Elves", 1)
    put(g, st, 4, "Elves", 1)
    tray_e = st.tray[ELVES]
    give_race(g, st, P0, "Ratmen", "Hill")
    put(g, st, 1, "Ratmen", 1)
    begin(g, st, P0, ready=True)
    play(g, st, (Kind.DECLINE,))
    assert st.tray[ELVES] == tray_e + 2 and well_total(st) == 0


# ============================================================================= Config readings A14, A17, A20
@pytest.mark.parametrize("island_redeploy", [False, True])
def test_A14_ghosts_back_to_the_island(island_redeploy):
    """RULES §4.3 A14 (Config): by default the Island may be refilled up to what it held when his conquests began
    (1 here), never more; with ``island_redeploy`` any Ghost may go there."""
    g, st = scen(island_redeploy=island_redeploy)
    put(g, st, 12, "Ghosts", 3)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 2 + 1  # 2 readied from region 12 + 1 from the Island
    assert g.island_cap(st) == 1
    play(g, st, (Kind.END_CONQUEST,))
    assert kinds(g, st, "PLACE") == {12, LAKE}
    play(g, st, (Kind.PLACE, LAKE))
    assert st.island == 1
    if island_redeploy:
        assert kinds(g, st, "PLACE") == {12, LAKE}
        play(g, st, (Kind.PLACE, LAKE), (Kind.PLACE, 12), (Kind.END_REDEPLOY,))
        assert st.island == 2 and st.tok[12] == 2
        assert st.coins[NECRO] == 1 and st.souls == 1  # the Island still scores nothing
    else:
        assert kinds(g, st, "PLACE") == {12}  # the Island is back to the 1 Ghost it held
        play(g, st, (Kind.PLACE, 12), (Kind.PLACE, 12), (Kind.END_REDEPLOY,))
        assert st.island == 1 and st.tok[12] == 3
    g.check_invariants(st)


def test_A14_unused_island_ghosts_stay_on_the_island():
    """RULES §4.3 A14, seed 001 step 2 ("no Ghost needs to remain on Necromancer Island" is a permission): 1 Ghost on a
    region, 6 on the Island, END_CONQUEST at once -> the 6 readied Island Ghosts may all go back; he may end his
    redeployment with them there (before this reading every one of them had to be placed on region 12)."""
    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    to_island(g, st, 5)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 6 and st.island == 0 and g.island_cap(st) == 6
    play(g, st, (Kind.END_CONQUEST,))
    assert kinds(g, st, "PLACE") == {12, LAKE}
    assert ("END_REDEPLOY", 0) not in legal(g, st)  # every Ghost in hand must still be put somewhere
    for _ in range(6):
        play(g, st, (Kind.PLACE, LAKE))
    assert st.island == 6 and st.tok[12] == 1 and st.hand[GHOST] == 0
    play(g, st, (Kind.END_REDEPLOY,))
    assert st.turn_seat == P0 and st.island == 6
    g.check_invariants(st)


def test_A14_island_cap_counts_tokens_not_origins():
    """RULES §4.3 A14: tokens are interchangeable: Ghosts lifted from a region may go back to the Island, up to the
    number it held when his conquests began; a Ghost bought in his BUY step was on the Island then, so it counts."""
    g, st = scen()
    set_necro_powers(g, st)  # no discount: mountain 8 costs 3
    put(g, st, 12, "Ghosts", 1)
    to_island(g, st, 2)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 3 and g.island_cap(st) == 3
    play(g, st, (Kind.CONQUER, 8), (Kind.END_CONQUEST,), (Kind.LIFT, 8), (Kind.LIFT, 8))
    assert st.tok[8] == 1 and st.hand[GHOST] == 2 and kinds(g, st, "PLACE") == {8, 12, LAKE}
    play(g, st, (Kind.PLACE, LAKE), (Kind.PLACE, LAKE), (Kind.END_REDEPLOY,))
    assert st.island == 2
    g.check_invariants(st)

    g, st = scen()
    put(g, st, 12, "Ghosts", 1)
    st.coins[NECRO] = 20  # price 1 power + 2 Ghosts in play = 3
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.BUY
    play(g, st, (Kind.BUY_GHOST,), (Kind.END_BUY,))
    assert g.island_cap(st) == 2 and st.hand[GHOST] == 2
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, LAKE), (Kind.PLACE, LAKE))
    assert st.island == 2 and st.hand[GHOST] == 0 and ("END_REDEPLOY", 0) in legal(g, st)
    g.check_invariants(st)


def test_A14_no_other_way_onto_the_island():
    """RULES §4.3 A14: the Island is not a region: a Ghost defender placing survivors cannot use it, and outside his
    own turn ``island_cap`` is 0."""
    g, st = scen()
    put(g, st, 6, "Ghosts", 3)
    put(g, st, 12, "Ghosts", 1)
    put(g, st, 13, "Ghosts", 1)
    give_race(g, st, P0, "Ratmen", "Hill", hand=5)
    put(g, st, 2, "Ratmen", 1)
    begin(g, st, P0)
    assert g.island_cap(st) == 0
    play(g, st, (Kind.CONQUER, 6), (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))
    assert st.phase == Phase.DEFEND and st.decider == NECRO and st.hand[GHOST] == 2
    assert kinds(g, st, "PLACE") == {12, 13}


@pytest.mark.parametrize("necromancer_diplomat", [True, False])
def test_A17_necromancer_diplomat(necromancer_diplomat):
    """RULES §4.3 A17 (Config): his own Diplomat names a player not attacked this turn, whose active race then may not attack
    Ghosts until his next turn; with the option off the power does nothing."""
    g, st = scen(necromancer_diplomat=necromancer_diplomat)
    set_necro_powers(g, st, "Diplomat", "Commando")
    give_race(g, st, P0, "Ratmen", "Hill")
    put(g, st, 1, "Ratmen", 6)
    put(g, st, 2, "Ratmen", 1)
    give_race(g, st, P1, "Humans", "Forest")
    put(g, st, 12, "Humans", 1)
    put(g, st, 17, "Humans", 1)
    to_island(g, st, 1)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.CONQUER, 12))  # attacks seat 1's Humans
    assert st.hand[GHOST] == 0
    play(g, st, (Kind.END_CONQUEST,), (Kind.END_REDEPLOY,))
    if not necromancer_diplomat:
        assert st.phase != Phase.DIPLOMAT and st.turn_seat == P0 and st.pact[NECRO] == -1
        return
    assert st.phase == Phase.DIPLOMAT and st.decider == NECRO
    assert legal(g, st) == {("DIPLOMAT", 1)}  # seat 0 only: seat 1 was attacked this turn
    play(g, st, (Kind.DIPLOMAT, 1))
    assert st.pact[NECRO] == P0
    # Seat 0's Ratmen may not attack the Ghost region 12 on their next turn; other regions stay open.
    assert st.turn_seat == P0 and st.cur_race == RATMEN and st.hand[RATMEN] == 5
    assert st.tok[12] == 2 and g.conquest_cost(st, 12) == 4 and 12 not in conquer_targets(g, st)
    assert 6 in conquer_targets(g, st)
    # His next turn ends the pact.
    st2 = st.clone()
    g.begin_turn(st2, NECRO)
    assert st2.pact[NECRO] == -1


@pytest.mark.parametrize("conversion_to_well", [True, False])
def test_A20_sorcerer_conversion_victim(conversion_to_well):
    """RULES §4.3 A20 (Config): the token replaced by a Sorcerer conversion goes to the Well (default) or to the tray."""
    g, st = scen(conversion_to_well=conversion_to_well)
    give_race(g, st, P0, "Sorcerers", "Hill")
    put(g, st, 1, "Sorcerers", 1)
    give_race(g, st, P1, "Ratmen", "Forest")
    put(g, st, 6, "Ratmen", 1)
    tray_r = st.tray[RATMEN]
    begin(g, st, P0)
    play(g, st, (Kind.CONVERT, 6))
    assert st.occ[6] == SORCERERS
    assert st.well[RATMEN] == (1 if conversion_to_well else 0)
    assert st.tray[RATMEN] == tray_r + (0 if conversion_to_well else 1)
    g.check_invariants(st)


# ============================================================================= turn order and terminal results
def test_A4_he_plays_last_in_every_round():
    """RULES §4.3 A4: the seats play 0, 1, ..., and the Necromancer last, then the next round starts at seat 0."""
    g = Game(GameConfig(players=4))
    st = g.new_state(5)
    rnd = random.Random(5)
    order = []
    while st.round <= 2 and not st.over:
        if not order or order[-1] != (st.round, st.turn_seat):
            order.append((st.round, st.turn_seat))
        g.apply(st, rnd.choice(g.legal_actions(st)))
    assert order == [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (2, 2), (2, 3)]
    assert st.round == 3 and st.turn_seat == 0


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_result_fields_after_random_games(players):
    """RULES §4.1 rules 14-15 / §4.4: ``result`` gives winners, final coins, necromancer_won and Ghosts in play per round."""
    g = Game(GameConfig(players=players))
    for seed in range(12):
        st = g.new_state(seed)
        rnd = random.Random(seed)
        curve = []
        rnd_seen = st.round
        while not st.over:
            g.apply(st, rnd.choice(g.legal_actions(st)))
            if st.round != rnd_seen:
                curve.append(g.ghosts_in_play(st))  # measured right after the Necromancer's turn
                rnd_seen = st.round
        res = g.result(st)
        assert res["over"]
        assert res["coins"] == st.coins
        if res["necromancer_won"]:
            assert res["winners"] == [g.necro_seat]
            assert st.tray[GHOST] == 0 and st.well[GHOST] == 0
        else:
            assert g.necro_seat not in res["winners"] and res["winners"]
            best = max(st.coins[s] for s in range(players - 1))
            assert all(st.coins[s] == best for s in res["winners"])
            assert res["rounds_played"] == g.game_turns
        assert len(res["ghost_curve"]) == res["rounds_played"]
        assert res["ghost_curve"][:len(curve)] == curve
        assert res["ghost_curve"][-1] == g.ghosts_in_play(st)
        assert all(0 <= x <= 14 for x in res["ghost_curve"])


# ============================================================================= further readings (A13-A15, A19)
@pytest.mark.parametrize("face,won", [(0, False), (3, True)])
def test_A14_final_die_roll_with_no_region(face, won):
    """RULES §4.3 A14 / RULES §1.6: a failed final die roll with no Ghost region sends his Ghost back to the Island;
    a successful one conquers with all the tokens in hand."""
    g, st = scen()
    set_necro_powers(g, st)  # no discount: mountain 8 costs 3
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 1
    # 1 token: every lake neighbour costs 2 or 3, so only the die is left.
    assert conquer_targets(g, st) == set()
    assert ("FINAL", 8) in legal(g, st)
    rig_die(g, st, face)
    play(g, st, (Kind.FINAL, 8))
    assert st.last_die == face
    if won:
        assert st.occ[8] == GHOST and st.tok[8] == 1 and st.island == 0
        assert st.phase == Phase.REDEPLOY
        play(g, st, (Kind.END_REDEPLOY,))
    else:
        assert st.occ[8] == -1 and st.island == 1
    assert st.turn_seat == P0 and st.hand[GHOST] == 0
    g.check_invariants(st)


def test_A15_holes_and_dragons_block_ghosts():
    """RULES §4.3 A15: a Halfling Hole or the Dragon makes a region immune to the Ghosts as to anyone."""
    g, st = scen()
    give_race(g, st, P0, "Halflings", "Hill")
    put(g, st, 13, "Halflings", 1, hole=1)
    give_race(g, st, P1, "Ratmen", "Dragon Master")
    put(g, st, 12, "Ratmen", 1, dragon=1)
    to_island(g, st, 5)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    assert conquer_targets(g, st) == LAKE_NBRS - {12, 13}


def test_A19_wealthy_pays_once_at_the_end_of_his_first_turn_with_it():
    """RULES §4.3 A19: Wealthy bought later pays +7 at the end of the first turn he has it in use, then never again."""
    g, st = scen(powers=("Alchemist", "Wealthy", "Flying", "Heroic", "Mounted", "Underworld"))
    st.coins[NECRO] = 100
    g.begin_turn(st, NECRO)
    assert g.purchase_price(st) == 2
    play(g, st, (Kind.BUY_POWER, st.necro_reserve.index(WEALTHY)), (Kind.END_BUY,), (Kind.END_CONQUEST,))
    assert st.coins[NECRO] == 100 - 2 + 2 + 7  # Alchemist +2, Wealthy +7, no region
    g.begin_turn(st, NECRO)
    play(g, st, (Kind.END_BUY,), (Kind.END_CONQUEST,))
    assert st.coins[NECRO] == 107 + 2

"""The 20 special powers (RULES.md §2.2 and its engine notes), one hand-built position or more each.

Most positions use the 2-player base board (RULES §3.3, 2-player table): seas 0 and 22, the lake 7;
caverns 3, 5, 14, 17; mountains 5, 8, 15, 19; hills 4, 6, 14, 17; farmlands 1, 9, 11, 13;
forests 2, 10, 12, 21; swamps 3, 16, 18, 20. Every test name starts with ``test_power_<power>``
(the last test checks that each power of ``catalog.POWERS`` has one).
"""
from __future__ import annotations

import pytest

from necro_env.game import Game, GameConfig, IllegalActionError, Kind, Phase, encode
from necro_env.game.catalog import (
    ENCAMPMENTS, GHOULS, GIANTS, HUMANS, ORCS, POWERS, RATMEN, TRITONS, WIZARDS,
    tokens_at_pickup, power_id,
)
from necro_env.game.state import DECLINED, UNUSED

from positions import begin, empty_position, finish_turn, give_race, legal, play, put, rig_die

END_CONQUEST = (Kind.END_CONQUEST, 0)
END_REDEPLOY = (Kind.END_REDEPLOY, 0)
DECLINE = (Kind.DECLINE, 0)


# ---------------------------------------------------------------------------------------- helpers
def board2():
    """An empty 2-player base-game position (no Lost Tribes), seat 0 to play."""
    return empty_position(players=2)


def args(g, st, kind: str) -> set[int]:
    """Arguments of the legal actions of one kind (e.g. the CONQUER targets)."""
    return {a for k, a in legal(g, st) if k == kind}


def land(g) -> set[int]:
    return {r for r in range(g.num_regions) if (g.board.land_mask >> r) & 1}


# ---------------------------------------------------------------------------------------- cost modifiers
def test_power_commando_takes_one_token_off_every_conquest():
    """RULES §2.2 Commando: -1 cost on every conquest (min 1); §1.6 base costs."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Commando", hand=5)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Ratmen", 1)
    put(g, st, 3, "Lost Tribe", 1)
    put(g, st, 8, "Orcs", 2)
    begin(g, st, 0)
    # empty hill 4: 2-1; Lost Tribe 3: 3-1; mountain 8 with 2 Orcs: 5-1; empty forest 10 and hill 14: 2-1.
    assert {r: g.conquest_cost(st, r) for r in (4, 3, 8, 10, 14)} == {4: 1, 3: 2, 8: 4, 10: 1, 14: 1}
    assert args(g, st, "CONQUER") == {3, 4, 8, 10, 14}
    play(g, st, (Kind.CONQUER, 4))
    assert st.occ[4] == RATMEN and st.tok[4] == 1 and st.hand[RATMEN] == 4


def test_power_commando_with_tritons_on_a_coastal_region_costs_at_least_one():
    """RULES §2.2 engine notes: discounts stack (Tritons + Commando = -2 on a coastal region) but at least 1 token."""
    g, st = board2()
    give_race(g, st, 0, "Tritons", "Commando", hand=3)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Tritons", 1)
    put(g, st, 4, "Tritons", 1)
    put(g, st, 6, "Lost Tribe", 1)
    put(g, st, 3, "Lost Tribe", 1)
    put(g, st, 11, "Orcs", 2)
    begin(g, st, 0)
    costs = {r: g.conquest_cost(st, r) for r in (2, 5, 6, 3, 9, 10)}
    # coastal: empty forest 2: 2-2 -> 1; empty mountain 5: 3-2; Lost Tribe hill 6: 3-2.
    # not coastal: Lost Tribe swamp 3: 3-1; empty farmland 9: 2-1; empty forest 10: 2-1.
    assert costs == {2: 1, 5: 1, 6: 1, 3: 2, 9: 1, 10: 1}
    put(g, st, 6, "Orcs", 3)  # coastal with 3 Orcs: 5-2
    assert g.conquest_cost(st, 6) == 3
    play(g, st, (Kind.CONQUER, 2))
    assert st.tok[2] == 1 and st.hand[TRITONS] == 2


def test_power_mounted_discounts_hills_and_farmlands_only():
    """RULES §2.2 Mounted: -1 cost to conquer Hill and Farmland regions (min 1)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Mounted", hand=8)
    put(g, st, 3, "Ratmen", 1)
    put(g, st, 10, "Ratmen", 1)
    put(g, st, 4, "Lost Tribe", 1)
    put(g, st, 9, "Lost Tribe", 1)
    begin(g, st, 0)
    costs = {r: g.conquest_cost(st, r) for r in (4, 9, 14, 2, 8, 15)}
    # hill 4 (LT) 3-1, farmland 9 (LT) 3-1, empty hill 14 2-1; forest 2, mountains 8 and 15 full price.
    assert costs == {4: 2, 9: 2, 14: 1, 2: 2, 8: 3, 15: 3}


def test_power_mounted_stacks_with_giants_down_to_one():
    """RULES §2.1 Giants (-1 next to a Mountain they hold) + §2.2 Mounted: they stack, min 1 token."""
    g, st = board2()
    give_race(g, st, 0, "Giants", "Mounted", hand=8)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 8, "Giants", 2)      # mountain: its neighbours 2 3 7 9 13 14 get the Giants' -1
    put(g, st, 4, "Giants", 1)
    put(g, st, 14, "Lost Tribe", 1)
    put(g, st, 13, "Orcs", 3)
    put(g, st, 10, "Lost Tribe", 1)
    begin(g, st, 0)
    costs = {r: g.conquest_cost(st, r) for r in (9, 14, 13, 2, 10)}
    # farmland 9 empty: 2-1-1 = 0 -> 1; hill 14 LT: 3-2; farmland 13 with 3 Orcs: 5-2;
    # forest 2: Giants only 2-1; forest 10 (next to hill 4, not to the mountain): 3.
    assert costs == {9: 1, 14: 1, 13: 3, 2: 1, 10: 3}
    play(g, st, (Kind.CONQUER, 9))
    assert st.tok[9] == 1 and st.hand[GIANTS] == 7


def test_power_commando_stacks_with_giants():
    """RULES §2.2 engine notes: Giants' and Commando's discounts stack, never below 1 token."""
    g, st = board2()
    give_race(g, st, 0, "Giants", "Commando", hand=8)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 8, "Giants", 2)
    put(g, st, 13, "Orcs", 3)
    begin(g, st, 0)
    assert g.conquest_cost(st, 9) == 1      # 2 - 2 -> min 1
    assert g.conquest_cost(st, 13) == 3     # 5 - 2
    assert g.conquest_cost(st, 3) == 1      # empty swamp next to the mountain


def test_power_underworld_discounts_caverns_and_joins_them():
    """RULES §2.2 Underworld: -1 cost on Caverns (min 1); all Caverns are adjacent to each other for its conquests."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Underworld", hand=8)
    put(g, st, 3, "Ratmen", 1)          # swamp cavern; neighbours 2 4 8 9
    put(g, st, 14, "Lost Tribe", 1)
    begin(g, st, 0)
    # Reach: the neighbours of 3 plus every other cavern (5, 14, 17), nothing else.
    assert args(g, st, "CONQUER") == {2, 4, 8, 9, 5, 14, 17}
    costs = {r: g.conquest_cost(st, r) for r in (17, 14, 5, 2, 4, 8)}
    assert costs == {17: 1, 14: 2, 5: 2, 2: 2, 4: 2, 8: 3}
    play(g, st, (Kind.CONQUER, 17))     # far away: hill cavern on the other side of the board
    assert st.occ[17] == RATMEN and st.tok[17] == 1 and st.hand[RATMEN] == 7


def test_power_underworld_cavern_adjacency_needs_a_cavern_held():
    """RULES §2.2 Underworld: the caverns are joined only from a cavern; other races get no cavern link."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Underworld", hand=8)
    put(g, st, 9, "Ratmen", 1)          # farmland, no cavern: neighbours 3 4 8 10 14
    begin(g, st, 0)
    assert args(g, st, "CONQUER") == {3, 4, 8, 10, 14}
    g2, st2 = board2()
    give_race(g2, st2, 0, "Ratmen", "Alchemist", hand=8)
    put(g2, st2, 3, "Ratmen", 1)        # a cavern, but no Underworld
    begin(g2, st2, 0)
    assert args(g2, st2, "CONQUER") == {2, 4, 8, 9}
    assert g2.conquest_cost(st2, 4) == 2


def test_power_underworld_first_conquest_follows_the_border_rule():
    """RULES §1.6 First conquest + §2.2 Underworld: with no region held, only border caverns can be entered."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Underworld", hand=8)
    begin(g, st, 0)
    targets = args(g, st, "CONQUER")
    assert 14 not in targets                 # inner cavern
    assert {3, 5, 17} <= targets             # border caverns
    assert g.conquest_cost(st, 17) == 1


def test_power_underworld_stacks_with_tritons():
    """RULES §2.2 engine notes: Tritons (coastal) + Underworld (cavern) on a coastal cavern = -2, min 1."""
    g, st = board2()
    give_race(g, st, 0, "Tritons", "Underworld", hand=8)
    put(g, st, 3, "Tritons", 1)
    begin(g, st, 0)
    assert 5 in args(g, st, "CONQUER")      # cavern link 3 -> 5
    assert g.conquest_cost(st, 5) == 1      # mountain 3 - 2
    assert g.conquest_cost(st, 17) == 1     # hill cavern, not coastal: 2 - 1


# ---------------------------------------------------------------------------------------- movement
def test_power_flying_reaches_every_land_region():
    """RULES §2.2 Flying: may conquer any land region (no adjacency needed), never seas or the lake."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Flying", hand=3)
    put(g, st, 1, "Ratmen", 1)
    begin(g, st, 0)
    assert args(g, st, "CONQUER") == land(g) - {1}
    assert g.conquest_cost(st, 19) == 3     # no discount: an empty mountain
    play(g, st, (Kind.CONQUER, 19))         # far from region 1
    assert st.occ[19] == RATMEN


def test_power_flying_first_conquest_anywhere():
    """RULES §1.6: Flying doesn't need adjacency (nor a border region) — its first conquest may be inland."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Flying", hand=8)
    begin(g, st, 0)
    targets = args(g, st, "CONQUER")
    assert targets == land(g)
    assert {9, 14, 6} <= targets             # not border regions
    g2, st2 = board2()
    give_race(g2, st2, 0, "Ratmen", "Alchemist", hand=8)
    begin(g2, st2, 0)
    assert not {9, 14, 6} & args(g2, st2, "CONQUER")


def test_power_seafaring_conquers_seas_and_the_lake_as_empty_regions():
    """RULES §2.2 Seafaring: may conquer the seas and the lake as empty regions (cost 2); others never may."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Seafaring", hand=6)
    put(g, st, 1, "Ratmen", 1)   # next to sea 0
    put(g, st, 2, "Ratmen", 1)   # next to the lake 7
    begin(g, st, 0)
    targets = args(g, st, "CONQUER")
    assert {0, 7} <= targets
    assert g.conquest_cost(st, 0) == 2 and g.conquest_cost(st, 7) == 2
    play(g, st, (Kind.CONQUER, 0), (Kind.CONQUER, 7))
    assert st.occ[0] == RATMEN and st.occ[7] == RATMEN and st.hand[RATMEN] == 2
    g2, st2 = board2()
    give_race(g2, st2, 0, "Ratmen", "Alchemist", hand=6)
    put(g2, st2, 1, "Ratmen", 1)
    put(g2, st2, 2, "Ratmen", 1)
    begin(g2, st2, 0)
    assert not {0, 7, 22} & args(g2, st2, "CONQUER")


def test_power_seafaring_first_conquest_may_be_a_sea_but_not_the_lake():
    """RULES §1.6 First conquest: seas touch the board edge, the lake does not."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Seafaring", hand=6)
    begin(g, st, 0)
    targets = args(g, st, "CONQUER")
    assert {0, 22} <= targets and 7 not in targets


def test_power_seafaring_never_enters_the_island_lake_in_the_scenario():
    """RULES §4.1 rule 12 / A26: with the Necromancer, Seafaring may take the two seas, never the Lake."""
    g, st = empty_position(players=3, necromancer=True)   # 2-player board
    give_race(g, st, 0, "Ratmen", "Seafaring", hand=6)
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 2, "Ratmen", 1)
    begin(g, st, 0)
    targets = args(g, st, "CONQUER")
    assert 0 in targets and 7 not in targets


def test_power_seafaring_keeps_a_sea_in_decline_and_scores_it():
    """RULES §2.2 Seafaring: keeps the seas in decline and keeps scoring them (§1.8); only Seafaring may attack them."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Seafaring")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 0, "Ratmen", 1)
    put(g, st, 1, "Ratmen", 3)
    put(g, st, 5, "Orcs", 9)        # next to sea 0
    begin(g, st, 0, ready=True)
    coins = st.coins[0]
    play(g, st, DECLINE)
    assert st.race_status[RATMEN] == DECLINED and st.occ[0] == RATMEN and st.tok[0] == 1
    assert st.coins[0] == coins + 2          # the sea and region 1
    # Seat 1's Orcs (no Seafaring) cannot attack the in-decline sea.
    assert st.turn_seat == 1 and st.phase == Phase.CONQUER
    assert 0 not in args(g, st, "CONQUER") and 1 in args(g, st, "CONQUER")
    finish_turn(g, st)
    # Seat 0's next active race scores the in-decline sea too.
    give_race(g, st, 0, "Humans", "Alchemist")
    put(g, st, 16, "Humans", 1)
    begin(g, st, 0)
    coins = st.coins[0]
    finish_turn(g, st)
    assert st.coins[0] == coins + 3 + 2      # Humans 16 + Ratmen 0, 1; Alchemist +2
    # A Seafaring enemy may attack the in-decline sea (2 + 1 token).
    g2, st2 = board2()
    give_race(g2, st2, 0, "Ratmen", "Alchemist", declined=True)
    give_race(g2, st2, 1, "Orcs", "Seafaring", hand=8)
    put(g2, st2, 0, "Ratmen", 1)
    put(g2, st2, 5, "Orcs", 1)
    begin(g2, st2, 1)
    assert 0 in args(g2, st2, "CONQUER") and g2.conquest_cost(st2, 0) == 3


# ---------------------------------------------------------------------------------------- scoring
def _gain(g, st, seat: int = 0) -> int:
    coins = st.coins[seat]
    finish_turn(g, st)
    return st.coins[seat] - coins


def test_power_alchemist_two_coins_while_active_only():
    """RULES §2.2 Alchemist: +2 coins at the end of each turn while active; nothing in decline (§1.8)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Alchemist")
    put(g, st, 1, "Ratmen", 2)
    put(g, st, 2, "Ratmen", 1)
    begin(g, st, 0)
    assert _gain(g, st) == 2 + 2
    begin(g, st, 0, ready=True)
    coins = st.coins[0]
    play(g, st, DECLINE)
    assert st.coins[0] == coins + 2          # regions only


@pytest.mark.parametrize("power,regions", [("Forest", (2, 10, 12)), ("Hill", (4, 6, 14)), ("Swamp", (3, 16, 18))])
def test_power_forest_hill_swamp_one_coin_per_region_of_their_terrain(power, regions):
    """RULES §2.2 Forest / Hill / Swamp: +1 coin per region of that terrain held (region 1 is a farmland)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", power)
    for r in regions + (1,):
        put(g, st, r, "Ratmen", 1)
    begin(g, st, 0)
    assert _gain(g, st) == 4 + 3


def test_power_merchant_one_coin_per_active_region():
    """RULES §2.2 Merchant: +1 coin per region of the active race (in-decline regions score only their 1)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Merchant")
    give_race(g, st, 0, "Wizards", declined=True)
    for r in (1, 2, 4):
        put(g, st, r, "Ratmen", 1)
    put(g, st, 16, "Wizards", 1)
    begin(g, st, 0)
    assert _gain(g, st) == 4 + 3


def test_power_wealthy_paid_once_at_the_end_of_the_first_turn():
    """RULES §2.2 Wealthy: +7 coins once, at the end of the race's first turn (real game flow)."""
    g = Game(GameConfig(players=2, necromancer=False, forced_combos=(("Ratmen", "Wealthy"),)))
    st = g.new_state(3)
    play(g, st, (Kind.PICK, 0))
    assert st.active[0] == RATMEN and st.hand[RATMEN] == tokens_at_pickup(RATMEN, power_id("Wealthy")) == 12
    play(g, st, (Kind.CONQUER, 1))           # empty farmland on the edge
    assert _gain(g, st, 0) == 1 + 7
    # Seat 1 picks and passes; seat 0's second turn pays no Wealthy bonus.
    play(g, st, (Kind.PICK, 0))
    finish_turn(g, st)
    assert st.turn_seat == 0 and st.round == 2
    assert _gain(g, st, 0) == 1


def test_power_fortified_one_fortress_per_turn_coin_and_defence():
    """RULES §2.2 Fortified: once per turn a Fortress in a held region, +1 coin per Fortress while active,
    +1 defence."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Fortified")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 2)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 5, "Orcs", 9)        # seat 1 readies 8 of them
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert args(g, st, "FORTRESS") == {1, 2}
    play(g, st, (Kind.FORTRESS, 1))
    assert st.fort[1] == 1 and not args(g, st, "FORTRESS")      # one per turn
    coins = st.coins[0]
    play(g, st, END_REDEPLOY)
    assert st.coins[0] == coins + 2 + 1
    assert st.turn_seat == 1
    assert g.conquest_cost(st, 1) == 2 + 2 + 1                   # 2 tokens + the fortress
    finish_turn(g, st)
    # Next turn (troops readied: 1 token of region 1 in hand): at most one per region, so only
    # region 2 may get the second fortress.
    assert st.turn_seat == 0 and st.phase == Phase.CONQUER and st.fort_used == 0
    play(g, st, END_CONQUEST, (Kind.PLACE, 1))
    assert args(g, st, "FORTRESS") == {2}
    play(g, st, (Kind.FORTRESS, 2))
    coins = st.coins[0]
    play(g, st, END_REDEPLOY)
    assert st.coins[0] == coins + 2 + 2


def test_power_fortified_six_fortresses_on_the_map_at_most():
    """RULES §2.2 Fortified: max 6 Fortresses on the map (fortresses of an in-decline race count)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Fortified")
    give_race(g, st, 1, "Humans", declined=True)
    put(g, st, 1, "Ratmen", 1)
    for r in (11, 12, 13, 16, 17, 18):
        put(g, st, r, "Humans", 1, fort=1)
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert not args(g, st, "FORTRESS")
    assert ("END_REDEPLOY", 0) in legal(g, st)


def test_power_fortified_defence_kept_in_decline_without_coins():
    """RULES §2.2 Fortified / §1.10: in decline the Fortress still defends (+1) but earns nothing."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Fortified")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 3, fort=1)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 5, "Orcs", 9)        # seat 1 readies 8 of them
    begin(g, st, 0, ready=True)
    coins = st.coins[0]
    play(g, st, DECLINE)
    assert st.coins[0] == coins + 2          # 2 regions, no fortress coin
    assert st.fort[1] == 1 and st.tok[1] == 1
    assert st.turn_seat == 1
    assert g.conquest_cost(st, 1) == 2 + 1 + 1


def test_power_fortified_fortress_removed_when_abandoned_or_conquered():
    """RULES §2.2 Fortified: the Fortress is removed if its region is abandoned or conquered."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Fortified", hand=5)
    put(g, st, 1, "Ratmen", 1, fort=1)
    put(g, st, 2, "Ratmen", 1)
    begin(g, st, 0)
    play(g, st, (Kind.ABANDON, 1))
    assert st.fort[1] == 0 and st.occ[1] == -1
    g2, st2 = board2()
    give_race(g2, st2, 0, "Orcs", "Alchemist", hand=6)
    give_race(g2, st2, 1, "Ratmen", "Fortified")
    put(g2, st2, 5, "Orcs", 1)
    put(g2, st2, 1, "Ratmen", 1, fort=1)
    put(g2, st2, 2, "Ratmen", 1)
    begin(g2, st2, 0)
    assert g2.conquest_cost(st2, 1) == 4
    play(g2, st2, (Kind.CONQUER, 1))
    assert st2.fort[1] == 0 and st2.occ[1] == ORCS


def test_power_pillaging_one_coin_per_non_empty_conquest():
    """RULES §2.2 Pillaging: +1 coin per non-empty region conquered this turn (§1.9: Lost Tribes count)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Pillaging", hand=9)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 6, "Lost Tribe", 1)
    put(g, st, 5, "Orcs", 1)
    put(g, st, 11, "Orcs", 1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 2), (Kind.CONQUER, 6), (Kind.CONQUER, 5))   # 2 + 3 + 4 tokens
    assert st.hand[RATMEN] == 0
    assert _gain(g, st) == 4 + 2             # 4 regions; Lost Tribe 6 and Orc 5 were non-empty


# ---------------------------------------------------------------------------------------- Dragon Master
def test_power_dragon_master_conquers_with_one_token_once_per_turn():
    """RULES §2.2 Dragon Master: once per turn, conquer a region with a single token regardless of defenders."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Dragon Master", hand=4)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 2, "Orcs", 4)
    put(g, st, 3, "Orcs", 1)
    put(g, st, 6, "Lost Tribe", 1)
    begin(g, st, 0)
    assert 2 not in args(g, st, "CONQUER")           # 2 + 4 tokens needed
    assert args(g, st, "DRAGON") == {2, 5, 6}        # every reachable land region (not sea 0)
    play(g, st, (Kind.DRAGON, 2))
    assert st.occ[2] == RATMEN and st.tok[2] == 1 and st.hand[RATMEN] == 3
    assert st.dragon == 2 and (st.immune >> 2) & 1
    assert st.hand[ORCS] == 3                        # 4 defenders, 1 lost
    assert not args(g, st, "DRAGON")                 # once per turn
    assert 6 in args(g, st, "CONQUER")


def test_power_dragon_master_region_is_immune():
    """RULES §2.2 Dragon Master: the dragon's region is immune to conquest and to racial/special powers."""
    g, st = board2()
    give_race(g, st, 0, "Sorcerers", "Dragon Master", hand=10)
    give_race(g, st, 1, "Ratmen", "Dragon Master")
    put(g, st, 5, "Sorcerers", 2)
    put(g, st, 1, "Ratmen", 1, dragon=1)
    put(g, st, 6, "Ratmen", 1)
    begin(g, st, 0)
    assert 1 not in args(g, st, "CONQUER") and 1 not in args(g, st, "DRAGON")
    assert args(g, st, "CONVERT") == {6}             # the lone token under the dragon is safe


def test_power_dragon_master_against_a_fortified_region():
    """RULES §2.2 Dragon Master vs Fortified: 1 token takes a fortified mountain; the Fortress is removed (§1.6)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Dragon Master", hand=1)
    give_race(g, st, 1, "Orcs", "Fortified")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 5, "Orcs", 3, fort=1)
    put(g, st, 11, "Orcs", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 5) == 2 + 3 + 1 + 1
    assert 5 not in args(g, st, "CONQUER") and 5 in args(g, st, "DRAGON")
    play(g, st, (Kind.DRAGON, 5))
    assert st.occ[5] == RATMEN and st.tok[5] == 1 and st.fort[5] == 0 and st.dragon == 5
    assert st.hand[ORCS] == 2
    finish_turn(g, st)
    # The survivors went back on the Orcs' last region (then seat 1's turn readied them).
    assert st.turn_seat == 1 and st.tok[11] + st.hand[ORCS] == 3


def test_power_dragon_master_moves_to_a_new_conquest_each_turn():
    """RULES §2.2 Dragon Master: each turn the Dragon may move to a new conquest; the old region loses immunity."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Dragon Master", hand=2)
    put(g, st, 1, "Ratmen", 1, dragon=1)
    put(g, st, 6, "Lost Tribe", 1)
    begin(g, st, 0)
    assert st.dragon == 1 and st.immune == 1 << 1    # it stays until moved
    play(g, st, (Kind.DRAGON, 6))
    assert st.dragon == 6 and st.immune == 1 << 6


def test_power_dragon_master_keeps_a_hole_immune_when_it_moves():
    """RULES §2.1 Halflings + §2.2 Dragon Master: moving the dragon off a hole leaves the hole's immunity."""
    g, st = board2()
    give_race(g, st, 0, "Halflings", "Dragon Master", hand=2)
    put(g, st, 1, "Halflings", 1, hole=1, dragon=1)
    put(g, st, 2, "Halflings", 1, hole=1)
    st.holes_placed = 2
    begin(g, st, 0)
    play(g, st, (Kind.DRAGON, 6))
    assert st.dragon == 6 and st.immune == (1 << 1) | (1 << 2) | (1 << 6)


def test_power_dragon_master_on_a_first_conquest_follows_the_border_rule():
    """RULES §5 / §2.2: the Dragon may be used on a first conquest, subject to the first-conquest region rule."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Dragon Master", hand=5)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 3, "Orcs", 5)
    put(g, st, 9, "Orcs", 5)
    begin(g, st, 0)
    first = {r for r in range(g.num_regions) if g.board.first_conquest_ok[r]}
    assert args(g, st, "DRAGON") == first
    assert 3 in first and 9 not in first
    play(g, st, (Kind.DRAGON, 3))
    assert st.occ[3] == RATMEN and st.dragon == 3


def test_power_dragon_master_dragon_removed_on_decline():
    """RULES §1.10 / §2.2 Dragon Master: the Dragon is removed when the race declines."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Dragon Master")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 2, dragon=1)
    put(g, st, 5, "Orcs", 9)        # seat 1 readies 8 of them
    begin(g, st, 0, ready=True)
    play(g, st, DECLINE)
    assert st.dragon == -1 and st.immune == 0
    assert 1 in args(g, st, "CONQUER")               # seat 1 may now attack it


# ---------------------------------------------------------------------------------------- Heroic
def test_power_heroic_two_heroes_in_two_different_regions():
    """RULES §2.2 Heroic: at the end of the turn the 2 Heroes go in 2 different held regions (engine:
    both must be placed)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Heroic")
    put(g, st, 1, "Ratmen", 3)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 4, "Ratmen", 1)
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert args(g, st, "HERO") == {1, 2, 4}
    assert ("END_REDEPLOY", 0) not in legal(g, st)
    play(g, st, (Kind.HERO, 1))
    assert args(g, st, "HERO") == {2, 4}            # not twice in one region
    assert ("END_REDEPLOY", 0) not in legal(g, st)
    play(g, st, (Kind.HERO, 4))
    assert not args(g, st, "HERO") and ("END_REDEPLOY", 0) in legal(g, st)
    play(g, st, END_REDEPLOY)
    assert st.hero[1] == st.hero[4] == 1 and sum(st.hero) == 2
    assert st.immune == (1 << 1) | (1 << 4)


def test_power_heroic_regions_are_immune_to_conquest_and_the_dragon():
    """RULES §2.2 Heroic: the heroes' regions are immune to conquest and to racial/special powers."""
    g, st = board2()
    give_race(g, st, 0, "Orcs", "Dragon Master", hand=8)
    give_race(g, st, 1, "Ratmen", "Heroic")
    put(g, st, 5, "Orcs", 1)
    put(g, st, 1, "Ratmen", 1, hero=1)
    put(g, st, 11, "Ratmen", 1, hero=1)
    put(g, st, 6, "Ratmen", 1)
    begin(g, st, 0)
    assert args(g, st, "CONQUER") == {6}
    assert args(g, st, "DRAGON") == {6}


@pytest.mark.parametrize("power,markers", [("Heroic", ({"hero": 1}, {"hero": 1})),
                                           ("Bivouacking", ({"encamp": 1}, {"encamp": 4}))])
def test_power_heroic_and_bivouacking_markers_block_sorcerers(power, markers):
    """RULES §2.2 Heroic / Bivouacking vs §2.1 Sorcerers: a lone token under a hero, or with an Encampment
    (it counts as a token), cannot be converted."""
    g, st = board2()
    give_race(g, st, 0, "Sorcerers", "Alchemist")
    give_race(g, st, 1, "Ratmen", power)
    put(g, st, 5, "Sorcerers", 2)
    put(g, st, 1, "Ratmen", 1, **markers[0])
    put(g, st, 2, "Ratmen", 1, **markers[1])
    put(g, st, 6, "Ratmen", 1)
    begin(g, st, 0)
    assert args(g, st, "CONVERT") == {6}


def test_power_heroic_heroes_lifted_and_replaced_each_turn():
    """RULES §2.2 Heroic: immune until the Heroes move; engine: lifted at redeployment and placed again."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Heroic", hand=2)
    put(g, st, 1, "Ratmen", 1, hero=1)
    put(g, st, 2, "Ratmen", 1, hero=1)
    begin(g, st, 0)
    assert st.immune == (1 << 1) | (1 << 2)          # still in place during the conquests
    play(g, st, (Kind.CONQUER, 6))
    play(g, st, END_CONQUEST)
    assert sum(st.hero) == 0 and st.hero_pool == 2 and st.immune == 0
    assert args(g, st, "HERO") == {1, 2, 6}
    play(g, st, (Kind.HERO, 6), (Kind.HERO, 2), END_REDEPLOY)
    assert st.immune == (1 << 2) | (1 << 6) and st.hero[1] == 0


def test_power_heroic_heroes_removed_on_decline():
    """RULES §1.10: Heroes are removed when the race declines."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Heroic")
    put(g, st, 1, "Ratmen", 2, hero=1)
    put(g, st, 2, "Ratmen", 1, hero=1)
    begin(g, st, 0, ready=True)
    play(g, st, DECLINE)
    assert sum(st.hero) == 0 and st.hero_pool == 0 and st.immune == 0


def test_power_heroic_leftover_hero_never_reaches_another_race():
    """RULES §2.2 Heroic: the Heroes belong to the Heroic race;
    another race's redeployment neither places nor waits for them."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Heroic")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)                       # a single region: only one hero can be placed
    put(g, st, 15, "Orcs", 1)
    begin(g, st, 0)
    play(g, st, END_CONQUEST, (Kind.HERO, 1), END_REDEPLOY)
    assert st.turn_seat == 1
    play(g, st, END_CONQUEST)
    assert not args(g, st, "HERO") and ("END_REDEPLOY", 0) in legal(g, st)


# ---------------------------------------------------------------------------------------- Bivouacking
def test_power_bivouacking_five_encampments_several_per_region():
    """RULES §2.2 Bivouacking: place the 5 Encampments in own regions (several per region); each +1 defence."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Bivouacking")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 2)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 5, "Orcs", 9)        # seat 1 readies 8 of them
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert st.encamp_pool == ENCAMPMENTS
    for _ in range(3):
        assert args(g, st, "ENCAMP") == {1, 2}
        assert ("END_REDEPLOY", 0) not in legal(g, st)
        play(g, st, (Kind.ENCAMP, 1))
    play(g, st, (Kind.ENCAMP, 2), (Kind.ENCAMP, 2))
    assert st.encamp[1] == 3 and st.encamp[2] == 2 and st.encamp_pool == 0
    assert not args(g, st, "ENCAMP")
    play(g, st, END_REDEPLOY)
    assert st.turn_seat == 1
    assert g.conquest_cost(st, 1) == 2 + 2 + 3


def test_power_bivouacking_encampments_never_lost_to_an_attack():
    """RULES §1.6 / §2.2 Bivouacking: Encampments are not lost; the owner re-places them at the end of that turn."""
    g, st = board2()
    give_race(g, st, 0, "Orcs", "Alchemist", hand=8)
    give_race(g, st, 1, "Ratmen", "Bivouacking")
    put(g, st, 5, "Orcs", 1)
    put(g, st, 1, "Ratmen", 2, encamp=3)
    put(g, st, 2, "Ratmen", 1, encamp=2)
    put(g, st, 16, "Ratmen", 1)
    begin(g, st, 0)
    assert g.conquest_cost(st, 1) == 2 + 2 + 3
    play(g, st, (Kind.CONQUER, 1))
    assert st.encamp[1] == 0 and st.encamp_pool == 3 and st.hand[RATMEN] == 1
    finish_turn(g, st)
    # Seat 1 (the defender) now places its survivor, then its 3 encampments.
    assert st.phase == Phase.DEFEND and st.decider == 1
    play(g, st, (Kind.PLACE, 16))
    assert st.phase == Phase.DEFEND and args(g, st, "ENCAMP") == {2, 16}
    play(g, st, (Kind.ENCAMP, 16), (Kind.ENCAMP, 16), (Kind.ENCAMP, 2))
    assert sum(st.encamp) == ENCAMPMENTS and st.encamp_pool == 0
    assert st.encamp[16] == 2 and st.encamp[2] == 3
    assert st.turn_seat == 1 and st.phase == Phase.CONQUER


def test_power_bivouacking_leftover_encampments_never_reach_another_race():
    """RULES §2.2 Bivouacking: the Encampments are the Bivouacking race's; when it has lost every region they
    wait in its pool, and another race's redeployment neither places them nor waits for them."""
    g, st = board2()
    give_race(g, st, 0, "Orcs", "Alchemist", hand=8)
    give_race(g, st, 1, "Ratmen", "Bivouacking")
    put(g, st, 5, "Orcs", 1)
    put(g, st, 1, "Ratmen", 1, encamp=5)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 1))                   # 2 + 1 + 5 encampments
    assert st.regions[RATMEN] == 0 and st.encamp_pool == ENCAMPMENTS
    play(g, st, END_CONQUEST)
    assert not args(g, st, "ENCAMP") and ("END_REDEPLOY", 0) in legal(g, st)
    finish_turn(g, st)
    assert st.turn_seat == 1 and sum(st.encamp) == 0


def test_power_bivouacking_replaced_each_turn_and_removed_on_decline():
    """RULES §2.2 Bivouacking: may be moved every turn (engine: lifted at redeployment);
    removed when the race declines."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Bivouacking")
    put(g, st, 1, "Ratmen", 2, encamp=5)
    put(g, st, 2, "Ratmen", 1)
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert sum(st.encamp) == 0 and st.encamp_pool == ENCAMPMENTS
    for _ in range(ENCAMPMENTS):
        play(g, st, (Kind.ENCAMP, 2))
    play(g, st, END_REDEPLOY)
    assert st.encamp[2] == 5 and st.encamp[1] == 0
    begin(g, st, 0, ready=True)
    play(g, st, DECLINE)
    assert sum(st.encamp) == 0 and st.encamp_pool == 0


# ---------------------------------------------------------------------------------------- Berserk
def test_power_berserk_rolls_then_chooses_the_target():
    """RULES §2.2 Berserk: roll first, then choose the target, then place (cost - roll) tokens (min 1)."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Berserk", hand=3)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 6, "Orcs", 3)        # hill with 3 Orcs: cost 5
    put(g, st, 11, "Orcs", 1)
    begin(g, st, 0)
    la = legal(g, st)
    assert args(g, st, "CONQUER") == {2, 5}       # affordable outright: forest 2 (2), mountain 5 (3)
    assert ("BERSERK_ROLL", 0) in la and not args(g, st, "FINAL")
    rig_die(g, st, 3)
    play(g, st, (Kind.BERSERK_ROLL, 0))
    assert st.phase == Phase.BERSERK and st.berserk == 3 and st.last_die == 3
    la = legal(g, st)
    assert {k for k, _ in la} == {"CONQUER", "END_CONQUEST"}   # the target is chosen after the roll
    assert args(g, st, "CONQUER") == {2, 5, 6}
    play(g, st, (Kind.CONQUER, 6))
    assert st.occ[6] == RATMEN and st.tok[6] == 2 and st.hand[RATMEN] == 1   # 5 - 3
    assert st.phase == Phase.CONQUER
    # Roll again before the next conquest: 2 on an empty forest still places 1 token.
    rig_die(g, st, 2)
    play(g, st, (Kind.BERSERK_ROLL, 0), (Kind.CONQUER, 2))
    assert st.tok[2] == 1 and st.hand[RATMEN] == 0


def test_power_berserk_failed_roll_is_the_last_attempt_and_no_final_die():
    """RULES §2.2 Berserk: if not enough tokens remain after the roll, that attempt is the last; no §1.6 final die."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Berserk", hand=1)
    put(g, st, 1, "Ratmen", 1)
    begin(g, st, 0)
    assert not args(g, st, "CONQUER") and not args(g, st, "FINAL")
    assert ("BERSERK_ROLL", 0) in legal(g, st)
    rig_die(g, st, 0)
    play(g, st, (Kind.BERSERK_ROLL, 0))
    assert legal(g, st) == {("END_CONQUEST", 0)}
    play(g, st, END_CONQUEST)
    assert st.phase == Phase.REDEPLOY
    # The same position without Berserk gets the reinforcement die instead.
    g2, st2 = board2()
    give_race(g2, st2, 0, "Ratmen", "Alchemist", hand=1)
    put(g2, st2, 1, "Ratmen", 1)
    begin(g2, st2, 0)
    assert args(g2, st2, "FINAL") == {2, 5, 6} and ("BERSERK_ROLL", 0) not in legal(g2, st2)


# ---------------------------------------------------------------------------------------- Diplomat
def _diplomat_position():
    """3-player base board: seat 0 Ratmen+Diplomat (+ in-decline Wizards), seat 1 Orcs,
    seat 2 Humans + in-decline Ghouls."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", "Diplomat", hand=4)
    give_race(g, st, 0, "Wizards", declined=True)
    give_race(g, st, 1, "Orcs", "Alchemist")
    give_race(g, st, 2, "Humans", "Alchemist")
    give_race(g, st, 2, "Ghouls", declined=True)
    put(g, st, 3, "Ratmen", 2)
    put(g, st, 11, "Wizards", 1)
    put(g, st, 2, "Orcs", 1)        # mountain next to 3
    put(g, st, 8, "Orcs", 8)        # readied at the start of seat 1's turn: 7 in hand
    put(g, st, 4, "Humans", 1)
    put(g, st, 9, "Humans", 9)      # readied at the start of the Humans' segment: 8 in hand
    put(g, st, 10, "Ghouls", 8)     # mountain next to 3, 4, 9, 11
    begin(g, st, 0)
    return g, st


def test_power_diplomat_pact_with_an_opponent_not_attacked():
    """RULES §2.2 Diplomat: at the end of the turn name one opponent whose active race was not attacked this turn."""
    g, st = _diplomat_position()
    play(g, st, (Kind.CONQUER, 2))              # attacks seat 1's Orcs (2 + 1 + mountain = 4 tokens)
    finish_turn(g, st)
    assert st.phase == Phase.DIPLOMAT and st.decider == 0
    assert legal(g, st) == {("DIPLOMAT", 2)}     # seat 1 was attacked; offset 2 = seat 2
    play(g, st, (Kind.DIPLOMAT, 2))
    assert st.pact[0] == 2
    assert st.turn_seat == 1


def test_power_diplomat_pact_respected_by_the_mask_but_not_by_in_decline_ghouls():
    """RULES §2.2 Diplomat: the named opponent may not attack our active race until our next turn;
    in-decline Ghouls may."""
    g, st = _diplomat_position()
    play(g, st, (Kind.CONQUER, 2))
    finish_turn(g, st)
    play(g, st, (Kind.DIPLOMAT, 2))
    # Seat 1 (no pact) may attack the Ratmen.
    assert st.turn_seat == 1 and 2 in args(g, st, "CONQUER")
    finish_turn(g, st)
    # Seat 2: its in-decline Ghouls act first and are not bound by the pact.
    assert st.turn_seat == 2 and st.cur_race == GHOULS
    assert 3 in args(g, st, "CONQUER")
    play(g, st, (Kind.CONQUER, 3))
    assert st.occ[3] == GHOULS
    finish_turn(g, st)
    # Seat 2's active Humans: region 2 (the Ratmen's, next to Humans' 9) is masked; Wizards' 11
    # (seat 0's in-decline race, next to Humans' 4) is not.
    assert st.cur_race == HUMANS and st.phase == Phase.CONQUER
    assert g.conquest_cost(st, 2) <= st.hand[HUMANS]    # affordable: only the pact forbids it
    mask = g.legal_action_mask(st)
    assert mask[encode((Kind.CONQUER, 2))] == 0
    assert mask[encode((Kind.CONQUER, 11))] == 1
    with pytest.raises(IllegalActionError):
        g.apply(st, encode((Kind.CONQUER, 2)))
    finish_turn(g, st)
    # The pact ends when the Diplomat's next turn starts.
    assert st.turn_seat == 0 and st.pact[0] == -1


def test_power_diplomat_pact_also_stops_sorcerer_conversions():
    """RULES §2.2 Diplomat: the named opponent may not attack our active race — a Sorcerer conversion is an attack."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Diplomat")
    give_race(g, st, 1, "Sorcerers", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 5, "Sorcerers", 2)
    begin(g, st, 1)
    assert args(g, st, "CONVERT") == {1}
    st.pact[0] = 1          # seat 0 named seat 1 at the end of its last turn
    g.invalidate(st)
    assert not args(g, st, "CONVERT")


def test_power_diplomat_cannot_name_the_necromancer():
    """RULES §4.1 rule 16 / A15: Ghosts count as in decline, so no Diplomat pact with the Necromancer."""
    g, st = empty_position(players=3, necromancer=True)
    give_race(g, st, 0, "Ratmen", "Diplomat")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 16, "Orcs", 1)
    begin(g, st, 0)
    finish_turn(g, st)
    assert st.phase == Phase.DIPLOMAT and legal(g, st) == {("DIPLOMAT", 1)}


# ---------------------------------------------------------------------------------------- Stout
def test_power_stout_declines_after_scoring_at_the_end_of_a_normal_turn():
    """RULES §1.10 / §2.2 Stout: after conquering and scoring (active bonuses included), go into decline;
    no lost turn."""
    g, st = board2()
    give_race(g, st, 0, "Humans", "Stout", hand=2)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Humans", 3)
    put(g, st, 9, "Humans", 1)
    put(g, st, 4, "Humans", 1)
    put(g, st, 16, "Orcs", 1)
    begin(g, st, 0)
    play(g, st, (Kind.CONQUER, 3))           # empty swamp next to 4 and 9
    play(g, st, END_CONQUEST)
    assert {("END_REDEPLOY", 0), ("STOUT_DECLINE", 0)} <= legal(g, st)
    coins = st.coins[0]
    play(g, st, (Kind.STOUT_DECLINE, 0))
    assert st.coins[0] == coins + 4 + 2       # 4 regions + Humans' 2 farmlands, scored while active
    assert st.active[0] == -1 and st.decl[0] == HUMANS and st.race_status[HUMANS] == DECLINED
    assert st.tok[1] == 1 and st.tok[3] == 1
    assert st.turn_seat == 1
    finish_turn(g, st)
    assert st.turn_seat == 0 and st.phase == Phase.PICK     # picks a new race at once


def test_power_stout_only_for_stout():
    """RULES §2.2 Stout: the end-of-turn decline is Stout's alone (others decline instead of expanding, §1.5)."""
    g, st = board2()
    give_race(g, st, 0, "Humans", "Alchemist")
    put(g, st, 1, "Humans", 1)
    begin(g, st, 0)
    play(g, st, END_CONQUEST)
    assert ("STOUT_DECLINE", 0) not in legal(g, st)


# ---------------------------------------------------------------------------------------- Spirit
def test_power_spirit_two_in_decline_races_and_a_third_decline():
    """RULES §1.10 item 3 / §2.2 Spirit: a Spirit race does not count toward the one-in-decline limit; a third
    decline removes the non-Spirit old race, never the Spirit one."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Spirit")
    give_race(g, st, 0, "Wizards", declined=True)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 2)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 10, "Wizards", 1)
    put(g, st, 19, "Orcs", 1)
    begin(g, st, 0, ready=True)
    coins = st.coins[0]
    play(g, st, DECLINE)
    assert st.decl[0] == WIZARDS and st.decl_spirit[0] == RATMEN
    assert st.occ[10] == WIZARDS and st.occ[1] == RATMEN and st.occ[2] == RATMEN
    assert st.coins[0] == coins + 3
    # A new race for seat 0, then its decline: the Wizards go, the Spirit Ratmen stay.
    give_race(g, st, 0, "Giants", "Alchemist")
    put(g, st, 16, "Giants", 2)
    begin(g, st, 0, ready=True)
    coins = st.coins[0]
    play(g, st, DECLINE)
    assert st.decl[0] == GIANTS and st.decl_spirit[0] == RATMEN
    assert st.occ[10] == -1 and st.race_status[WIZARDS] == UNUSED and WIZARDS in st.race_deck + st.col_race
    assert st.occ[1] == RATMEN and st.occ[2] == RATMEN and st.race_status[RATMEN] == DECLINED
    assert st.coins[0] == coins + 3          # Giants 16 + Ratmen 1, 2


def test_power_spirit_in_decline_leaves_only_by_conquest():
    """RULES §2.2 Spirit: its in-decline tokens never leave the map except by enemy conquest."""
    g, st = board2()
    give_race(g, st, 0, "Ratmen", "Alchemist", declined=True, spirit=True)
    give_race(g, st, 1, "Orcs", "Alchemist", hand=8)
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 2, "Ratmen", 1)
    put(g, st, 5, "Orcs", 1)
    begin(g, st, 1)
    play(g, st, (Kind.CONQUER, 1))
    assert st.occ[1] == ORCS and st.occ[2] == RATMEN and st.decl_spirit[0] == RATMEN


# ---------------------------------------------------------------------------------------- immunity
def test_power_immunity_holes_block_conquest_dragon_and_sorcerers():
    """RULES §2.1 Halflings / §2.2 engine notes: a Hole-in-the-Ground blocks conquest, the Dragon and Sorcerers."""
    g, st = board2()
    give_race(g, st, 0, "Sorcerers", "Dragon Master", hand=10)
    give_race(g, st, 1, "Halflings", "Alchemist")
    put(g, st, 5, "Sorcerers", 2)
    put(g, st, 1, "Halflings", 1, hole=1)
    put(g, st, 6, "Halflings", 1)
    begin(g, st, 0)
    assert 1 not in args(g, st, "CONQUER") and 1 not in args(g, st, "DRAGON")
    assert args(g, st, "CONVERT") == {6}


# ---------------------------------------------------------------------------------------- config and coverage
def test_power_forced_combos_on_top_of_the_column_in_order():
    """RULES §1.2 item 4 (combo column of 6): GameConfig.forced_combos puts the pairs at the top, in order."""
    pairs = (("Tritons", "Commando"), ("Giants", "Mounted"), ("Ratmen", "Spirit"))
    for cfg in (GameConfig(players=2, necromancer=False, forced_combos=pairs),
                GameConfig(players=4, forced_combos=pairs)):
        g = Game(cfg)
        for seed in (0, 1, 99):
            st = g.new_state(seed)
            assert st.col_race[:3] == [TRITONS, GIANTS, RATMEN]
            assert st.col_power[:3] == [power_id("Commando"), power_id("Mounted"), power_id("Spirit")]
            assert len(st.col_race) == 6 and len(set(st.col_race)) == 6 and len(set(st.col_power)) == 6
            assert not {power_id(p) for _, p in pairs} & set(st.necro_draw)
    g = Game(GameConfig(players=2, necromancer=False, forced_combos=pairs))
    st = g.new_state(5)
    play(g, st, (Kind.PICK, 0))
    assert st.active[0] == TRITONS and st.race_power[TRITONS] == 1 << power_id("Commando")
    assert st.hand[TRITONS] == 6 + 4


def test_power_every_power_has_a_named_test():
    """RULES §2.2: no power without a test — each name of catalog.POWERS appears in a test function name here
    (``test_power_<name>_...``, or among the names of a parametrized one)."""
    names = [n for n, f in globals().items() if n.startswith("test_power_") and callable(f)]
    missing = [p.name for p in POWERS
               if not any(f"_{p.name.lower().replace(' ', '_')}_" in n for n in names)]
    assert not missing, f"powers without a test_power_..._<name>_... test: {missing}"
    assert len(POWERS) == 20


@pytest.mark.parametrize("race", ["Halflings", "Ratmen"])
def test_power_seafaring_first_conquest_may_take_a_sea(race):
    """RULES §2.2 Seafaring + §1.6 first conquest: seas touch the board edge, so a Seafaring race
    (Halflings included, whose first conquest may be anywhere) may enter on a sea."""
    g, st = empty_position(players=2, necromancer=False)
    give_race(g, st, 0, race, "Seafaring", hand=8)
    begin(g, st, 0)
    seas = {r for k, r in legal(g, st) if k == "CONQUER" and g.board.terrain[r] == 5}
    assert seas == set(g.board.seas)
    # The lake (base game, Seafaring) is not a border region: only the Halflings may start there.
    assert (("CONQUER", g.board.lake) in legal(g, st)) == (race == "Halflings")


def test_power_index_of_catalog_names_real_engine_code():
    """catalog.py's docstring indexes where the engine reads each power: every power is listed, every
    method named exists on ``Game``, and a power the engine reads by its flag has the flag in one of them."""
    import inspect
    import re

    from necro_env.game import catalog

    doc = catalog.__doc__
    index = doc[doc.index("    Alchemist"):]
    entries: dict[str, list[str]] = {}
    current = None
    for line in index.splitlines():
        m = re.match(r"    (\S.*?)\s{2,}(.*)", line)
        if m and m.group(1)[0].isupper():
            current = m.group(1)
            entries[current] = []
        elif not line.strip():
            break
        entries[current] += re.findall(r"\b(_[a-z_]+|[a-z][a-z_]+)\b(?=[ ,(]|$)", m.group(2) if m else line)
    assert sorted(entries) == sorted(p.name for p in POWERS)
    flags = {"Dragon Master": "P_DRAGON"}
    for power, methods in entries.items():
        methods = [m for m in methods if m.startswith("_")]
        assert methods, power
        for name in methods:
            assert callable(getattr(Game, name, None)), f"{power}: Game.{name} does not exist"
        p = POWERS[power_id(power)]
        if p.score is None and p.discount is None:
            flag = flags.get(power, "P_" + power.upper())
            assert any(flag in inspect.getsource(getattr(Game, n)) for n in methods), f"{power}: {flag} read nowhere"

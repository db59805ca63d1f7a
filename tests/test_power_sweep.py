"""Invariant sweep over every race/power pair (RULES.md §2.1, §2.2; §1 conservation laws).

Every one of the 14 x 20 = 280 race/power pairs is forced into slot 0 of the combo column
(``GameConfig.forced_combos``) on the 2-player base board, and seat 0's biased random policy
always takes slot 0 on its first PICK, so the pair is really played. Each pair plays
``GAMES_PER_PAIR`` seeded games. ``Game.check_invariants`` (token conservation, banners, a legal
action exists) and the piece checks below (the box's 2 heroes, 1 dragon, 5 encampments,
6 fortresses, 10 troll lairs, 2 holes, and which race each marker may sit with) run after every
action of the pairs in ``FULL_CHECK`` and at the end of every turn and game of the others.

One test per race, so pytest-xdist can spread the 280 pairs. Measured on one core: about 12 s
for the 5,600 games (checking after every action of every game would take about 25 s).
"""
from __future__ import annotations

import random

import pytest

from necro_env.game import NUM_ACTIONS, Game, GameConfig, IllegalActionError, Kind, Phase, StateError, decode
from necro_env.game.catalog import (
    DRAGONS, ENCAMPMENTS, FORTRESSES, HALFLINGS, HEROES, HOLES, LOST_TRIBE, NUM_RACES, POWERS, RACES,
    SEAFARING, TROLL_LAIRS, TROLLS, P_BIVOUACKING, P_DRAGON, P_FORTIFIED, P_HEROIC, P_SEAFARING,
)
from necro_env.game.state import ACTIVE, DECLINED, GHOSTLY, UNUSED

GAMES_PER_PAIR = 20
# Pairs whose markers move the most: checked after every action, not only at turn ends.
FULL_CHECK = {
    ("Halflings", "Heroic"), ("Sorcerers", "Bivouacking"), ("Ghouls", "Dragon Master"),
    ("Trolls", "Fortified"), ("Amazons", "Berserk"), ("Tritons", "Seafaring"),
    ("Skeletons", "Spirit"), ("Elves", "Stout"), ("Giants", "Diplomat"), ("Ratmen", "Underworld"),
}

KIND = [decode(i).kind for i in range(NUM_ACTIONS)]
# Relative weights of the action kinds for the random policy: conquests and markers are
# preferred over ending early, so the powers are actually exercised.
WEIGHT = {
    Kind.PICK: 1.0, Kind.DECLINE: 0.25, Kind.ABANDON: 0.15, Kind.CONQUER: 6.0, Kind.FINAL: 1.5,
    Kind.END_CONQUEST: 0.6, Kind.LIFT: 0.8, Kind.PLACE: 3.0, Kind.END_REDEPLOY: 1.0,
    Kind.DRAGON: 3.0, Kind.HERO: 3.0, Kind.ENCAMP: 3.0, Kind.FORTRESS: 3.0, Kind.CONVERT: 3.0,
    Kind.BERSERK_ROLL: 3.0, Kind.STOUT_DECLINE: 0.4, Kind.DIPLOMAT: 1.0,
}


def choose(legal: list[int], rng: random.Random) -> int:
    """Pick a kind by weight among the legal kinds, then an action of that kind uniformly."""
    if len(legal) == 1:
        return legal[0]
    groups: dict[Kind, list[int]] = {}
    for a in legal:
        groups.setdefault(KIND[a], []).append(a)
    kinds = list(groups)
    k = rng.choices(kinds, weights=[WEIGHT.get(x, 1.0) for x in kinds])[0]
    return rng.choice(groups[k])


def check_pieces(g: Game, st, seafarers: set[int]) -> None:
    """The box's marker counts, and each marker only where its owner stands (RULES §1.1, §2.2)."""
    nr = g.num_regions
    assert sum(st.hero) + st.hero_pool <= HEROES, "more than 2 heroes"
    assert sum(st.encamp) + st.encamp_pool <= ENCAMPMENTS, "more than 5 encampments"
    assert sum(st.fort) <= FORTRESSES, "more than 6 fortresses"
    assert sum(st.lair) <= TROLL_LAIRS, "more than 10 troll lairs"
    assert sum(st.hole) <= HOLES and st.holes_placed <= HOLES, "more than 2 holes"
    assert DRAGONS == 1 and -1 <= st.dragon < nr
    immune = 0
    for r in range(nr):
        x = st.occ[r]
        active = x >= 0 and st.race_status[x] in (ACTIVE, GHOSTLY)   # Ghosts: the Necromancer's race
        powers = st.race_power[x] if x >= 0 else 0
        if st.hero[r] or st.hole[r] or st.dragon == r:
            immune |= 1 << r
        if st.hero[r]:
            assert active and powers & P_HEROIC, f"hero on region {r} not held by an active Heroic race"
        if st.encamp[r]:
            assert active and powers & P_BIVOUACKING, f"encampment on region {r} not held by Bivouacking"
        if st.hole[r]:
            assert x == HALFLINGS and active, f"hole on region {r} not held by active Halflings"
        if st.lair[r]:
            assert x == TROLLS, f"troll lair on region {r} held by {x}"
        if st.fort[r]:
            assert x >= 0 and x != LOST_TRIBE and (st.race_status[x] == DECLINED or powers & P_FORTIFIED), \
                f"fortress on region {r} held by {x}"
        if g.board.terrain[r] >= 5 and x >= 0:  # SEA or LAKE
            assert x in seafarers, f"water region {r} held by non-Seafaring occupant {x}"
            if active:
                assert powers & P_SEAFARING
    if st.dragon >= 0:
        x = st.occ[st.dragon]
        assert x >= 0 and st.race_status[x] in (ACTIVE, GHOSTLY) and st.race_power[x] & P_DRAGON, "stray dragon"
    assert st.immune == immune, "immune bitset differs from the holes, heroes and dragon"
    for x in range(NUM_RACES):
        if st.regions[x]:
            assert st.race_status[x] != UNUSED, f"unused race {x} on the map"
        if st.race_status[x] == DECLINED:
            o = st.race_owner[x]
            assert x in (st.decl[o], st.decl_spirit[o]), f"declined race {x} not in its owner's decline slots"
    for s in range(g.num_seats):
        a = st.active[s]
        assert a < 0 or (st.race_status[a] in (ACTIVE, GHOSTLY) and st.race_owner[a] == s), f"seat {s}'s active race"


# The action kind that shows a decision power was used.
POWER_KIND = {
    "Berserk": Kind.BERSERK_ROLL, "Bivouacking": Kind.ENCAMP, "Diplomat": Kind.DIPLOMAT,
    "Dragon Master": Kind.DRAGON, "Fortified": Kind.FORTRESS, "Heroic": Kind.HERO, "Stout": Kind.STOUT_DECLINE,
}


def play_game(g: Game, seed: int, race: int, power: int, every_action: bool) -> set[Kind]:
    """Play one game; return the action kinds seat 0 used while the forced race was its active race."""
    st = g.new_state(seed)
    used: set[Kind] = set()
    rng = random.Random(seed * 7919 + race * 31 + power)
    seafarers: set[int] = set()
    first_pick = True
    steps = 0
    last_turn = (st.round, st.turn_seat)
    while not st.over:
        legal = g.legal_actions(st)
        assert legal, f"no legal action in phase {Phase(st.phase).name}"
        if st.phase == Phase.PICK:
            if st.decider == 0 and first_pick:
                a = legal[0]  # PICK slot 0: the forced pair
                assert decode(a) == (Kind.PICK, 0)
            else:
                a = choose(legal, rng)
            k = decode(a).arg
            if st.col_power[k] == SEAFARING:
                seafarers.add(st.col_race[k])
        else:
            a = choose(legal, rng)
        was_first_pick = st.phase == Phase.PICK and st.decider == 0 and first_pick
        if st.decider == 0 and st.active[0] == race:
            used.add(KIND[a])
        g.apply(st, a)
        if was_first_pick:
            first_pick = False
            assert st.active[0] == race and st.race_power[race] == 1 << power
        steps += 1
        assert steps < 5000, "game does not end"
        turn = (st.round, st.turn_seat)
        if every_action or turn != last_turn or st.over:
            g.check_invariants(st)
            check_pieces(g, st, seafarers)
            last_turn = turn
    assert not first_pick, "seat 0 never picked the forced pair"
    assert st.winners and all(0 <= w < g.num_seats for w in st.winners)
    assert st.round == g.game_turns
    return used


@pytest.mark.parametrize("race", [r.name for r in RACES])
def test_power_sweep_every_pair_of_race(race: str) -> None:
    """RULES §2.1/§2.2: this race with each of the 20 powers plays 20 seeded games with no broken invariant."""
    rid = [r.name for r in RACES].index(race)
    for p in POWERS:
        g = Game(GameConfig(players=2, necromancer=False, forced_combos=((race, p.name),)))
        every = (race, p.name) in FULL_CHECK
        used: set[Kind] = set()
        for seed in range(GAMES_PER_PAIR):
            try:
                used |= play_game(g, seed, rid, p.id, every)
            except (AssertionError, StateError, IllegalActionError) as e:
                raise AssertionError(f"{race} + {p.name}, seed {seed}: {type(e).__name__}: {e}") from e
        if p.name in POWER_KIND:  # the decision power was really exercised
            assert POWER_KIND[p.name] in used, f"{race} + {p.name}: {POWER_KIND[p.name].name} never played"


def test_power_sweep_pairs_cover_every_combination() -> None:
    """RULES §2: the sweep's parametrisation covers all 14 x 20 race/power pairs."""
    pairs = {(r.name, p.name) for r in RACES for p in POWERS}
    assert len(pairs) == 280
    assert {p for p in FULL_CHECK} <= pairs

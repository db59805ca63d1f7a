"""Total validation of a loaded ``State``: ``Game.validate_state`` calls ``validate_state`` here.

A saved state may come from anywhere (a file, a network peer, a fuzzer), so nothing derived
from a field is computed before the field itself is checked. The checks run in stages and stop
at the first stage that finds a problem, raising one :class:`StateError` that lists what that
stage found (field, value, what is allowed):

1. shapes: every list has the length this game needs (variable lists: a bounded length);
2. ranges: every value lies in its range: ids are ids, counts are within the box, bitsets
   are within their width, the round within the turn track, coins within what scoring can
   have paid by this round, the generator state within 64 bits. After this stage every loop
   the engine or the observer runs over the state is bounded (no negative bitset, no
   huge count, no index out of range);
3. conservation: region bitsets match the map, every occupant's tokens add up to its box,
   each banner and each power badge is in exactly one place, markers within the box;
4. consistency: owners and statuses agree with the seats, markers sit where their race is,
   the decider fits the phase, the Necromancer's draw/reserve fit the phase, ``over``,
   ``winners`` and ``necro_won`` agree with the rules' end of game;
5. the decider has a legal action (with ``skip_forced``: at least two).

A state that passes is one the engine can play on: every turn-flow loop terminates and no
index leaves its table. Whether the state was *reached* by legal play is the replay check's
job (``necro_env.record.replay_engine``), which the env's ``set_state`` runs after this.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .catalog import (
    AMAZONS, ENCAMPMENTS, FORTRESSES, GHOST, GHOST_BOX, GHOULS, HALFLINGS, HEROES, HOLES, LOST_TRIBE,
    NUM_OCCUPANTS, NUM_POWERS, NUM_RACES, P_BERSERK, P_BIVOUACKING, P_DRAGON, P_HEROIC, TROLL_LAIRS, TROLLS,
    WEALTHY_BONUS, box_count,
)
from .errors import StateError, short_repr
from .state import (
    ACTIVE, CONQUERED, DECLINED, FROM_AMAZON_HOLD, FROM_ISLAND, GHOSTLY, GHOUL_SEGMENT, MAIN_SEGMENT, NOT_STARTED,
    TRIBE, UNUSED, Phase,
)

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game
    from .state import State

COLUMN_SIZE = 6
NECRO_DRAW = 6          # badges the Necromancer draws (rule 4)
NECRO_RESERVE = 5       # the ones he keeps in reserve
MAX_HOLD = 4            # Amazons keep at most 4 tokens in hand
MAX_DIE = 3             # the reinforcement die's faces are 0, 0, 0, 1, 2, 3
_MAX_POWERS_IN_USE = 1 + NECRO_RESERVE  # the Necromancer's start power + every reserve badge
MAX_BOX = max(box_count(x) for x in range(NUM_OCCUPANTS))  # the most tokens of one occupant


def _show(v: int) -> str:
    """An int for a message (a hostile one may have more digits than ``str()`` will print)."""
    return short_repr(v, 40)


def _fail(stage: str, errs: list[str]) -> None:
    if errs:
        shown = errs[:8] + ([f"... and {len(errs) - 8} more"] if len(errs) > 8 else [])
        raise StateError(f"saved state is {stage}: " + "; ".join(shown))


def coin_cap(game: "Game", rounds: int) -> int:
    """Most coins the seats and the column can hold together after ``rounds`` rounds.

    Start coins plus, per seat-turn, the most one scoring can pay: 1 per region held (all races
    of the seat together hold at most every region), a race bonus and an in-decline Dwarf bonus
    of at most 1 per region each, and up to 6 powers (the Necromancer) of at most
    ``regions + 2`` each, plus Wealthy's 7. Picking a combo only moves coins between a seat and
    the column, and purchases only remove coins.
    """
    nr = game.num_regions
    per_turn = 3 * nr + _MAX_POWERS_IN_USE * (nr + 2) + WEALTHY_BONUS
    return game.num_seats * (game.config.starting_coins + rounds * per_turn)


# ---------------------------------------------------------------------------------------- stage 1
def _shape_errors(game: "Game", st: "State") -> list[str]:
    n, nr = game.num_seats, game.num_regions
    errs = []
    fixed = [(f, n) for f in ("coins", "active", "decl", "decl_spirit", "pact")]
    fixed += [(f, NUM_OCCUPANTS) for f in ("race_owner", "race_status", "race_power", "hand", "tray", "well",
                                           "regions")]
    fixed += [(f, nr) for f in ("occ", "tok", "lair", "fort", "hole", "hero", "encamp")]
    for f, size in fixed:
        if len(getattr(st, f)) != size:
            errs.append(f"field {f!r} has length {len(getattr(st, f))}, expected {size}")
    for f, most in (("race_deck", NUM_RACES), ("power_deck", NUM_POWERS), ("power_discard", NUM_POWERS),
                    ("col_race", COLUMN_SIZE), ("col_power", COLUMN_SIZE), ("col_coins", COLUMN_SIZE),
                    ("ghost_curve", game.game_turns), ("winners", n), ("ready_taken", 2 * (nr + 2))):
        if len(getattr(st, f)) > most:
            errs.append(f"field {f!r} has length {len(getattr(st, f))}, at most {most} allowed")
    if not len(st.col_race) == len(st.col_power) == len(st.col_coins):
        errs.append("fields 'col_race', 'col_power', 'col_coins' differ in length "
                    f"({len(st.col_race)}, {len(st.col_power)}, {len(st.col_coins)})")
    if len(st.ready_taken) % 2:
        errs.append(f"field 'ready_taken' has odd length {len(st.ready_taken)} (it holds (region, count) pairs)")
    draw_ok, reserve_ok = ((0, NECRO_DRAW), (0, NECRO_RESERVE)) if game.necromancer else ((0,), (0,))
    if len(st.necro_draw) not in draw_ok:
        errs.append(f"field 'necro_draw' has length {len(st.necro_draw)}, allowed: {draw_ok}")
    if len(st.necro_reserve) not in reserve_ok:
        errs.append(f"field 'necro_reserve' has length {len(st.necro_reserve)}, allowed: {reserve_ok}")
    return errs


# ---------------------------------------------------------------------------------------- stage 2
def _range_errors(game: "Game", st: "State") -> list[str]:
    n, nr = game.num_seats, game.num_regions
    ns, necro = game.necro_seat, game.necromancer
    errs: list[str] = []

    def values(f: str, lo: int, hi: int, vals=None) -> None:
        """Every value of list field ``f`` in lo..hi."""
        bad = [v for v in (getattr(st, f) if vals is None else vals) if not lo <= v <= hi]
        if bad:
            errs.append(f"field {f!r} has values [{', '.join(map(_show, bad[:6]))}] outside {lo}..{hi}")

    def scalar(f: str, lo: int, hi: int) -> None:
        v = getattr(st, f)
        if not lo <= v <= hi:
            errs.append(f"field {f!r} is {_show(v)}, outside {lo}..{hi}")

    cap = coin_cap(game, min(max(st.round, 1), game.game_turns))
    values("coins", 0, cap)
    values("col_coins", 0, cap)
    values("active", -1, NUM_RACES - 1, [a for s, a in enumerate(st.active) if s != ns])
    if necro and st.active[ns] != GHOST:
        errs.append(f"field 'active' of the Necromancer's seat {ns} is {_show(st.active[ns])}, must be {GHOST} "
                    "(Ghosts)")
    values("decl", -1, NUM_RACES - 1)
    values("decl_spirit", -1, NUM_RACES - 1)
    if necro and (st.decl[ns], st.decl_spirit[ns]) != (-1, -1):
        errs.append(f"the Necromancer's seat {ns} has a race in decline "
                    f"({_show(st.decl[ns])}, {_show(st.decl_spirit[ns])})")
    for s, t in enumerate(st.pact):
        if t != -1 and (not 0 <= t < n or t == s or t == ns):
            errs.append(f"field 'pact' of seat {s} is {_show(t)}: a pact names another player's seat or is -1")
    values("race_owner", -1, n - 1)
    values("race_status", UNUSED, TRIBE)
    values("race_power", 0, (1 << NUM_POWERS) - 1)
    for f in ("hand", "tray", "well"):
        bad = [f"{x}: {_show(v)}" for x, v in enumerate(getattr(st, f)) if not 0 <= v <= box_count(x)]
        if bad:
            errs.append(f"field {f!r} has counts {{{', '.join(bad[:6])}}} (occupant: count) outside 0..its box")
    values("regions", 0, (1 << nr) - 1)
    values("occ", -1, NUM_OCCUPANTS - 1)
    values("tok", 0, MAX_BOX)
    for f in ("lair", "fort", "hole", "hero"):
        values(f, 0, 1)
    values("encamp", 0, ENCAMPMENTS)
    t = st.ready_taken
    values("ready_taken", FROM_ISLAND, nr - 1, t[0::2])
    values("ready_taken", 1, MAX_BOX, t[1::2])
    for f in ("race_deck", "col_race"):
        values(f, 0, NUM_RACES - 1)
    for f in ("power_deck", "power_discard", "col_power", "necro_draw"):
        values(f, 0, NUM_POWERS - 1)
    values("necro_reserve", -1, NUM_POWERS - 1)
    values("ghost_curve", 0, GHOST_BOX)
    values("winners", 0, n - 1)
    if any(a >= b for a, b in zip(st.winners, st.winners[1:])):
        errs.append(f"field 'winners' [{', '.join(map(_show, st.winners))}] must list distinct seats in increasing "
                    "order")
    for f, lo, hi in (
        ("dragon", -1, nr - 1), ("immune", 0, (1 << nr) - 1), ("amazon_held", 0, box_count(AMAZONS)),
        ("holes_placed", 0, HOLES), ("hero_pool", 0, HEROES), ("encamp_pool", 0, ENCAMPMENTS),
        ("wealthy_paid", 0, (1 << NUM_OCCUPANTS) - 1), ("round", 1, game.game_turns), ("turn_seat", 0, n - 1),
        ("decider", -1, n - 1), ("phase", 0, int(Phase.OVER)), ("cur_race", -1, NUM_OCCUPANTS - 1),
        ("segment", GHOUL_SEGMENT, MAIN_SEGMENT), ("started", NOT_STARTED, CONQUERED), ("picked", 0, 1),
        ("placed", 0, 1), ("dragon_used", 0, 1), ("fort_used", 0, 1), ("berserk", -1, MAX_DIE), ("converted", 0, (1 << n) - 1),
        ("attacked", 0, (1 << n) - 1), ("nonempty", 0, nr), ("hold", 0, MAX_HOLD),
        ("defend_race", -1, NUM_OCCUPANTS - 1), ("last_die", -1, MAX_DIE),
        ("island", 0, GHOST_BOX if necro else 0), ("souls", 0, 3 + nr * st.round if necro else 0),
        ("ghosts_removed", game.config.handicap, game.config.handicap),
        ("bought_ghosts", 0, GHOST_BOX * game.game_turns if necro else 0),
        ("bought_powers", 0, NECRO_RESERVE if necro else 0), ("over", 0, 1), ("necro_won", 0, 1 if necro else 0),
        ("decisions", 0, float("inf")), ("forced", 0, max(st.decisions, 0)), ("rng", 0, (1 << 64) - 1),
    ):
        scalar(f, lo, hi)
    if not necro and any(st.well):
        errs.append(f"field 'well' is [{', '.join(map(_show, st.well))}]: there is no Well of Souls without the "
                    "Necromancer")
    return errs


# ---------------------------------------------------------------------------------------- stage 3
def conservation_errors(game: "Game", st: "State") -> list[str]:
    """Token, banner and marker conservation (needs stage 2's ranges; also ``Game.check_invariants``)."""
    errs = []
    nr = game.num_regions
    on_map = [0] * NUM_OCCUPANTS
    regions = [0] * NUM_OCCUPANTS
    for r in range(nr):
        x = st.occ[r]
        if x >= 0:
            if st.tok[r] <= 0:
                errs.append(f"region {r} held by {x} with {st.tok[r]} tokens")
            on_map[x] += st.tok[r]
            regions[x] |= 1 << r
        elif st.tok[r]:
            errs.append(f"empty region {r} has {st.tok[r]} tokens")
    for x in range(NUM_OCCUPANTS):
        if regions[x] != st.regions[x]:
            errs.append(f"field 'regions' of occupant {x} is stale: {st.regions[x]:#x}, the map gives {regions[x]:#x}")
        total = st.tray[x] + on_map[x] + st.hand[x] + st.well[x]
        if x == AMAZONS:
            total += st.amazon_held
        if x == GHOST:
            total += st.island + st.ghosts_removed
        if total != box_count(x):
            errs.append(f"occupant {x}: {total} tokens accounted, box holds {box_count(x)}")
        if min(st.tray[x], st.hand[x], st.well[x]) < 0:
            errs.append(f"occupant {x}: negative count")
    if any(c < 0 for c in st.coins):
        errs.append(f"negative coins {st.coins}")
    if sum(st.fort) > FORTRESSES or sum(st.hole) > HOLES or sum(st.hero) + max(st.hero_pool, 0) > HEROES:
        errs.append("too many fortresses, holes or heroes")
    if sum(st.encamp) + st.encamp_pool > ENCAMPMENTS:
        errs.append("too many encampments")
    if sum(st.lair) > TROLL_LAIRS:
        errs.append("too many troll lairs")
    seen = [r for s in range(game.num_seats) for r in (st.active[s], st.decl[s], st.decl_spirit[s]) if r >= 0]
    inuse = seen + st.col_race + st.race_deck
    if sorted(inuse) != sorted(set(inuse)) or len(set(inuse) - {GHOST}) != NUM_RACES:
        errs.append(f"race banners not conserved: {sorted(inuse)}")
    return errs


def _badge_and_coin_errors(game: "Game", st: "State") -> list[str]:
    errs = []
    badges = st.power_deck + st.power_discard + st.col_power + st.necro_draw + [p for p in st.necro_reserve if p >= 0]
    for x in range(NUM_OCCUPANTS):
        badges.extend(p for p in range(NUM_POWERS) if (st.race_power[x] >> p) & 1)
    if sorted(badges) != list(range(NUM_POWERS)):
        errs.append(f"power badges not conserved (each of the {NUM_POWERS} must be in exactly one place): "
                    f"{sorted(badges)}")
    cap = coin_cap(game, st.round)
    if sum(st.coins) + sum(st.col_coins) > cap:
        errs.append(f"{sum(st.coins) + sum(st.col_coins)} coins in play, more than scoring can pay by round "
                    f"{st.round} ({cap})")
    return errs


# ---------------------------------------------------------------------------------------- stage 4
def _consistency_errors(game: "Game", st: "State") -> list[str]:
    n, nr, ns, necro = game.num_seats, game.num_regions, game.necro_seat, game.necromancer
    b = game.board
    errs: list[str] = []
    need = errs.append
    # Occupants against the seats.
    slot = {}  # race -> (seat, status it must have)
    for s in range(n):
        if s != ns and st.active[s] >= 0:
            slot[st.active[s]] = (s, ACTIVE)
        for x in (st.decl[s], st.decl_spirit[s]):
            if x >= 0:
                slot[x] = (s, DECLINED)
    for s in range(n):
        if st.decl[s] >= 0 and st.decl[s] == st.decl_spirit[s]:
            need(f"seat {s} has race {st.decl[s]} in decline twice")
    for x in range(NUM_RACES):
        want_owner, want_status = slot.get(x, (-1, UNUSED))
        if (st.race_owner[x], st.race_status[x]) != (want_owner, want_status):
            need(f"race {x} has owner {st.race_owner[x]} and status {st.race_status[x]}, but the seats say "
                 f"owner {want_owner}, status {want_status}")
        if want_status != ACTIVE and st.race_power[x]:
            need(f"race {x} is not active but has powers {st.race_power[x]:#x}")
        if want_status == ACTIVE and st.race_power[x].bit_count() != 1:
            need(f"active race {x} must have exactly one power, has {st.race_power[x]:#x}")
        if want_status == UNUSED and (st.regions[x] or st.hand[x]):
            need(f"unused race {x} has tokens on the map or in hand")
    if (st.race_owner[LOST_TRIBE], st.race_status[LOST_TRIBE], st.race_power[LOST_TRIBE], st.hand[LOST_TRIBE]) \
            != (-1, TRIBE, 0, 0):
        need("the Lost Tribes must have no owner, status TRIBE, no power and nothing in hand")
    lost_ok = sum(1 << r for r in range(nr) if b.lost_tribe[r])
    if st.regions[LOST_TRIBE] & ~lost_ok:
        need("Lost Tribes stand outside their starting regions")
    if necro:
        if (st.race_owner[GHOST], st.race_status[GHOST]) != (ns, GHOSTLY):
            need(f"the Ghosts must belong to the Necromancer's seat {ns} with status GHOSTLY")
    elif (st.race_owner[GHOST], st.race_status[GHOST], st.race_power[GHOST], st.tray[GHOST]) \
            != (-1, UNUSED, 0, GHOST_BOX):
        need("there are no Ghosts in play without the Necromancer")
    land = game.seafaring_ok
    held = 0
    for x in range(NUM_OCCUPANTS):
        held |= st.regions[x]
    if held & ~land:
        need(f"regions {[r for r in range(nr) if (held & ~land) >> r & 1]} are water no race may hold")
    # Markers where their race is.
    powers_of = st.race_power
    for r in range(nr):
        x = st.occ[r]
        if st.lair[r] and x != TROLLS:
            need(f"a troll lair in region {r}, held by {x}, not by the Trolls")
        if st.hole[r] and x != HALFLINGS:
            need(f"a hole in region {r}, held by {x}, not by the Halflings")
        if st.hero[r] and (x < 0 or not powers_of[x] & P_HEROIC):
            need(f"a hero in region {r}, not held by a Heroic race")
        if st.encamp[r] and (x < 0 or not powers_of[x] & P_BIVOUACKING):
            need(f"an encampment in region {r}, not held by a Bivouacking race")
        if st.fort[r] and x < 0:
            need(f"a fortress in empty region {r}")
    if st.dragon >= 0 and (st.occ[st.dragon] < 0 or not powers_of[st.occ[st.dragon]] & P_DRAGON):
        need(f"the dragon in region {st.dragon}, not held by a Dragon Master race")
    immune = sum(1 << r for r in range(nr) if st.hole[r] or st.hero[r]) | ((1 << st.dragon) if st.dragon >= 0 else 0)
    if st.immune != immune:
        need(f"field 'immune' is {st.immune:#x}, the holes, heroes and dragon give {immune:#x}")
    # The turn: phase, decider and acting race.
    ph = st.phase
    if bool(st.over) != (ph == Phase.OVER) or (st.decider == -1) != bool(st.over):
        need(f"over={st.over}, phase {Phase(ph).name} and decider {st.decider} disagree "
             "(the game is over exactly when the phase is OVER and nobody decides)")
    elif not st.over:
        seat = st.turn_seat
        if ph == Phase.NECRO_START:
            if not necro or len(st.necro_draw) != NECRO_DRAW or st.decider != ns or (st.round, seat) != (1, 0):
                need("phase NECRO_START needs the Necromancer to decide with his 6 drawn badges, round 1, seat 0")
        elif ph == Phase.DEFEND:
            x = st.defend_race
            if x < 0 or st.race_owner[x] < 0 or st.decider != st.race_owner[x] or x == st.active[seat]:
                need(f"phase DEFEND needs a defending race of another seat and its owner deciding "
                     f"(defend_race {x}, decider {st.decider})")
        elif st.decider != seat:
            need(f"in phase {Phase(ph).name} the seat whose turn it is ({seat}) decides, not {st.decider}")
        if ph != Phase.DEFEND and st.defend_race != -1:
            need(f"defend_race is {st.defend_race} outside phase DEFEND")
        if ph == Phase.BUY and (seat != ns or st.cur_race != GHOST):
            need("phase BUY is the Necromancer's, with the Ghosts acting")
        if ph == Phase.PICK and (seat == ns or st.active[seat] != -1 or not st.col_race):
            need("phase PICK needs a player seat without an active race and a combo to pick")
        if ph in (Phase.CONQUER, Phase.BERSERK, Phase.REDEPLOY):
            race = st.cur_race
            ok = race == st.active[seat] >= 0 if st.segment == MAIN_SEGMENT else (
                race == GHOULS and GHOULS in (st.decl[seat], st.decl_spirit[seat]))
            if not ok:
                need(f"in phase {Phase(ph).name} the acting race {race} is not seat {seat}'s "
                     f"{'active race' if st.segment == MAIN_SEGMENT else 'in-decline Ghouls'}")
        if (ph == Phase.BERSERK) != (st.berserk >= 0) or (
                ph == Phase.BERSERK and not powers_of[st.cur_race] & P_BERSERK):
            need(f"a Berserk roll ({st.berserk}) belongs to phase BERSERK of a Berserk race only")
        if ph == Phase.REDEPLOY and st.hold:
            spare = 0 if st.placed else sum(st.tok[r] - 1 for r in range(nr) if st.occ[r] == AMAZONS)
            if st.cur_race != AMAZONS or st.hand[AMAZONS] + spare < st.hold:
                need(f"the Amazons' hold {st.hold} while redeploying needs the Amazons acting with at least as "
                     f"many tokens in hand (or still to lift)")
        if ph == Phase.CONQUER and st.started == NOT_STARTED:
            # Nothing happened since the troops were readied: DECLINE would undo ready_taken.
            t = st.ready_taken
            wrong = [t[i] for i in range(0, len(t), 2)
                     if not (t[i] >= 0 and st.occ[t[i]] == st.cur_race) and (t[i], st.cur_race) not in
                     ((FROM_AMAZON_HOLD, AMAZONS), (FROM_ISLAND, GHOST))]
            if wrong or len(set(t[0::2])) != len(t) // 2 or sum(t[1::2]) > st.hand[st.cur_race]:
                need(f"ready_taken {t} does not fit what the acting race {st.cur_race} holds and has in hand")
        if st.winners or st.necro_won:
            need("winners or necro_won set while the game goes on")
    # The Necromancer's badges.
    if necro:
        started = ph != Phase.NECRO_START
        if started != (len(st.necro_reserve) == NECRO_RESERVE) or started == (len(st.necro_draw) == NECRO_DRAW) \
                or started != bool(st.race_power[GHOST]):
            need("the Necromancer draws 6 badges until he picks his start power, then holds a 5-slot reserve "
                 "and at least one power")
        if len(st.necro_reserve) == NECRO_RESERVE and st.bought_powers != st.necro_reserve.count(-1):
            need(f"bought_powers {st.bought_powers} differs from the {st.necro_reserve.count(-1)} empty reserve slots")
        curve = st.round - 1 + st.over
        if len(st.ghost_curve) != curve:
            need(f"field 'ghost_curve' has {len(st.ghost_curve)} entries, expected {curve} (one per finished round)")
    elif st.ghost_curve:
        need("field 'ghost_curve' must be empty without the Necromancer")
    # The end.
    if st.over:
        if st.necro_won:
            if st.winners != [ns] or st.tray[GHOST] or st.well[GHOST] or st.hand[GHOST]:
                need(f"necro_won needs winners [{ns}] and no Ghost left in his Reserve, Well or hand")
        else:
            if st.round != game.game_turns:
                need(f"the game ended in round {st.round} without the Necromancer winning (the board has "
                     f"{game.game_turns} rounds)")
            seats = [s for s in range(n) if s != ns]
            best = max(st.coins[s] for s in seats)
            tied = [s for s in seats if st.coins[s] == best]
            toks = {s: game.tokens_on_board(st, s) for s in tied}
            want = [s for s in tied if toks[s] == max(toks.values())]
            if st.winners != want:
                need(f"winners {st.winners} differ from the final standing's {want} (most coins, then tokens)")
    return errs


# ---------------------------------------------------------------------------------------- entry
def validate_state(game: "Game", st: "State") -> None:
    """Raise ``StateError`` unless ``st`` is a state of ``game`` the engine can play on (see the module doc)."""
    _fail("malformed", _shape_errors(game, st))
    _fail("out of range", _range_errors(game, st))
    _fail("inconsistent (pieces not conserved)", conservation_errors(game, st) + _badge_and_coin_errors(game, st))
    _fail("inconsistent", _consistency_errors(game, st))
    st._legal = None
    if not st.over:
        legal = game.legal_actions(st)
        if not legal:
            raise StateError(f"saved state has no legal action in phase {Phase(st.phase).name}")
        if game.skip_forced and len(legal) == 1 and not (game.hide_coins and st.phase in (Phase.PICK, Phase.BUY)):
            raise StateError("saved state has a single legal action although the game applies those itself "
                             "(skip_forced)")

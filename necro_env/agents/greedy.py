"""``GreedyAgent``: a competent one-ply heuristic player that reads the engine state.

It scores the legal actions of the current decision and takes the best one (ties
broken with the injected generator). No search, no memory between decisions, so
one decision costs a few tens of microseconds.

Picking a combo (PICK)
    value = tokens x token weight + (race bonus + power bonus) per turn x turns the
    race will live (``min(3, rounds left + 1)``) + coins lying on the combo - its price.
    Per-turn bonuses are fixed estimates (Humans, Wizards, Orcs, Alchemist, Merchant ...);
    terrain bonuses (Humans, Wizards, Dwarves, Forest, Hill, Swamp) scale with the share of
    such regions not held by an enemy active race (synergy with the board); Wealthy counts
    its 7 coins at once; Spirit is worth more when an in-decline race is already on the map.

Going into decline (DECLINE, Stout's STOUT_DECLINE)
    Estimate the conquests still affordable (cheapest valuable reachable regions first with
    the tokens in hand). The race is spent, and declines, when no conquest is affordable, or
    only one with at most 3 tokens in hand while 2+ rounds remain after this one; never in the
    seat's last round (a decline there only loses the turn's conquests). Stout declines after
    scoring when next turn would ready fewer than 4 tokens (not in the last two rounds).
    These thresholds were tuned in the base game against GreedyAgent opponents.

Conquering (CONQUER / BERSERK phases)
    Every reachable region r gets a value: 1 coin a turn, + race/power bonuses it earns
    (terrain, mines, magic, Orcs'/Pillaging's non-empty conquests), + a kill value (+0.2 for
    an opponent's token, +0.3 more if it is his active race, +0.2 more against the coin
    leader), - 1.5 for the seat's own in-decline tokens, and, unless this is the seat's last
    round, + 0.1 per free land neighbour (room to grow next turn) - 0.15 per neighbour held
    by an attacker (a region that will need defenders).
    Against the Necromancer everything turns on his *urgency* u in 0..1 (``necro_urgency``:
    Ghosts in play and their projected growth from his Ghost curve): a Ghost region is worth
    ``GHOST_KILL + GHOST_KILL_URGENT * u`` (1 + 10u) more, and killing any other token costs
    ``FEED_PENALTY * u`` (10u), because it feeds his Well (4 tokens spawn a Ghost): once he is
    under way, greedy players take empty and Ghost regions only. With these weights (tuned
    against both Necromancers; the first version, 1 + 6u and 2.5u, let the scripted one win
    64-88%) greedy players hold the random Necromancer to 2% wins and the scripted one to
    42-49%, where random players let them win 51-95% and 99-100% (3-6 seats, 600 games).
    It conquers the region with the best value per token (so cheap, valuable regions first)
    while a region with positive value is affordable. Order within a turn: Sorcerer conversions
    first (they cost no token), then the Dragon on the most expensive reachable valuable
    target, then Berserk always rolls first (the die only lowers costs) and spends the roll
    on the best value per token, then ordinary conquests, then a final conquest with the
    die on the target it is the fewest tokens short of (the tokens come back for
    redeployment if the roll fails, so the attempt costs nothing), then END_CONQUEST.
    It never abandons regions.

Redeploying and defending (REDEPLOY, DEFEND, pieces)
    Each held region gets a threat: 1 per neighbour held by an enemy that can attack
    (active races, Ghosts, in-decline Ghouls), 0.25 per other open land neighbour, + 0.5
    on first-conquest regions (new races enter there), + 0.7 next to the Lake for players
    in the scenario (Ghosts enter there); 0 for immune regions. Spare tokens (beyond 1 a
    region) are water-filled towards threat (each extra token weighted threat / (extra+1)).
    Heroes go first onto the most threatened regions, encampments one by one by threat /
    (encampments + 1), the fortress onto the most threatened region without one; then
    surplus tokens are lifted and missing ones placed. Defenders place survivors the same way.
    In the seat's last round it skips the shuffling (nothing more to defend).

Diplomat
    Peace with the opponent whose active race borders the seat's regions most (ties: the
    richest), i.e. the strongest threat.

The Necromancer's own decisions (starting power, buying) are the job of
``NecromancerHeuristic`` (a subclass); this class answers them with simple defaults.
"""
from __future__ import annotations

import weakref

import numpy as np

from necro_env.game import actions as A
from necro_env.game.actions import (
    ARG_OF as _ARG, KIND_OF as _KIND, K_BERSERK_ROLL, K_CONQUER, K_CONVERT, K_DECLINE, K_DRAGON, K_ENCAMP,
    K_END_CONQUEST, K_END_REDEPLOY, K_FINAL, K_FORTRESS, K_HERO, K_LIFT, K_PLACE, K_STOUT_DECLINE,
)
from necro_env.game.catalog import (
    AMAZONS, DWARVES, ELVES, GHOST, GHOST_BOX, GHOULS, GIANTS, HALFLINGS, HUMANS, ORCS,
    RATMEN, SKELETONS, SORCERERS, TRITONS, TROLLS, WIZARDS,
    ALCHEMIST, BERSERK, BIVOUACKING, COMMANDO, DIPLOMAT, DRAGON_MASTER, FLYING, FOREST, FORTIFIED,
    HEROIC, HILL, MERCHANT, MOUNTED, PILLAGING, SEAFARING, SPIRIT, STOUT, SWAMP, UNDERWORLD, WEALTHY,
    P_MERCHANT, P_PILLAGING, WEALTHY_BONUS,
    tokens_at_pickup,
)
from necro_env.game.engine import berserk_cost
from necro_env.game.engine import bits as _bits
from necro_env.game.state import ACTIVE, GHOSTLY, Phase

from .base import BasePolicy, View, pick_best

# Estimated coins a turn a race's ability is worth (PICK), before board synergy.
RACE_BONUS = {
    AMAZONS: 0.0, DWARVES: 0.8, ELVES: 0.6, GHOULS: 0.6, GIANTS: 0.5, HALFLINGS: 0.5, HUMANS: 1.0,
    ORCS: 1.0, RATMEN: 0.0, SKELETONS: 0.8, SORCERERS: 1.0, TRITONS: 0.6, TROLLS: 0.8, WIZARDS: 1.0,
}
# Estimated coins a turn a power is worth (PICK); Wealthy's 7 coins are counted once.
POWER_BONUS = {
    ALCHEMIST: 2.0, BERSERK: 0.8, BIVOUACKING: 0.7, COMMANDO: 1.2, DIPLOMAT: 0.4, DRAGON_MASTER: 1.0,
    FLYING: 0.8, FOREST: 1.0, FORTIFIED: 1.0, HEROIC: 0.7, HILL: 1.0, MERCHANT: 1.5, MOUNTED: 0.9,
    PILLAGING: 1.2, SEAFARING: 0.5, SPIRIT: 0.4, STOUT: 0.6, SWAMP: 1.0, UNDERWORLD: 0.6, WEALTHY: 0.0,
}
TOKEN_WEIGHT = 0.45        # coins a turn one token is worth (about 0.45 regions)


class _Tables:
    """Static per-game masks the heuristics read (built once per Game)."""

    __slots__ = ("nbr", "land", "first", "lake_nbr", "race_terrain", "power_terrain", "necro_seat",
                 "num_seats", "turns", "total_ghosts", "num_regions", "all_mask", "bonus_cache", "targets_cache")

    def __init__(self, game) -> None:
        b = game.board
        self.nbr = game.nbr
        self.land = b.land_mask
        self.first = b.first_conquest_mask
        self.lake_nbr = b.lake_nbr_mask if game.necromancer else 0
        self.race_terrain = {HUMANS: b.farmland_mask, WIZARDS: b.magic_mask, DWARVES: b.mine_mask}
        self.power_terrain = {FOREST: b.forest_mask, HILL: b.hill_mask, SWAMP: b.swamp_mask}
        self.necro_seat = game.necro_seat
        self.num_seats = game.num_seats
        self.turns = game.game_turns
        self.total_ghosts = GHOST_BOX
        self.num_regions = game.num_regions
        self.all_mask = b.all_mask
        #: (race, active, powers) -> (terrain bonus list, non-empty-conquest bonus): fixed for a game.
        self.bonus_cache: dict = {}
        #: The last ``GreedyAgent._targets`` answer and everything it was computed from (a redeployment's
        #: steps ask again with the same inputs: each lift or placement leaves the total unchanged).
        self.targets_cache: tuple | None = None


_TABLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


_LAST_TABLES: tuple = (lambda: None, None)  # (weak reference to the last game asked for, its tables)


def tables(game) -> _Tables:
    """The game's ``_Tables`` (built on first use; the last game's are at hand without a weak-dict lookup)."""
    last = _LAST_TABLES  # one tuple, replaced whole: threads never see a game with another game's tables
    if last[0]() is game:
        return last[1]
    return _remember_tables(game)


def _remember_tables(game) -> _Tables:
    global _LAST_TABLES
    t = _TABLES.get(game)
    if t is None:
        t = _TABLES[game] = _Tables(game)
    _LAST_TABLES = (weakref.ref(game), t)
    return t


# ---------------------------------------------------------------------------------- board reading
def seat_regions(st, seat: int) -> int:
    """Every region held by any race of ``seat`` (active and in decline)."""
    m = 0
    for x in (st.active[seat], st.decl[seat], st.decl_spirit[seat]):
        if x >= 0:
            m |= st.regions[x]
    return m


def attacker_mask(tab: _Tables, st, seat: int) -> int:
    """Regions from which another seat can attack: active races, Ghosts, in-decline Ghouls."""
    m = 0
    for p in range(tab.num_seats):
        if p == seat:
            continue
        a = st.active[p]
        if a >= 0:
            m |= st.regions[a]
        if st.decl[p] == GHOULS or st.decl_spirit[p] == GHOULS:
            m |= st.regions[GHOULS]
    return m


def necro_urgency(tab: _Tables, st) -> float:
    """0..1: how close the Necromancer is to having every Ghost in play (0 without him).

    The larger of (share of Ghosts in play)^2 and a projection: Ghosts in play now plus the
    gain per round over the last two finished rounds (his Ghost curve, starting from the 1 Ghost
    he begins with) times the rounds left including this one, as a share of his Ghosts
    (0 up to 60%, 1 from 110%). No projection in round 1 (no finished round yet).
    """
    if tab.necro_seat < 0:
        return 0.0
    total = max(1, tab.total_ghosts - st.ghosts_removed)
    remaining = st.tray[GHOST] + st.well[GHOST] + st.hand[GHOST]
    in_play = total - remaining
    frac = in_play / total
    curve = st.ghost_curve
    u = frac * frac
    if curve:
        back = min(2, len(curve))
        start = curve[-1 - back] if len(curve) > back else 1
        rate = (curve[-1] - start) / back
        if rate > 0:
            projected = in_play + rate * (tab.turns - st.round + 1)
            u = max(u, (projected / total - 0.6) / 0.5)
    return 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)


def threat_of(tab: _Tables, st, r: int, own: int, attackers: int, player_side: bool) -> float:
    """How exposed region ``r`` is (see the module docstring)."""
    if (st.immune >> r) & 1:
        return 0.0
    nb = tab.nbr[r]
    t = (nb & attackers).bit_count() + 0.25 * (nb & tab.land & ~own & ~attackers).bit_count()
    if (tab.first >> r) & 1:
        t += 0.5
    if player_side and (tab.lake_nbr >> r) & 1:
        t += 0.7
    return t


def by_kind(legal: list[int]) -> dict[int, list[int]]:
    """The legal actions grouped by kind (each group in the order of ``legal``)."""
    groups: dict[int, list[int]] = {}
    for a in legal:
        groups.setdefault(_KIND[a], []).append(a)
    return groups


def water_fill(regions: list[int], threats: list[float], spare: int) -> dict[int, int]:
    """Targets: 1 token a region + ``spare`` extras, each to the best threat / (extras + 1)."""
    extra = [0] * len(regions)
    if regions and spare > 0:
        weights = [t + 0.01 for t in threats]
        for _ in range(spare):
            best, bi = -1.0, 0
            for i, w in enumerate(weights):
                s = w / (extra[i] + 1)
                if s > best:
                    best, bi = s, i
            extra[bi] += 1
    return {r: 1 + e for r, e in zip(regions, extra)}


#: The method that decides in each phase (a subclass may override any of them).
_HANDLERS = {
    Phase.CONQUER: "_conquer", Phase.REDEPLOY: "_redeploy", Phase.BERSERK: "_berserk", Phase.DEFEND: "_defend",
    Phase.PICK: "_pick", Phase.DIPLOMAT: "_diplomat", Phase.BUY: "_buy", Phase.NECRO_START: "_necro_start",
}


class GreedyAgent(BasePolicy):
    """Competent one-ply heuristic player (see the module docstring for its rules)."""

    name = "greedy"
    #: Value of killing a Ghost, and its growth with the Necromancer's urgency (0..1).
    GHOST_KILL = 1.0
    GHOST_KILL_URGENT = 10.0
    #: Cost, at full urgency, of killing a non-Ghost token (it feeds the Well).
    FEED_PENALTY = 10.0

    # ------------------------------------------------------------------ entry point
    def act(self, view: View, rng: np.random.Generator) -> int:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        handler = _HANDLERS.get(view.state.phase)
        if handler is None:
            return legal[int(rng.integers(len(legal)))]
        return getattr(self, handler)(view, legal, rng)

    # ------------------------------------------------------------------ helpers
    def _last_turn(self, view: View) -> bool:
        """Whether this is the acting seat's final turn (scores after it no longer change)."""
        g, st = view.game, view.state
        return st.round >= g.game_turns

    def region_value(self, view: View, race: int, r: int, ctx: dict) -> float:
        """Value of conquering region ``r`` with ``race`` (module docstring, 'Conquering')."""
        return self.region_values(view, race, (r,), ctx)[0]

    def region_values(self, view: View, race: int, regions, ctx: dict) -> list[float]:
        """``region_value`` of each of ``regions`` (one pass, the context read once)."""
        st = view.state
        tab = ctx["tab"]
        seat = ctx["seat"]
        occ, race_owner, active_race = st.occ, st.race_owner, st.active
        bonus = ctx["bonus"] if ctx["active"] else ()
        nonempty = ctx["nonempty_bonus"] if ctx["active"] else 0.0
        urgency = ctx["urgency"]
        ghost_kill = self.GHOST_KILL + self.GHOST_KILL_URGENT * urgency
        feed = self.FEED_PENALTY * urgency
        scenario, leader = ctx["scenario"], ctx["leader"]
        last = ctx["last"]
        nbr, free, attackers = tab.nbr, ctx["free"], ctx["attackers"]
        lake_nbr = tab.lake_nbr if ctx["player_side"] else 0
        out = []
        for r in regions:
            x = occ[r]
            v = 1.0
            bit = 1 << r
            for mask, w in bonus:
                if mask & bit:
                    v += w
            if x >= 0:
                if nonempty:
                    v += nonempty
                owner = race_owner[x]
                if owner == seat:
                    v -= 1.5
                elif x == GHOST:
                    v += ghost_kill
                elif owner >= 0:
                    v += 0.2
                    if active_race[owner] == x:
                        v += 0.3
                        if owner == leader:
                            v += 0.2
                if x != GHOST and scenario and owner != seat:
                    v -= feed
            if not last:
                nb = nbr[r]
                v += 0.1 * (nb & free).bit_count()
                v -= 0.15 * (nb & attackers).bit_count()
                if lake_nbr & bit:
                    v -= 0.15
            out.append(v)
        return out

    def _values(self, view: View, race: int, regions: list[int], ctx: dict) -> dict[int, float]:
        """``region_value`` of ``regions``, each computed once per decision (memoised in ``ctx["values"]``)."""
        values = ctx["values"]
        missing = [r for r in regions if r not in values] if values else regions
        if missing:
            values.update(zip(missing, self.region_values(view, race, missing, ctx)))
        return values

    def _context(self, view: View, race: int) -> dict:
        """What ``region_value`` reads at this decision, plus two caches for the decision: ``values``
        (region -> ``region_value``) and ``costs`` (region -> tokens, from the engine's ``conquest_options``)."""
        st = view.state
        tab = tables(view.game)
        seat = view.seat
        powers = st.race_power[race]
        active = st.race_status[race] in (ACTIVE, GHOSTLY)
        key = (race, active, powers)
        fixed = tab.bonus_cache.get(key)
        if fixed is None:
            fixed = tab.bonus_cache[key] = self._bonuses(tab, race, active, powers)
        bonus, nonempty = fixed
        own = seat_regions(st, seat)
        attackers = attacker_mask(tab, st, seat)
        necro_seat = tab.necro_seat
        coins = st.coins
        leader, best = -1, None
        for p in range(tab.num_seats):  # the first of the richest other players (max's tie rule)
            if p != necro_seat and p != seat and (best is None or coins[p] > best):
                leader, best = p, coins[p]
        side = necro_seat >= 0 and seat != necro_seat
        return {
            "tab": tab, "seat": seat, "active": active, "bonus": bonus, "nonempty_bonus": nonempty,
            "urgency": necro_urgency(tab, st) if seat != necro_seat else 0.0,
            "scenario": side, "player_side": side,
            "leader": leader, "last": st.round >= tab.turns,
            "free": tab.land & ~own & ~attackers & ~st.immune & ~st.regions[race],
            "attackers": attackers, "own": own, "values": {}, "costs": None,
        }

    @staticmethod
    def _bonuses(tab: _Tables, race: int, active: bool, powers: int) -> tuple[list, float]:
        """The terrain bonuses ``[(mask, coins)]`` and the non-empty-conquest bonus of ``race`` with ``powers``."""
        bonus: list = []
        nonempty = 0.0
        if active:
            if race in tab.race_terrain:
                bonus.append((tab.race_terrain[race], 1.0))
            for p, m in tab.power_terrain.items():
                if powers >> p & 1:
                    bonus.append((m, 1.0))
            if powers & P_MERCHANT:
                bonus.append((tab.all_mask, 1.0))
            if race == ORCS:
                nonempty += 1.0
            if powers & P_PILLAGING:
                nonempty += 1.0
            if race == SKELETONS:
                nonempty += 0.5
        return bonus, nonempty

    @staticmethod
    def _costs(view: View, ctx: dict) -> dict[int, int]:
        """Region -> tokens the acting race needs (``game.conquest_cost``) for the regions it may try now: the
        engine's ``conquest_options`` (the legality builder's own figures), read once per decision."""
        rs, cs = view.game.conquest_options(view.state)
        costs = ctx["costs"] = dict(zip(rs, cs))
        return costs

    def _conquest_cost(self, view: View, r: int, ctx: dict) -> int:
        """``game.conquest_cost(state, r)`` for the acting race (see ``_costs``)."""
        c = (ctx["costs"] or self._costs(view, ctx)).get(r)
        return view.game.conquest_cost(view.state, r) if c is None else c

    # ------------------------------------------------------------------ conquest
    def _conquer(self, view: View, legal: list[int], rng) -> int:
        g, st = view.game, view.state
        race = st.cur_race
        kinds = by_kind(legal)
        ctx = self._context(view, race)
        hand = st.hand[race]
        if K_DECLINE in kinds and self.should_decline(view, race, kinds, ctx):
            return kinds[K_DECLINE][0]
        if K_CONVERT in kinds:
            acts = kinds[K_CONVERT]
            values = self._values(view, race, [_ARG[a] for a in acts], ctx)
            return pick_best(acts, [values[_ARG[a]] for a in acts], rng)
        if K_DRAGON in kinds:
            acts, scores = [], []
            values = self._values(view, race, [_ARG[a] for a in kinds[K_DRAGON]], ctx)
            for a in kinds[K_DRAGON]:
                r = _ARG[a]
                v = values[r]
                if v > 0:
                    acts.append(a)
                    scores.append(self._conquest_cost(view, r, ctx) + 0.5 * v)
            if acts:
                return pick_best(acts, scores, rng)
        if K_BERSERK_ROLL in kinds:
            return kinds[K_BERSERK_ROLL][0]
        if K_CONQUER in kinds:
            best = self._best_conquest(view, race, kinds[K_CONQUER], ctx, rng, roll=0)
            if best is not None:
                return best
        elif K_FINAL in kinds and hand > 0:
            acts, scores = [], []
            values = self._values(view, race, [_ARG[a] for a in kinds[K_FINAL]], ctx)
            for a in kinds[K_FINAL]:
                r = _ARG[a]
                v = values[r]
                if v > 0:
                    acts.append(a)
                    scores.append(-(self._conquest_cost(view, r, ctx) - hand) + 0.1 * v)
            if acts:
                return pick_best(acts, scores, rng)
        return kinds.get(K_END_CONQUEST, legal)[0]

    def _best_conquest(self, view: View, race: int, acts: list[int], ctx: dict, rng, roll: int):
        """The conquest with the most value per token it costs, after a Berserk roll of ``roll`` (0: none)."""
        best_acts, scores = [], []
        values = self._values(view, race, [_ARG[a] for a in acts], ctx)
        costs = ctx["costs"] or self._costs(view, ctx)
        for a in acts:
            r = _ARG[a]
            v = values[r]
            if v <= 0.05:
                continue
            best_acts.append(a)
            c = costs.get(r)
            scores.append(v / berserk_cost(view.game.conquest_cost(view.state, r) if c is None else c, roll))
        if not best_acts:
            return None
        return pick_best(best_acts, scores, rng)

    def _berserk(self, view: View, legal: list[int], rng) -> int:
        st = view.state
        race = st.cur_race
        acts = [a for a in legal if _KIND[a] == K_CONQUER]
        if acts:
            best = self._best_conquest(view, race, acts, self._context(view, race), rng, roll=st.berserk)
            if best is not None:
                return best
        return next(a for a in legal if _KIND[a] == K_END_CONQUEST)

    def affordable_conquests(self, view: View, race: int, acts: list[int], ctx: dict) -> int:
        """How many of the affordable regions (cheapest first) the tokens in hand can take now."""
        st = view.state
        values = self._values(view, race, [_ARG[a] for a in acts], ctx)
        costs = sorted(self._conquest_cost(view, _ARG[a], ctx) for a in acts if values[_ARG[a]] > 0.05)
        hand, n = st.hand[race], 0
        for c in costs:
            if c > hand:
                break
            hand -= c
            n += 1
        return n

    def should_decline(self, view: View, race: int, by_kind: dict, ctx: dict) -> bool:
        """Decline when the race is spent (module docstring, 'Going into decline')."""
        g, st = view.game, view.state
        if st.round >= g.game_turns:
            return False
        m = self.affordable_conquests(view, race, by_kind.get(K_CONQUER, []), ctx)
        if m == 0:
            return True
        return m == 1 and st.hand[race] <= 3 and g.game_turns - st.round >= 2

    # ------------------------------------------------------------------ redeployment
    def _targets(self, view: View, race: int, owner: int, extra_tokens: int) -> dict[int, int]:
        """Desired tokens per region of ``race`` given ``extra_tokens`` more than on the board now (a shared
        answer: read it, do not change it)."""
        st = view.state
        tab = tables(view.game)
        held = st.regions[race]
        regions = list(_bits(held))
        own = seat_regions(st, owner)
        attackers = attacker_mask(tab, st, owner)
        tok = st.tok
        total = sum(tok[r] for r in regions) + extra_tokens
        # Everything the answer is computed from (the board's masks are the game's, fixed in ``tab``).
        key = (race, owner, held, own, attackers, st.immune, total, tuple(st.encamp))
        cached = tab.targets_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        player_side = tab.necro_seat >= 0 and owner != tab.necro_seat
        threats = [threat_of(tab, st, r, own, attackers, player_side) - 0.5 * st.encamp[r] for r in regions]
        targets = water_fill(regions, [max(0.0, t) for t in threats], total - len(regions))
        tab.targets_cache = (key, targets)
        return targets

    def _threats(self, view: View, race: int, owner: int) -> dict[int, float]:
        st = view.state
        tab = tables(view.game)
        own = seat_regions(st, owner)
        attackers = attacker_mask(tab, st, owner)
        player_side = tab.necro_seat >= 0 and owner != tab.necro_seat
        return {r: threat_of(tab, st, r, own, attackers, player_side) for r in _bits(st.regions[race])}

    def _redeploy(self, view: View, legal: list[int], rng) -> int:
        st = view.state
        race = st.cur_race
        seat = st.turn_seat
        kinds = by_kind(legal)
        last = st.round >= view.game.game_turns  # the seat's final turn (``_last_turn``)
        if K_HERO in kinds or K_ENCAMP in kinds or K_FORTRESS in kinds:
            th = self._threats(view, race, seat)
            if K_HERO in kinds:
                acts = kinds[K_HERO]
                return pick_best(acts, [th.get(_ARG[a], 0.0) + 0.01 * st.tok[_ARG[a]] for a in acts], rng)
            if K_ENCAMP in kinds:
                acts = kinds[K_ENCAMP]
                return pick_best(acts, [th.get(_ARG[a], 0.0) / (1 + st.encamp[_ARG[a]]) for a in acts], rng)
            acts = kinds[K_FORTRESS]
            return pick_best(acts, [th.get(_ARG[a], 0.0) for a in acts], rng)
        if last:
            if K_PLACE in kinds:
                return kinds[K_PLACE][0]
            return kinds.get(K_END_REDEPLOY, legal)[0]
        targets = self._targets(view, race, seat, st.hand[race] - st.hold)
        if K_LIFT in kinds:
            best, surplus = None, 0
            for a in kinds[K_LIFT]:
                r = _ARG[a]
                s = st.tok[r] - targets.get(r, 1)
                if s > surplus:
                    best, surplus = a, s
            if best is not None:
                return best
        if K_PLACE in kinds:
            acts = kinds[K_PLACE]
            tok = st.tok
            if race == GHOST:  # for the Ghosts, the Lake's count is the Island's (``_present``)
                lake, island = view.game.board.lake, st.island
                present = [island if _ARG[a] == lake else tok[_ARG[a]] for a in acts]
            else:
                present = [tok[_ARG[a]] for a in acts]
            return pick_best(acts, [targets.get(_ARG[a], 1) - n for a, n in zip(acts, present)], rng)
        if K_STOUT_DECLINE in kinds and self._stout_decline(view, race):
            return kinds[K_STOUT_DECLINE][0]
        return kinds.get(K_END_REDEPLOY, legal)[0]

    def _present(self, view: View, r: int) -> int:
        """Tokens the redeploying race has on ``r`` now (for the Ghosts, the Lake's count is the Island's)."""
        st = view.state
        if st.cur_race == GHOST and r == view.game.board.lake:
            return st.island
        return st.tok[r]

    def _stout_decline(self, view: View, race: int) -> bool:
        """Stout: decline after scoring when next turn's readied tokens would take at most one region."""
        g, st = view.game, view.state
        if st.round >= g.game_turns - 1:
            return False
        held = st.regions[race]
        ready = sum(st.tok[r] - 1 for r in _bits(held))
        return ready < 4

    def _defend(self, view: View, legal: list[int], rng) -> int:
        st = view.state
        race = st.defend_race
        owner = st.race_owner[race]
        th = self._threats(view, race, owner)
        if _KIND[legal[0]] == K_ENCAMP:
            return pick_best(legal, [th.get(_ARG[a], 0.0) / (1 + st.encamp[_ARG[a]]) for a in legal], rng)
        return pick_best(legal, [(th.get(_ARG[a], 0.0) + 0.01) / st.tok[_ARG[a]] for a in legal], rng)

    # ------------------------------------------------------------------ picking a combo
    def combo_value(self, view: View, k: int) -> float:
        """Value of taking combo ``k`` of the column (module docstring, 'Picking a combo')."""
        g, st = view.game, view.state
        tab = tables(g)
        race, power = st.col_race[k], st.col_power[k]
        life = min(3, g.game_turns - st.round + 1)
        toks = tokens_at_pickup(race, power)
        per_turn = TOKEN_WEIGHT * toks + RACE_BONUS.get(race, 0.0) + POWER_BONUS.get(power, 0.0)
        enemy = attacker_mask(tab, st, view.seat)
        for table, key in ((tab.race_terrain, race), (tab.power_terrain, power)):
            if key in table:  # synergy: the share of such regions no enemy active race holds
                m = table[key]
                per_turn += (m & ~enemy).bit_count() / max(1, m.bit_count()) - 0.6
        if power == SPIRIT and (st.decl[view.seat] >= 0):
            per_turn += 0.6
        if race == AMAZONS:
            per_turn -= TOKEN_WEIGHT * 2  # 4 of their tokens conquer but do not hold regions
        v = per_turn * life + st.col_coins[k] - k
        if power == WEALTHY:
            v += WEALTHY_BONUS
        return v

    def _pick(self, view: View, legal: list[int], rng) -> int:
        return pick_best(legal, [self.combo_value(view, _ARG[a]) for a in legal], rng)

    # ------------------------------------------------------------------ Diplomat
    def _diplomat(self, view: View, legal: list[int], rng) -> int:
        g, st = view.game, view.state
        tab = tables(g)
        seat = view.seat
        own = seat_regions(st, seat)
        border = 0
        for r in _bits(own):
            border |= tab.nbr[r]
        scores = []
        for a in legal:
            target = (seat + _ARG[a]) % g.num_seats
            race = st.active[target]
            touching = (st.regions[race] & border).bit_count() if race >= 0 else 0
            scores.append(touching + 0.01 * st.coins[target])
        return pick_best(legal, scores, rng)

    # ------------------------------------------------------------------ Necromancer defaults
    def _buy(self, view: View, legal: list[int], rng) -> int:
        return A.BUY_GHOST if A.BUY_GHOST in legal else legal[0]

    def _necro_start(self, view: View, legal: list[int], rng) -> int:
        return legal[int(rng.integers(len(legal)))]


__all__ = ["GreedyAgent", "RACE_BONUS", "POWER_BONUS", "tables", "attacker_mask", "threat_of",
           "water_fill", "by_kind", "seat_regions", "necro_urgency"]

"""The rules engine: ``Game`` (static, built once) acting on ``State`` (mutable).

RULES.md §1 (base game), §2 (races and powers) and §4 (Necromancer Island).
One source of legality: ``legal_actions(state)`` lists the legal action indices
(see ``actions.py`` for the table) and ``apply(state, action)`` accepts exactly
those, raising :class:`IllegalActionError` otherwise (the state is unchanged).

Turn flow of a player seat (RULES §1.5):
    [in-decline Ghouls conquer and redeploy first]  ->  PICK (no active race)
    -> CONQUER (decline / abandon before the first conquest; conquer, final die,
       powers; END_CONQUEST) -> REDEPLOY (lift, place, pieces; END_REDEPLOY)
    -> score -> [Stout decline] -> [DIPLOMAT] -> DEFEND (each defender that lost
       regions places its survivors) -> [spawn Ghosts] -> next seat.
The Necromancer (last seat): BUY -> CONQUER with Ghosts -> REDEPLOY -> score,
bonus souls -> DEFEND -> spawn -> victory check (RULES §4.1 rules 11-14).

Readings fixed here (where RULES.md leaves the engine a choice):
* Readying troops is automatic at the start of CONQUER (every token beyond 1 per
  region goes to hand); redeployment can put them back anywhere, so nothing is lost.
* The reinforcement die (FINAL) is offered only when no CONQUER is affordable
  (RULES §1.6; ``GameConfig.final_die="when_short"``), or with ``final_die="any"`` on
  any reachable region the hand is 1-3 tokens short of; a Berserk race rolls before
  any conquest instead (BERSERK_ROLL).
* The Necromancer's Island Ghosts are readied into his hand with the rest (A14): in his
  redeployment PLACE on the Lake puts a Ghost back on the Island while it holds fewer
  than it did when his conquests began (``island_cap``), so unused Island Ghosts stay.
* A defender whose race holds exactly one region has no choice: its survivors are
  placed there without a decision. Survivors of a race with no region left stay in
  hand (active race, in-decline Ghouls), return to the tray (other in-decline races)
  or go to the Island (Ghosts, rule 9).
* Heroes and encampments are lifted at the start of their owner's redeployment and
  must all be placed again before END_REDEPLOY (while the race holds regions).
* Stout's decline is the action STOUT_DECLINE, which ends redeployment like
  END_REDEPLOY and declines after scoring.
* A seat that must pick a combo while the column is empty (all 14 banners in use)
  skips to scoring; this needs Spirit and is not reachable in ordinary games.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from . import actions as A
from . import rng as R
from .actions import NUM_ACTIONS, Kind, decode
from .board import MOUNTAIN, Board, load_board
from .catalog import (
    AMAZONS, ELVES, GHOST, GHOULS, GIANTS, HALFLINGS, LOST_TRIBE, NUM_OCCUPANTS,
    NUM_POWERS, NUM_RACES, POWERS, RACES, SKELETONS, SORCERERS, TROLLS,
    P_BERSERK, P_BIVOUACKING, P_DIPLOMAT, P_DRAGON, P_FLYING, P_FORTIFIED, P_HEROIC,
    P_SEAFARING, P_SPIRIT, P_STOUT, P_UNDERWORLD, P_WEALTHY,
    ENCAMPMENTS, FORTRESSES, HEROES, HOLES, GHOST_BOX, WEALTHY_BONUS,
    ScoreContext, box_count, power_id, race_id, tokens_at_pickup,
)
from .config import GameConfig
from .errors import ConfigError, IllegalActionError, StateError
from .state import (
    ABANDONED, ACTIVE, CONQUERED, DECLINED, FROM_AMAZON_HOLD, FROM_ISLAND, GHOSTLY, GHOUL_SEGMENT, MAIN_SEGMENT,
    NOT_STARTED, TRIBE, UNUSED, Phase, State,
)
from .validate import conservation_errors, validate_state

DIE_FACES = (0, 0, 0, 1, 2, 3)
MAX_ROLL = max(DIE_FACES)
COLUMN_SIZE = 6

_CONQUER = int(Phase.CONQUER)
_REDEPLOY = int(Phase.REDEPLOY)
_BERSERK = int(Phase.BERSERK)
_DEFEND = int(Phase.DEFEND)
_PICK = int(Phase.PICK)
_BUY = int(Phase.BUY)
_DIPLOMAT = int(Phase.DIPLOMAT)
_NECRO_START = int(Phase.NECRO_START)
_OVER = int(Phase.OVER)
_CONQUER_A, _ABANDON_A = A.CONQUER, A.ABANDON
_KINDS_BY_VALUE = sorted(Kind)
if [int(k) for k in _KINDS_BY_VALUE] != list(range(len(Kind))):
    raise ImportError("actions.Kind's values must be 0..n-1: Game's dispatch table is indexed by them")
_LIFT_A, _PLACE_A, _HERO_A, _FINAL_A, _DRAGON_A = A.LIFT, A.PLACE, A.HERO, A.FINAL, A.DRAGON
# The legality builders list actions in index order without sorting: they rely on this order.
if not (A.DECLINE < A.ABANDON < A.CONQUER < A.FINAL < A.END_CONQUEST < A.LIFT < A.PLACE < A.END_REDEPLOY
        < A.DRAGON < A.HERO < A.ENCAMP < A.FORTRESS < A.CONVERT < A.BERSERK_ROLL < A.STOUT_DECLINE):
    raise ImportError("actions.py's table order changed: engine.py's legality builders assume it")


_BITS: dict[int, tuple[int, ...]] = {}
_BITS_MAX = 1 << 17  # entries kept; region sets repeat a lot within and across games


def bits(m: int) -> tuple[int, ...]:
    """Indices of the set bits of ``m`` (a region bitset), lowest first (memoised: a hot path)."""
    t = _BITS.get(m)
    if t is None:
        if m < 0:  # a negative int has infinitely many set bits: never loop on one
            raise StateError(f"a region or power bitset must be >= 0, got a negative int of {m.bit_length()} bits")
        out = []
        x = m
        while x:
            low = x & -x
            out.append(low.bit_length() - 1)
            x ^= low
        t = tuple(out)
        if len(_BITS) < _BITS_MAX:
            _BITS[m] = t
    return t


_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)


def berserk_cost(cost: int, roll: int) -> int:
    """Tokens a conquest costing ``cost`` takes after a Berserk roll of ``roll``: the roll comes off the
    cost, at least 1 token is still needed (RULES §1.6, §2.2). ``roll`` 0 leaves the cost (at least 1).
    The engine's legality, its CONQUER in phase BERSERK and the greedy player all compute it here."""
    c = cost - roll
    return c if c > 1 else 1


class Game:
    """Static part of a game: config, board, derived tables. Build once, reuse for many states."""

    def __init__(self, config: GameConfig | None = None, **options) -> None:
        if config is None:
            config = GameConfig(**options)
        elif options:
            raise ConfigError("pass either a GameConfig or keyword options, not both")
        elif not isinstance(config, GameConfig):
            raise ConfigError(f"config must be a GameConfig, got {type(config).__name__}")
        self.config = config
        self.board: Board = load_board(config.board_key)
        b = self.board
        self.num_seats = config.players
        self.necromancer = bool(config.necromancer)
        self.necro_seat = config.players - 1 if self.necromancer else -1
        self.game_turns = config.game_turns or b.game_turns
        self.skip_forced = config.skip_forced
        self.hide_coins = config.hide_coins
        self.final_die_any = config.final_die == "any"
        self.num_regions = b.num_regions
        self.nbr = b.nbr_mask
        self._base_cost = [3 if t == MOUNTAIN else 2 for t in b.terrain]  # RULES §1.6: 2 tokens, +1 on a mountain
        # Regions a race may ever stand on: land, + seas (and the lake outside the scenario) if Seafaring.
        self.land = b.land_mask
        self.seafaring_ok = b.land_mask | b.sea_mask | (0 if self.necromancer else b.lake_mask)
        self.race_discount = [RACES[i].discount(b) if RACES[i].discount else 0 for i in range(NUM_RACES)]
        self.power_discount = [POWERS[i].discount(b) if POWERS[i].discount else 0 for i in range(NUM_POWERS)]
        self._disc_cache: dict[tuple[int, int], list[int]] = {}
        self._options: tuple | None = None  # the last conquest figures of the legality builder
        self._adj: dict[int, int] = {}
        self.forced_races = [race_id(r) for r, _ in config.forced_combos]
        self.forced_powers = [power_id(p) for _, p in config.forced_combos]
        self.necro_forced = ([power_id(p) for p in config.necromancer_powers]
                             if config.necromancer_powers else None)
        # Dispatch of ``apply``: each action kind is carried out by one method, ``_do_<kind>`` (its name
        # in lower case), bound once here; ``_dispatch`` holds per action index its handler and argument.
        self._handlers: dict[Kind, Callable[[State, int], None]] = {
            k: getattr(self, "_do_" + k.name.lower()) for k in Kind}
        by_int = [self._handlers[k] for k in _KINDS_BY_VALUE]
        self._dispatch = [(by_int[k], arg) for k, arg in zip(A.KIND_OF, A.ARG_OF)]

    # ------------------------------------------------------------------ set-up
    def new_state(self, seed: int = 0) -> State:
        """A fresh game (RULES §1.2 and, with the Necromancer, §4.1 rules 1-6)."""
        cfg, b = self.config, self.board
        n, nr = self.num_seats, self.num_regions
        st = State.__new__(State)
        try:
            s = R.seed_state(seed)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        races = list(range(NUM_RACES))
        powers = list(range(NUM_POWERS))
        s = R.shuffle(s, races)
        s = R.shuffle(s, powers)
        races = self.forced_races + [x for x in races if x not in self.forced_races]
        powers = self.forced_powers + [x for x in powers if x not in self.forced_powers]
        draw: list[int] = []
        if self.necromancer:
            if self.necro_forced is not None:
                draw = list(self.necro_forced)
            else:
                # Rule 4 / A24: the first 6 acceptable badges, skipping the forced ones.
                for p in powers:
                    if len(draw) == 6:
                        break
                    if POWERS[p].necromancer_ok and p not in self.forced_powers:
                        draw.append(p)
            powers = [p for p in powers if p not in draw]
        st.rng = s
        st.coins = [cfg.starting_coins] * n
        st.active = [-1] * n
        st.decl = [-1] * n
        st.decl_spirit = [-1] * n
        st.pact = [-1] * n
        st.race_owner = [-1] * NUM_OCCUPANTS
        st.race_status = [UNUSED] * NUM_OCCUPANTS
        st.race_status[LOST_TRIBE] = TRIBE
        st.race_power = [0] * NUM_OCCUPANTS
        st.hand = [0] * NUM_OCCUPANTS
        st.tray = [box_count(i) for i in range(NUM_OCCUPANTS)]
        st.well = [0] * NUM_OCCUPANTS
        st.regions = [0] * NUM_OCCUPANTS
        st.occ = [-1] * nr
        st.tok = [0] * nr
        for r in range(nr):
            if b.lost_tribe[r]:
                st.occ[r] = LOST_TRIBE
                st.tok[r] = 1
                st.tray[LOST_TRIBE] -= 1
                st.regions[LOST_TRIBE] |= 1 << r
        st.lair = [0] * nr
        st.fort = [0] * nr
        st.hole = [0] * nr
        st.hero = [0] * nr
        st.encamp = [0] * nr
        st.dragon = -1
        st.immune = 0
        st.amazon_held = 0
        st.holes_placed = 0
        st.hero_pool = 0
        st.encamp_pool = 0
        st.wealthy_paid = 0
        st.round = 1
        st.turn_seat = 0
        st.decider = 0
        st.phase = _PICK
        st.cur_race = -1
        st.segment = MAIN_SEGMENT
        st.started = NOT_STARTED
        st.picked = st.placed = st.dragon_used = st.fort_used = 0
        st.berserk = -1
        st.converted = st.attacked = 0
        st.nonempty = 0
        st.hold = 0
        st.ready_taken = []
        st.defend_race = -1
        st.last_die = -1
        st.race_deck = races
        st.power_deck = powers
        st.power_discard = []
        st.col_race, st.col_power, st.col_coins = [], [], []
        st.island = 0
        st.ghosts_removed = 0
        st.souls = 0
        st.necro_draw = draw
        st.necro_reserve = []
        st.bought_ghosts = st.bought_powers = 0
        st.ghost_curve = []
        st.over = 0
        st.necro_won = 0
        st.winners = []
        st.decisions = 0
        st.forced = 0
        st._legal = None
        self._refill_column(st)
        if self.necromancer:
            ns = self.necro_seat
            st.race_owner[GHOST] = ns
            st.race_status[GHOST] = GHOSTLY
            st.active[ns] = GHOST
            st.island = 1
            st.ghosts_removed = cfg.handicap
            st.tray[GHOST] = GHOST_BOX - 1 - cfg.handicap
            if not cfg.necromancer_starting_coins:
                st.coins[ns] = 0
            st.phase = _NECRO_START
            st.decider = ns
            st.turn_seat = 0
        else:
            self._begin_turn(st, 0)
        if self.skip_forced:
            self._skip_forced(st)
        return st

    # ------------------------------------------------------------------ queries
    def legal_actions(self, st: State) -> list[int]:
        """Sorted legal action indices for ``st.decider`` (cached on the state: do not mutate the list)."""
        la = st._legal
        if la is None:
            la = st._legal = self._compute_legal(st)
        return la

    def legal_action_mask(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask of length ``NUM_ACTIONS`` (a fresh array, or filled into ``out`` if given)."""
        # (Memoising masks by legal set was measured slower in the full AEC loop: only about
        # half of the sets recur, and the cache's megabytes push the rest out of the CPU caches.)
        if out is None:
            mask = _NO_ACTIONS.copy()
        else:
            mask = out
            mask.fill(0)
        mask.put(self.legal_actions(st), 1)
        return mask

    def is_legal(self, st: State, action: int) -> bool:
        return action in self.legal_actions(st)

    # ------------------------------------------------------------------ editing a position
    def invalidate(self, st: State) -> None:
        """Call after changing a ``State``'s fields by hand (a hand-built position): recomputes what the
        engine derives from them (the immune regions) and drops the cached legal actions."""
        self._recompute_immune(st)
        st._legal = None

    def begin_turn(self, st: State, seat: int) -> None:
        """Start ``seat``'s turn now, exactly as the engine does after the previous seat's turn: the
        per-turn flags and the seat's pact are reset, the Necromancer enters BUY, in-decline Ghouls go
        first, troops are readied; with ``skip_forced`` forced decisions are then applied. For
        hand-built positions (``necro_env.game.positions``); the edits made before are taken in."""
        self._recompute_immune(st)
        self._begin_turn(st, seat)
        st._legal = None
        if self.skip_forced:
            self._skip_forced(st)

    def current_seat(self, st: State) -> int:
        """The seat that must decide now (-1 when the game is over)."""
        return -1 if st.over else st.decider

    def island_cap(self, st: State) -> int:
        """Ghosts the Island held when the Necromancer's conquests began this turn (A14).

        Readying lifts them into his hand with the rest; in his redeployment he may put
        Ghosts back on the Island up to this number (unused Island Ghosts stay there).
        0 outside his turn."""
        if st.cur_race != GHOST:
            return 0
        t = st.ready_taken
        for i in range(len(t) - 2, -1, -2):
            if t[i] == FROM_ISLAND:
                return t[i + 1]
        return 0

    def ghosts_in_play(self, st: State) -> int:
        """Ghost tokens on regions and on the Island (the price term of rule 11)."""
        return st.island + sum(st.tok[r] for r in bits(st.regions[GHOST]))

    def purchase_price(self, st: State) -> int:
        """Rule 11 / A5: powers in use + Ghosts on the map (Island included)."""
        return st.race_power[GHOST].bit_count() + self.ghosts_in_play(st)

    def tokens_on_board(self, st: State, seat: int) -> int:
        """Race tokens of a seat on the board (active + in decline): the tie-break (RULES §1.11)."""
        total = 0
        for x in (st.active[seat], st.decl[seat], st.decl_spirit[seat]):
            if x >= 0:
                total += sum(st.tok[r] for r in bits(st.regions[x]))
        return total

    def _standing_keys(self, st: State) -> list[tuple]:
        """Sort keys of the final standing, higher is better (see ``standings``)."""
        keys = []
        for s in range(self.num_seats):
            if s == self.necro_seat:
                keys.append((2, 0, 0) if st.necro_won else (-1, 0, 0))
            elif st.necro_won:
                keys.append((0, 0, 0))
            else:
                keys.append((1 if s in st.winners else 0, st.coins[s], self.tokens_on_board(st, s)))
        return keys

    def standings(self, st: State) -> list[int]:
        """Final placement of every seat, 1 = best, equal standings share a place.

        The Necromancer is first if he won (then every player shares second place) and last
        otherwise; players are ordered by the rules' ranking: winner(s), coins, then race
        tokens on the board (RULES §1.11, §4.1 rule 15).
        """
        keys = self._standing_keys(st)
        return [1 + sum(1 for other in keys if other > k) for k in keys]

    def rank_scores(self, st: State) -> list[float]:
        """``standings`` scaled to [-1, 1]: first +1, last -1, tied seats share their mean position."""
        keys = self._standing_keys(st)
        n = self.num_seats
        out = []
        for k in keys:
            above = sum(1 for other in keys if other > k)
            tied = sum(1 for other in keys if other == k)
            out.append(1.0 - 2.0 * (above + (tied - 1) / 2) / (n - 1))
        return out

    def conquest_cost(self, st: State, region: int, race: int | None = None) -> int:
        """Tokens ``race`` (default: the acting race) needs to conquer ``region`` now (RULES §1.6)."""
        race = st.cur_race if race is None else race
        disc, giants = self._discounts(st, race)
        return self._cost(st, region, disc, giants)

    def conquest_costs(self, st: State, race: int, regions: Iterable[int] | None = None) -> list[int]:
        """Tokens ``race`` would need to conquer each of ``regions`` (default: every region) now (RULES §1.6;
        no reachability test)."""
        disc, giants = self._discounts(st, race)
        rs = range(self.num_regions) if regions is None else regions
        return [self._cost(st, r, disc, giants) for r in rs]

    def conquest_options(self, st: State) -> tuple[tuple[int, ...], list[int]]:
        """``(regions, costs)``: the regions the race conquering now may try to conquer and the tokens each
        costs (RULES §1.6, clamped to at least 1); empty outside the CONQUER and BERSERK phases.
        In CONQUER with tokens in hand the legal-action builder's own figures are reused."""
        if st.over or st.phase not in (_CONQUER, _BERSERK):
            return (), []
        la = self.legal_actions(st)
        opt = self._options
        if opt is not None and opt[0] is la:
            return opt[1], [c if c > 1 else 1 for c in opt[2]]
        race = st.cur_race
        rs = bits(self._reach(st, race))
        return rs, self.conquest_costs(st, race, rs)

    def targets(self, st: State, race: int) -> int:
        """Bitset of the regions ``race`` may try to conquer now (adjacency or first conquest, powers, immunity,
        pacts; whatever the tokens in hand)."""
        return self._reach(st, race)

    def result(self, st: State) -> dict:
        """Terminal facts for the env and the evaluation tools."""
        return {
            "over": bool(st.over),
            "winners": list(st.winners),
            "necromancer_won": bool(st.necro_won),
            "coins": list(st.coins),
            "rounds_played": min(st.round, self.game_turns),
            "ghost_curve": list(st.ghost_curve),
            "ghosts_in_play": self.ghosts_in_play(st) if self.necromancer else 0,
            "bought_ghosts": st.bought_ghosts,
            "bought_powers": st.bought_powers,
        }

    # ------------------------------------------------------------------ legality
    def _discounts(self, st: State, race: int) -> tuple[list[int], int]:
        """Per region, how much ``race``'s race and powers take off the cost now; Giants' mountain mask."""
        active = st.race_status[race] in (ACTIVE, GHOSTLY)
        powers = st.race_power[race]
        key = (race if active else -1, powers)
        disc = self._disc_cache.get(key)
        if disc is None:
            ms = []
            if active and race < NUM_RACES and self.race_discount[race]:
                ms.append(self.race_discount[race])
            for p in bits(powers):
                if self.power_discount[p]:
                    ms.append(self.power_discount[p])
            disc = self._disc_cache[key] = [sum((m >> r) & 1 for m in ms) for r in range(self.num_regions)]
        giants = 0
        if race == GIANTS and active:
            for r in bits(st.regions[race] & self.board.mountain_mask):
                giants |= self.nbr[r]
        return disc, giants

    def _cost(self, st: State, r: int, disc: list[int], giants: int) -> int:
        c = self._base_cost[r] + st.lair[r] + st.fort[r] + st.encamp[r] - disc[r]
        if st.occ[r] >= 0:
            c += st.tok[r]
        if (giants >> r) & 1:
            c -= 1
        return c if c > 1 else 1

    def _protected(self, st: State, race: int) -> int:
        """Regions the acting race may not attack because of a Diplomat pact."""
        seat = st.race_owner[race]
        if seat < 0 or st.active[seat] != race:
            return 0  # in-decline races (e.g. Ghouls) are not bound by pacts
        m = 0
        for p, t in enumerate(st.pact):
            if t == seat and st.active[p] >= 0:
                m |= st.regions[st.active[p]]
        return m

    def _adjacent(self, held: int) -> int:
        """Regions next to any region of the bitset ``held`` (memoised: region sets recur a lot)."""
        m = self._adj.get(held)
        if m is None:
            m = 0
            for r in bits(held):
                m |= self.nbr[r]
            if len(self._adj) >= 1 << 16:
                self._adj.clear()
            self._adj[held] = m
        return m

    def _reach(self, st: State, race: int) -> int:
        """Regions ``race`` may try to conquer now (adjacency, first conquest, powers, immunity, pacts)."""
        b = self.board
        held = st.regions[race]
        powers = st.race_power[race]
        m = b.lake_nbr_mask if race == GHOST else 0
        if held:
            m |= self._adjacent(held)
            if powers & P_UNDERWORLD and held & b.cavern_mask:
                m |= b.cavern_mask
        elif race != GHOST:
            # First conquest: border regions (both seas touch the board edge), anywhere for Halflings.
            # (the water a race may not enter is masked out below).
            m = b.all_mask if race == HALFLINGS and st.race_status[race] == ACTIVE else b.first_conquest_mask
            if powers & P_SEAFARING:
                m |= b.sea_mask
        if powers & P_FLYING:
            m |= b.land_mask
        m &= self.seafaring_ok if powers & P_SEAFARING else self.land
        m &= ~(held | st.immune)
        if max(st.pact) >= 0:
            m &= ~self._protected(st, race)
        return m

    def _compute_legal(self, st: State) -> list[int]:
        ph = st.phase
        if ph == _CONQUER:
            return self._legal_conquer(st)
        if ph == _REDEPLOY:
            return self._legal_redeploy(st)
        if ph == _DEFEND:
            race = st.defend_race
            out = []
            if st.hand[race] > 0:
                out.extend(A.PLACE + r for r in bits(st.regions[race]))
            elif st.encamp_pool > 0:
                out.extend(A.ENCAMP + r for r in bits(st.regions[race]))
            return out
        if ph == _BERSERK:
            race = st.cur_race
            hand = st.hand[race]
            disc, giants = self._discounts(st, race)
            roll = st.berserk
            out = []
            for r in bits(self._reach(st, race)):
                if berserk_cost(self._cost(st, r, disc, giants), roll) <= hand:
                    out.append(A.CONQUER + r)
            out.append(A.END_CONQUEST)
            return out
        if ph == _PICK:
            coins = st.coins[st.decider]
            return [A.PICK + k for k in range(len(st.col_race)) if k <= coins]
        if ph == _BUY:
            out = []
            if st.coins[st.decider] >= self.purchase_price(st):
                if st.tray[GHOST] > 0:
                    out.append(A.BUY_GHOST)
                out.extend(A.BUY_POWER + k for k, p in enumerate(st.necro_reserve) if p >= 0)
            out.append(A.END_BUY)
            return out
        if ph == _DIPLOMAT:
            n = self.num_seats
            return [A.DIPLOMAT + k - 1 for k in range(1, n) if self._diplomat_ok(st, (st.decider + k) % n)]
        if ph == _NECRO_START:
            return [A.NECRO_START + k for k in range(len(st.necro_draw))]
        return []

    def _legal_conquer(self, st: State) -> list[int]:
        race = st.cur_race
        seat = st.turn_seat
        hand = st.hand[race]
        held = st.regions[race]
        out: list[int] = []
        main = st.segment == MAIN_SEGMENT
        if st.started != CONQUERED:  # abandons only before the first conquest, a decline before anything
            if st.started == NOT_STARTED and main and race != GHOST and not st.picked:
                out.append(A.DECLINE)
            out += [_ABANDON_A + r for r in bits(held)]
        powers = st.race_power[race]
        # Built in action-index order (DECLINE, ABANDON, CONQUER, FINAL, END_CONQUEST, DRAGON,
        # CONVERT, BERSERK_ROLL). Costs are not clamped to 1 here: with hand >= 1 every test below
        # gives the same answer either way.
        dragon: list[int] = []
        berserk = False
        if hand > 0:
            reach = self._reach(st, race)
            if reach:
                disc, giants = self._discounts(st, race)
                base, lair, fort, encamp, occ, tok = self._base_cost, st.lair, st.fort, st.encamp, st.occ, st.tok
                rs = bits(reach)
                cs = [base[r] + lair[r] + fort[r] + encamp[r] - disc[r] + (tok[r] if occ[r] >= 0 else 0)
                      - ((giants >> r) & 1) for r in rs]  # = self._cost, inlined (the hottest loop)
                conquer = [_CONQUER_A + r for r, c in zip(rs, cs) if c <= hand]
                out += conquer
                if powers & P_BERSERK:  # the roll is offered when the best face would make a target affordable
                    berserk = berserk_cost(min(cs), MAX_ROLL) <= hand
                elif not conquer:
                    out += [_FINAL_A + r for r, c in zip(rs, cs) if c - hand <= 3]
                elif self.final_die_any:
                    out += [_FINAL_A + r for r, c in zip(rs, cs) if 0 < c - hand <= 3]
                if powers & P_DRAGON and not st.dragon_used:
                    dragon = [_DRAGON_A + r for r in rs]
                self._options = (out, rs, cs)  # conquest_options() reads it while ``out`` is st's legal list
        out.append(A.END_CONQUEST)
        out += dragon
        if race == SORCERERS and main and st.race_status[race] == ACTIVE and st.tray[SORCERERS] > 0 and held:
            out += [A.CONVERT + r for r in self._conversion_targets(st, seat)]
        if berserk:
            out.append(A.BERSERK_ROLL)
        return out

    def _conversion_targets(self, st: State, seat: int) -> list[int]:
        """Sorcerers: lone active enemy tokens next to a Sorcerer region (RULES §2.1)."""
        held = st.regions[SORCERERS]
        adj = self._adjacent(held)
        powers = st.race_power[SORCERERS]
        adj &= self.seafaring_ok if powers & P_SEAFARING else self.land
        adj &= ~(held | st.immune)
        if max(st.pact) >= 0:
            adj &= ~self._protected(st, SORCERERS)
        out = []
        for r in bits(adj):
            x = st.occ[r]
            if x < 0 or x >= NUM_RACES or st.tok[r] != 1 or st.encamp[r]:
                continue
            if st.race_status[x] != ACTIVE:
                continue
            o = st.race_owner[x]
            if o == seat or (st.converted >> o) & 1:
                continue
            out.append(r)
        return out

    def _legal_redeploy(self, st: State) -> list[int]:
        # Built in action-index order (LIFT, PLACE, END_REDEPLOY, HERO, ENCAMP, FORTRESS, STOUT_DECLINE).
        race = st.cur_race
        regions = bits(st.regions[race])
        hand = st.hand[race]
        hold = st.hold
        powers = st.race_power[race]
        if st.placed:
            out: list[int] = []
        else:
            tok = st.tok
            out = [_LIFT_A + r for r in regions if tok[r] >= 2]
        if hand > hold:
            if race == GHOST and (self.config.island_redeploy or st.island < self.island_cap(st)):
                out += sorted([_PLACE_A + r for r in regions] + [_PLACE_A + self.board.lake])
            else:
                out += [_PLACE_A + r for r in regions]
        # Heroes/encampments left in a pool (one region held; all regions lost) belong to the
        # Heroic/Bivouacking race only: another race neither places them nor waits for them.
        if st.hero_pool > 0 and powers & P_HEROIC:
            hero = st.hero
            free_hero = [_HERO_A + r for r in regions if not hero[r]]
        else:
            free_hero = []
        camps = st.encamp_pool if powers & P_BIVOUACKING else 0
        done = hand == hold and not free_hero and camps == 0
        if done:
            out.append(A.END_REDEPLOY)
        out += free_hero
        if camps > 0:
            out += [A.ENCAMP + r for r in regions]
        if powers & P_FORTIFIED and not st.fort_used and sum(st.fort) < FORTRESSES:
            fort = st.fort
            out += [A.FORTRESS + r for r in regions if not fort[r]]
        if done and powers & P_STOUT and st.segment == MAIN_SEGMENT:
            out.append(A.STOUT_DECLINE)
        return out

    def _diplomat_ok(self, st: State, target: int) -> bool:
        """Diplomat: an opponent with an active race that we did not attack this turn."""
        if target == self.necro_seat:
            return False  # rule 16 / A15: no pact with the Ghosts
        return st.active[target] >= 0 and not (st.attacked >> target) & 1

    # ------------------------------------------------------------------ apply
    def apply(self, st: State, action: int) -> None:
        """Play ``action`` for ``st.decider``; ``IllegalActionError`` (state untouched) if illegal."""
        legal = self.legal_actions(st)
        if type(action) is not int:  # numpy ints are fine; floats and bools never, even if == a legal index
            if not isinstance(action, np.integer) or action not in legal:
                self._raise_illegal(st, action)
            action = int(action)
        elif action not in legal:
            self._raise_illegal(st, action)
        self._do(st, action)
        if self.skip_forced:
            self._skip_forced(st)

    def _skip_forced(self, st: State) -> None:
        """GameConfig.skip_forced: a decision with a single legal action is no decision.

        Under ``hide_coins`` PICK and BUY are always left to the seat: whether such a
        decision had one option depends on the seat's hidden coins."""
        while not st.over:
            la = self.legal_actions(st)
            if len(la) != 1 or (self.hide_coins and (st.phase == _BUY or st.phase == _PICK)):
                break
            st.forced += 1
            self._do(st, la[0])

    def _do(self, st: State, action: int) -> None:
        """Carry out a legal action (no check): the ``_do_<kind>`` method of its kind, with its argument."""
        do, arg = self._dispatch[action]
        st._legal = None
        st.decisions += 1
        do(st, arg)

    # The ``_do_<kind>`` methods of the short action kinds; the longer ones (``_do_pick``, ``_do_abandon``,
    # ``_do_final``, ``_do_dragon``, ``_do_convert``, ``_do_place``, ``_do_decline``, ``_do_necro_start``)
    # sit with the rules they carry out. A kind without an argument ignores ``_``.
    def _do_conquer(self, st: State, r: int) -> None:
        """Conquer ``r``, paying its cost (RULES §1.6); in phase BERSERK the roll comes off the cost (§2.2)."""
        if st.phase == _BERSERK:
            cost = berserk_cost(self.conquest_cost(st, r), st.berserk)
            st.berserk = -1
            st.phase = _CONQUER
        else:
            cost = self.conquest_cost(st, r)
        self._conquer(st, r, cost)

    def _do_end_conquest(self, st: State, _: int) -> None:
        st.berserk = -1
        self._start_redeploy(st)

    def _do_lift(self, st: State, r: int) -> None:
        """Redeployment: one token of ``r`` back into hand."""
        st.tok[r] -= 1
        st.hand[st.cur_race] += 1

    def _do_end_redeploy(self, st: State, _: int) -> None:
        self._end_redeploy(st, stout=False)

    def _do_stout_decline(self, st: State, _: int) -> None:
        """Stout: end redeployment, score, then decline (RULES §2.2)."""
        self._end_redeploy(st, stout=True)

    def _do_hero(self, st: State, r: int) -> None:
        """Heroic: a hero on ``r`` makes it immune."""
        st.hero[r] = 1
        st.hero_pool -= 1
        st.immune |= 1 << r

    def _do_encamp(self, st: State, r: int) -> None:
        """Bivouacking: an encampment on ``r`` (also a defender re-placing its encampments)."""
        st.encamp[r] += 1
        st.encamp_pool -= 1
        if st.phase == _DEFEND:
            self._defend_step(st)

    def _do_fortress(self, st: State, r: int) -> None:
        """Fortified: a fortress on ``r`` (one per turn)."""
        st.fort[r] = 1
        st.fort_used = 1

    def _do_berserk_roll(self, st: State, _: int) -> None:
        """Berserk: roll the die; the target is chosen in phase BERSERK."""
        st.berserk = self._roll(st)
        st.phase = _BERSERK

    def _do_diplomat(self, st: State, k: int) -> None:
        """Diplomat: a pact with the seat ``k`` places after the decider; the turn ends."""
        target = (st.decider + k) % self.num_seats
        st.pact[st.turn_seat] = target
        self._end_turn(st)

    def _do_buy_ghost(self, st: State, _: int) -> None:
        """Rule 11: the Necromancer buys a Ghost onto the Island."""
        st.coins[st.decider] -= self.purchase_price(st)
        st.tray[GHOST] -= 1
        st.island += 1
        st.bought_ghosts += 1
        self._after_purchase(st)

    def _do_buy_power(self, st: State, k: int) -> None:
        """Rule 11: the Necromancer buys the power in reserve slot ``k``."""
        st.coins[st.decider] -= self.purchase_price(st)
        st.race_power[GHOST] |= 1 << st.necro_reserve[k]
        st.necro_reserve[k] = -1
        st.bought_powers += 1
        self._after_purchase(st)

    def _do_end_buy(self, st: State, _: int) -> None:
        self._start_segment(st, GHOST, MAIN_SEGMENT)

    def _raise_illegal(self, st: State, action) -> None:
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            raise IllegalActionError(f"an action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")
        try:
            desc = str(decode(action))
        except ValueError as e:
            raise IllegalActionError(str(e)) from None
        who = "necromancer" if st.decider == self.necro_seat else f"seat {st.decider}"
        raise IllegalActionError(
            f"action {action} ({desc}) is not legal for {who} in phase {Phase(st.phase).name}"
            + ("" if not st.over else " (the game is over)")
            + f"; legal now: {[str(decode(a)) for a in self.legal_actions(st)][:12]}"
        )

    def _roll(self, st: State) -> int:
        st.rng, i = R.below(st.rng, 6)
        st.last_die = DIE_FACES[i]
        return st.last_die

    # ------------------------------------------------------------------ turn flow
    def _begin_turn(self, st: State, seat: int) -> None:
        st.turn_seat = seat
        st.decider = seat
        st.pact[seat] = -1  # our own pact ends when our next turn starts
        st.picked = st.dragon_used = st.fort_used = 0
        st.started = NOT_STARTED  # these were the previous seat's, until a segment starts
        st.placed = st.nonempty = st.hold = 0
        st.converted = st.attacked = 0
        st.berserk = -1
        if seat == self.necro_seat:
            if self.hide_coins or self._can_buy(st):
                st.phase = _BUY
                st.cur_race = GHOST
            else:
                self._start_segment(st, GHOST, MAIN_SEGMENT)
            return
        g = GHOULS if GHOULS in (st.decl[seat], st.decl_spirit[seat]) else -1
        if g >= 0 and (st.regions[g] or st.hand[g]):
            self._start_segment(st, g, GHOUL_SEGMENT)
        else:
            self._begin_main(st)

    def _begin_main(self, st: State) -> None:
        seat = st.turn_seat
        if st.active[seat] < 0:
            if st.col_race:
                st.phase = _PICK
                st.decider = seat
                st.cur_race = -1
            else:
                self._score(st, seat)
                self._end_turn(st)
        else:
            self._start_segment(st, st.active[seat], MAIN_SEGMENT)

    def _start_segment(self, st: State, race: int, segment: int) -> None:
        st.cur_race = race
        st.segment = segment
        st.started = NOT_STARTED
        st.nonempty = 0
        st.placed = 0
        st.hold = 0
        st.berserk = -1
        st.phase = _CONQUER
        st.decider = st.turn_seat
        taken: list[int] = []
        if not st.picked:
            tok = st.tok
            extra_total = 0
            for r in bits(st.regions[race]):
                e = tok[r] - 1
                if e > 0:
                    tok[r] = 1
                    taken.append(r)
                    taken.append(e)
                    extra_total += e
            if race == AMAZONS and st.amazon_held:
                taken.append(FROM_AMAZON_HOLD)
                taken.append(st.amazon_held)
                extra_total += st.amazon_held
                st.amazon_held = 0
            if race == GHOST and st.island:
                taken.append(FROM_ISLAND)
                taken.append(st.island)
                extra_total += st.island
                st.island = 0
            st.hand[race] += extra_total
        st.ready_taken = taken

    def _do_pick(self, st: State, k: int) -> None:
        """RULES §1.3: pay 1 coin on each combo above, collect the coins on it, take the tokens."""
        seat = st.turn_seat
        st.coins[seat] -= k
        for j in range(k):
            st.col_coins[j] += 1
        st.coins[seat] += st.col_coins[k]
        race = st.col_race.pop(k)
        power = st.col_power.pop(k)
        st.col_coins.pop(k)
        self._refill_column(st)
        st.active[seat] = race
        st.race_owner[race] = seat
        st.race_status[race] = ACTIVE
        st.race_power[race] = 1 << power
        st.wealthy_paid &= ~(1 << race)
        n = min(tokens_at_pickup(race, power), st.tray[race])
        st.tray[race] -= n
        st.hand[race] += n
        if race == HALFLINGS:
            st.holes_placed = 0
        st.picked = 1
        self._start_segment(st, race, MAIN_SEGMENT)

    def _refill_column(self, st: State) -> None:
        while len(st.col_race) < COLUMN_SIZE and st.race_deck:
            if not st.power_deck:
                if not st.power_discard:
                    return
                st.power_deck = st.power_discard
                st.power_discard = []
                st.rng = R.shuffle(st.rng, st.power_deck)
            st.col_race.append(st.race_deck.pop(0))
            st.col_power.append(st.power_deck.pop(0))
            st.col_coins.append(0)

    # ------------------------------------------------------------------ conquest
    def _lose(self, st: State, x: int, n: int) -> None:
        """Tokens lost in a conquest: to the Well in the scenario (rule 7), else to the tray."""
        if n <= 0:
            return
        if self.necromancer:
            st.well[x] += n
        else:
            st.tray[x] += n

    def _evict(self, st: State, r: int) -> bool:
        """Remove the defenders of ``r`` (RULES §1.6 defender's losses); True if it was non-empty."""
        x = st.occ[r]
        bit = 1 << r
        if st.lair[r]:
            st.lair[r] = 0
        if st.fort[r]:
            st.fort[r] = 0
        if st.encamp[r]:
            st.encamp_pool += st.encamp[r]
            st.encamp[r] = 0
        if x < 0:
            return False
        n = st.tok[r]
        st.occ[r] = -1
        st.tok[r] = 0
        st.regions[x] &= ~bit
        if x == LOST_TRIBE:
            self._lose(st, x, n)
            return True
        lost = 0 if (x == ELVES and st.race_status[x] == ACTIVE) else 1
        self._lose(st, x, lost)
        st.hand[x] += n - lost
        o = st.race_owner[x]
        if o >= 0 and st.active[o] == x:
            st.attacked |= 1 << o
        if st.race_status[x] == DECLINED and not st.regions[x] and not st.hand[x]:
            self._vanish(st, x)
        return True

    def _occupy(self, st: State, r: int, race: int, n: int) -> None:
        st.occ[r] = race
        st.tok[r] = n
        st.regions[race] |= 1 << r
        if st.race_status[race] == ACTIVE:
            if race == TROLLS:
                st.lair[r] = 1
            elif race == HALFLINGS and st.holes_placed < HOLES:
                st.hole[r] = 1
                st.holes_placed += 1
                st.immune |= 1 << r

    def _conquer(self, st: State, r: int, placed: int) -> None:
        race = st.cur_race
        if self._evict(st, r):
            st.nonempty += 1
        st.hand[race] -= placed
        self._occupy(st, r, race, placed)
        st.started = CONQUERED

    def _do_final(self, st: State, r: int) -> None:
        """Final conquest with the reinforcement die (RULES §1.6); conquests end either way."""
        race = st.cur_race
        cost = self.conquest_cost(st, r)
        hand = st.hand[race]
        roll = self._roll(st)
        if hand + roll >= cost:
            self._conquer(st, r, hand)
        st.started = CONQUERED
        self._start_redeploy(st)

    def _do_dragon(self, st: State, r: int) -> None:
        """Dragon Master: conquer with 1 token whatever the defence; the dragon moves there."""
        self._conquer(st, r, 1)
        st.dragon = r
        st.dragon_used = 1
        self._recompute_immune(st)  # the old region stays immune if it has a hole or a hero

    def _do_convert(self, st: State, r: int) -> None:
        """Sorcerers replace a lone active token with one of theirs from the tray."""
        x = st.occ[r]
        o = st.race_owner[x]
        if self.necromancer and self.config.conversion_to_well:
            st.well[x] += 1
        else:
            st.tray[x] += 1
        st.regions[x] &= ~(1 << r)
        st.lair[r] = 0
        st.fort[r] = 0
        st.attacked |= 1 << o
        st.converted |= 1 << o
        st.tray[SORCERERS] -= 1
        self._occupy(st, r, SORCERERS, 1)
        st.nonempty += 1
        st.started = CONQUERED

    def _do_abandon(self, st: State, r: int) -> None:
        """Abandon ``r`` before the first conquest: its tokens go to hand, its markers go (RULES §1.5)."""
        race = st.cur_race
        st.hand[race] += st.tok[r]
        st.occ[r] = -1
        st.tok[r] = 0
        st.regions[race] &= ~(1 << r)
        self._clear_markers(st, r)
        st.started = ABANDONED  # no decline after abandoning; abandons go on until the first conquest

    def _clear_markers(self, st: State, r: int) -> None:
        st.lair[r] = st.fort[r] = 0
        if st.encamp[r]:
            st.encamp_pool += st.encamp[r]
            st.encamp[r] = 0
        if st.hero[r]:
            st.hero[r] = 0
            st.hero_pool += 1
        st.hole[r] = 0
        if st.dragon == r:
            st.dragon = -1
        st.immune &= ~(1 << r)

    # ------------------------------------------------------------------ redeployment
    def _start_redeploy(self, st: State) -> None:
        race = st.cur_race
        main = st.segment == MAIN_SEGMENT
        if race == SKELETONS and main and st.race_status[race] == ACTIVE:
            extra = min(st.tray[SKELETONS], st.nonempty // 2)
            st.tray[SKELETONS] -= extra
            st.hand[SKELETONS] += extra
        held = st.regions[race]
        st.placed = 0
        st.hold = 0
        st.phase = _REDEPLOY
        if not held:
            self._end_redeploy(st, stout=False)
            return
        powers = st.race_power[race]
        if powers & P_HEROIC:
            st.hero = [0] * self.num_regions
            st.hero_pool = HEROES
            self._recompute_immune(st)  # holes and the dragon keep their regions immune
        if powers & P_BIVOUACKING:
            for r in range(self.num_regions):
                st.encamp[r] = 0
            st.encamp_pool = ENCAMPMENTS
        if race == AMAZONS and st.race_status[race] == ACTIVE:
            total = st.hand[race] + sum(st.tok[r] for r in bits(held))
            st.hold = max(0, min(4, total - held.bit_count()))

    def _do_place(self, st: State, r: int) -> None:
        """One token from hand onto ``r``: a defender's survivor in DEFEND, else redeployment (the Lake:
        a Ghost back onto the Island)."""
        if st.phase == _DEFEND:
            st.hand[st.defend_race] -= 1
            st.tok[r] += 1
            self._defend_step(st)
            return
        race = st.cur_race
        st.hand[race] -= 1
        st.placed = 1
        if r == self.board.lake and race == GHOST:
            st.island += 1
        else:
            st.tok[r] += 1

    def _end_redeploy(self, st: State, stout: bool) -> None:
        race = st.cur_race
        seat = st.turn_seat
        if st.segment == GHOUL_SEGMENT:
            self._begin_main(st)
            return
        if race == AMAZONS and st.race_status[race] == ACTIVE:
            st.amazon_held += st.hand[race]
            st.hand[race] = 0
        if race == GHOST and st.hand[GHOST]:
            st.island += st.hand[GHOST]  # A14: no Ghost region left -> the Island
            st.hand[GHOST] = 0
        self._score(st, seat)
        if race == GHOST:
            st.souls += st.regions[GHOST].bit_count()  # rule 13 / A10: 1 bonus soul per Ghost region
        if stout:
            self._decline(st, seat)
        powers = st.race_power[race]
        if powers & P_DIPLOMAT and (race != GHOST or self.config.necromancer_diplomat):
            n = self.num_seats
            if any(self._diplomat_ok(st, (seat + k) % n) for k in range(1, n)):
                st.phase = _DIPLOMAT
                st.decider = seat
                return
        self._end_turn(st)

    def _score(self, st: State, seat: int) -> None:
        """RULES §1.8: 1 coin per region of the seat's races + active race/power bonuses."""
        gain = 0
        a = st.active[seat]
        for x in (a, st.decl[seat], st.decl_spirit[seat]):
            if x >= 0:
                gain += st.regions[x].bit_count()
        if a >= 0:
            held = st.regions[a]
            ctx = ScoreContext(self.board, held, st.nonempty,
                               sum(st.fort[r] for r in bits(held)))
            if a < NUM_RACES and RACES[a].score is not None and st.race_status[a] == ACTIVE:
                gain += RACES[a].score(ctx)
            powers = st.race_power[a]
            for p in bits(powers):
                if POWERS[p].score is not None:
                    gain += POWERS[p].score(ctx)
            if powers & P_WEALTHY and not (st.wealthy_paid >> a) & 1:
                gain += WEALTHY_BONUS
                st.wealthy_paid |= 1 << a
        for x in (st.decl[seat], st.decl_spirit[seat]):
            if x >= 0 and x < NUM_RACES and RACES[x].score_in_decline:
                gain += RACES[x].score(ScoreContext(self.board, st.regions[x], 0, 0))
        st.coins[seat] += gain

    # ------------------------------------------------------------------ decline
    def _do_decline(self, st: State, _: int) -> None:
        """DECLINE at the start of a turn: undo readying, decline, score, end (RULES §1.10)."""
        seat = st.turn_seat
        race = st.cur_race
        t = st.ready_taken
        for i in range(0, len(t), 2):
            r, n = t[i], t[i + 1]
            st.hand[race] -= n
            if r == FROM_AMAZON_HOLD:
                st.amazon_held += n
            elif r >= 0:
                st.tok[r] += n
        st.ready_taken = []
        self._decline(st, seat)
        self._score(st, seat)
        self._end_turn(st)

    def _decline(self, st: State, seat: int) -> None:
        a = st.active[seat]
        spirit = st.race_power[a] & P_SPIRIT
        old = st.decl_spirit[seat] if spirit else st.decl[seat]
        if old >= 0:
            self._wipe(st, old)
        if spirit:
            st.decl_spirit[seat] = a
        else:
            st.decl[seat] = a
        elves_to_well = a == ELVES and self.necromancer  # rule 19
        surplus = st.hand[a]
        st.hand[a] = 0
        if a == AMAZONS:
            surplus += st.amazon_held
            st.amazon_held = 0
        if a == GHOULS:
            # Ghouls keep every token on the map; tokens still in hand go back onto the regions.
            regs = list(bits(st.regions[a]))
            if regs and surplus:
                for i in range(surplus):
                    st.tok[regs[i % len(regs)]] += 1
                surplus = 0
        else:
            for r in bits(st.regions[a]):
                if st.tok[r] > 1:
                    surplus += st.tok[r] - 1
                    st.tok[r] = 1
        if elves_to_well:
            st.well[ELVES] += surplus
        else:
            st.tray[a] += surplus
        # Pieces tied to the active race or its power go (lairs and fortresses stay).
        for r in bits(st.regions[a]):
            st.hole[r] = 0
            st.hero[r] = 0
            st.encamp[r] = 0
        powers = st.race_power[a]
        if powers & P_DRAGON:
            st.dragon = -1
        if powers & P_HEROIC:
            for r in range(self.num_regions):
                st.hero[r] = 0
            st.hero_pool = 0
        if powers & P_BIVOUACKING:
            for r in range(self.num_regions):
                st.encamp[r] = 0
            st.encamp_pool = 0
        for p in bits(powers):
            st.power_discard.append(p)
        st.race_power[a] = 0
        st.race_status[a] = DECLINED
        st.active[seat] = -1
        self._recompute_immune(st)
        if not st.regions[a]:
            self._vanish(st, a)

    def _wipe(self, st: State, x: int) -> None:
        """Remove an in-decline race from the map to the tray (a newer decline; A21/A22)."""
        for r in bits(st.regions[x]):
            st.tray[x] += st.tok[r]
            st.occ[r] = -1
            st.tok[r] = 0
            self._clear_markers(st, r)
        st.regions[x] = 0
        st.tray[x] += st.hand[x]
        st.hand[x] = 0
        self._vanish(st, x)

    def _vanish(self, st: State, x: int) -> None:
        """An in-decline race has left the map: its banner returns to the stack."""
        o = st.race_owner[x]
        if o >= 0:
            if st.decl[o] == x:
                st.decl[o] = -1
            if st.decl_spirit[o] == x:
                st.decl_spirit[o] = -1
        st.tray[x] += st.hand[x]
        st.hand[x] = 0
        st.race_owner[x] = -1
        st.race_status[x] = UNUSED
        st.race_power[x] = 0
        st.race_deck.append(x)
        self._refill_column(st)

    def _recompute_immune(self, st: State) -> None:
        m = 0
        for r in range(self.num_regions):
            if st.hole[r] or st.hero[r]:
                m |= 1 << r
        if st.dragon >= 0:
            m |= 1 << st.dragon
        st.immune = m

    # ------------------------------------------------------------------ end of turn
    def _end_turn(self, st: State) -> None:
        """Defenders place their survivors, then spawning, victory check and the next seat."""
        if self._next_defender(st):
            return
        self._after_defense(st)

    def _next_defender(self, st: State) -> bool:
        seat = st.turn_seat
        own = st.active[seat]
        for x in range(NUM_OCCUPANTS):
            if x == own or x == LOST_TRIBE:
                continue
            need_camps = st.encamp_pool > 0 and st.race_power[x] & P_BIVOUACKING and st.regions[x]
            if st.hand[x] <= 0 and not need_camps:
                continue
            held = st.regions[x]
            if not held:
                if x == GHOST:
                    st.island += st.hand[x]
                    st.hand[x] = 0
                elif st.race_status[x] == DECLINED and x != GHOULS:
                    self._vanish(st, x)
                continue
            if held & (held - 1) == 0:  # a single region: nothing to decide
                r = held.bit_length() - 1
                st.tok[r] += st.hand[x]
                st.hand[x] = 0
                if need_camps:
                    st.encamp[r] += st.encamp_pool
                    st.encamp_pool = 0
                continue
            st.defend_race = x
            st.phase = _DEFEND
            st.decider = st.race_owner[x]
            return True
        st.defend_race = -1
        return False

    def _defend_step(self, st: State) -> None:
        x = st.defend_race
        if st.hand[x] > 0 or (st.encamp_pool > 0 and st.race_power[x] & P_BIVOUACKING):
            return
        self._end_turn(st)

    def _after_defense(self, st: State) -> None:
        seat = st.turn_seat
        if self.necromancer:
            self._spawn(st)
            if (seat == self.necro_seat or self.config.victory_check == "anytime") and self._necro_victory(st):
                st.necro_won = 1
                st.ghost_curve.append(self.ghosts_in_play(st))
                self._game_over(st, [self.necro_seat])
                return
        nxt = seat + 1
        if nxt == self.num_seats:
            if self.necromancer:
                st.ghost_curve.append(self.ghosts_in_play(st))
            if st.round >= self.game_turns:
                self._game_over(st, None)
                return
            st.round += 1
            nxt = 0
        self._begin_turn(st, nxt)

    def _game_over(self, st: State, winners: list[int] | None) -> None:
        if winners is None:
            seats = [s for s in range(self.num_seats) if s != self.necro_seat]
            best = max(st.coins[s] for s in seats)
            tied = [s for s in seats if st.coins[s] == best]
            if len(tied) > 1:  # RULES §1.11 tie-break: most race tokens on the board
                toks = {s: self.tokens_on_board(st, s) for s in tied}
                most = max(toks.values())
                tied = [s for s in tied if toks[s] == most]
            winners = tied
        st.winners = winners
        st.over = 1
        st.phase = _OVER
        st.decider = -1
        st._legal = []

    # ------------------------------------------------------------------ Necromancer
    def _do_necro_start(self, st: State, k: int) -> None:
        """Rule 4: one of the 6 drawn powers is in use; the other 5 are his reserve."""
        st.race_power[GHOST] = 1 << st.necro_draw[k]
        st.necro_reserve = [p for i, p in enumerate(st.necro_draw) if i != k]
        st.necro_draw = []
        self._begin_turn(st, 0)

    def _can_buy(self, st: State) -> bool:
        if st.tray[GHOST] <= 0 and all(p < 0 for p in st.necro_reserve):
            return False
        return st.coins[self.necro_seat] >= self.purchase_price(st)

    def _after_purchase(self, st: State) -> None:
        if not self.hide_coins and not self._can_buy(st):
            self._start_segment(st, GHOST, MAIN_SEGMENT)

    def _spawn(self, st: State) -> None:
        """Rule 10 / A9: each set of 4 tokens in the Well (Ghosts first) spawns 1 Ghost."""
        well = st.well
        total = sum(well) + st.souls
        while total >= 4:
            if not well[GHOST] and not st.tray[GHOST]:
                break  # A9: no Ghost could be taken from the Reserve: the tokens stay in the Well
            g = min(4, well[GHOST])
            well[GHOST] -= g
            st.tray[GHOST] += g
            need = 4 - g
            take = min(need, st.souls)
            st.souls -= take
            need -= take
            x = 0
            while need:
                if x != GHOST and well[x]:
                    t = min(need, well[x])
                    well[x] -= t
                    st.tray[x] += t
                    need -= t
                x += 1
            st.tray[GHOST] -= 1
            st.island += 1
            total -= 4

    def _necro_victory(self, st: State) -> bool:
        """Rule 14: no Ghost in the Reserve and none in the Well."""
        return st.tray[GHOST] == 0 and st.well[GHOST] == 0 and st.hand[GHOST] == 0

    # ------------------------------------------------------------------ checks
    def check_invariants(self, st: State) -> None:
        """Raise ``StateError`` if a conservation law or piece count is broken, or no action is legal.

        For states the engine produced (tests, sweeps): it assumes the fields are in range.
        A state from outside goes through ``validate_state``, which checks that first."""
        errs = conservation_errors(self, st)
        if not errs and not st.over and not self.legal_actions(st):  # legality only on a sound state
            errs.append(f"no legal action in phase {Phase(st.phase).name}")
        if errs:
            raise StateError("; ".join(errs))

    def validate_state(self, st: State) -> None:
        """Check that a loaded state is a state of this game the engine can play on (``validate.py``):
        every field's type and range first, then conservation, consistency and a legal action.
        ``StateError`` naming what is wrong; nothing derived is computed from an unchecked field."""
        validate_state(self, st)

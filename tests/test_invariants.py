"""Invariant sweep: thousands of seeded random games checked for the engine's conservation laws.

Each game is played by a random policy seeded from the game seed (two policies: uniform over the
legal actions, and an "eager" one that prefers anything over ending a phase, which makes games with
many conquests, defences and declines). Checked for every game:

* ``Game.check_invariants`` (RULES §1.1/§2.1 box counts of every race, Lost Tribes and Ghosts are
  conserved; coins never negative; marker limits; a legal action exists) at every turn boundary and
  at the end; on a smaller subset after every single action;
* power badges and race banners conserved (RULES §1.1: 14 banners, 20 badges, each in exactly one
  place) — checked here directly from the state fields;
* the legal action list and mask are never empty before the end and agree with each other;
* RULES §1.4/§1.5: the game ends after exactly the board's number of rounds, every seat having had
  that many turns, in clockwise order;
* the number of decisions of a game is bounded;
* ``clone()`` and ``to_dict()/from_dict()`` through JSON taken mid-game continue identically;
* the same seed and the same policy seed give the same game record twice.

A smaller sweep does the same with the Necromancer Island scenario (3-6 seats, varied options).
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

from necro_env.game import Game, GameConfig, NUM_ACTIONS, State
from necro_env.game import actions as A
from necro_env.game.catalog import GHOST, NUM_POWERS, NUM_RACES

MAX_DECISIONS = 5_000
BOARD_TURNS = {2: 10, 3: 10, 4: 9, 5: 8}     # RULES §1.4
BASE_GAMES_PER_CHUNK = 100
BASE_CHUNKS = 5                              # per board: 4 boards x 5 x 100 = 2,000 games
STRICT_GAMES = 50                            # games checked after every action
NECRO_GAMES_PER_SIZE = 50                    # 4 sizes x 50 = 200 games

PASSIVE = frozenset({A.END_CONQUEST, A.END_REDEPLOY, A.DECLINE, A.STOUT_DECLINE, A.END_BUY})

_GAMES: dict[GameConfig, Game] = {}


def game_for(cfg: GameConfig) -> Game:
    g = _GAMES.get(cfg)
    if g is None:
        g = _GAMES[cfg] = Game(cfg)
    return g


def choose(rng: random.Random, legal: list[int], eager: bool) -> int:
    """Uniform choice, or (eager) prefer anything that is not a phase-ending action 85% of the time."""
    if eager and rng.random() < 0.85:
        active = [a for a in legal if a not in PASSIVE]
        if active:
            return rng.choice(active)
    return rng.choice(legal)


def check_pieces(g: Game, st: State) -> None:
    """Banners and badges each in exactly one place (RULES §1.1), on top of ``check_invariants``."""
    seats = g.num_seats
    banners = list(st.race_deck) + list(st.col_race)
    for s in range(seats):
        for x in (st.active[s], st.decl[s], st.decl_spirit[s]):
            if 0 <= x < NUM_RACES:
                banners.append(x)
    assert sorted(banners) == list(range(NUM_RACES)), f"banners not conserved: {sorted(banners)}"
    badges = list(st.power_deck) + list(st.power_discard) + list(st.col_power) + list(st.necro_draw)
    badges += [p for p in st.necro_reserve if p >= 0]
    for x, m in enumerate(st.race_power):
        badges.extend(p for p in range(NUM_POWERS) if (m >> p) & 1)
    assert sorted(badges) == list(range(NUM_POWERS)), f"badges not conserved: {sorted(badges)}"
    assert len(st.col_race) == len(st.col_power) == len(st.col_coins)
    assert all(c >= 0 for c in st.col_coins)
    for s in range(seats):
        a = st.active[s]
        if a >= 0:
            assert st.race_owner[a] == s
            if a != GHOST:
                assert st.race_power[a].bit_count() == 1, f"active race {a} has powers {st.race_power[a]:b}"
        for d in (st.decl[s], st.decl_spirit[s]):
            if d >= 0:
                assert st.race_owner[d] == s and st.race_power[d] == 0


def check_coins(action: int, decider: int, before: list[int], after: list[int]) -> None:
    """RULES §1.3/§1.8, §4.1 rule 11: coins fall only when the decider picks a combo (by at most
    the slot number) or the Necromancer buys; scoring only adds."""
    for s, (b, a) in enumerate(zip(before, after)):
        if a < b:
            assert s == decider, f"seat {s} lost coins on seat {decider}'s action {action}"
            if A.PICK <= action < A.PICK + 6:
                assert b - a <= action - A.PICK
            else:
                assert action == A.BUY_GHOST or A.BUY_POWER <= action < A.BUY_POWER + 5, (
                    f"seat {s} lost {b - a} coins on action {action}")


def check_boundary(g: Game, st: State, prev_seat: int) -> None:
    """Facts that hold whenever a turn has just ended."""
    assert 1 <= st.round <= g.game_turns
    if not st.over:
        assert st.pact[st.turn_seat] == -1            # Diplomat: a pact lasts until our next turn
        assert st.defend_race == -1 and st.berserk == -1
    if not g.necromancer:
        assert st.well == [0] * len(st.well) and st.souls == 0 and st.island == 0
        return
    # Rule 10 / A9: after spawning fewer than 4 tokens stay in the Well, unless no Ghost could be taken from the Reserve.
    assert sum(st.well) + st.souls < 4 or (st.tray[GHOST] == 0 and st.well[GHOST] == 0), \
        f"Well {st.well} + {st.souls} souls after spawning"
    assert st.island >= 0 and st.souls >= 0
    # Rule 14: had the Necromancer met his goal at a victory check, the game would be over.
    checked = prev_seat == g.necro_seat or g.config.victory_check == "anytime"
    if checked and not st.over:
        assert not (st.tray[GHOST] == 0 and st.well[GHOST] == 0), "victory condition met but game goes on"


def check_winners(g: Game, st: State) -> None:
    """RULES §1.11 and §4.1 rule 15: most coins among the players, ties broken by tokens on the board."""
    if st.necro_won:
        assert st.winners == [g.necro_seat]
        return
    seats = [s for s in range(g.num_seats) if s != g.necro_seat]
    best = max(st.coins[s] for s in seats)
    tied = [s for s in seats if st.coins[s] == best]
    most = max(g.tokens_on_board(st, s) for s in tied)
    assert st.winners == [s for s in tied if g.tokens_on_board(st, s) == most]


class Record:
    """What one random game produced."""

    def __init__(self) -> None:
        self.actions: list[int] = []
        self.final: dict = {}
        self.turns: list[tuple[int, int]] = []   # (round, seat) of each turn start
        self.copies: list[tuple[State, State]] = []  # (clone, restored) taken at the cut
        self.cut = -1


def play(g: Game, seed: int, *, strict: bool = False, cut: int | None = None,
         mask_every_turn: bool = True) -> Record:
    """Play one seeded random game, checking invariants at every turn boundary (every action if strict)."""
    rec = Record()
    rng = random.Random(seed * 7919 + g.num_seats)
    eager = seed % 2 == 1
    st = g.new_state(seed)
    g.check_invariants(st)
    check_pieces(g, st)
    rec.turns.append((st.round, st.turn_seat))
    # Where to copy: decision ``cut`` if given, else a random decision of a random turn but the last
    # (a short last turn may end the game before the offset; test_cut_at_... covers the very end).
    cut_turn = rng.randrange(g.num_seats * g.game_turns - 1)
    cut_offset = rng.randrange(16)
    turn_start = 0
    buf = np.empty(NUM_ACTIONS, dtype=np.int8)
    while not st.over:
        here = len(rec.actions)
        if cut is not None:
            take = here == cut
        else:
            turn_index = len(rec.turns) - 1
            take = not rec.copies and (turn_index > cut_turn or
                                       (turn_index == cut_turn and here - turn_start >= cut_offset))
        if take:
            rec.cut = here
            restored = State.from_dict(json.loads(json.dumps(st.to_dict())))
            g.validate_state(restored)
            clone = st.clone()
            assert clone == st and restored == st
            rec.copies.append((clone, restored))
        legal = g.legal_actions(st)
        assert legal, f"seed {seed}: no legal action in phase {st.phase} before the end"
        assert g.current_seat(st) == st.decider >= 0
        a = choose(rng, legal, eager)
        before_seat, decider, coins = st.turn_seat, st.decider, st.coins[:]
        g.apply(st, a)
        rec.actions.append(a)
        assert len(rec.actions) < MAX_DECISIONS, f"seed {seed}: more than {MAX_DECISIONS} decisions"
        check_coins(a, decider, coins, st.coins)
        if st.turn_seat != before_seat:
            rec.turns.append((st.round, st.turn_seat))
            turn_start = len(rec.actions)
            check_boundary(g, st, before_seat)
        if strict or st.turn_seat != before_seat:
            g.check_invariants(st)
            check_pieces(g, st)
            if mask_every_turn and not st.over:
                mask = g.legal_action_mask(st, out=buf)
                assert mask.sum() > 0
                assert np.flatnonzero(mask).tolist() == g.legal_actions(st)
    g.check_invariants(st)
    check_pieces(g, st)
    check_winners(g, st)
    assert st.decisions == len(rec.actions)
    assert g.legal_actions(st) == [] and g.legal_action_mask(st).sum() == 0
    assert g.current_seat(st) == -1
    # The copies taken at the cut continue exactly like the original under the same actions.
    assert rec.copies or (st.necro_won and cut is None), f"seed {seed}: no copy was taken"
    for copy in (rec.copies[0] if rec.copies else ()):
        for a in rec.actions[rec.cut:]:
            g.apply(copy, a)
        assert copy.to_dict() == st.to_dict(), f"seed {seed}: copy at decision {rec.cut} diverged"
    rec.final = st.to_dict()
    return rec


def check_turn_order(g: Game, rec: Record, seed: int, *, expect_full: bool = True) -> None:
    """RULES §1.4/§1.5: seats play clockwise, the round advances when seat 0 starts again."""
    n = g.num_seats
    prev = rec.turns[0]
    assert prev == (1, 0)
    for r, s in rec.turns[1:]:
        pr, ps = prev
        assert s == (ps + 1) % n, f"seed {seed}: turn passed from seat {ps} to seat {s}"
        assert r == (pr + 1 if s == 0 else pr), f"seed {seed}: round {pr} -> {r} at seat {s}"
        prev = (r, s)
    if expect_full:
        assert rec.final["round"] == g.game_turns
        counts = [sum(1 for _, s in rec.turns if s == seat) for seat in range(n)]
        assert counts == [g.game_turns] * n, f"seed {seed}: turns per seat {counts}"


# ---------------------------------------------------------------------------------------------- base game

BASE_CASES = [(p, c) for p in (2, 3, 4, 5) for c in range(BASE_CHUNKS)]


@pytest.mark.parametrize("players,chunk", BASE_CASES, ids=[f"{p}p-chunk{c}" for p, c in BASE_CASES])
def test_base_game_sweep(players: int, chunk: int) -> None:
    """RULES §1.1-§1.11: 100 seeded random base games per case keep every invariant and end on time."""
    g = game_for(GameConfig(players=players, necromancer=False))
    assert g.game_turns == g.board.game_turns == BOARD_TURNS[players]
    first = 10_000 * players + chunk * BASE_GAMES_PER_CHUNK
    for seed in range(first, first + BASE_GAMES_PER_CHUNK):
        rec = play(g, seed, mask_every_turn=seed % 4 == 0)
        assert rec.final["over"] == 1 and rec.final["necro_won"] == 0
        check_turn_order(g, rec, seed)
        winners = rec.final["winners"]
        coins = rec.final["coins"]
        assert winners and all(coins[w] == max(coins) for w in winners)
        if seed % 4 == 0:
            # Same seed, same policy seed: the same record, bit for bit.
            again = play(g, seed, mask_every_turn=False)
            assert again.actions == rec.actions
            assert again.final == rec.final


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_base_game_strict(players: int) -> None:
    """RULES §1.1: conservation holds after every single action (a smaller subset of games)."""
    g = game_for(GameConfig(players=players, necromancer=False))
    per = -(-STRICT_GAMES // 4)
    for seed in range(900_000 + players * 100, 900_000 + players * 100 + per):
        rec = play(g, seed, strict=True)
        check_turn_order(g, rec, seed)


def test_different_seeds_differ() -> None:
    """The sweep is not degenerate: different seeds give different decks and different games."""
    g = game_for(GameConfig(players=3, necromancer=False))
    finals = {json.dumps(play(g, s).final, sort_keys=True) for s in range(10)}
    assert len(finals) == 10
    decks = {tuple(g.new_state(s).race_deck + g.new_state(s).col_race) for s in range(10)}
    assert len(decks) == 10


def test_cut_at_start_and_before_last_action() -> None:
    """Copies taken at decision 0 and just before the last decision also continue identically."""
    g = game_for(GameConfig(players=2, necromancer=False))
    full = play(g, 5, cut=0)
    assert full.cut == 0
    last = play(g, 5, cut=len(full.actions) - 1)
    assert last.cut == len(full.actions) - 1
    assert last.actions == full.actions and last.final == full.final


# ---------------------------------------------------------------------------------------------- Necromancer

NECRO_CASES = [3, 4, 5, 6]


@pytest.mark.parametrize("players", NECRO_CASES, ids=[f"{p}seats" for p in NECRO_CASES])
def test_necromancer_sweep(players: int) -> None:
    """RULES §4.1: random scenario games keep the invariants; clone/serialize/seed replay are exact."""
    for i in range(NECRO_GAMES_PER_SIZE):
        seed = 500_000 + players * 1_000 + i
        cfg = GameConfig(
            players=players, necromancer=True, handicap=i % 3,
            victory_check="anytime" if i % 4 == 3 else "end_of_turn",
            island_redeploy=i % 5 == 4, necromancer_diplomat=i % 7 != 6,
            conversion_to_well=i % 6 != 5, necromancer_starting_coins=i % 8 != 7,
        )
        g = game_for(cfg)
        assert g.config.board_key == players - 1 and g.num_seats == players   # rule 1
        rec = play(g, seed, mask_every_turn=i % 2 == 0, strict=i < 5)
        final = rec.final
        assert final["over"] == 1
        if final["necro_won"]:
            assert final["winners"] == [g.necro_seat]
            assert final["tray"][GHOST] == 0 and final["well"][GHOST] == 0
            check_turn_order(g, rec, seed, expect_full=False)
            if cfg.victory_check == "end_of_turn":
                assert rec.turns[-1][1] == g.necro_seat   # rule 14: checked on his own turn
        else:
            check_turn_order(g, rec, seed)
            assert g.necro_seat not in final["winners"]   # rule 15
            assert len(final["ghost_curve"]) == g.game_turns
        if i % 5 == 0:
            again = play(g, seed, mask_every_turn=False)
            assert again.actions == rec.actions and again.final == rec.final


@pytest.mark.parametrize("players,necro", [(2, False), (4, False), (3, True), (6, True)])
def test_skip_forced_leaves_only_real_decisions_and_the_same_game(players, necro):
    """GameConfig.skip_forced (DESIGN §2: no pass actions): every decision left to an agent has
    2+ legal actions, and the game is the one played step by step when the same choices are made
    at every real decision (the engine only presses the buttons that had to be pressed)."""
    import random

    plain = Game(GameConfig(players=players, necromancer=necro))
    skip = Game(GameConfig(players=players, necromancer=necro, skip_forced=True))
    for seed in range(40):
        a, b = plain.new_state(seed), skip.new_state(seed)
        rnd = random.Random(seed)
        while not b.over:
            la = skip.legal_actions(b)
            assert len(la) >= 2
            choice = la[rnd.randrange(len(la))]
            while len(plain.legal_actions(a)) == 1:
                plain.apply(a, plain.legal_actions(a)[0])
            assert plain.legal_actions(a) == la
            plain.apply(a, choice)
            skip.apply(b, choice)
        while not a.over:
            plain.apply(a, plain.legal_actions(a)[0])
        da, db = a.to_dict(), b.to_dict()
        assert db.pop("forced") > 0 and da.pop("forced") == 0
        assert da == db

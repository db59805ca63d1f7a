"""Scripted policies (necro_env.agents): legality over many games, the View, the registry, speed,
and each documented heuristic rule on a hand-built position."""
import time

import numpy as np
import pytest

from necro_env.agents import (
    GreedyAgent, NecromancerHeuristic, RandomAgent, View, make_policy, policy_names, register_loader,
    register_policy,
)
from necro_env.agents import registry as registry_mod
from necro_env.agents.registry import UntrustedPolicyError
from necro_env.agents.greedy import tables, threat_of, attacker_mask, seat_regions
from necro_env.agents.necromancer import POWER_RANK, BoldNecromancerHeuristic, power_rank
from necro_env.evaluate import game_seeds, play_game
from necro_env.game import Game, GameConfig, Kind, Phase, decode, encode
from necro_env.game.catalog import GHOST, POWERS, power_id
from necro_env.game.errors import ConfigError

from positions import begin, empty_position, give_race, put, remove

RNG = np.random.default_rng(0)


def act(policy, g, st):
    """One decision of ``policy`` as (kind name, arg), checked against the legal list."""
    view = View(g, st)
    a = policy.act(view, np.random.default_rng(1))
    assert a in g.legal_actions(st)
    k = decode(a)
    return k.kind.name, k.arg


# ---------------------------------------------------------------------------------- legality sweep
def test_baselines_only_choose_legal_actions_over_hundreds_of_games():
    """~300 full games, every seat count, greedy/heuristic/random mixed per seat: every act() is legal
    and every finished game passes the engine's conservation checks."""
    pool = [RandomAgent(), GreedyAgent(), NecromancerHeuristic()]
    setups = [(n, True) for n in (3, 4, 5, 6)] + [(n, False) for n in (2, 3, 4, 5)]
    decisions = 0
    games = 0

    def check(view, action):
        nonlocal decisions
        decisions += 1
        assert action in view.legal, f"illegal {decode(action)} in {Phase(view.state.phase).name}"

    for n, necro in setups:
        g = Game(GameConfig(players=n, necromancer=necro))
        for i in range(38):
            rng = np.random.default_rng([n, int(necro), i])
            pols = [pool[int(rng.integers(3))] for _ in range(n)]
            seed, rngs = game_seeds(99, i, n)
            rec = play_game(g, pols, seed, rngs, on_decision=check)
            games += 1
            assert rec["winners"]
    assert games >= 300 and decisions > 50_000


def test_finished_states_keep_invariants_with_scripted_play():
    """Scripted play keeps token conservation (check_invariants) at every step of a few games."""
    for n in (3, 6):
        g = Game(GameConfig(players=n))
        pols = [GreedyAgent()] * (n - 1) + [NecromancerHeuristic()]
        st = g.new_state(5)
        rng = np.random.default_rng(5)
        while not st.over:
            a = pols[st.decider].act(View(g, st), rng)
            g.apply(st, a)
            g.check_invariants(st)


def test_scripted_play_is_deterministic_given_the_rngs():
    """Same engine seed and policy generators -> the same game record."""
    g = Game(GameConfig(players=5))
    pols = [GreedyAgent(), RandomAgent(), GreedyAgent(), RandomAgent(), NecromancerHeuristic()]
    recs = []
    for _ in range(2):
        seed, rngs = game_seeds(7, 3, 5)
        recs.append(play_game(g, pols, seed, rngs))
    assert recs[0] == recs[1]


def test_greedy_decisions_are_fast():
    """A greedy/heuristic decision takes well under 1 ms on average (6 seats, largest board)."""
    g = Game(GameConfig(players=6))
    pols = [GreedyAgent()] * 5 + [NecromancerHeuristic()]
    spent, n = 0.0, 0
    for i in range(6):
        st = g.new_state(i)
        rng = np.random.default_rng(i)
        while not st.over:
            view = View(g, st)
            t = time.perf_counter()
            a = pols[st.decider].act(view, rng)
            spent += time.perf_counter() - t
            n += 1
            g.apply(st, a)
    assert spent / n < 1e-3, f"{spent / n * 1e6:.0f} us per decision"


# ---------------------------------------------------------------------------------- View
def test_view_exposes_legal_mask_and_observation():
    g = Game(GameConfig(players=4))
    st = g.new_state(0)
    v = View(g, st)
    assert v.seat == g.current_seat(st) == 3          # the Necromancer picks his power first
    assert v.legal == g.legal_actions(st)
    assert v.mask.dtype == np.int8 and set(np.flatnonzero(v.mask)) == set(v.legal)
    observe = pytest.importorskip("necro_env.observe")
    obs = v.observation
    assert obs.dtype == np.float32 and obs.shape == (observe.OBS_SIZE,)
    assert v.observation is obs                        # computed once per view


# ---------------------------------------------------------------------------------- registry
def test_registry_names_and_roles():
    """greedy/heuristic name the role's scripted baseline; random fits both roles."""
    assert {"random", "greedy", "heuristic"} <= set(policy_names())
    assert type(make_policy("greedy", "player")) is GreedyAgent
    assert type(make_policy("heuristic", "player")) is GreedyAgent
    assert type(make_policy("heuristic", "necromancer")) is NecromancerHeuristic
    assert type(make_policy("greedy", "necromancer")) is NecromancerHeuristic
    assert type(make_policy(" Random ", "necromancer")) is RandomAgent
    obj = RandomAgent()
    assert make_policy(obj, "player") is obj


def test_registry_errors():
    with pytest.raises(ConfigError, match="unknown policy 'nope'.*greedy"):
        make_policy("nope", "player")
    with pytest.raises(ConfigError, match="role"):
        make_policy("random", "banker")
    with pytest.raises(ConfigError):
        make_policy(42, "player")
    with pytest.raises(ValueError):
        register_policy("random", lambda role: RandomAgent())


def test_register_policy_and_loader(tmp_path, monkeypatch):
    """Custom names and file loaders plug into make_policy (a file goes to the loader of its suffix)."""
    monkeypatch.setattr(registry_mod, "_POLICIES", dict(registry_mod._POLICIES))
    monkeypatch.setattr(registry_mod, "_LOADERS", dict(registry_mod._LOADERS))
    register_policy("always-first", lambda role: type("First", (RandomAgent,), {
        "name": "first", "act": lambda self, view, rng: view.legal[0]})())
    assert make_policy("ALWAYS-FIRST", "player").name == "first"
    f = tmp_path / "bot.txt"
    f.write_text("x")
    seen = []
    register_loader("txt", lambda path, role: seen.append((path, role)) or RandomAgent(), pickle=False)
    assert isinstance(make_policy(str(f), "necromancer"), RandomAgent)
    assert seen == [(str(f), "necromancer")]
    # A loader that does not say it reads data only is treated as one that unpickles: trust needed.
    pk = tmp_path / "bot.pk"
    pk.write_text("x")
    register_loader("pk", lambda path, role: seen.append((path, role)) or RandomAgent())
    with pytest.raises(UntrustedPolicyError, match="--trust-pickle"):
        make_policy(str(pk), "player")
    assert len(seen) == 1  # refused before the loader ran
    assert isinstance(make_policy(str(pk), "player", trusted=True), RandomAgent) and len(seen) == 2
    other = tmp_path / "bot.xyz"
    other.write_text("x")
    with pytest.raises(ConfigError, match="no loader for .xyz"):
        make_policy(str(other), "player")
    assert ".zip" in registry_mod.loader_suffixes()


# ---------------------------------------------------------------------------------- greedy: conquest
def _ratmen_on_8(power="Alchemist", hand=3, **kw):
    """Base game, 3-player board, no Lost Tribes; seat 0 holds region 8 (swamp) with Ratmen."""
    g, st = empty_position(players=3, **kw)
    give_race(g, st, 0, "Ratmen", power, hand=hand)
    put(g, st, 8, "Ratmen", 1)
    return g, st


def test_greedy_conquers_the_cheapest_region_first():
    """Neighbours of 8: 9 empty (2), 1/7/13 Lost Tribes (3), 2/12 mountains (3): it takes 9."""
    g, st = _ratmen_on_8()
    for r in (1, 7, 13):
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    assert act(GreedyAgent(), g, st) == ("CONQUER", 9)


def test_greedy_spares_its_own_declined_tokens():
    """Attacking its in-decline Humans on 9 costs 3, like every other neighbour; it takes another one."""
    g, st = _ratmen_on_8()
    give_race(g, st, 0, "Humans", declined=True)
    put(g, st, 9, "Humans", 1)
    for r in (1, 7, 13):
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    kind, r = act(GreedyAgent(), g, st)
    assert kind == "CONQUER" and r in (1, 2, 7, 12, 13)


def test_greedy_dragon_goes_to_the_most_expensive_target():
    """Dragon Master: the 5-Orc region 9 (cost 7) gets the dragon, not the empty 13."""
    g, st = _ratmen_on_8(power="Dragon Master")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Orcs", 5)
    begin(g, st, 0)
    assert act(GreedyAgent(), g, st) == ("DRAGON", 9)


def test_greedy_berserk_rolls_before_choosing():
    g, st = _ratmen_on_8(power="Berserk")
    begin(g, st, 0)
    assert act(GreedyAgent(), g, st) == ("BERSERK_ROLL", 0)


def test_greedy_tries_the_final_conquest_when_nothing_is_affordable():
    """One token left, every target costs 3: the die attempt (free: tokens come back) beats stopping."""
    g, st = _ratmen_on_8(hand=1)
    for r in (1, 7, 9, 13):
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    kind, r = act(GreedyAgent(), g, st)
    assert kind == "FINAL" and g.conquest_cost(st, r) == 3


def test_greedy_declines_a_spent_race_but_never_in_its_last_round():
    """Ratmen spread 1 token a region, nothing in hand: decline in round 2, keep going in the last round."""
    g, st = _ratmen_on_8(hand=0)
    for r in (1, 2, 7, 9, 13):
        put(g, st, r, "Ratmen", 1)
    st.round = 2
    begin(g, st, 0, ready=True)
    assert ("DECLINE", 0) == act(GreedyAgent(), g, st)
    st.round = g.game_turns
    g.invalidate(st)
    assert act(GreedyAgent(), g, st)[0] != "DECLINE"


def test_greedy_keeps_a_strong_race():
    """Readied tokens enough for several conquests: no decline."""
    g, st = _ratmen_on_8(hand=0)
    put(g, st, 8, "Ratmen", 9)
    st.round = 2
    begin(g, st, 0, ready=True)
    assert act(GreedyAgent(), g, st)[0] == "CONQUER"


# ---------------------------------------------------------------------------------- greedy: defence
def _redeploy_until_end(g, st, policy):
    rng = np.random.default_rng(0)
    first_pieces = []
    while True:
        a = policy.act(View(g, st), rng)
        k = decode(a)
        if k.kind in (Kind.END_REDEPLOY, Kind.STOUT_DECLINE):
            return first_pieces
        if k.kind in (Kind.HERO, Kind.ENCAMP, Kind.FORTRESS):
            first_pieces.append((k.kind.name, k.arg))
        g.apply(st, a)


def test_greedy_redeploys_towards_the_threatened_border():
    """Orcs on 9 border region 8; region 17 is far from them: 8 ends with more tokens than 17."""
    g, st = _ratmen_on_8(hand=6)
    put(g, st, 17, "Ratmen", 1)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Orcs", 3)
    begin(g, st, 0)
    g.apply(st, encode((Kind.END_CONQUEST, 0)))
    _redeploy_until_end(g, st, GreedyAgent())
    assert st.tok[8] > st.tok[17] >= 1
    assert st.tok[8] + st.tok[17] == 8


def test_greedy_puts_heroes_on_the_most_exposed_regions():
    """Heroic: the first hero goes to the region with the highest threat (8, next to the Orcs)."""
    g, st = _ratmen_on_8(power="Heroic", hand=2)
    put(g, st, 17, "Ratmen", 1)
    put(g, st, 25, "Ratmen", 1)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Orcs", 3)
    tab = tables(g)
    own, att = seat_regions(st, 0), attacker_mask(tab, st, 0)
    threats = {r: threat_of(tab, st, r, own, att, False) for r in (8, 17, 25)}
    assert max(threats, key=threats.get) == 8
    begin(g, st, 0)
    g.apply(st, encode((Kind.END_CONQUEST, 0)))
    pieces = _redeploy_until_end(g, st, GreedyAgent())
    assert pieces[0] == ("HERO", 8) and len(pieces) == 2


def test_greedy_diplomat_names_the_neighbour_that_borders_it_most():
    """Seat 1's Orcs touch seat 0's regions, seat 2's Humans do not: peace with seat 1 (offset 1)."""
    g, st = _ratmen_on_8(power="Diplomat")
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Orcs", 2)
    put(g, st, 13, "Orcs", 2)
    give_race(g, st, 2, "Humans", "Forest")
    put(g, st, 26, "Humans", 2)
    st.coins[2] = 50
    begin(g, st, 0, phase=Phase.DIPLOMAT)
    assert act(GreedyAgent(), g, st) == ("DIPLOMAT", 1)


def test_greedy_defender_places_survivors_on_the_threatened_region():
    """DEFEND: survivors of seat 0's Ratmen go next to the attacker, not to the quiet region."""
    g, st = _ratmen_on_8(hand=0)
    put(g, st, 17, "Ratmen", 1)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 9, "Orcs", 3)
    ratmen = st.active[0]
    st.tray[ratmen] -= 2
    st.hand[ratmen] = 2
    st.turn_seat = 1
    st.defend_race = ratmen
    st.phase = int(Phase.DEFEND)
    st.decider = 0
    g.invalidate(st)
    assert act(GreedyAgent(), g, st) == ("PLACE", 8)


# ---------------------------------------------------------------------------------- greedy: picking
def test_greedy_picks_the_combo_worth_more_than_its_price():
    """Ratmen/Alchemist (12 tokens, +2 a turn) for 1 coin beats Dwarves/Fortified (6 tokens) for free."""
    g, st = empty_position(players=3, forced_combos=(("Dwarves", "Fortified"), ("Ratmen", "Alchemist")))
    assert st.phase == Phase.PICK
    assert act(GreedyAgent(), g, st) == ("PICK", 1)


def test_greedy_counts_the_coins_lying_on_a_combo():
    g, st = empty_position(players=3)
    agent = GreedyAgent()
    before = agent.combo_value(View(g, st), 3)
    st.col_coins[3] += 4
    assert agent.combo_value(View(g, st), 3) == pytest.approx(before + 4)


# ---------------------------------------------------------------------------------- greedy vs the Necromancer
def _scenario_ratmen(remaining_ghosts):
    """4 seats (3-player board): seat 0's Ratmen on 8 with 3 tokens in hand; the Necromancer has
    ``remaining_ghosts`` left in Reserve (the others on the Island)."""
    g, st = empty_position(players=4, necromancer=True)
    give_race(g, st, 0, "Ratmen", "Alchemist", hand=3)
    put(g, st, 8, "Ratmen", 1)
    move = st.tray[GHOST] - remaining_ghosts
    st.tray[GHOST] -= move
    st.island += move
    for r in (1, 7, 9, 13):               # 2 and 12 are mountains: every neighbour costs 3
        put(g, st, r, "Lost Tribe", 1)
    begin(g, st, 0)
    return g, st


def test_greedy_stops_feeding_the_well_when_the_necromancer_is_close():
    """A Lost Tribe region is worth taking while he has 12 Ghosts in Reserve; with 1 left, killing
    tokens feeds his Well (every 4 spawn a Ghost): the tribe is not worth it and it takes an empty
    (mountain) region instead."""
    agent = GreedyAgent()
    g, st = _scenario_ratmen(12)
    view = View(g, st)
    assert agent.region_value(view, st.cur_race, 1, agent._context(view, st.cur_race)) > 0.05
    g, st = _scenario_ratmen(1)
    view = View(g, st)
    assert agent.region_value(view, st.cur_race, 1, agent._context(view, st.cur_race)) < 0
    kind, r = act(agent, g, st)
    assert kind == "CONQUER" and st.occ[r] == -1 and r in (2, 12)


def test_greedy_attacks_ghosts_when_the_necromancer_is_close():
    """One Ghost left in his Reserve: the Ghost region 9 (cost 3) is taken before the empty region 7 (cost 2)."""
    g, st = _scenario_ratmen(2)
    put(g, st, 9, "Ghosts", 1)            # from the Reserve: 1 Ghost left there
    remove(g, st, 7)
    assert act(GreedyAgent(), g, st) == ("CONQUER", 9)


# ---------------------------------------------------------------------------------- Necromancer heuristic
@pytest.mark.parametrize("draw", [
    ("Commando", "Flying", "Heroic", "Forest", "Swamp", "Hill"),
    ("Commando", "Flying", "Forest", "Swamp", "Hill", "Seafaring"),
    ("Mounted", "Wealthy", "Underworld", "Diplomat", "Berserk", "Merchant"),
])
def test_necromancer_starting_power_follows_the_ranking(draw):
    """He takes the best-ranked of his 6 drawn badges (POWER_RANK)."""
    g = Game(GameConfig(players=4, necromancer_powers=draw))
    st = g.new_state(0)
    kind, k = act(NecromancerHeuristic(), g, st)
    assert kind == "NECRO_START"
    best = min(draw, key=lambda p: power_rank(power_id(p)))
    assert POWERS[st.necro_draw[k]].name == best
    assert POWER_RANK[0] == power_id("Heroic")


def _necro_buying(round_):
    g, st = empty_position(players=4, necromancer=True, necromancer_powers=(
        "Forest", "Merchant", "Swamp", "Hill", "Seafaring", "Diplomat"))
    ns = g.necro_seat
    st.coins[ns] = 30
    st.round = round_
    begin(g, st, ns, phase=Phase.BUY)
    return g, st


def test_necromancer_buys_a_top_tier_power_early_and_ghosts_late():
    """Round 1: Merchant (in BUY_POWER_TIER) from his reserve; two rounds from the end: a Ghost."""
    g, st = _necro_buying(1)
    kind, k = act(NecromancerHeuristic(), g, st)
    assert kind == "BUY_POWER" and POWERS[st.necro_reserve[k]].name == "Merchant"
    g, st = _necro_buying(g.game_turns - 1)
    assert act(NecromancerHeuristic(), g, st) == ("BUY_GHOST", 0)


def test_necromancer_buys_until_he_cannot_pay():
    """Coins are only currency: he keeps buying while any purchase is legal."""
    g, st = _necro_buying(9)
    pol = NecromancerHeuristic()
    rng = np.random.default_rng(0)
    while st.phase == Phase.BUY:
        a = pol.act(View(g, st), rng)
        assert decode(a).kind != Kind.END_BUY
        g.apply(st, a)
    assert st.coins[g.necro_seat] < g.purchase_price(st)


def test_necromancer_conquers_away_from_attackers():
    """Two empty Lake neighbours (cost 2); one touches a player's active race: he takes the other."""
    g, st = empty_position(players=4, necromancer=True)
    lake_nbrs = list(g.board.lake_neighbors)   # 9, 10, 13, 15, 19, 20, 21
    give_race(g, st, 0, "Orcs", "Alchemist")
    put(g, st, 8, "Orcs", 3)                   # borders 9 and 13
    for r in lake_nbrs:
        if r not in (9, 20):
            put(g, st, r, "Lost Tribe", 1)
    st.tray[GHOST] -= 2
    st.island += 2                             # 3 Ghosts: one conquest of cost 2
    ns = g.necro_seat
    st.coins[ns] = 0
    begin(g, st, ns, ready=True)               # readying takes the Island's Ghosts into hand
    assert act(NecromancerHeuristic(), g, st) == ("CONQUER", 20)


def test_bold_heuristic_is_a_registered_variant_that_plays_differently():
    """``heuristic_bold`` (a warm-start teacher) is the heuristic with a smaller exposure penalty in the
    Necromancer's seat and GreedyAgent in a player seat; on the same seeded games it makes other choices."""
    bold = make_policy("heuristic_bold", "necromancer")
    assert isinstance(bold, NecromancerHeuristic) and type(bold) is BoldNecromancerHeuristic
    assert bold.EXPOSURE < NecromancerHeuristic.EXPOSURE
    assert type(make_policy("heuristic_bold", "player")) is GreedyAgent
    g = Game(GameConfig(players=3))
    differ = 0
    for i in range(4):
        recs = []
        for necro in (NecromancerHeuristic(), bold):
            seed, rngs = game_seeds(11, i, 3)
            recs.append(play_game(g, [GreedyAgent(), GreedyAgent(), necro], seed, rngs))
        differ += recs[0] != recs[1]
    assert differ >= 1


def test_sb3_policy_acts_on_observation_and_mask():
    """SB3Policy hands the seat's observation and the boolean mask to ``predict`` and returns its int."""
    observe = pytest.importorskip("necro_env.observe")
    from necro_env.agents.sb3_policy import SB3Policy

    class FakeModel:
        def __init__(self):
            self.calls = []

        def predict(self, obs, action_masks=None, deterministic=False):
            self.calls.append((obs.shape, action_masks.dtype, deterministic))
            return np.array([int(np.flatnonzero(action_masks)[-1])]), None

    g = Game(GameConfig(players=4))
    st = g.new_state(1)
    model = FakeModel()
    pol = SB3Policy(model, name="fake")
    a = pol.act(View(g, st), np.random.default_rng(0))
    assert a == g.legal_actions(st)[-1] and isinstance(a, int)
    assert model.calls == [((observe.OBS_SIZE,), np.dtype(bool), True)]

"""``GameConfig``: validation with messages that name the allowed values, defaults, board choice, round trip.

RULES §1.4 (board per player count), §4.1 rules 1, 4 and 6 (Necromancer: board N-1, powers he may
draw, handicap 0-2), §4.3 (the Config readings).
"""
from __future__ import annotations

import json

import pytest

from necro_env.game import ConfigError, Game, GameConfig
from necro_env.game.catalog import POWERS, power_id
from necro_env.game.config import VICTORY_CHECKS

NECRO_OK = [p.name for p in POWERS if p.necromancer_ok]
SIX = ("Alchemist", "Forest", "Hill", "Merchant", "Flying", "Seafaring")


def raises(match: str, **kw) -> ConfigError:
    with pytest.raises(ConfigError, match=match) as ei:
        GameConfig(**kw)
    assert isinstance(ei.value, ValueError)
    return ei.value


# ---------------------------------------------------------------------------------------------- players

@pytest.mark.parametrize("kw,allowed", [
    (dict(players=1), "2-5"),
    (dict(players=0, necromancer=False), "2-5"),
    (dict(players=6, necromancer=False), "2-5"),
    (dict(players=7), "3-6"),
    (dict(players=7, necromancer=True), "3-6"),
    (dict(players=2, necromancer=True), "3-6"),
    (dict(players=-3, necromancer=True), "3-6"),
])
def test_players_out_of_range(kw: dict, allowed: str) -> None:
    """RULES §1.4: base game 2-5 seats; §4.1 rule 1: 3-6 seats with the Necromancer."""
    err = raises(allowed, **kw)
    assert str(kw["players"]) in str(err)


@pytest.mark.parametrize("value", [True, "4", 4.0, None])
def test_players_must_be_an_int(value) -> None:
    raises("players must be an int", players=value)


@pytest.mark.parametrize("players,necro", [(2, False), (3, False), (5, False), (3, True), (6, True)])
def test_players_in_range(players: int, necro: bool) -> None:
    assert GameConfig(players=players, necromancer=necro).players == players


# ---------------------------------------------------------------------------------------------- defaults

def test_necromancer_default() -> None:
    """necromancer=None means yes for 3+ seats, no for 2."""
    assert GameConfig(players=2).necromancer is False
    for n in (3, 4, 5, 6):
        assert GameConfig(players=n).necromancer is True
    assert GameConfig().necromancer is True and GameConfig().players == 4


def test_default_values() -> None:
    """RULES §1.2: 5 coins; §4.3: the recommended readings are the defaults."""
    c = GameConfig()
    assert c.starting_coins == 5
    assert c.game_turns is None
    assert c.necromancer_starting_coins is True       # A3
    assert c.handicap == 0                            # rule 6
    assert c.victory_check == "end_of_turn"           # A11
    assert c.island_redeploy is False                 # A14
    assert c.necromancer_diplomat is True             # A17
    assert c.conversion_to_well is True               # A20
    assert c.forced_combos == () and c.necromancer_powers is None


@pytest.mark.parametrize("players,necro,board,turns", [
    (2, False, 2, 10), (3, False, 3, 10), (4, False, 4, 9), (5, False, 5, 8),
    (3, True, 2, 10), (4, True, 3, 10), (5, True, 4, 9), (6, True, 5, 8),
])
def test_board_key(players: int, necro: bool, board: int, turns: int) -> None:
    """RULES §1.4 and §4.1 rule 1 / A1-A2: the board for N seats, or N-1 with the Necromancer, and its track."""
    c = GameConfig(players=players, necromancer=necro)
    assert c.board_key == board
    assert c.num_players == (players - 1 if necro else players)
    g = Game(c)
    assert g.board.num_regions == {2: 23, 3: 30, 4: 39, 5: 48}[board]
    assert g.game_turns == turns
    assert g.num_seats == players
    assert g.necro_seat == (players - 1 if necro else -1)   # A4: he plays last


def test_game_turns_override() -> None:
    """A2: game_turns overrides the board's track."""
    assert Game(GameConfig(players=4, necromancer=False, game_turns=3)).game_turns == 3
    for bad in (0, 21, -1, True, 2.5):
        raises("game_turns must be None or an int in 1..20", game_turns=bad)


# ---------------------------------------------------------------------------------------------- options

@pytest.mark.parametrize("value", [3, -1, True, "1", 1.0])
def test_handicap_out_of_range(value) -> None:
    """RULES §4.1 rule 6: remove 0, 1 or 2 Ghosts."""
    raises("handicap must be 0, 1 or 2", handicap=value)


@pytest.mark.parametrize("value", ["end", "ANYTIME", "", None, 1])
def test_bad_victory_check(value) -> None:
    """A11: "end_of_turn" or "anytime"."""
    err = raises("victory_check must be one of", victory_check=value)
    for name in VICTORY_CHECKS:
        assert name in str(err)


def test_victory_checks_accepted() -> None:
    assert VICTORY_CHECKS == ("end_of_turn", "anytime")
    for v in VICTORY_CHECKS:
        assert GameConfig(victory_check=v).victory_check == v


@pytest.mark.parametrize("name", ["necromancer_starting_coins", "island_redeploy",
                                  "necromancer_diplomat", "conversion_to_well"])
@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_flags_must_be_bools(name: str, value) -> None:
    raises(f"{name} must be a bool", **{name: value})


@pytest.mark.parametrize("value", [-1, 1001, 2.0, True])
def test_starting_coins_range(value) -> None:
    raises("starting_coins must be an int in 0..1000", starting_coins=value)


def test_necromancer_must_be_bool_or_none() -> None:
    raises("necromancer must be a bool or None", necromancer=1)
    raises("necromancer must be a bool or None", necromancer="yes")


# ---------------------------------------------------------------------------------------------- forced combos

@pytest.mark.parametrize("combo,known", [
    (("Elfs", "Alchemist"), "Amazons, Dwarves"),
    (("Orcs", "Telepathy"), "Alchemist, Berserk"),
    (("Lost Tribe", "Alchemist"), "Wizards"),
    ((3, "Alchemist"), "Amazons"),
    (("Orcs", None), "Wealthy"),
])
def test_unknown_forced_combo_names(combo: tuple, known: str) -> None:
    """Unknown race/power names are a ConfigError listing the known names (never an AttributeError)."""
    err = raises("forced_combos", forced_combos=(combo,))
    assert "unknown" in str(err) and known in str(err)


@pytest.mark.parametrize("combos", [
    (("Orcs", "Alchemist"), ("Orcs", "Forest")),          # the same race twice
    (("Orcs", "Alchemist"), ("Elves", "alchemist")),      # the same power twice (case-insensitive)
    (("Orcs", "Alchemist"), ("Orcs", "Alchemist")),
])
def test_duplicate_forced_combos(combos: tuple) -> None:
    """One banner and one badge of each exist (RULES §1.1)."""
    raises("repeats a race or a power", forced_combos=combos)


@pytest.mark.parametrize("value", [None, 5, (5,), (("Orcs",),), (("Orcs", "Alchemist", "Hill"),), "Orcs", "",
                                   {}, {"Orcs": "Alchemist"}, {("Orcs", "Alchemist")}, ("OA",), (["Orcs", "Hill"], "ab")])
def test_malformed_forced_combos(value) -> None:
    """Not a list of pairs: a ConfigError, never silently read as something else (an empty dict as no combos,
    the two letters of "ab" as a race and a power)."""
    raises("forced_combos", forced_combos=value)


def test_forced_combos_accepted_and_normalised() -> None:
    c = GameConfig(forced_combos=[["orcs", "alchemist"], ("Elves", "Hill")])
    assert c.forced_combos == (("orcs", "alchemist"), ("Elves", "Hill"))
    st = Game(c).new_state(0)
    assert st.col_race[:2] == [7, 2] and st.col_power[:2] == [power_id("Alchemist"), power_id("Hill")]


# ---------------------------------------------------------------------------------------------- Necromancer powers

@pytest.mark.parametrize("bad", ["Spirit", "Stout"])
def test_necromancer_powers_rejects_spirit_and_stout(bad: str) -> None:
    """RULES §4.1 rule 4: Spirit and Stout are never drawn by the Necromancer; the message lists the allowed ones."""
    err = raises("cannot be drawn by the Necromancer", necromancer_powers=(bad,) + SIX[:5])
    assert bad in str(err)
    for name in NECRO_OK:
        assert name in str(err).split("allowed:")[1]


@pytest.mark.parametrize("powers", [SIX[:5], SIX + ("Swamp",), (), SIX[:5] + ("alchemist",),
                                    SIX[:5] + (" Alchemist ",)])
def test_necromancer_powers_need_six_different(powers) -> None:
    raises("must name 6 different powers", necromancer_powers=powers)


@pytest.mark.parametrize("powers", [SIX[:5] + ("Cursed",), SIX[:5] + (7,), SIX[:5] + (None,)])
def test_necromancer_powers_unknown_names(powers) -> None:
    err = raises("necromancer_powers", necromancer_powers=powers)
    assert "unknown power" in str(err) and "Wealthy" in str(err)


def test_necromancer_powers_other_errors() -> None:
    raises("needs necromancer=True", players=2, necromancer_powers=SIX)
    raises("needs necromancer=True", players=4, necromancer=False, necromancer_powers=SIX)
    raises("also in forced_combos", forced_combos=(("Orcs", "Hill"),), necromancer_powers=SIX)
    for bad in (6, "Alchemist", {p: 1 for p in SIX}, set(SIX)):
        raises("necromancer_powers must be None or a list of 6 power names", necromancer_powers=bad)


def test_necromancer_powers_accepted() -> None:
    c = GameConfig(players=3, necromancer_powers=list(SIX))
    assert c.necromancer_powers == SIX
    st = Game(c).new_state(0)
    assert st.necro_draw == [power_id(p) for p in SIX]
    assert not set(st.necro_draw) & set(st.power_deck + st.col_power)   # A24


# ---------------------------------------------------------------------------------------------- round trip

CONFIGS = [
    GameConfig(),
    GameConfig(players=2),
    GameConfig(players=5, necromancer=False, starting_coins=0, game_turns=4),
    GameConfig(players=6, handicap=2, victory_check="anytime", island_redeploy=True,
               necromancer_diplomat=False, conversion_to_well=False, necromancer_starting_coins=False,
               forced_combos=(("Orcs", "Berserk"), ("Trolls", "Heroic")), necromancer_powers=SIX),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=["default", "2p", "base5", "full"])
def test_to_dict_round_trip(cfg: GameConfig) -> None:
    d = cfg.to_dict()
    back = GameConfig.from_dict(json.loads(json.dumps(d)))
    assert back == cfg and hash(back) == hash(cfg)
    assert back.to_dict() == d
    assert isinstance(d["forced_combos"], list)


def test_from_dict_partial_uses_defaults() -> None:
    assert GameConfig.from_dict({"players": 2}) == GameConfig(players=2)
    assert GameConfig.from_dict({}) == GameConfig()


def test_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(ConfigError) as ei:
        GameConfig.from_dict({"players": 4, "seats": 4, "mode": "x"})
    msg = str(ei.value)
    assert "seats" in msg and "mode" in msg and "players" in msg.split("allowed")[1]


@pytest.mark.parametrize("value", [None, [], "players=4"])
def test_from_dict_rejects_non_dicts(value) -> None:
    with pytest.raises(ConfigError, match="dict"):
        GameConfig.from_dict(value)


def test_from_dict_validates_values() -> None:
    with pytest.raises(ConfigError, match="handicap"):
        GameConfig.from_dict({"handicap": 5})


def test_config_is_frozen() -> None:
    c = GameConfig()
    with pytest.raises(AttributeError):
        c.players = 5  # type: ignore[misc]


def test_handicap_needs_the_necromancer():
    """RULES §4.1 rule 6: the handicap removes the Necromancer's Ghosts, so it needs the scenario."""
    with pytest.raises(ConfigError, match="handicap"):
        GameConfig(players=4, necromancer=False, handicap=1)
    assert GameConfig(players=4, necromancer=True, handicap=1).handicap == 1

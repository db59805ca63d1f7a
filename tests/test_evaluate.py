"""The evaluation harness and the league: determinism across workers, seat rotation, the baselines'
strength with non-overlapping 95% intervals, the command line, plots and ratings."""
import json
import os
import subprocess
import sys

import pytest

from necro_env.agents import RandomAgent
from necro_env.cli import main
from necro_env.evaluate import evaluate, game_seeds, play_game
from necro_env.game import Game, GameConfig, IllegalActionError
from necro_env.game.errors import ConfigError
from necro_env.league import LeagueConfig, placements, run_league
from necro_env.stats import overlaps


def _strip(summary):
    return {k: v for k, v in summary.items() if k != "run"}


def test_same_numbers_for_any_worker_count():
    """Game i is seeded from (seed, i): 1 and 2 worker processes give the same summary."""
    a = evaluate(4, "heuristic", "greedy", games=16, seed=11, workers=1, opponents_spec="random")
    b = evaluate(4, "heuristic", "greedy", games=16, seed=11, workers=2, opponents_spec="random")
    assert _strip(a) == _strip(b)
    assert a["run"]["workers"] == 1 and b["run"]["workers"] == 2
    c = evaluate(4, "heuristic", "greedy", games=16, seed=12, workers=1, opponents_spec="random")
    assert _strip(c) != _strip(a)


def test_seeds_are_per_game_and_per_seat():
    e1, r1 = game_seeds(3, 0, 4)
    e2, r2 = game_seeds(3, 1, 4)
    assert e1 != e2 and len(r1) == 4
    assert r1[0].integers(1 << 30) != r1[1].integers(1 << 30)
    assert game_seeds(3, 0, 4)[0] == e1


class SeatProbe(RandomAgent):
    """A random player that records the seats it was asked to play."""

    name = "probe"

    def __init__(self):
        self.seats = []

    def act(self, view, rng):
        if not self.seats or self.seats[-1] != view.seat:
            self.seats.append(view.seat)
        return super().act(view, rng)


@pytest.mark.parametrize("players, necromancer, rotation", [(4, False, 4), (5, True, 4)])
def test_test_seat_rotates_over_the_player_seats(players, necromancer, rotation):
    """The test seat of game i is i mod (player seats); the Necromancer always sits last."""
    probe = SeatProbe()
    s = evaluate(players, "random", probe, games=2 * rotation, seed=0, necromancer=necromancer,
                 opponents_spec="random")
    assert sorted(set(probe.seats)) == list(range(rotation))
    order = []
    for seat in probe.seats:
        if not order or order[-1] != seat:
            order.append(seat)
    assert order == [i % rotation for i in range(2 * rotation)]
    groups = {g["group"]: g for g in s["policies"]}
    assert groups["test"]["seats"] == 1 and groups["opponents"]["seats"] == rotation - 1
    assert ("necromancer" in groups) == necromancer


def test_summary_content():
    """Win rates with Wilson intervals, coins, the Necromancer's purchases and Ghost curve."""
    s = evaluate(3, "heuristic", "random", games=12, seed=1)
    nec = s["necromancer"]
    assert s["games"] == 12 and nec["games"] == 12
    lo, hi = nec["ci95"]
    assert lo <= nec["win_rate"] <= hi
    assert nec["players_win_rate"] == pytest.approx(1 - nec["win_rate"])
    assert len(nec["ghost_curve_mean"]) == 10 and nec["games_reaching_round"][0] == 12
    assert all(1 <= v <= 14 for v in nec["ghost_curve_mean"])
    assert nec["purchases"]["ghosts_total"] == round(nec["purchases"]["ghosts_mean"] * 12)
    assert sum(nec["start_powers"].values()) == 12
    players = s["policies"][0]
    assert players["group"] == "players" and players["seats"] == 2
    assert players["wins"] + nec["wins"] == 12          # somebody wins every game
    assert sum(x["wins"] for x in s["seats"]) >= 12
    json.dumps(s)


def test_bad_arguments_raise_config_errors():
    with pytest.raises(ConfigError):
        evaluate(4, "heuristic", "nobody", games=2)
    with pytest.raises(ConfigError):
        evaluate(7, "heuristic", "greedy", games=2)
    with pytest.raises(ConfigError):
        evaluate(4, "heuristic", "greedy", games=0)


def test_an_illegal_action_is_an_error_not_a_substitution():
    class Cheater(RandomAgent):
        def act(self, view, rng):
            return 508 if 508 not in view.legal else view.legal[0]

    g = Game(GameConfig(players=3))
    seed, rngs = game_seeds(0, 0, 3)
    with pytest.raises(IllegalActionError):
        play_game(g, [Cheater()] * 3, seed, rngs)


# ---------------------------------------------------------------------------------- strength
# Effect sizes measured with 600 games a cell (seed 2024) before choosing the game counts: base
# game, 3 seats, the greedy test seat wins 0.99 (fair share 0.33); the Necromancer at 4 seats against
# greedy players: heuristic 0.49, random 0.02; at 3 seats the random Necromancer wins 0.02 against
# greedy players and 0.51 against random ones. With the counts below the gaps are 3-5 times the
# interval half-widths (here: 0.97 vs 0.03, 0.48 [0.37, 0.58] vs 0.03 [0.01, 0.09], 0.0 vs 0.6).

def test_greedy_beats_random_players():
    """Base game, 3 seats, greedy in one rotated seat vs two random seats: its interval lies above
    the random seats' (together) and above the fair share 1/3."""
    s = evaluate(3, None, "greedy", games=60, seed=5, necromancer=False, opponents_spec="random")
    g = {x["group"]: x for x in s["policies"]}
    assert g["test"]["ci95"][0] > 1 / 3
    assert not overlaps(g["test"]["ci95"], g["opponents"]["ci95"])
    assert g["test"]["mean_coins"] > g["opponents"]["mean_coins"]


def test_necromancer_heuristic_beats_the_random_necromancer():
    """4 seats, greedy players: the heuristic's win-rate interval lies above the random Necromancer's."""
    h = evaluate(4, "heuristic", "greedy", games=80, seed=5)["necromancer"]
    r = evaluate(4, "random", "greedy", games=80, seed=5)["necromancer"]
    assert h["win_rate"] > r["win_rate"]
    assert not overlaps(h["ci95"], r["ci95"]), (h["ci95"], r["ci95"])


def test_greedy_players_hold_off_the_random_necromancer_better_than_random_players():
    """3 seats: random players let the random Necromancer win about half the time; greedy ones rarely."""
    g = evaluate(3, "random", "greedy", games=60, seed=6)["necromancer"]
    r = evaluate(3, "random", "random", games=60, seed=6)["necromancer"]
    assert not overlaps(g["ci95"], r["ci95"]) and g["win_rate"] < r["win_rate"]


# ---------------------------------------------------------------------------------- command line
def test_cli_evaluate_json_and_plots(tmp_path, capsys):
    rc = main(["evaluate", "--players", "3", "--games", "6", "--seed", "2", "--json", "--quiet",
               "--plots", str(tmp_path)])
    out = capsys.readouterr().out.strip().splitlines()
    assert rc == 0
    summary = json.loads(out[-1])
    assert summary["games"] == 6 and summary["config"]["seed"] == 2
    assert "win rate" in out[1] and "Necromancer (heuristic)" in "\n".join(out)
    for name in ("win_rates.png", "ghost_curve.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_cli_evaluate_base_game_and_errors(capsys):
    assert main(["evaluate", "--players", "2", "--games", "4", "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["config"]["necromancer"] is False
    assert {g["group"] for g in summary["policies"]} == {"test", "opponents"}
    assert main(["evaluate", "--players", "4", "--necromancer", "nobody", "--games", "2", "--quiet"]) == 2
    assert "unknown policy" in capsys.readouterr().err
    assert main(["evaluate", "--players", "6", "--no-necromancer", "--games", "2", "--quiet"]) == 2


def test_modules_import_cheaply():
    """Importing the harness loads neither torch, matplotlib, tqdm, yaml nor openskill."""
    code = ("import sys, necro_env.evaluate, necro_env.league, necro_env.agents, necro_env.stats;"
            "bad = [m for m in ('torch', 'matplotlib', 'tqdm', 'yaml', 'openskill', 'sb3_contrib') if m in sys.modules];"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------------------------- league
def test_placements_come_from_the_engine_standings():
    """Necromancer wins: he is 1st, players share 2nd. Otherwise players by standing (winners,
    coins, tokens on the board), he is last. The league reads the engine's standings."""
    from necro_env.game import Game, GameConfig
    g = Game(GameConfig(players=4))
    st = g.new_state(0)
    st.over, st.necro_won, st.winners, st.coins = 1, 1, [3], [10, 20, 20, 5]
    assert g.standings(st) == [2, 2, 2, 1]
    assert g.rank_scores(st) == [pytest.approx(-1 / 3)] * 3 + [1.0]
    st.necro_won, st.winners = 0, [2]       # seat 2 won the tie-break with seat 1
    assert g.standings(st) == [3, 2, 1, 4]
    assert g.rank_scores(st) == [pytest.approx(x) for x in (-1 / 3, 1 / 3, 1.0, -1.0)]
    base = Game(GameConfig(players=3, necromancer=False))
    st = base.new_state(0)
    st.over, st.winners, st.coins = 1, [1], [10, 30, 10]
    assert base.standings(st) == [2, 1, 2]
    assert placements({"placements": base.standings(st)}, -1) == [2, 1, 2]


def test_league_config_validation():
    good = {"players": 4, "games": 2, "policies": [{"spec": "random", "role": "player"},
                                                   {"name": "n", "spec": "heuristic", "role": "necromancer"}]}
    cfg = LeagueConfig.from_dict(good)
    assert [e.name for e in cfg.policies] == ["random", "n"] and cfg.seed == 0
    for bad in ({**good, "games": 0}, {**good, "colour": 1}, {k: v for k, v in good.items() if k != "policies"},
                {**good, "policies": [{"spec": "random", "role": "king"}]},
                {**good, "policies": [{"spec": "random"}, {"spec": "random"}]}):
        with pytest.raises(ConfigError):
            LeagueConfig.from_dict(bad)
    with pytest.raises(ConfigError, match="necromancer"):
        run_league(LeagueConfig.from_dict({**good, "policies": [{"spec": "random"}]}))


def test_league_example_config(tmp_path, capsys):
    """configs/league_example.yaml runs; the scripted bots out-rate the random ones in their roles."""
    rc = main(["league", "configs/league_example.yaml", "--json", "--quiet", "--plots", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(out[-1])
    rows = {r["name"]: r for r in summary["ratings"]}
    assert set(rows) == {"greedy", "random", "necro-heuristic", "necro-random"}
    for r in rows.values():
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert 0 < r["sigma"] < 25 / 3
    assert rows["necro-heuristic"]["games"] == rows["necro-random"]["games"] == 20
    assert rows["greedy"]["games"] == rows["random"]["games"] == 40   # 3 seats, both in every game
    assert rows["necro-heuristic"]["mu"] > rows["necro-random"]["mu"]
    assert rows["greedy"]["mu"] > rows["random"]["mu"]
    assert (tmp_path / "league_ratings.png").read_bytes()[:4] == b"\x89PNG"
    assert "ordinal" in out[1]


def test_league_is_deterministic_across_workers():
    cfg = {"players": 3, "games": 8, "seed": 4, "policies": [
        {"spec": "greedy"}, {"spec": "random"}, {"name": "nh", "spec": "heuristic", "role": "necromancer"}]}
    a = run_league(LeagueConfig.from_dict(cfg))
    b = run_league(LeagueConfig.from_dict({**cfg, "workers": 2}))
    assert a["ratings"] == b["ratings"]


def test_pool_workers_run_torch_on_one_thread_and_the_cli_asks_for_one(monkeypatch):
    """A worker of the pool sets torch to one thread (one worker per core: more threads only contend); the
    calling process's setting is left alone; the CLI asks for one thread unless OMP_NUM_THREADS is set."""
    import multiprocessing as mp

    torch = pytest.importorskip("torch")
    from necro_env import cli
    from necro_env.evaluate import _WORKER, _init_worker
    from necro_env.game import GameConfig

    before = torch.get_num_threads()
    cfg = GameConfig(players=3, necromancer=True).to_dict()
    try:
        torch.set_num_threads(2)
        _init_worker(cfg, {"r": ("random", "player")})  # the calling process itself: untouched
        assert torch.get_num_threads() == 2
        monkeypatch.setattr(mp, "parent_process", lambda: object())  # as in a worker of the pool
        _init_worker(cfg, {"r": ("random", "player")})
        assert torch.get_num_threads() == 1
    finally:
        _WORKER.clear()
        torch.set_num_threads(before)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert cli.main(["simulate", "--games", "1", "--players", "3", "--no-progress"]) == 0
    assert os.environ["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert cli.main(["simulate", "--games", "1", "--players", "3", "--no-progress"]) == 0
    assert os.environ["OMP_NUM_THREADS"] == "3"  # the user's setting wins

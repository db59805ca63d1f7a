"""make demo (training/demo.py): the shipped policies' table beside the quick training run, on tiny game counts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import yaml  # noqa: E402

from necro_env.agents.registry import make_policy, pretrained_names  # noqa: E402
from training import demo  # noqa: E402


def test_the_table_covers_every_shipped_policy_against_its_baseline():
    assert sorted(c.policy.removeprefix("pretrained:") for c in demo.SHIPPED) == pretrained_names()
    assert [(c.policy, c.players, c.role) for c in demo.SHIPPED] == [
        ("pretrained:necromancer_3p", 3, "necromancer"), ("pretrained:necromancer_6p", 6, "necromancer"),
        ("pretrained:player_2p", 2, "player"), ("pretrained:players_3p", 3, "players"),
        ("pretrained:players_6p", 6, "players"), ("pretrained:league_necromancer_3p", 3, "necromancer"),
        ("pretrained:league_players_3p", 3, "players"), ("pretrained:exploiter_players_3p", 3, "players")]
    assert [c.necromancer for c in demo.SHIPPED if c.role == "players"] == ["heuristic"] * 3 + [
        "pretrained:league_necromancer_3p"]
    # The player's reference spec is the greedy player under another name (a test seat must differ by name).
    from necro_env.agents.greedy import GreedyAgent

    player = next(c for c in demo.SHIPPED if c.role == "player")
    assert type(make_policy(player.reference_spec, "player")) is GreedyAgent


def test_shipped_table_pairs_each_policy_with_its_baseline_on_the_same_games():
    table = demo.shipped_table(games=3, seed=11, workers=1)
    assert table["games"] == 3 and table["seed"] == 11 and table["seconds"] >= 0
    assert [r["policy"] for r in table["rows"]] == [c.policy for c in demo.SHIPPED]
    assert [r["opponents"] for r in table["rows"]] == ["greedy"] * 3 + ["heuristic"] * 2 + [
        "greedy", "heuristic", "pretrained:league_necromancer_3p"]
    for row in table["rows"]:
        for side in (row["shipped"], row["reference"]):
            assert side["games"] == 3 and 0 <= side["wins"] <= 3
            assert side["win_rate"] == pytest.approx(side["wins"] / 3)  # a team: 1 - his rate
            assert side["ci95"][0] <= side["win_rate"] <= side["ci95"][1]
        assert row["difference"] == pytest.approx(row["shipped"]["win_rate"] - row["reference"]["win_rate"])
        lo, hi = row["difference_ci95"]
        assert lo <= row["difference"] <= hi
    assert [r["reference"]["policy"] for r in table["rows"]] == ["heuristic Necromancer", "heuristic Necromancer",
                                                                 "greedy player", "greedy players", "greedy players",
                                                                 "heuristic Necromancer", "greedy players",
                                                                 "greedy players v league"]
    text = demo.format_shipped(table).splitlines()
    assert len(text) == 2 + len(demo.SHIPPED)
    for line, row in zip(text[2:], table["rows"]):
        assert line.startswith(row["policy"]) and f"{row['difference']:+.3f}" in line
        assert row["reference"]["policy"] in line


def test_a_row_reports_the_seat_it_names():
    """The player row is the test seat's rate (rotated, against greedy), the Necromancer rows the Necromancer's."""
    from necro_env.evaluate import evaluate

    player = next(c for c in demo.SHIPPED if c.role == "player")
    got = player.evaluate("random", games=4, seed=3, workers=1)
    res = evaluate(players=2, necromancer=False, players_spec="random", opponents_spec="greedy", games=4, seed=3)
    test = next(g for g in res["policies"] if g["group"] == "test")
    assert got == {k: test[k] for k in ("wins", "games", "win_rate", "ci95")}
    necro = demo.SHIPPED[0]
    got = necro.evaluate("random", games=4, seed=3, workers=1)
    res = evaluate(players=3, necromancer_spec="random", players_spec="greedy", games=4, seed=3)
    assert got == {k: res["necromancer"][k] for k in ("wins", "games", "win_rate", "ci95")}
    team = next(c for c in demo.SHIPPED if c.role == "players")  # the games the heuristic Necromancer loses
    got = team.evaluate("random", games=6, seed=3, workers=1)
    res = evaluate(players=3, necromancer_spec="heuristic", players_spec="random", games=6, seed=3)
    lo, hi = res["necromancer"]["ci95"]
    assert got == {"wins": 6 - res["necromancer"]["wins"], "games": 6, "win_rate": 1 - res["necromancer"]["win_rate"],
                   "ci95": [1 - hi, 1 - lo]}
    # A row with another Necromancer plays against him: a ShippedCheck naming random, on the same games.
    against_random = demo.ShippedCheck("random", 3, "players", "random players", "random", necromancer="random")
    got = against_random.evaluate("random", games=6, seed=3, workers=1)
    res = evaluate(players=3, necromancer_spec="random", players_spec="random", games=6, seed=3)
    assert got["wins"] == 6 - res["necromancer"]["wins"]
    heuristic = evaluate(players=3, necromancer_spec="heuristic", players_spec="random", games=6, seed=3)
    assert heuristic["necromancer"]["wins"] != res["necromancer"]["wins"]  # so the check tells them apart


@pytest.mark.parametrize("a, b", [((80, 100), (50, 100)), ((5, 10), (5, 10)), ((0, 20), (20, 20))])
def test_difference_interval_holds_the_difference_within_the_rates_range(a, b):
    from necro_env.stats import wilson

    sa, sb = ({"win_rate": k / n, "ci95": list(wilson(k, n))} for k, n in (a, b))
    lo, hi = demo.difference_interval(sa, sb)
    d = sa["win_rate"] - sb["win_rate"]
    assert -1 <= lo <= d <= hi <= 1
    # Newcombe: each side combines the two Wilson half-widths that point its way (in quadrature): at least
    # the larger of them, at most their sum.
    up = (sa["ci95"][1] - sa["win_rate"], sb["win_rate"] - sb["ci95"][0])
    down = (sa["win_rate"] - sa["ci95"][0], sb["ci95"][1] - sb["win_rate"])
    assert max(up) - 1e-12 <= hi - d <= sum(up) + 1e-12
    assert max(down) - 1e-12 <= d - lo <= sum(down) + 1e-12
    if a == (80, 100):
        assert lo > 0  # 0.80 against 0.50 over 100 games each: shown


def test_demo_writes_both_sections_to_summary_and_json(tmp_path, capsys):
    cfg = {"name": "tiny_demo", "players": 3, "necromancer": True, "learner": "necromancer",
           "opponents": "random", "total_steps": 128, "n_envs": 2, "n_steps": 64, "batch_size": 64,
           "n_epochs": 1, "net_arch": [16, 16], "checkpoint_every": 0, "seed": 0, "out_dir": str(tmp_path)}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc = demo.main(["--config", str(path), "--games", "3", "--shipped-games", "2", "--shipped-seed", "7",
                    "--json", "--quiet"])
    out = capsys.readouterr().out
    summary = json.loads(out.strip().splitlines()[-1])
    assert rc == (0 if summary["learning_shown"] else 1)
    assert summary == json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert set(summary["necromancer"]) >= {"trained", "random", "heuristic"}  # the first section, as it was
    shipped = summary["shipped"]
    assert shipped["games"] == 2 and shipped["seed"] == 7
    assert [r["policy"] for r in shipped["rows"]] == [c.policy for c in demo.SHIPPED]
    assert all(r["shipped"]["games"] == 2 == r["reference"]["games"] for r in shipped["rows"])
    assert out.index("The Necromancer against random players") < out.index("The shipped policies against")
    assert demo.format_shipped(shipped) in out

    rc = demo.main(["--config", str(path), "--games", "3", "--shipped-games", "0", "--skip-train", "--json",
                    "--quiet"])
    out = capsys.readouterr().out
    assert json.loads(out.strip().splitlines()[-1])["shipped"] is None
    assert "The shipped policies against" not in out


@pytest.mark.parametrize("argv, msg", [(["--shipped-games", "-1"], "--shipped-games"), (["--games", "0"], "--games")])
def test_bad_game_counts_are_named(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        demo.main(argv)
    assert e.value.code == 2 and msg in capsys.readouterr().err

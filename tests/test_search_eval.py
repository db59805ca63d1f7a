"""training/search_eval.py: search specs and their comparisons on the same seeded games, with decision times."""
from __future__ import annotations

import json

import pytest

from necro_env.evaluate import evaluate
from necro_env.game import ConfigError

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from training import search_eval  # noqa: E402


def test_rows_are_the_harness_figures_on_the_same_games(tmp_path):
    res = search_eval.run("necromancer", 3, ["ismcts:2"], ["heuristic", "random"], "greedy", games=3, seed=5,
                          out=tmp_path, progress=False)
    assert [r["spec"] for r in res["rows"]] == ["heuristic", "random", "ismcts:2"]
    for row, spec in zip(res["rows"][:2], ("heuristic", "random")):
        n = evaluate(3, spec, "greedy", games=3, seed=5)["necromancer"]
        assert (row["wins"], row["games"], row["ci95"]) == (n["wins"], 3, n["ci95"])
        assert not row["search"] and "ms_per_decision" not in row
    s = res["rows"][2]
    assert s["search"] and s["decisions"] > 0 and s["ms_per_decision"] > 0
    assert s["decisions_per_game"] == pytest.approx(s["decisions"] / 3, abs=0.05)
    for row in res["rows"][1:]:
        assert row["vs"] == "heuristic"
        assert row["difference"] == pytest.approx(row["win_rate"] - res["rows"][0]["win_rate"])
        assert row["difference_ci95"][0] <= row["difference"] <= row["difference_ci95"][1]
    saved = json.loads((tmp_path / "search_necromancer_3p.json").read_text())
    assert saved["rows"] == json.loads(json.dumps(res["rows"]))


def test_players_side_counts_the_games_the_necromancer_loses():
    res = search_eval.run("players", 3, ["mcts:2"], ["random"], "heuristic", games=4, seed=1, progress=False)
    n = evaluate(3, "heuristic", "random", games=4, seed=1)["necromancer"]
    row = res["rows"][0]
    assert row["wins"] == 4 - n["wins"] and row["win_rate"] == pytest.approx(1 - n["win_rate"])
    assert row["ci95"] == pytest.approx([1 - n["ci95"][1], 1 - n["ci95"][0]])
    assert res["rows"][1]["search"] and res["rows"][1]["decisions"] > 0


def test_a_rerun_resumes_from_the_file_and_a_changed_protocol_does_not(tmp_path, monkeypatch):
    search_eval.run("necromancer", 3, ["random"], ["heuristic"], "greedy", games=2, seed=0, out=tmp_path,
                    progress=False)
    played = []
    real = search_eval.play_row
    monkeypatch.setattr(search_eval, "play_row", lambda *a: played.append(a[2]) or real(*a))
    search_eval.run("necromancer", 3, ["random", "greedy"], ["heuristic"], "greedy", games=2, seed=0, out=tmp_path,
                    progress=False)
    assert played == ["greedy"]  # heuristic and random were in the file
    search_eval.run("necromancer", 3, ["random"], ["heuristic"], "greedy", games=2, seed=1, out=tmp_path,
                    progress=False)
    assert played == ["greedy", "heuristic", "random"]  # another seed: other games, played again


@pytest.mark.parametrize("argv, match", [
    (["--side", "necromancer", "--specs", ""], "names no policy"),
    (["--side", "necromancer", "--specs", "mcts:2,mcts:2"], "appears twice"),
    (["--side", "necromancer", "--specs", "heuristic", "--compare", "heuristic"], "share"),
    (["--side", "players", "--specs", "mcts:2", "--games", "0"], "games must be an int >= 1"),
    (["--side", "players", "--specs", "mcts:2", "--players", "7"], "3-6"),
    (["--side", "necromancer", "--specs", "mcts:zero"], "SIMS must be a whole number"),
])
def test_bad_arguments_exit_2_with_what_is_allowed(argv, match, capsys):
    assert search_eval.main(argv + ["--quiet"]) == 2
    assert match in capsys.readouterr().err


def test_cli_prints_the_table_and_json(capsys):
    assert search_eval.main(["--side", "necromancer", "--specs", "mcts:2", "--games", "2", "--quiet", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("necromancer (his win rate against greedy; 2 games of seed 2024, 3 seats)")
    assert out[2].startswith("heuristic") and out[3].startswith("mcts:2")
    data = json.loads(out[-1])
    assert [r["spec"] for r in data["rows"]] == ["heuristic", "mcts:2"] and data["opponents"] == "greedy"

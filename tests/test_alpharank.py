"""training/alpharank.py: OpenSpiel's alpha-Rank on a cross-play matrix (two populations: Necromancers, teams),
on hand-made matrices whose answer is known, and on the shipped crossplay.json through the CLI.

Skipped when OpenSpiel is not installed (the openspiel extra)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("open_spiel.python.egt.alpharank", reason="open-spiel is not installed (the openspiel extra)")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from necro_env.game import ConfigError  # noqa: E402
from training.alpharank import main, rank, read_matrix  # noqa: E402


def test_dominant_strategies_get_all_the_mass():
    # Necromancer A beats B against every team; team Y holds every Necromancer lower than X does
    res = rank([[0.9, 0.8], [0.5, 0.4]], ["A", "B"], ["X", "Y"])
    assert [r["name"] for r in res["necromancers"]] == ["A", "B"]
    assert [r["name"] for r in res["teams"]] == ["Y", "X"]
    assert res["necromancers"][0]["mass"] > 0.99 and res["teams"][0]["mass"] > 0.99
    assert (res["profiles"][0]["necromancer"], res["profiles"][0]["team"]) == ("A", "Y")
    assert sum(p["mass"] for p in res["profiles"]) == pytest.approx(1.0)
    # the same with the infinite-alpha limit, and with the roles of the rows swapped
    res = rank([[0.5, 0.4], [0.9, 0.8]], ["B", "A"], ["X", "Y"], infinite_alpha=True)
    assert res["necromancers"][0]["name"] == "A" and res["necromancers"][0]["mass"] > 0.95


def test_a_neutral_game_is_uniform():
    res = rank(np.full((2, 3), 0.5), ["A", "B"], ["X", "Y", "Z"])
    for p in res["profiles"]:
        assert p["mass"] == pytest.approx(1 / 6)
    assert [r["mass"] for r in res["necromancers"]] == pytest.approx([0.5, 0.5])


def test_reads_crossplay_and_league_files_and_names_bad_cells():
    cross = json.loads((ROOT / "docs/results/crossplay_3p/crossplay.json").read_text())
    n, t, w = read_matrix(cross)
    assert n == list(cross["necromancers"]) and t == list(cross["teams"])
    assert w[0, 0] == cross["cells"][n[0]][t[0]]["necromancer_win_rate"]
    league = {"necromancer": ["a", "b"], "players": ["x"], "win_rate": [[0.25], [None]]}
    with pytest.raises(ConfigError, match="win rate of b against x"):
        read_matrix(league)
    league["win_rate"][1][0] = 0.75
    assert read_matrix(league)[2].tolist() == [[0.25], [0.75]]
    with pytest.raises(ConfigError, match="not a cross-play matrix"):
        read_matrix({"rows": []})
    with pytest.raises(ConfigError, match="alpha must be"):
        rank([[0.5]], ["a"], ["x"], alpha=-1)


def test_cli_on_the_shipped_crossplay(tmp_path, capsys):
    assert main([str(ROOT / "docs/results/crossplay_3p/crossplay.json"), "--out", str(tmp_path), "--json"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {r["name"] for r in res["necromancers"]} == {"random", "heuristic", "vs-greedy"}
    assert json.loads((tmp_path / "alpharank.json").read_text())["teams"] == res["teams"]
    rows = (tmp_path / "alpharank.csv").read_text().splitlines()
    assert rows[0] == "population,name,mass,rank" and len(rows) == 7
    assert main([str(tmp_path / "missing.json")]) == 2

"""training/crossplay.py: the Necromancer x team matrix, its replayed conquest targets and its outputs."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from necro_env.game import ConfigError, Game, GameConfig
from necro_env.game.actions import OFFSET, Kind
from training.crossplay import TARGETS, conquest_targets, main, parse_specs


def test_conquest_targets_count_every_player_conquest_by_what_it_hit():
    game = Game(GameConfig(players=4, skip_forced=True))
    st = game.new_state(3)
    rng = np.random.default_rng(3)
    actions, hit = [], dict.fromkeys(TARGETS, 0)
    first = OFFSET[Kind.CONQUER]
    while not st.over:
        la = game.legal_actions(st)
        a = la[int(rng.integers(len(la)))]
        if st.decider != game.necro_seat and first <= a < first + game.num_regions:
            occ = st.occ[a - first]
            key = ("empty" if occ < 0 else "ghosts" if st.active[game.necro_seat] == occ
                   else "lost_tribes" if st.race_owner[occ] < 0 else "players")
            hit[key] += 1
        actions.append(a)
        game.apply(st, a)
    assert conquest_targets(game, 3, actions) == hit
    assert sum(hit.values()) > 10 and hit["ghosts"] + hit["players"] > 0
    with pytest.raises(RuntimeError, match="did not end"):
        conquest_targets(game, 3, actions[:-5])


def test_specs_are_parsed_and_checked():
    assert parse_specs("a=random, greedy", "teams") == {"a": "random", "greedy": "greedy"}
    for bad in ("", "a=random,a=greedy", "=random"):
        with pytest.raises(ConfigError):
            parse_specs(bad, "teams")


def test_a_small_matrix_is_written(tmp_path, capsys):
    rc = main(["--players", "3", "--games", "6", "--seed", "5", "--necromancers", "heuristic,random",
               "--teams", "greedy", "--out", str(tmp_path), "--json", "--quiet"])
    assert rc == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(last) == {"heuristic", "random"} and set(last["heuristic"]) == {"greedy"}
    res = json.loads((tmp_path / "crossplay.json").read_text())
    cell = res["cells"]["heuristic"]["greedy"]
    assert cell["wins"] == round(cell["necromancer_win_rate"] * 6)
    assert sum(cell["player_targets"].values()) == pytest.approx(1.0)
    rows = list(csv.DictReader((tmp_path / "matrix.csv").open()))
    assert [(r["necromancer"], r["team"]) for r in rows] == [("heuristic", "greedy"), ("random", "greedy")]
    for name in ("matrix.png", "ghost_curves.png", "targets.png"):
        assert (tmp_path / name).stat().st_size > 1000
    assert main(["--players", "2", "--games", "2"]) == 2

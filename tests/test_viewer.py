"""Issue 16 without a browser: board layouts, the replayed views, the page's content, saved games, the report, rgb_array."""
from __future__ import annotations

import copy
import json
import re
from importlib import resources

import numpy as np
import pytest

from necro_env import cli
from necro_env import render as R
from necro_env.game import GHOST, Game, GameConfig
from necro_env.game.board import BOARD_KEYS, SEA, TERRAIN_NAMES, load_board
from necro_env.game.catalog import box_count
from necro_env.game.errors import BoardDataError
from necro_env import replay
from necro_env.record import parse_record, replay_engine
from necro_env.viewer import palette, viewer_html
from necro_env.viewer.frames import apply_deltas, deltas, game_frames
from necro_env.viewer.layout import load_layout, parse_layout
from necro_env.viewer.page import page_data

from recorded_games import random_record


@pytest.fixture(scope="module")
def record5() -> dict:
    return random_record(5, True, seed=4)


# ---------------------------------------------------------------------------------- layouts
def _crosses(p, q, r, s) -> bool:
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


@pytest.mark.parametrize("key", BOARD_KEYS)
def test_layout_resembles_the_board(key: int) -> None:
    """Every region has a point; regions keep apart; drawn borders never cross; seas lie outside
    the land, the Lake near the middle, the Well beside the Lake and clear of every region."""
    b = load_board(key)
    lay = load_layout(key)
    pts = np.array(lay.regions)
    assert pts.shape == (b.num_regions, 2)
    gaps = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1)) + np.eye(len(pts))
    assert gaps.min() > 0.085
    land = [r for r in range(b.num_regions) if b.terrain[r] != SEA]
    edges = [(a, c) for a, c in b.edges if a in land and c in land]
    for i, (a, c) in enumerate(edges):
        for d, e in edges[i + 1:]:
            if len({a, c, d, e}) == 4:
                assert not _crosses(pts[a], pts[c], pts[d], pts[e]), ((a, c), (d, e))
    lo, hi = pts[land].min(0), pts[land].max(0)
    for s in b.seas:
        assert (pts[s] < lo - 0.05).any() or (pts[s] > hi + 0.05).any(), f"sea {s} is not outside the land"
        assert set(lay.coasts) == set(b.seas)
    centre = np.array([lay.width, lay.height]) / 2
    assert (np.abs(pts[b.lake] - centre) < [lay.width / 5, lay.height / 5]).all()
    well = np.array(lay.well)
    assert np.linalg.norm(well - pts[b.lake]) < 0.15
    assert np.sqrt(((pts - well) ** 2).sum(1)).min() > 0.06


def test_bad_layout_entries_are_named() -> None:
    """A damaged layouts.json entry raises BoardDataError naming the board and the problem."""
    raw = json.loads(resources.files("necro_env.viewer").joinpath("layouts.json").read_text())["boards"]["3"]
    short = copy.deepcopy(raw)
    short["regions"].pop()
    with pytest.raises(BoardDataError, match="board 3: 30 region points expected, got 29"):
        parse_layout(short, 3)
    far = copy.deepcopy(raw)
    far["regions"][4] = [9.0, 0.5]
    with pytest.raises(BoardDataError, match="point 4 .* outside"):
        parse_layout(far, 3)
    no_sea = copy.deepcopy(raw)
    no_sea["coasts"].pop("0")
    with pytest.raises(BoardDataError, match="coasts"):
        parse_layout(no_sea, 3)


def test_picture_uses_the_layout_palette_and_a_legend() -> None:
    """rgb_array draws each region's terrain ring at the layout point, the Well, and a legend of the colours."""
    assert len(palette.TERRAIN) == len(TERRAIN_NAMES)
    assert np.array_equal(R.TERRAIN_RGB, np.array(palette.TERRAIN, dtype=np.uint8))
    assert np.array_equal(R.SEAT_RGB, np.array(palette.SEATS, dtype=np.uint8))
    g = Game(GameConfig(players=5))
    st = g.new_state(0)
    img = R.rgb_array(g, st)
    centres = R._geometry(g.board.key)[0]
    lay = load_layout(g.board.key)
    k, dx, dy = R._scale(g.board.key)
    for r in range(g.num_regions):
        assert np.allclose(centres[r], np.array(lay.regions[r]) * k + [dx, dy], atol=0.5)
        cx, cy = centres[r]
        assert tuple(img[cy - R.R_OUT + 1, cx]) == palette.TERRAIN[g.board.terrain[r]], r
    wx, wy = R._geometry(g.board.key)[5]
    assert tuple(img[wy - R.R_IN + 1, wx]) == tuple(R.WELL_RGB)
    legend = img[R.H - R.LEGEND:].reshape(-1, 3)
    for rgb in (*palette.TERRAIN, palette.GHOST, palette.TRIBE):
        assert (legend == rgb).all(1).any(), rgb


# ---------------------------------------------------------------------------------- views
def test_views_equal_the_engine_after_every_action(record5: dict) -> None:
    """views[k] shows the engine state after k actions; the delta encoding round-trips exactly."""
    frames = game_frames(record5)
    config, _o, seed, actions = parse_record(record5)
    game = Game(config)
    st = game.new_state(seed)
    assert len(frames.views) == len(actions) + 1
    for k, v in enumerate(frames.views):
        if k:
            game.apply(st, actions[k - 1])
        assert v["occ"] == st.occ and v["tok"] == st.tok and v["coins"] == st.coins
        assert (v["res"], v["isl"], v["well"], v["price"]) == (
            st.tray[GHOST], st.island, sum(st.well), game.purchase_price(st))
        assert v["own"] == [st.race_owner[x] if x >= 0 else -1 for x in st.occ]
        if v["lc"] >= 0:  # the highlighted conquest is held by the seat whose turn it is
            assert st.race_owner[st.occ[v["lc"]]] == st.turn_seat or st.over
    assert apply_deltas(frames.views[0], deltas(frames.views)) == frames.views
    assert frames.ghost_total == box_count(GHOST) and frames.ghost_curve == game.result(st)["ghost_curve"]
    assert [c[-1] for c in frames.coins_by_round] == st.coins
    assert len(frames.coins_by_round[0]) == game.result(st)["rounds_played"]


def test_turn_and_round_starts(record5: dict) -> None:
    """turn_starts / round_starts are exactly the steps where the turn / round changes (and the end)."""
    frames = game_frames(record5)
    config, _o, seed, actions = parse_record(record5)
    game = Game(config)
    keys = []
    st = game.new_state(seed)
    keys.append((st.round, st.turn_seat))
    for a in actions:
        game.apply(st, a)
        keys.append((st.round, st.turn_seat))
    end = len(actions)
    assert frames.turn_starts == [0] + [k for k in range(1, end + 1) if keys[k] != keys[k - 1] or k == end]
    assert frames.round_starts == [0] + [k for k in range(1, end + 1) if keys[k][0] != keys[k - 1][0] or k == end]


def test_conquest_highlight_follows_the_turn() -> None:
    """lc names the region of the turn's last successful conquest and clears when the turn passes."""
    record = random_record(3, False, seed=2)
    frames = game_frames(record)
    seen = 0
    for k in range(1, len(frames.views)):
        prev, cur = frames.views[k - 1], frames.views[k]
        if k in frames.turn_starts and not cur["over"]:
            assert cur["lc"] == -1
        elif cur["lc"] != prev["lc"]:
            seen += 1
            r = cur["lc"]
            assert cur["own"][r] == frames.steps[k - 1]["seat"]
            assert frames.steps[k - 1]["text"].split()[0] in ("conquer", "final", "dragon", "convert")
    assert seen > 5


def test_page_is_self_contained(record5: dict) -> None:
    """One file: no external script, style, image or link; the game JSON cannot close its script element."""
    html = viewer_html(record5)
    assert "<script src" not in html and "<link" not in html and "<img" not in html
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}
    data = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    assert json.loads(data) == json.loads(json.dumps(page_data(game_frames(record5))))
    assert 'id="r0"' in html and f'id="r{load_board(4).num_regions - 1}"' in html and 'id="well"' in html


# ---------------------------------------------------------------------------------- command line
def test_replay_html_cli(tmp_path, capsys, record5: dict) -> None:
    """replay --html writes the page instead of the text; --json still ends the output; a bad record exits 1."""
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(record5))
    out_html = tmp_path / "sub" / "game.html"
    assert cli.main(["replay", str(rec), "--html", str(out_html), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"wrote {out_html}" and len(lines) == 2
    assert json.loads(lines[-1])["decisions"] == len(record5["actions"])
    assert out_html.read_text().startswith("<!DOCTYPE html>")
    bad = dict(record5, actions=record5["actions"][:5] + [508])
    rec.write_text(json.dumps(bad))
    assert cli.main(["replay", str(rec), "--html", str(out_html)]) == 1
    assert "step 5 is illegal" in capsys.readouterr().err


def test_simulate_save_games(tmp_path, capsys) -> None:
    """simulate --save-games: each game's record replays to the game the summary counted."""
    d = tmp_path / "sim"
    assert cli.main(["simulate", "--players", "4", "--games", "3", "--seed", "5", "--no-progress", "--json",
                     "--save-games", str(d)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    coins = np.zeros(4)
    decisions = 0
    for i in range(3):
        record = json.loads((d / f"game_{i}.json").read_text())
        env = replay(record)  # checks the stored result against the replay
        coins += env.game_state.coins
        decisions += env.game_state.decisions
    assert np.allclose(coins / 3, summary["mean_coins"]) and decisions == summary["decisions"]
    assert cli.main(["simulate", "--players", "4", "--games", "3", "--seed", "5", "--no-progress", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert plain["mean_coins"] == summary["mean_coins"]  # saving changes no game


def test_evaluate_save_games_and_report(tmp_path, capsys) -> None:
    """evaluate --save-games --report: records that replay to the listed results, a report naming them, a viewer each."""
    d = tmp_path / "games"
    report = tmp_path / "out" / "report.html"
    argv = ["evaluate", "--players", "3", "--games", "3", "--seed", "2", "--quiet", "--json",
            "--save-games", str(d), "--report", str(report)]
    assert cli.main(argv) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rows = summary["saved_games"]["games"]
    assert [r["file"] for r in rows] == [f"game_{i}.json" for i in range(3)]
    for row in rows:
        record = json.loads((d / row["file"]).read_text())
        env = replay(record)
        res = env.game.result(env.game_state)
        assert res["winners"] == row["winners"] and res["coins"] == row["coins"]
        assert (d / f"game_{row['index']}.html").exists()
    html = report.read_text()
    for needle in ("Win rate by seat", "The Necromancer", "starting power", "Purchases per round",
                   "../games/game_1.html", f"victory: {box_count(GHOST)}"):
        assert needle in html, needle
    nec = summary["necromancer"]
    by_round = nec["purchases"]["by_round_mean"]
    total = sum(m * n for m, n in zip(by_round["ghosts"], nec["games_reaching_round"])) / summary["games"]
    assert total == pytest.approx(nec["purchases"]["ghosts_mean"])


def test_saving_games_changes_no_number(tmp_path) -> None:
    """Saving games only adds saved_games to the summary."""
    from necro_env.evaluate import evaluate

    a = evaluate(3, "random", "greedy", games=2, seed=3)
    b = evaluate(3, "random", "greedy", games=2, seed=3, save_games=str(tmp_path))
    a.pop("run"), b.pop("run")
    assert "saved_games" not in a and b.pop("saved_games")["dir"] == str(tmp_path)
    assert a == b


def test_engine_replay_of_saved_evaluation_games(tmp_path) -> None:
    """A saved evaluation game replays through the bare engine too (no env needed)."""
    from necro_env.evaluate import evaluate

    evaluate(4, "heuristic", "random", games=1, seed=0, save_games=str(tmp_path))
    record = json.loads((tmp_path / "game_0.json").read_text())
    config, _o, seed, actions = parse_record(record)
    st = replay_engine(Game(config), seed, actions)
    assert st.over and Game(config).result(st) == record["result"]

"""Issue 16: the HTML viewer and the report in a real headless browser (Chromium via Selenium).

Everything is asserted from the rendered DOM after stepping with the page's own controls (the
slider, the keys), against the engine's state after the same number of actions. One browser
for the whole module; without Chromium, chromedriver or selenium the module is skipped with
a one-line reason.
"""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from necro_env.game import GHOST, Game, GameConfig, OCCUPANT_NAMES
from necro_env.record import iter_replay, parse_record
from necro_env.viewer import write_viewer
from necro_env.viewer.browser import BrowserUnavailable, headless_chromium

from recorded_games import random_record

# (players, necromancer): every seat count of the scenario and of the base game.
SETUPS = [(3, True), (4, True), (5, True), (6, True), (2, False), (3, False), (4, False), (5, False)]


@pytest.fixture(scope="module")
def browser():
    cm = headless_chromium(width=1400, height=1000)
    try:
        driver = cm.__enter__()
    except BrowserUnavailable as e:
        pytest.skip(f"no headless browser: {e}")
    yield driver
    cm.__exit__(None, None, None)


def engine_states(record: dict) -> list:
    """The engine's state before any action and after each (clones), and each action's words."""
    config, _o, seed, _a = parse_record(record)
    game = Game(config)
    states = [game.new_state(seed)]
    words = []
    for _k, _seat, _a, text, _before, _g, st in iter_replay(record):
        states.append(st.clone())
        words.append(text)
    return game, states, words


READ_DOM = """
const regions = Array.from(document.querySelectorAll('#board g.region')).map(g => [
  g.id, g.getAttribute('data-occ'), g.getAttribute('data-tok'), g.getAttribute('data-own'),
  g.querySelector('.tok').textContent, g.querySelector('.badge').getAttribute('visibility')]);
const seats = Array.from(document.querySelectorAll('#seats .seat')).map(s => s.querySelector('.coins').textContent);
const well = document.querySelector('#well .count');
const text = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
return {step: +document.body.getAttribute('data-step'), regions: regions, coins: seats,
        well: well ? well.textContent : null, reserve: text('necro-reserve'), island: text('necro-island'),
        action: text('action'), slider: +document.getElementById('slider').value};
"""


def expected(game: Game, st) -> dict:
    """What the page must show for engine state ``st``."""
    regions = []
    for r in range(game.num_regions):
        x, n = st.occ[r], st.tok[r]
        if game.necromancer and r == game.board.lake:
            x, n = (GHOST if st.island else -1), st.island
        own = st.race_owner[x] if 0 <= x < 14 else -1
        regions.append([f"r{r}", OCCUPANT_NAMES[x] if x >= 0 else "", str(n if x >= 0 else 0), str(own),
                        str(n) if x >= 0 else "", "visible" if x >= 0 else "hidden"])
    return {"regions": regions, "coins": [str(c) for c in st.coins],
            "well": str(sum(st.well)) if game.necromancer else None,
            "reserve": str(st.tray[GHOST]) if game.necromancer else None,
            "island": str(st.island) if game.necromancer else None}


def check_step(driver, game, states, words, k: int) -> None:
    shown = driver.execute_script(READ_DOM)
    assert shown["step"] == k and shown["slider"] == k
    want = expected(game, states[k])
    for key, value in want.items():
        assert shown[key] == value, (k, key)
    if k:
        assert shown["action"].endswith(": " + words[k - 1]), (k, shown["action"])  # necro-env replay's words


def slide_to(driver, k: int) -> None:
    driver.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                          "s.dispatchEvent(new Event('input', {bubbles: true}));", k)


def console_errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def open_page(driver, tmp_path, record: dict, name: str) -> None:
    path = write_viewer(record, tmp_path / f"{name}.html")
    driver.get(path.as_uri())


@pytest.mark.parametrize("players,necromancer", SETUPS)
def test_slider_shows_the_engine_state(browser, tmp_path, players: int, necromancer: bool) -> None:
    """Slider to several k: regions (occupant, tokens, owner), coins, Well and Reserve equal the engine's after k actions."""
    record = random_record(players, necromancer, seed=players + 10 * necromancer)
    game, states, words = engine_states(record)
    open_page(browser, tmp_path, record, f"g{players}{necromancer}")
    last = len(states) - 1
    rng = np.random.default_rng(players)
    for k in [0, 1, last, *sorted(rng.choice(np.arange(2, last), size=4, replace=False).tolist())]:
        slide_to(browser, k)
        check_step(browser, game, states, words, k)
    assert console_errors(browser) == []


def _starts(states, key) -> list[int]:
    """Steps where ``key(state)`` changes from the step before, or the game ends."""
    return [k for k in range(1, len(states)) if key(states[k]) != key(states[k - 1]) or states[k].over]


def test_keys_step_by_action_turn_and_round(browser, tmp_path) -> None:
    """Arrow keys step one action, Shift+arrows one turn, PgUp/PgDn one round, Home/End to the ends."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    record = random_record(5, True, seed=7)
    game, states, words = engine_states(record)
    open_page(browser, tmp_path, record, "keys")
    last = len(states) - 1
    turns = _starts(states, lambda s: (s.round, s.turn_seat))
    rounds = _starts(states, lambda s: s.round)
    assert len(rounds) >= 3

    def press(*keys) -> None:
        chain = ActionChains(browser)
        for key in keys:
            chain = chain.send_keys(key)
        chain.perform()

    def after(starts: list[int], k: int) -> int:
        return next((s for s in starts if s > k), last)

    def before(starts: list[int], k: int) -> int:
        return max([0] + [s for s in starts if s < k])

    browser.execute_script("document.activeElement.blur()")  # keys go to the page, no control has the focus
    press(Keys.ARROW_RIGHT)
    check_step(browser, game, states, words, 1)
    press(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT)
    check_step(browser, game, states, words, 2)
    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
    k = after(turns, 2)
    check_step(browser, game, states, words, k)
    press(Keys.ARROW_DOWN)
    k = after(turns, k)
    check_step(browser, game, states, words, k)
    press(Keys.PAGE_DOWN, Keys.PAGE_DOWN)
    k = after(rounds, after(rounds, k))
    check_step(browser, game, states, words, k)
    press(Keys.ARROW_UP)
    k = before(turns, k)
    check_step(browser, game, states, words, k)
    press(Keys.END)
    check_step(browser, game, states, words, last)
    press(Keys.PAGE_UP)
    check_step(browser, game, states, words, before(rounds, last))
    press(Keys.HOME)
    check_step(browser, game, states, words, 0)
    assert console_errors(browser) == []


def _pixels(driver) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB"), dtype=np.int16)


def test_screenshot_not_blank_and_changes(browser, tmp_path) -> None:
    """The page draws something (pixel variance) and the picture changes between two steps."""
    record = random_record(4, True, seed=3)
    open_page(browser, tmp_path, record, "shot")
    first = _pixels(browser)
    assert first.std() > 20
    slide_to(browser, len(record["actions"]) // 2)
    later = _pixels(browser)
    assert np.abs(first - later).sum(-1).astype(bool).mean() > 0.002  # > 0.2% of the pixels differ
    assert console_errors(browser) == []


def test_long_game_page_is_small_and_self_contained(browser, tmp_path) -> None:
    """A 6-seat, 10-round game's page stays under 2 MB, loads no resource at all and steps to the end."""
    from necro_env.agents.registry import make_policy
    from necro_env.evaluate import game_seeds, play_game
    from necro_env.saved_games import game_record

    cfg = GameConfig(players=6, game_turns=10)
    game = Game(cfg)
    policies = [make_policy("greedy", "player")] * 5 + [make_policy("random", "necromancer")]
    engine_seed, rngs = game_seeds(0, 0, 6)
    rec = play_game(game, policies, engine_seed, rngs, keep_actions=True)
    assert rec["rounds"] == 10 and not rec["necro_won"]  # the set-up really is a 10-round game
    record = game_record(cfg, engine_seed, rec["actions"], rec["result"])
    path = write_viewer(record, tmp_path / "long.html")
    assert path.stat().st_size < 2_000_000
    browser.get(path.as_uri())
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    slide_to(browser, len(record["actions"]))
    game, states, words = engine_states(record)
    check_step(browser, game, states, words, len(states) - 1)
    assert "Game over after round 10" in browser.find_element("id", "status").text
    assert console_errors(browser) == []


def test_report_links_open_viewers(browser, tmp_path) -> None:
    """The report renders its tables and charts, and its game links open working viewers."""
    from necro_env.evaluate import evaluate
    from necro_env.viewer.report import write_report

    summary = evaluate(4, "random", "greedy", games=3, seed=1, save_games=str(tmp_path / "games"))
    report = write_report(summary, tmp_path / "report.html")
    browser.get(report.as_uri())
    rows = browser.execute_script("return Array.from(document.querySelectorAll('#summary tbody tr'))"
                                  ".map(r => Array.from(r.cells).map(c => c.textContent))")
    groups = {row[0]: row for row in rows}
    for g in summary["policies"]:
        assert groups[g["group"]][5] == f"{g['win_rate']:.3f}"
    assert browser.execute_script("return document.querySelectorAll('svg.chart').length") == 4
    links = browser.execute_script("return Array.from(document.querySelectorAll('#games a'))"
                                   ".filter(a => a.textContent === 'viewer').map(a => a.href)")
    assert len(links) == 3
    assert console_errors(browser) == []
    browser.get(links[2])
    record = json.loads((tmp_path / "games" / "game_2.json").read_text())
    game, states, words = engine_states(record)
    slide_to(browser, len(states) - 1)
    check_step(browser, game, states, words, len(states) - 1)
    assert console_errors(browser) == []

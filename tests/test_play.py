"""`necro-env play`: a human plays one seat in the terminal (issue 7)."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from necro_env.agents.registry import make_policy
from necro_env.game import Game, GameConfig
from necro_env.play import describe, parse_choice, play_game


def _policies(game, human):
    return {s: make_policy("heuristic" if s == game.necro_seat else "greedy",
                           "necromancer" if s == game.necro_seat else "player")
            for s in range(game.num_seats) if s != human}


def test_scripted_human_finishes_a_game_with_bad_input_handled():
    """A human who types junk, an out-of-range number and help gets a clear message, then plays."""
    game = Game(GameConfig(players=3))
    answers = iter(["junk", "999", "?", "b"] + ["0"] * 5000)
    out = io.StringIO()
    res = play_game(game, seed=3, human=0, policies=_policies(game, 0),
                    input_fn=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    assert res is not None and res["over"]
    assert "'junk' is not one of the" in text
    assert "'999' is not one of the" in text
    assert "Type the number in brackets" in text
    assert "Game over. Winner(s):" in text
    assert "[0]" in text  # legal actions are listed with numbers


def test_actions_can_be_typed_by_name():
    """Typing an action's text (e.g. 'pick 0') selects it; an illegal name is refused."""
    game = Game(GameConfig(players=3, necromancer=False))
    st = game.new_state(0)
    legal = game.legal_actions(st)
    assert parse_choice("pick 0", legal, game, st) == legal[0]
    assert parse_choice("conquer 3", legal, game, st) is None
    assert "pay 0" in describe(game, st, legal[0])


def test_quit_and_end_of_input_stop_cleanly():
    game = Game(GameConfig(players=3))
    for answers in (["q"], []):
        it = iter(answers)

        def inp(prompt, it=it):
            try:
                return next(it)
            except StopIteration:
                raise EOFError

        out = io.StringIO()
        assert play_game(game, 1, game.necro_seat, _policies(game, game.necro_seat), inp, out) is None


@pytest.mark.parametrize("args,msg", [(["--players", "9"], "players"), (["--players", "3", "--seat", "5"], "--seat")])
def test_bad_arguments_exit_2(args, msg):
    proc = subprocess.run([sys.executable, "-m", "necro_env.cli", "play", *args], capture_output=True,
                          text=True, input="q\n", timeout=120)
    assert proc.returncode == 2
    assert msg in proc.stderr


def test_console_play_quits_on_q():
    proc = subprocess.run([sys.executable, "-m", "necro_env.cli", "play", "--players", "3", "--seat", "0"],
                          capture_output=True, text=True, input="q\n", timeout=120)
    assert proc.returncode == 1
    assert "Your move (player_0)" in proc.stdout

"""The ``necro-env`` command line: the subcommand registry, ``simulate`` and argument errors."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from necro_env import cli
from necro_env.game import GameConfig
from necro_env.game.errors import ConfigError
from necro_env.simulate import TIMING_KEYS, simulate

BASE_KEYS = {"games", "decisions", "decisions_per_sec", "wins_by_seat", "mean_coins"}
NECRO_KEYS = {"necromancer_win_rate", "mean_ghosts_in_play", "mean_ghost_purchases", "mean_power_purchases"}


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def untimed(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMING_KEYS}


def check_summary(s: dict, players: int, necromancer: bool, games: int) -> None:
    assert BASE_KEYS <= s.keys()
    assert (NECRO_KEYS <= s.keys()) == necromancer
    assert s["players"] == players and s["necromancer"] is necromancer
    assert s["games"] == games
    assert s["decisions"] > 0 and s["decisions_per_sec"] > 0
    assert s["decisions"] == pytest.approx(s["mean_decisions_per_game"] * games)
    assert len(s["wins_by_seat"]) == players and len(s["mean_coins"]) == players
    assert sum(s["wins_by_seat"]) == pytest.approx(games)
    assert all(0 <= w <= games for w in s["wins_by_seat"])
    assert all(c >= 0 for c in s["mean_coins"])
    if necromancer:
        assert 0.0 <= s["necromancer_win_rate"] <= 1.0
        # The Necromancer wins only by his own victory, so his seat's wins are exactly his win rate.
        assert s["wins_by_seat"][players - 1] == pytest.approx(s["necromancer_win_rate"] * games)
        assert s["mean_ghosts_in_play"] >= 0
        assert 0 <= s["mean_power_purchases"] <= 5
        assert s["mean_ghost_purchases"] >= 0


@pytest.mark.parametrize("players,flags,necromancer", [
    (2, (), False),
    (5, ("--no-necromancer",), False),
    (3, (), True),
    (6, ("--necromancer",), True),
])
def test_simulate_json_summary(capsys, players, flags, necromancer):
    rc, out, err = run_main(capsys, "simulate", "--players", str(players), *flags,
                            "--games", "3", "--seed", "5", "--json", "--no-progress")
    assert rc == 0, err
    s = last_json(out)
    check_summary(s, players, necromancer, 3)
    assert "decisions/s" in out and "wins" in out
    assert ("Necromancer win rate" in out) == necromancer


def test_simulate_same_seed_same_summary(capsys):
    argv = ("simulate", "--players", "4", "--games", "3", "--seed", "11", "--json", "--no-progress")
    a = last_json(run_main(capsys, *argv)[1])
    b = last_json(run_main(capsys, *argv)[1])
    assert untimed(a) == untimed(b)
    c = last_json(run_main(capsys, *argv[:-3], "12", "--json", "--no-progress")[1])
    assert untimed(c) != untimed(a)
    # The library function returns the same summary as the command line.
    assert untimed(simulate(4, None, 3, 11)) == untimed(a)


def test_simulate_handicap_reaches_the_game(capsys):
    """RULES §4.1 rule 6 handicap: --handicap is passed to the game and shown in the summary."""
    rc, out, err = run_main(capsys, "simulate", "--players", "4", "--handicap", "2", "--games", "2",
                            "--json", "--no-progress")
    assert rc == 0, err
    assert "handicap 2" in out
    s = last_json(out)
    assert s["handicap"] == 2
    check_summary(s, 4, True, 2)
    assert untimed(s) == untimed(simulate(4, True, 2, 0, handicap=2))


def test_simulate_library_rejects_bad_values():
    with pytest.raises(ConfigError, match="3-6"):
        simulate(7, None, 1, 0)
    with pytest.raises(ConfigError, match="games"):
        simulate(4, None, 0, 0)
    with pytest.raises(ConfigError, match="seed"):
        simulate(4, None, 1, -3)


@pytest.mark.parametrize("argv,needle", [
    (["simulate", "--players", "7"], "--players must be 3-6"),
    (["simulate", "--players", "2", "--necromancer"], "--players must be 3-6 with the Necromancer, got 2"),
    (["simulate", "--players", "6", "--no-necromancer"], "--players must be 2-5 without the Necromancer"),
    (["simulate", "--games", "0"], "--games"),
    (["simulate", "--seed", "-1"], "--seed"),
    (["simulate", "--players", "four"], "--players"),
    (["simulate", "--handicap", "3"], "--handicap"),
    (["simulate", "--players", "4", "--no-necromancer", "--handicap", "1"], "handicap removes the Necromancer"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    ([], "required"),
])
def test_bad_arguments_exit_2(capsys, argv, needle):
    rc, out, err = run_main(capsys, *argv, "--no-progress") if argv and argv[0] == "simulate" \
        else run_main(capsys, *argv)
    assert rc == 2
    assert needle in err
    assert "Traceback" not in err


def test_engine_config_error_is_a_clean_exit_2(capsys, monkeypatch):
    """A ConfigError raised inside a subcommand (here by GameConfig itself) is a message, not a traceback."""
    import necro_env.simulate as sim

    def bad(*args, **kwargs):
        GameConfig(players=4, necromancer=True, handicap=5)

    monkeypatch.setattr(sim, "simulate", bad)
    rc, out, err = run_main(capsys, "simulate", "--players", "4", "--no-progress")
    assert rc == 2
    assert "necro-env simulate: error: handicap must be 0, 1 or 2" in err
    assert "Traceback" not in err


def test_help_and_version(capsys):
    rc, out, _ = run_main(capsys, "--help")
    assert rc == 0 and "simulate" in out
    rc, out, _ = run_main(capsys, "--version")
    assert rc == 0 and "necro-env" in out


def test_registry_modules_follow_the_protocol():
    import importlib

    for name, modname in cli.SUBCOMMANDS.items():
        module = importlib.import_module(modname)
        assert callable(module.add_arguments) and callable(module.run), name
        assert (module.__doc__ or "").strip(), f"{name}: the module docstring is the help text"


def test_broken_subcommand_module_raises(monkeypatch, tmp_path):
    """An import error inside a subcommand module is not hidden (every listed subcommand exists)."""
    (tmp_path / "necro_cli_broken_sub.py").write_text(textwrap.dedent('''
        """A subcommand whose own import fails."""
        import necro_cli_no_such_dependency
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.SUBCOMMANDS, "broken", "necro_cli_broken_sub")
    with pytest.raises(ModuleNotFoundError, match="necro_cli_no_such_dependency"):
        cli.build_parser()


def test_building_the_parser_imports_no_torch():
    code = "import sys, necro_env.cli as c; c.build_parser(); print(sorted(m for m in ('torch', 'stable_baselines3') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_console_script(tmp_path):
    script = Path(sys.executable).parent / "necro-env"
    if not script.exists():
        pytest.skip("the necro-env console script is not installed in this interpreter's environment")
    argv = [str(script), "simulate", "--players", "4", "--games", "2", "--seed", "3", "--json", "--no-progress"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    s = last_json(proc.stdout)
    check_summary(s, 4, True, 2)
    assert untimed(s) == untimed(simulate(4, True, 2, 3))
    bad = subprocess.run([str(script), "simulate", "--players", "7"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--players must be 3-6" in bad.stderr and "Traceback" not in bad.stderr


def test_error_lines_are_capped():
    """Issue 27: whatever data an error quotes, the CLI's one line stays at most ~2 kB."""
    from necro_env.game.errors import MAX_MESSAGE, cap_message

    line = cli._one_line(ConfigError("bad keys:\n" + ", ".join(f"'k{i}'" for i in range(10 ** 5))))
    assert len(line) <= MAX_MESSAGE and "\n" not in line and line.endswith("more characters)")
    assert cap_message("short") == "short"

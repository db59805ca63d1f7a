"""What importing the package and running ``necro-env simulate`` load: no PettingZoo, Gymnasium or torch where
they are not needed, and the registrations and public names all the same (each check in a fresh interpreter)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pettingzoo", "gymnasium", "torch")


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
                          ).stdout.strip().splitlines()[-1]


def test_simulate_imports_no_pettingzoo_gymnasium_or_torch() -> None:
    code = ("import sys, necro_env.cli as c; "
            "code = c.main(['simulate', '--players', '4', '--games', '1', '--seed', '0', '--no-progress']); "
            f"print(code, sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    assert run_python(code) == "0 []"


def test_importing_the_package_loads_no_rl_library() -> None:
    code = f"import sys, necro_env, necro_env.agents; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    assert run_python(code) == "[]"


def test_registrations_are_made_when_pettingzoo_and_gymnasium_are_imported_later() -> None:
    code = ("import sys, necro_env; assert 'pettingzoo' not in sys.modules; "
            "import pettingzoo, gymnasium; "
            "ok = [necro_env.ENV_ID in pettingzoo.aec_registry, necro_env.SINGLE_SEAT_ENV_ID in gymnasium.registry, "
            "'necro_env/NecromancerIsland-v0' in pettingzoo.aec_registry, necro_env.REGISTERED is True, "
            "pettingzoo.__spec__.loader is pettingzoo.__loader__, "
            "type(pettingzoo.make('aec', necro_env.ENV_ID, players=4)).__name__ == 'NecroEnvWrapper']; "
            "print(ok)")
    assert run_python(code) == str([True] * 6)


def test_registrations_when_pettingzoo_was_imported_first() -> None:
    code = ("import pettingzoo, gymnasium, necro_env; "
            "print([necro_env.ENV_ID in pettingzoo.aec_registry, necro_env.SINGLE_SEAT_ENV_ID in gymnasium.registry])")
    assert run_python(code) == "[True, True]"


def test_lazy_names_are_the_env_modules_functions() -> None:
    """``necro_env.env`` is the function, before and after ``import necro_env.env`` (which binds the submodule
    to the package's attribute of the same name)."""
    code = ("import sys, necro_env; f = necro_env.env; import necro_env.env; m = sys.modules['necro_env.env']; "
            "print([f is m.env, necro_env.env is m.env, necro_env.raw_env is m.raw_env, necro_env.replay is m.replay, "
            "'env' in dir(necro_env)])")
    assert run_python(code) == str([True] * 5)
    code = ("import sys, necro_env.env, necro_env; m = sys.modules['necro_env.env']; "
            "print(callable(necro_env.env) and necro_env.env is m.env)")
    assert run_python(code) == "True"


def test_the_gymnasium_entry_point_registers_the_single_seat_view() -> None:
    """pyproject's ``gymnasium.envs`` entry point, called as Gymnasium < 1.0 calls its plugins when it is imported
    (inside ``namespace(<entry point name>)``): afterwards ``gymnasium.make`` finds the id. (Gymnasium 1.x, installed
    here, no longer calls plugins; an installed package under Gymnasium 0.29.1 was checked by hand.)"""
    import tomllib

    (name, value), = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["gymnasium.envs"].items()
    assert name == "necro_env"
    code = ("import sys, gymnasium; from importlib.metadata import EntryPoint; "
            "from gymnasium.envs.registration import namespace; "
            "ID = 'necro_env/NecromancerIslandSingleSeat-v1'; "
            "before = [ID in gymnasium.registry, 'necro_env' in sys.modules]; "
            f"ep = EntryPoint({name!r}, {value!r}, 'gymnasium.envs'); "
            f"ns = namespace({name!r}); ns.__enter__(); ep.load()(); ns.__exit__(None, None, None); "
            "env = gymnasium.make(ID, players=3); "
            "print([before, ID in gymnasium.registry, type(env.unwrapped).__name__])")
    assert run_python(code) == str([[False, False], True, "SingleSeatEnv"])


def test_register_gymnasium_envs_registers_the_id_itself() -> None:
    code = ("import gymnasium, necro_env; ID = necro_env.SINGLE_SEAT_ENV_ID; del gymnasium.registry[ID]; "
            "necro_env.register_gymnasium_envs(); necro_env.register_gymnasium_envs(); print(ID in gymnasium.registry)")
    assert run_python(code) == "True"


def test_gymnasium_finds_the_module_named_in_the_id_without_an_import() -> None:
    """``gymnasium.make("necro_env:<id>")`` imports necro_env itself (the form documented for Gymnasium 1.x)."""
    code = ("import sys, gymnasium; assert 'necro_env' not in sys.modules; "
            "env = gymnasium.make('necro_env:necro_env/NecromancerIslandSingleSeat-v1', players=3); "
            "print(['necro_env' in sys.modules, type(env.unwrapped).__name__])")
    assert run_python(code) == str([True, "SingleSeatEnv"])

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

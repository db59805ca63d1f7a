"""DESIGN.md §1: the rules engine (necro_env/game) imports no RL library and nothing from the layers above it.

The check reads the source files with pkgutil + ast, so it also covers modules that no other test imports
and imports hidden inside functions or behind ``importlib.import_module("...")``.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import necro_env.game

GAME_DIR = Path(necro_env.game.__file__).resolve().parent
FORBIDDEN_LIBRARIES = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray"}
# Layers above the engine (DESIGN.md §1: imports point down only).
FORBIDDEN_UPWARD = ("necro_env.env", "necro_env.observe", "necro_env.agents", "necro_env.render", "necro_env.cli",
                    "necro_env.viewer", "training")


def _game_modules() -> dict[str, Path]:
    """Every module under necro_env/game, found with pkgutil without importing anything."""
    found: dict[str, Path] = {"necro_env.game": GAME_DIR / "__init__.py"}
    stack = [("necro_env.game", GAME_DIR)]
    while stack:
        pkg_name, pkg_dir = stack.pop()
        for info in pkgutil.iter_modules([str(pkg_dir)]):
            name = f"{pkg_name}.{info.name}"
            if info.ispkg:
                found[name] = pkg_dir / info.name / "__init__.py"
                stack.append((name, pkg_dir / info.name))
            else:
                found[name] = pkg_dir / f"{info.name}.py"
    return found


def _imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute dotted names that ``source`` imports (relative imports resolved against ``module``)."""
    names: set[str] = set()
    package_parts = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names.update(f"{prefix}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if fname in {"import_module", "__import__"} and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
    return names


def _violations(names: set[str]) -> list[str]:
    bad = []
    for name in sorted(names):
        if name.split(".")[0] in FORBIDDEN_LIBRARIES:
            bad.append(name)
        elif any(name == up or name.startswith(up + ".") for up in FORBIDDEN_UPWARD):
            bad.append(name)
    return bad


def test_walk_finds_every_source_file() -> None:
    """DESIGN.md §1: the walk covers every .py file under necro_env/game (nothing is skipped)."""
    modules = _game_modules()
    assert {"necro_env.game.board", "necro_env.game.errors"} <= modules.keys()
    on_disk = {p.resolve() for p in GAME_DIR.rglob("*.py")}
    # Folders without __init__.py are not packages pkgutil would list; they must not hold engine code.
    assert on_disk == {p.resolve() for p in modules.values()}


def test_engine_imports_no_rl_library_or_upper_layer() -> None:
    """DESIGN.md §1 / STYLE.md: necro_env/game imports no gymnasium, pettingzoo, torch, SB3, sb3-contrib or ray."""
    problems = {}
    for module, path in _game_modules().items():
        names = _imported_names(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        bad = _violations(names)
        if bad:
            problems[module] = bad
    assert not problems, f"forbidden imports in the rules engine: {problems}"


def test_checker_catches_forbidden_imports() -> None:
    """DESIGN.md §1: the checker itself flags each kind of forbidden import (so a pass means something)."""
    src = (
        "import numpy\n"
        "def f():\n"
        "    import torch.nn as nn\n"
        "from gymnasium import spaces\n"
        "from ..env import raw_env\n"
        "import importlib\n"
        "importlib.import_module('pettingzoo.utils')\n"
        "__import__('ray')\n"
        "from stable_baselines3.common import env_checker\n"
    )
    names = _imported_names(src, "necro_env.game.engine", is_package=False)
    assert _violations(names) == [
        "gymnasium",
        "gymnasium.spaces",
        "necro_env.env",
        "necro_env.env.raw_env",
        "pettingzoo.utils",
        "ray",
        "stable_baselines3.common",
        "stable_baselines3.common.env_checker",
        "torch.nn",
    ]
    # Relative imports inside the engine resolve to the engine, not to forbidden layers.
    ok = _imported_names("from . import board\nfrom .errors import ConfigError\n", "necro_env.game.engine", False)
    assert _violations(ok) == []
    assert "necro_env.game.board" in ok and "necro_env.game.errors.ConfigError" in ok

"""DESIGN.md §1: imports point down only. Every module of necro_env belongs to a layer; a layer may
import only the layers listed for it (an allow-list), the rules engine imports no RL library, and
the package has no import cycle, function-level (lazy) imports included (imports under
``if TYPE_CHECKING:`` never run: they count for the layers, not for cycles).

The check reads the source files with pkgutil + ast, so it also covers modules that no other test
imports and imports hidden inside functions or behind ``importlib.import_module("...")``. A new
module must be given a layer here, and a new upward import fails.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import pytest

import necro_env

PKG_DIR = Path(necro_env.__file__).resolve().parent
GAME_DIR = PKG_DIR / "game"

# module (or package, with everything in it) -> layer; the longest matching name wins.
LAYER_OF = {
    "necro_env.game": "engine",          # the rules engine
    "necro_env.versions": "base",        # env id and version history
    "necro_env.stats": "base",           # confidence intervals
    "necro_env.cli_args": "base",        # argparse helpers shared by the subcommands
    "necro_env.record": "record",        # game records and their engine replay
    "necro_env.saved_games": "record",   # writing records of engine games
    "necro_env.observe": "view",         # state -> observation vectors
    "necro_env.fingerprint": "view",     # the observation layout's hash, the source commit
    "necro_env.render": "view",          # state -> text / pictures
    "necro_env.rewards": "view",         # state -> rewards
    "necro_env.viewer": "view",          # records -> HTML pages (and the palette/layout render uses)
    "necro_env.openspiel": "view",       # the engine as an OpenSpiel game (engine + view; agents' search builds on it)
    "necro_env.env": "env",              # the PettingZoo AEC env
    "necro_env.agents": "agents",        # scripted and loaded policies
    "necro_env.loop": "tools",           # the one game loop (policies play a game forward)
    "necro_env.single_seat": "tools",    # the single-seat Gymnasium env
    "necro_env.wrappers": "tools",       # its former name
    "necro_env.simulate": "tools",
    "necro_env.evaluate": "tools",
    "necro_env.league": "tools",
    "necro_env.play": "tools",
    "necro_env.replay_command": "tools",
    "necro_env.benchmark": "tools",      # the frozen benchmark suite: scores through evaluate, aggregation
    "necro_env.cli": "cli",              # imports every subcommand by name
    "necro_env": "root",                 # the package: binds env/raw_env/replay, registers with PettingZoo
}
# layer -> the layers it may import (its own included where listed).
ALLOWED = {
    "engine": {"engine"},
    "base": {"engine", "base"},
    "record": {"engine", "base", "record"},
    "view": {"engine", "base", "record", "view"},
    "env": {"engine", "base", "record", "view"},
    "agents": {"engine", "base", "view", "agents"},
    "tools": {"engine", "base", "view", "record", "env", "agents", "tools"},
    "cli": {"engine", "base", "view", "record", "env", "agents", "tools", "root"},
    "root": {"engine", "base", "record", "env"},
}
RL_LIBRARIES = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray"}
# Third-party libraries a layer may not import at all.
FORBIDDEN_LIBRARIES = {
    "engine": RL_LIBRARIES, "base": RL_LIBRARIES, "view": RL_LIBRARIES, "record": RL_LIBRARIES,
    "env": RL_LIBRARIES - {"gymnasium", "pettingzoo"},
}


def package_modules(pkg: str = "necro_env", pkg_dir: Path = PKG_DIR) -> dict[str, Path]:
    """Every module of a package, found with pkgutil without importing anything."""
    found: dict[str, Path] = {pkg: pkg_dir / "__init__.py"}
    stack = [(pkg, pkg_dir)]
    while stack:
        pkg_name, directory = stack.pop()
        for info in pkgutil.iter_modules([str(directory)]):
            name = f"{pkg_name}.{info.name}"
            if info.ispkg:
                found[name] = directory / info.name / "__init__.py"
                stack.append((name, directory / info.name))
            else:
                found[name] = directory / f"{info.name}.py"
    return found


MODULES = package_modules()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` bodies (imports for type checkers, never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and (getattr(test, "id", None) == "TYPE_CHECKING"
                                         or getattr(test, "attr", None) == "TYPE_CHECKING"):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def imported_names(source: str, module: str, is_package: bool, runtime_only: bool = False) -> set[str]:
    """Absolute dotted names that ``source`` imports anywhere (relative imports resolved against ``module``);
    ``runtime_only``: leave out the imports under ``if TYPE_CHECKING:``."""
    names: set[str] = set()
    package_parts = module.split(".") if is_package else module.split(".")[:-1]
    tree = ast.parse(source)
    skipped = _type_checking_only(tree) if runtime_only else set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            subs = [f"{prefix}.{alias.name}" for alias in node.names if alias.name != "*"]
            names.update(subs)
            if not subs or not all(name in MODULES for name in subs):  # ``from pkg import module`` alone
                names.add(prefix)                                        # does not count as importing pkg
        elif isinstance(node, ast.Call):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if fname in {"import_module", "__import__"} and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
    return names


def internal_imports(names: set[str], importer: str = "") -> set[str]:
    """The necro_env modules among imported names (``from pkg import name`` -> the submodule if
    ``name`` is one, else ``pkg`` itself), with the packages that importing them runs first
    (``a.b.c`` runs ``a.b/__init__``; not the root, nor a package ``importer`` is part of)."""
    out = set()
    for name in names:
        if name.split(".")[0] != "necro_env":
            continue
        while name not in MODULES:  # an attribute of a module: drop the last part
            name = name.rsplit(".", 1)[0]
        out.add(name)
        parent = name.rsplit(".", 1)[0]
        while "." in parent and not (importer == parent or importer.startswith(parent + ".")):
            out.add(parent)
            parent = parent.rsplit(".", 1)[0]
    return out


def layer_of(module: str) -> str | None:
    best = max((m for m in LAYER_OF if module == m or module.startswith(m + ".")), key=len, default=None)
    return LAYER_OF[best] if best else None


def violations(module: str, names: set[str]) -> list[str]:
    """What ``module`` may not import among ``names`` (dotted names, as ``imported_names`` gives them)."""
    layer = layer_of(module)
    bad = []
    for name in sorted(names):
        top = name.split(".")[0]
        if top in FORBIDDEN_LIBRARIES.get(layer, ()) or top == "training":
            bad.append(name)
    for target in sorted(internal_imports(names, module)):
        if target != module and layer_of(target) not in ALLOWED[layer]:
            bad.append(f"{target} ({layer_of(target)})")
    return bad


def import_graph() -> dict[str, set[str]]:
    """module -> the necro_env modules it imports when run (module level and inside functions)."""
    graph = {}
    for module, path in MODULES.items():
        names = imported_names(path.read_text(encoding="utf-8"), module, path.name == "__init__.py",
                               runtime_only=True)
        graph[module] = internal_imports(names, module) - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules (first = last), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


# ------------------------------------------------------------------------------------------ tests
def test_walk_finds_every_source_file() -> None:
    """The walk covers every .py file of the package (nothing is skipped), and each has a layer."""
    on_disk = {p.resolve() for p in PKG_DIR.rglob("*.py")}
    # Folders without __init__.py are not packages pkgutil would list; they must not hold code.
    assert on_disk == {p.resolve() for p in MODULES.values()}
    unplaced = [m for m in MODULES if layer_of(m) is None]
    assert not unplaced, f"give these modules a layer in LAYER_OF: {unplaced}"
    assert {"necro_env.game.engine", "necro_env.env", "necro_env.cli"} <= MODULES.keys()


def test_every_import_is_allowed() -> None:
    """Each module imports only its allowed layers (function-level imports included); the layers
    below the env import no RL library, the env no torch or SB3, and nothing imports training/."""
    problems = {}
    for module, path in MODULES.items():
        bad = violations(module, imported_names(path.read_text(encoding="utf-8"), module,
                                                path.name == "__init__.py"))
        if bad:
            problems[module] = bad
    assert not problems, f"imports against the layering (DESIGN.md §1): {problems}"


def test_no_import_cycle() -> None:
    """No module of necro_env reaches itself through imports that run, lazy ones included."""
    assert find_cycle(import_graph()) is None, f"import cycle: {' -> '.join(find_cycle(import_graph()))}"


def test_checker_catches_forbidden_imports() -> None:
    """The checker flags each kind of forbidden import (so a pass means something)."""
    src = (
        "import numpy\n"
        "def f():\n"
        "    import torch.nn as nn\n"
        "    from ..env import raw_env\n"  # a lazy upward import
        "from gymnasium import spaces\n"
        "import importlib\n"
        "importlib.import_module('pettingzoo.utils')\n"
        "__import__('ray')\n"
        "from stable_baselines3.common import env_checker\n"
        "from .. import observe\n"
    )
    names = imported_names(src, "necro_env.game.engine", is_package=False)
    assert violations("necro_env.game.engine", names) == [
        "gymnasium",
        "gymnasium.spaces",
        "pettingzoo.utils",
        "ray",
        "stable_baselines3.common",
        "stable_baselines3.common.env_checker",
        "torch.nn",
        "necro_env.env (env)",
        "necro_env.observe (view)",
    ]
    # Relative imports inside the engine resolve to the engine, not to forbidden layers.
    ok = imported_names("from . import board\nfrom .errors import ConfigError\n", "necro_env.game.engine", False)
    assert violations("necro_env.game.engine", ok) == []
    assert internal_imports(ok, "necro_env.game.engine") == {"necro_env.game.board", "necro_env.game.errors"}
    # A lazy import of the env from the observer, and of a subcommand from the record module.
    assert violations("necro_env.observe", {"necro_env.env.raw_env"}) == ["necro_env.env (env)"]
    assert violations("necro_env.record", {"necro_env.cli"}) == ["necro_env.cli (cli)"]
    # Importing a package's module runs the package first: that is an import of the package too.
    assert internal_imports({"necro_env.agents.base.View"}, "necro_env.observe") == {
        "necro_env.agents.base", "necro_env.agents"}
    assert internal_imports({"necro_env.agents.registry"}, "necro_env.agents.base") == {"necro_env.agents.registry"}
    assert violations("necro_env.env", {"torch"}) == ["torch"]
    assert violations("necro_env.agents.greedy", {"training.train"}) == ["training.train"]
    # Imports for type checkers only: they count for the layers, but never run, so not for cycles.
    typing_src = ("from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n    from .engine import Game\n"
                  "if typing.TYPE_CHECKING:\n    from ..env import raw_env\nelse:\n    from . import state\n")
    assert violations("necro_env.game.validate", imported_names(typing_src, "necro_env.game.validate", False)) == [
        "necro_env.env (env)"]
    assert internal_imports(imported_names(typing_src, "necro_env.game.validate", False, runtime_only=True),
                            "necro_env.game.validate") == {"necro_env.game.state"}


@pytest.mark.parametrize("edges,cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": {"b2"}, "b2": {"b"}}, ["b", "b2", "b"]),
])
def test_cycle_finder(edges: dict, cycle: list | None) -> None:
    assert find_cycle(edges) == cycle

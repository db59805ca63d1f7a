"""The ``necro-env`` command line: one registry of subcommands, each a module of its own.

A subcommand module exposes ``add_arguments(parser)``, ``run(args) -> int`` and a
one-line module docstring (the help text); the argument helpers they share live in
``cli_args.py`` (so they never import this module). Modules are imported when the
parser is built, so importing them must stay cheap (no torch at import time).

Other packages add subcommands through the entry-point group ``necro_env.commands``
(``PLUGIN_GROUP``): each entry point names an object with the same protocol (usually a module;
``training.exploit`` is ``necro-env exploit``). A built-in name wins over a plugin of the same name. A
plugin that cannot be loaded (e.g. its libraries are not installed) is still listed; running it prints
what went wrong and what to install, with exit code 1.

Exit codes: 0 success, 1 a runtime error (bad record file, a record the replay rejects, I/O),
2 bad arguments (argparse's own errors and every :class:`ConfigError`, e.g. a policy file that
cannot or may not be loaded), 130 interrupted. Every error of the package (``NecroEnvError``)
and every I/O error is reported as one line ``necro-env COMMAND: error: ...`` on stderr, never
as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from . import __version__

PROG = "necro-env"

SUBCOMMANDS = {
    "simulate": "necro_env.simulate",
    "replay": "necro_env.replay_command",
    "evaluate": "necro_env.evaluate",
    "league": "necro_env.league",
    "play": "necro_env.play",
    "benchmark": "necro_env.benchmark",
}


# ---------------------------------------------------------------- the parser
def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per available subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Small World with the Necromancer Island scenario: simulation and tools.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in SUBCOMMANDS.items():
        _add_subcommand(subs, name, importlib.import_module(modname))
    for name, ep in plugin_entry_points().items():
        try:
            command = ep.load()
            if not (callable(getattr(command, "add_arguments", None)) and callable(getattr(command, "run", None))):
                raise TypeError(f"{ep.value} has no add_arguments(parser) and run(args)")
        except Exception as e:  # noqa: BLE001 - a broken plugin must not take the other subcommands down
            _add_unavailable(subs, name, ep, e)
        else:
            _add_subcommand(subs, name, command)
    return parser


def _add_subcommand(subs, name: str, command) -> None:
    doc = (command.__doc__ or "").strip().splitlines()
    summary = doc[0] if doc else name
    sp = subs.add_parser(name, help=summary.replace("%", "%%"), description=summary.replace("%", "%%"))
    command.add_arguments(sp)
    sp.set_defaults(_run=command.run, _parser=sp)


# ---------------------------------------------------------------- plugins
PLUGIN_GROUP = "necro_env.commands"
TRAIN_EXTRA_HINT = "pip install 'necro_env[train]' (in a clone: pip install -e '.[train]', or make install)"


def plugin_entry_points() -> dict:
    """The installed subcommand plugins (entry points of ``PLUGIN_GROUP``) by name, built-in names left out
    (the first of a repeated name kept)."""
    from importlib.metadata import entry_points

    found: dict = {}
    for ep in entry_points(group=PLUGIN_GROUP):
        if ep.name not in SUBCOMMANDS and ep.name not in found:
            found[ep.name] = ep
    return found


class PluginUnavailableError(RuntimeError):
    """A plugin subcommand could not be loaded (reported by ``main`` as one line, exit code 1)."""


def _add_unavailable(subs, name: str, ep, error: Exception) -> None:
    """List plugin ``name`` anyway; running it (with any arguments) explains why it cannot run."""
    module = ep.value.split(":")[0]
    hint = (f"it comes with the training extra: {TRAIN_EXTRA_HINT}" if module.split(".")[0] == "training"
            else "install what it needs, or reinstall the package that provides it")
    message = f"the subcommand {name!r} ({ep.value}) cannot be loaded ({type(error).__name__}: {error}); {hint}"
    sp = subs.add_parser(name, help=f"(unavailable: {hint})".replace("%", "%%"), description=message.replace("%", "%%"))

    def run(args: argparse.Namespace) -> int:
        raise PluginUnavailableError(message)

    sp.set_defaults(_run=run, _parser=sp)

    def take_everything(args=None, namespace=None):  # any arguments (even --help) lead to the message
        ns = argparse.Namespace() if namespace is None else namespace
        for key, value in sp._defaults.items():
            setattr(ns, key, value)
        return ns, []

    sp.parse_known_args = take_everything  # type: ignore[method-assign]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``necro-env``; returns the exit code (never raises SystemExit)."""
    from .game.errors import ConfigError, NecroEnvError

    # torch (loaded later, by the commands that play learned policies) on one thread unless the user says
    # otherwise: the networks' forward passes are small, and threads only contend for the cores with the
    # game and the worker processes (which inherit the setting).
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as e:  # argparse errors (code 2), --help and --version (code 0)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    sub: argparse.ArgumentParser = args._parser
    try:
        return int(args._run(args) or 0)
    except ConfigError as e:
        print(f"{sub.prog}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except (NecroEnvError, OSError, PluginUnavailableError) as e:
        print(f"{sub.prog}: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{sub.prog}: interrupted", file=sys.stderr)
        return 130


def _one_line(e: BaseException) -> str:
    """The error's message on one line, at most ``MAX_MESSAGE`` characters (whatever data it quotes)."""
    from .game.errors import cap_message

    return cap_message(" ".join(str(e).split()))


if __name__ == "__main__":
    sys.exit(main())

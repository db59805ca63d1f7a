"""Replay a recorded game turn by turn (``necro-env replay FILE``).

The record format and the engine replay are in ``necro_env.record``; this module is the
subcommand (the text replay, ``--json`` summary, ``--html`` viewer page). A record that
``necro_env.replay`` rejects (format, actions, or ``over``/``result``/``agents``/the
illegal-action note differing from the replay) exits 1 with that one-line error.
"""
from __future__ import annotations

import argparse
import io
import json
import sys

from .game import Game
from .record import agent_names, iter_replay, load_record, parse_record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a game record (JSON from env.unwrapped.record()); - for stdin")
    parser.add_argument("--json", action="store_true", help="end with a one-line JSON summary")
    parser.add_argument("--quiet", action="store_true", help="print only the per-turn summaries")
    parser.add_argument("--html", metavar="OUT", default=None,
                        help="write a self-contained HTML viewer of the game to OUT instead of the text replay")


def run(args: argparse.Namespace) -> int:
    from .env import replay  # here, not at import: building the CLI's parser imports this module

    record = load_record(args.file)
    replay(record)  # every check (result, over, agents, the illegal note): a record it rejects exits 1
    config, _options, seed, _actions = parse_record(record)
    names = agent_names(config)
    out = sys.stdout
    if args.html:  # the page replaces the text replay (--json still ends the output)
        from .viewer import write_viewer

        print(f"wrote {write_viewer(record, args.html)}")
        out = io.StringIO()
    scenario = "Necromancer Island" if config.necromancer else "base game"
    print(f"# {scenario}, {config.players} seats ({', '.join(names)}), seed {seed}, "
          f"{len(record['actions'])} actions", file=out)
    game = st = None
    for k, seat, a, text, before, game, st in iter_replay(record):
        if not args.quiet:
            print(f"{k:5d}  round {before[0]:<2} {names[seat]:<14} {text}", file=out)
        if st.over or (st.round, st.turn_seat) != before:
            print(f"       -- round {before[0]}, end of {names[before[1]]}'s turn; coins: "
                  + ", ".join(f"{n} {c}" for n, c in zip(names, st.coins)), file=out)
    if game is None:
        game = Game(config)
        st = game.new_state(seed)
    res = game.result(st)
    if res["over"]:
        winners = [names[s] for s in res["winners"]]
        print(f"# game over after {res['rounds_played']} rounds: winner(s) {', '.join(winners)}", file=out)
    else:
        print(f"# the record stops before the end (round {st.round}, {names[st.decider]} to act)", file=out)
    if record.get("illegal"):
        print(f"# ended by an illegal action: {record['illegal']}", file=out)
    if args.json:
        summary = {
            "seed": seed, "players": config.players, "necromancer": config.necromancer,
            "decisions": len(record["actions"]), "over": res["over"], "rounds_played": res["rounds_played"],
            "winners": [names[s] for s in res["winners"]], "necromancer_won": res["necromancer_won"],
            "coins": dict(zip(names, res["coins"])), "ghost_curve": res["ghost_curve"],
        }
        print(json.dumps(summary, sort_keys=True))
    return 0


__all__ = ["add_arguments", "run"]

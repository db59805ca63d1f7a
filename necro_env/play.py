"""Play one seat yourself in the terminal against chosen policies."""
from __future__ import annotations

import argparse
import sys
from typing import Callable, TextIO

import numpy as np

from .game import Game, GameConfig, decode
from .game.errors import ConfigError
from .record import agent_names, describe

HELP = ("Type the number in brackets (or the action's text, e.g. 'conquer 12'); "
        "'b' shows the board again, 'q' quits.")


def agent_name(game: Game, seat: int) -> str:
    return agent_names(game.config)[seat]


def parse_choice(text: str, legal: list[int], game: Game, st) -> int | None:
    """The action a typed line names: a list number, or the action text; None if neither."""
    t = text.strip().lower()
    if t.isdigit() and 0 <= int(t) < len(legal):
        return legal[int(t)]
    for a in legal:
        if str(decode(a)) == t:
            return a
    return None


class HumanPolicy:
    """The terminal player's seat as a policy: shows the board (once per round and phase), lists the legal
    actions and reads a choice from ``input_fn``; raises ``necro_env.loop.Quit`` when the player quits."""

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, out: TextIO = sys.stdout) -> None:
        self.input_fn = input_fn
        self.out = out
        self._shown: tuple[int, int] | None = None

    def act(self, view, rng) -> int:
        from .loop import Quit
        from .render import ansi as render_ansi

        game, st, out = view.game, view.state, self.out
        if self._shown != (st.round, st.phase):
            print(render_ansi(game, st), file=out)
            self._shown = (st.round, st.phase)
        legal = list(game.legal_actions(st))
        print(f"\nYour move ({agent_name(game, view.seat)}), round {st.round}:", file=out)
        for i, a in enumerate(legal):
            print(f"  [{i}] {describe(game, st, a)}", file=out)
        while True:
            try:
                line = self.input_fn("> ")
            except EOFError:
                print("\nend of input: quitting", file=out)
                raise Quit("end of input") from None
            t = line.strip().lower()
            if t in ("q", "quit", "exit"):
                print("quitting", file=out)
                raise Quit("the player quit")
            if t in ("b", "board"):
                print(render_ansi(game, st), file=out)
                continue
            if t in ("?", "h", "help", ""):
                print(HELP, file=out)
                continue
            choice = parse_choice(t, legal, game, st)
            if choice is None:
                print(f"'{line.strip()}' is not one of the {len(legal)} legal actions: type 0-{len(legal) - 1}. "
                      + HELP, file=out)
                continue
            return choice


def play_game(game: Game, seed: int, human: int, policies: dict[int, object],
              input_fn: Callable[[str], str] = input, out: TextIO = sys.stdout) -> dict | None:
    """Run one game (``necro_env.loop.play``, the human's seat a ``HumanPolicy``); returns ``game.result``
    or None if the human quit. Every seat's policy draws from one generator seeded ``seed``."""
    from . import loop
    from .render import ansi as render_ansi

    st = game.new_state(seed)
    rng = np.random.default_rng(seed)
    seats = [HumanPolicy(input_fn, out) if s == human else policies[s] for s in range(game.num_seats)]

    def announce(view, action) -> None:
        if view.seat != human:
            print(f"  {agent_name(game, view.seat)}: {describe(game, st, action)}", file=out)

    try:
        loop.play(game, st, seats, rng, on_decision=announce)
    except loop.Quit:
        return None
    res = game.result(st)
    print(render_ansi(game, st), file=out)
    names = ", ".join(agent_name(game, w) for w in res["winners"])
    print(f"\nGame over. Winner(s): {names}. Coins: {res['coins']}", file=out)
    if human in res["winners"]:
        print("You won!", file=out)
    return res


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=3, help="seats, the Necromancer included (default 3)")
    p.add_argument("--seat", type=int, default=0, help="your seat (the Necromancer is the last seat)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-necromancer", action="store_true", help="base game without the Necromancer")
    g.add_argument("--necromancer", action="store_true", help="the scenario (default for 3+ seats)")
    p.add_argument("--opponents", default="greedy", help="policy of the other player seats (name or PATH)")
    p.add_argument("--necromancer-policy", default="heuristic", help="policy of the Necromancer (name or PATH)")
    p.add_argument("--seed", type=int, default=0)
    from .cli_args import add_trust_argument

    add_trust_argument(p)


def run(args: argparse.Namespace) -> int:
    from .agents.registry import make_policy
    necro = False if args.no_necromancer else (True if args.necromancer else None)
    try:
        game = Game(GameConfig(players=args.players, necromancer=necro))
    except ConfigError as e:
        print(f"necro-env play: error: {e}", file=sys.stderr)
        return 2
    if not 0 <= args.seat < game.num_seats:
        print(f"necro-env play: error: --seat must be in 0..{game.num_seats - 1}, got {args.seat}", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"necro-env play: error: --seed must be >= 0, got {args.seed}", file=sys.stderr)
        return 2
    policies = {}
    try:
        for s in range(game.num_seats):
            if s == args.seat:
                continue
            if s == game.necro_seat:
                policies[s] = make_policy(args.necromancer_policy, "necromancer", trusted=args.trust_pickle)
            else:
                policies[s] = make_policy(args.opponents, "player", trusted=args.trust_pickle)
    except (ValueError, FileNotFoundError) as e:
        print(f"necro-env play: error: {e}", file=sys.stderr)
        return 2
    print(f"You are {agent_name(game, args.seat)} on the {game.board.key}-player board. {HELP}")
    res = play_game(game, args.seed, args.seat, policies)
    return 0 if res is not None else 1

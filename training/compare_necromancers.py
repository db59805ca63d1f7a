"""What a learned Necromancer does differently: two (or more) Necromancer policies, side by side, over the
same seeded games against the same players.

    python training/compare_necromancers.py --players 3 --necromancer pretrained:necromancer_3p \
        --necromancer heuristic --games 600 --seed 31 --out docs/results/necromancer_3p_behaviour

For each policy it plays the same games (``necro_env.evaluate.game_seeds``: the same deck, dice and player
generators) and records every decision of the Necromancer's seat:

* the starting power chosen, given what was drawn (how often Heroic / Dragon Master were available and taken),
  and the win rate by starting power;
* purchases per round (Ghosts and powers), which powers were bought;
* the Ghost curve (Ghosts in play at the end of each round) and the round of victory;
* conquests: how many per turn, what they cost, how many took a defended region (a kill feeds the Well),
  whose region (Lost Tribe, a player's active or in-decline race), how far from the Lake;
* redeployment: Ghosts kept on the Island, Ghosts per held region at the end of his turn, and how the
  spare Ghosts follow the threat (the share placed on regions next to an attacking race).

Writes ``<out>.md`` (tables) and ``<out>_*.png`` (plots), and prints the tables.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from necro_env.agents.registry import make_policy
from necro_env.evaluate import game_seeds, play_game
from necro_env.game import Game, GameConfig
from necro_env.game import actions as A
from necro_env.game.catalog import GHOST, LOST_TRIBE, POWERS
from necro_env.game.state import ACTIVE, Phase
from necro_env.stats import wilson


def _kind(a: int) -> int:
    return int(A.decode(a).kind)


def lake_distance(game: Game) -> list[int]:
    """Borders from each region to the nearest Lake neighbour (0 = next to the Lake)."""
    b = game.board
    dist = [-1] * b.num_regions
    frontier = list(b.lake_neighbors)
    for r in frontier:
        dist[r] = 0
    while frontier:
        nxt = []
        for r in frontier:
            for q in b.neighbors[r]:
                if dist[q] < 0:
                    dist[q] = dist[r] + 1
                    nxt.append(q)
        frontier = nxt
    return dist


class Recorder:
    """Collects one policy's Necromancer decisions over many games (see the module docstring)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seat = game.necro_seat
        self.dist = lake_distance(game)
        self.s = defaultdict(list)
        self.c = Counter()
        self.by_start = defaultdict(lambda: [0, 0])
        self.curves: list[list[int]] = []
        self.buys_by_round = np.zeros((2, game.game_turns + 1))

    def on_decision(self, view, action: int) -> None:
        st, g = view.state, self.game
        if view.seat != self.seat:
            return
        k = _kind(action)
        arg = A.decode(action).arg
        if k == A.Kind.NECRO_START:
            drawn = set(st.necro_draw)
            for name in ("Heroic", "Dragon Master"):
                pid = next(i for i, q in enumerate(POWERS) if q.name == name)
                if pid in drawn:
                    self.c[f"{name} drawn"] += 1
                    self.c[f"{name} chosen"] += int(st.necro_draw[arg] == pid)
            self._start = POWERS[st.necro_draw[arg]].name
        elif k == A.Kind.BUY_GHOST:
            self.buys_by_round[0, st.round] += 1
        elif k == A.Kind.BUY_POWER:
            self.buys_by_round[1, st.round] += 1
            self.c["power bought: " + POWERS[st.necro_reserve[arg]].name] += 1
        elif k in (A.Kind.CONQUER, A.Kind.FINAL, A.Kind.DRAGON):
            x = st.occ[arg]
            self.c["conquests"] += 1
            self.s["conquest cost"].append(g.conquest_cost(st, arg) if k != A.Kind.DRAGON else 1)
            self.s["conquest distance to the Lake"].append(self.dist[arg])
            if x < 0:
                self.c["conquered: empty"] += 1
            elif x == LOST_TRIBE:
                self.c["conquered: Lost Tribe"] += 1
            elif st.race_status[x] == ACTIVE:
                self.c["conquered: an active race"] += 1
            else:
                self.c["conquered: an in-decline race"] += 1
        elif k == A.Kind.PLACE and st.phase == Phase.REDEPLOY:
            self.c["Ghosts placed"] += 1
            if arg == g.board.lake:
                self.c["Ghosts kept on the Island"] += 1
            else:
                threatened = self._threatened(st)
                self.c["Ghosts placed next to an attacker"] += int(bool((threatened >> arg) & 1))
        elif k == A.Kind.END_REDEPLOY or k == A.Kind.STOUT_DECLINE:
            held = [r for r in range(g.num_regions) if (st.regions[GHOST] >> r) & 1]
            if held:
                self.s["Ghosts per held region (end of his turn)"].append(sum(st.tok[r] for r in held) / len(held))
            self.s["regions held (end of his turn)"].append(len(held))

    def _threatened(self, st) -> int:
        g = self.game
        attackers = 0
        for s in range(g.num_seats):
            if s != self.seat and st.active[s] >= 0:
                attackers |= st.regions[st.active[s]]
        m = 0
        for r in range(g.num_regions):
            if g.nbr[r] & attackers:
                m |= 1 << r
        return m

    def finish(self, rec: dict) -> None:
        won = int(rec["necro_won"])
        self.by_start[getattr(self, "_start", "-")][0] += won
        self.by_start[getattr(self, "_start", "-")][1] += 1
        self.c["wins"] += won
        self.c["games"] += 1
        curve = list(rec["ghost_curve"])
        curve += [curve[-1] if curve else 1] * (self.game.game_turns - len(curve))
        self.curves.append(curve[: self.game.game_turns])
        if won:
            self.s["victory round"].append(rec["rounds"])


def compare(players: int, specs: list[str], games: int, seed: int, trusted: bool = False) -> dict[str, Recorder]:
    game = Game(GameConfig(players=players, skip_forced=True))
    opponents = make_policy("greedy", "player")
    out = {}
    for spec in specs:
        pol = make_policy(spec, "necromancer", trusted=trusted)
        rec = Recorder(game)
        for i in range(games):
            engine_seed, rngs = game_seeds(seed, i, players)
            pols = [opponents] * (players - 1) + [pol]
            r = play_game(game, pols, engine_seed, rngs, on_decision=rec.on_decision)
            rec.finish(r)
        out[spec] = rec
    return out


def tables(recs: dict[str, Recorder]) -> str:
    names = list(recs)
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]

    def row(label, fn):
        lines.append(f"| {label} | " + " | ".join(fn(recs[n]) for n in names) + " |")

    def rate(r):
        lo, hi = wilson(r.c["wins"], r.c["games"])
        return f"{r.c['wins'] / r.c['games']:.3f} [{lo:.3f}, {hi:.3f}]"

    row("win rate [95%]", rate)
    for name in ("Heroic", "Dragon Master"):
        row(f"{name} taken when drawn", lambda r, n=name: f"{r.c[n + ' chosen'] / max(1, r.c[n + ' drawn']):.2f}")
    row("Ghosts bought per game", lambda r: f"{r.buys_by_round[0].sum() / r.c['games']:.2f}")
    row("powers bought per game", lambda r: f"{r.buys_by_round[1].sum() / r.c['games']:.2f}")
    row("Ghosts in play after the last round", lambda r: f"{np.mean([c[-1] for c in r.curves]):.2f}")
    row("mean victory round", lambda r: f"{np.mean(r.s['victory round']):.2f}" if r.s["victory round"] else "-")
    row("conquests per game", lambda r: f"{r.c['conquests'] / r.c['games']:.1f}")
    row("mean conquest cost", lambda r: f"{np.mean(r.s['conquest cost']):.2f}")
    for what in ("empty", "Lost Tribe", "an active race", "an in-decline race"):
        row(f"conquests of {what}", lambda r, w=what: f"{r.c['conquered: ' + w] / max(1, r.c['conquests']):.2f}")
    row("conquest distance to the Lake", lambda r: f"{np.mean(r.s['conquest distance to the Lake']):.2f}")
    row("regions held (end of his turn)", lambda r: f"{np.mean(r.s['regions held (end of his turn)']):.2f}")
    row("Ghosts per held region", lambda r: f"{np.mean(r.s['Ghosts per held region (end of his turn)']):.2f}")
    row("placed Ghosts kept on the Island", lambda r: f"{r.c['Ghosts kept on the Island'] / max(1, r.c['Ghosts placed']):.2f}")
    row("placed Ghosts next to an attacker",
        lambda r: f"{r.c['Ghosts placed next to an attacker'] / max(1, r.c['Ghosts placed'] - r.c['Ghosts kept on the Island']):.2f}")
    out = "\n".join(lines)
    starts = sorted({s for r in recs.values() for s in r.by_start}, key=lambda s: -sum(r.by_start[s][1] for r in recs.values()))
    lines = ["", "Win rate by starting power (games):", "", "| starting power | " + " | ".join(names) + " |",
             "|---|" + "---|" * len(names)]
    for s in starts:
        cells = []
        for n in names:
            w, g = recs[n].by_start.get(s, (0, 0))
            cells.append(f"{w / g:.2f} ({g})" if g else "-")
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    powers = sorted({k for r in recs.values() for k in r.c if k.startswith("power bought: ")})
    lines += ["", "Powers bought per game:", "", "| power | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for p in powers:
        lines.append(f"| {p[len('power bought: '):]} | " + " | ".join(f"{recs[n].c[p] / recs[n].c['games']:.2f}" for n in names) + " |")
    return out + "\n" + "\n".join(lines)


def plots(recs: dict[str, Recorder], out: Path, title: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for n, r in recs.items():
        rounds = np.arange(1, r.game.game_turns + 1)
        axes[0].plot(rounds, np.mean(r.curves, axis=0), marker="o", label=n)
        per = r.buys_by_round[:, 1:] / r.c["games"]
        axes[1].plot(rounds, per[0], marker="o", label=f"{n}: Ghosts")
        axes[1].plot(rounds, per[1], marker="s", linestyle="--", label=f"{n}: powers")
    axes[0].axhline(14, color="grey", linestyle=":", label="victory (14)")
    axes[0].set(xlabel="round", ylabel="Ghosts in play (mean, end of round)", title=f"Ghost curve ({title})")
    axes[1].set(xlabel="round", ylabel="purchases per game", title="Purchases per round")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    p = out.with_name(out.name + "_curves.png")
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    fig, ax = plt.subplots(figsize=(7, 4))
    starts = [s for s in ("Heroic", "Dragon Master", "Merchant", "Bivouacking", "Fortified", "Alchemist")]
    xs = np.arange(len(starts))
    width = 0.8 / len(recs)
    for i, (n, r) in enumerate(recs.items()):
        vals = [r.by_start[s][0] / r.by_start[s][1] if r.by_start.get(s, (0, 0))[1] else 0 for s in starts]
        ax.bar(xs + i * width, vals, width, label=n)
    ax.set_xticks(xs + width * (len(recs) - 1) / 2, starts, rotation=20)
    ax.set(ylabel="win rate", title=f"Win rate by starting power ({title})", ylim=(0, 1))
    ax.legend()
    fig.tight_layout()
    p = out.with_name(out.name + "_start_powers.png")
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--necromancer", action="append", required=True, help="a policy spec (repeat for each)")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--out", default=None, help="path prefix of the report (.md) and plots (_*.png)")
    p.add_argument("--trust-pickle", action="store_true")
    args = p.parse_args(argv)
    recs = compare(args.players, args.necromancer, args.games, args.seed, trusted=args.trust_pickle)
    text = tables(recs)
    print(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        title = f"{args.players} seats vs greedy players, {args.games} games"
        pngs = plots(recs, out, title)
        header = (f"# Necromancer behaviour: {', '.join(recs)} ({title}, seed {args.seed})\n\n"
                  f"`python training/compare_necromancers.py --players {args.players} "
                  + " ".join(f"--necromancer {s}" for s in recs) + f" --games {args.games} --seed {args.seed}`\n\n")
        out.with_suffix(".md").write_text(header + text + "\n\n" + "\n".join(f"![{q.stem}]({q.name})" for q in pngs) + "\n")
        (out.parent / (out.name + ".json")).write_text(json.dumps(
            {n: {"counts": dict(r.c), "by_start": {k: list(v) for k, v in r.by_start.items()}} for n, r in recs.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

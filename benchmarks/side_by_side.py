"""``--baseline REV`` for the benchmark scripts: the same benchmark on another commit, side by side.

``compare(script, rev, child_args, rounds, extract)`` checks ``REV`` out into a temporary git
worktree (``git worktree add --detach`` under a fresh temporary directory, removed again at the
end, also on errors), then for each round runs ``script`` (this tree's file, so both columns
run the same benchmark code) twice in fresh interpreters: once importing this tree's
``necro_env`` and once the worktree's (``PYTHONPATH`` and the working directory set to the tree;
each child reports the ``necro_env`` it imported and a mismatch raises). The two children take
turns in alternating order, so a change of machine load hits both alike. ``extract`` turns a
child's JSON line into ``{row name: figure}``; the table gives per row the median of each column
and the median of the per-round ratios (this tree / REV: higher is faster for rates).
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent


def add_argument(parser) -> None:
    parser.add_argument("--baseline", metavar="REV", default=None,
                        help="also run this benchmark on git revision REV (a temporary worktree, removed at the "
                             "end), alternating with this tree round by round; prints both columns and the ratio")


@contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """A detached git worktree of ``rev`` in a temporary directory (removed on exit)."""
    tmp = Path(tempfile.mkdtemp(prefix="necro_baseline_"))
    tree = tmp / "tree"
    try:
        got = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                             capture_output=True, text=True)
        if got.returncode != 0:
            raise SystemExit(f"--baseline {rev}: git worktree add failed: {got.stderr.strip()}")
        yield tree
    finally:
        if tree.exists():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           capture_output=True, text=True)
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], capture_output=True, text=True)


def run_child(script: Path, tree: Path, args: list[str]) -> dict:
    """Run ``script`` with ``args`` (it must print one JSON object last) importing ``tree``'s necro_env."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    got = subprocess.run([sys.executable, str(script), *args], cwd=str(tree), env=env,
                         capture_output=True, text=True)
    if got.returncode != 0:
        raise RuntimeError(f"{script.name} {' '.join(args)} in {tree} failed ({got.returncode}): "
                           f"{got.stderr.strip()[-2000:]}")
    out = json.loads(got.stdout.strip().splitlines()[-1])
    pkg = Path(out.get("package", "")).resolve()
    if tree.resolve() not in pkg.parents:
        raise RuntimeError(f"the child run for {tree} imported necro_env from {pkg}, not from that tree")
    return out


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.4g}"


def compare(script: str | Path, rev: str, child_args: Callable[[int], list[str]], rounds: int,
            extract: Callable[[dict], dict[str, float]], lower_is_better: tuple[str, ...] = ()) -> dict:
    """Alternate ``script`` on this tree and on ``rev`` for ``rounds`` rounds; print and return the table.

    ``child_args(k)`` gives round k's arguments; ``lower_is_better`` names rows (times) whose ratio is
    REV / this tree instead, so every ratio above 1 means this tree is better."""
    script = Path(script).resolve()
    cur: dict[str, list[float]] = {}
    base: dict[str, list[float]] = {}
    with worktree(rev) as tree:
        for k in range(rounds):
            sides = [(ROOT, cur), (tree, base)]
            if k % 2:
                sides.reverse()
            for where, into in sides:
                for name, v in extract(run_child(script, where, child_args(k))).items():
                    into.setdefault(name, []).append(v)
    rows = []
    for name in cur:
        a, b = cur[name], base.get(name, [])
        if len(b) != len(a):
            continue
        ratios = [(y / x if name in lower_is_better else x / y) for x, y in zip(a, b) if x > 0 and y > 0]
        rows.append({"row": name, "this_tree": statistics.median(a), "baseline": statistics.median(b),
                     "ratio": statistics.median(ratios) if ratios else float("nan")})
    width = max([len(r["row"]) for r in rows] + [10])
    print(f"side by side, {rounds} rounds (medians; ratio = median of the per-round ratios, > 1: this tree better)")
    print(f"{'row':<{width}}{'this tree':>14}{'baseline ' + rev[:10]:>22}{'ratio':>9}")
    for r in rows:
        print(f"{r['row']:<{width}}{_fmt(r['this_tree']):>14}{_fmt(r['baseline']):>22}{r['ratio']:>9.2f}")
    return {"baseline": rev, "rounds": rounds, "rows": rows}

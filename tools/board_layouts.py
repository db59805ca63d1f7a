"""Lay the four boards out once and write ``necro_env/viewer/layouts.json`` (a developer tool).

The HTML viewer and the ``rgb_array`` picture draw every region at a fixed point, so the
points are package data, not recomputed at run time. This script made them; run it again
only to change the layout (``python tools/board_layouts.py``), then look at the pictures.

How the points are found (deterministic: no random start):

1. The regions that touch the board's edge form a cycle (region ids follow the printed
   board left to right, top to bottom, so region 0 is the top-left sea). A Tutte embedding
   with that cycle on a rectangle puts every other region at the mean of its neighbours:
   a drawing without crossing borders.
2. Seas go *outside*: each sea leaves the cycle and its coast (its land neighbours, in the
   order they surround it in step 1) takes its place, so the land fills the rectangle and
   the seas become bands along the coast beyond the frame.
3. The land is relaxed by stress majorisation (target distance proportional to the number
   of borders between two regions), with a floor on the spacing and the Lake pulled to the
   centre; a move that would make two borders cross is refused, the coast stays put.
4. The Well of Souls gets the free spot next to the Lake that is farthest from every region
   and border.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from necro_env.game.board import BOARD_KEYS, SEA, Board, load_board  # noqa: E402

ASPECT = 1.4      # the land rectangle is ASPECT x 1
OUT = 0.17        # width of the sea margin around it
MIN_GAP = 0.13    # regions closer than this push each other apart
ITERS = 600
OUTFILE = ROOT / "necro_env" / "viewer" / "layouts.json"


def border_cycle(b: Board) -> list[int]:
    """The regions on the board's edge in cyclic order, starting at the smallest id."""
    edge = {r for r in range(b.num_regions) if b.border[r]}
    nbr = {r: sorted(j for j in b.neighbors[r] if j in edge) for r in edge}
    start = min(edge)
    found: list[int] = []

    def walk(path: list[int]) -> bool:
        if len(path) == len(edge):
            if start in nbr[path[-1]]:
                found.extend(path)
                return True
            return False
        return any(walk(path + [j]) for j in nbr[path[-1]] if j not in path)

    if not walk([start]):
        raise ValueError(f"board {b.key}: the edge regions form no cycle")
    return found


def on_rectangle(u: float) -> tuple[float, float]:
    """Point at fraction ``u`` of the way round the ASPECT x 1 rectangle, clockwise from its top-left corner."""
    s = (u % 1.0) * 2 * (ASPECT + 1)
    if s < ASPECT:
        return s, 0.0
    if s < ASPECT + 1:
        return ASPECT, s - ASPECT
    if s < 2 * ASPECT + 1:
        return ASPECT - (s - ASPECT - 1), 1.0
    return 0.0, 1.0 - (s - 2 * ASPECT - 1)


def tutte(b: Board, fixed: dict[int, tuple[float, float]], members: list[int]) -> np.ndarray:
    """Positions of ``members``: the fixed ones given, every other at the mean of its neighbours among them."""
    pos = np.zeros((b.num_regions, 2))
    inner = [r for r in members if r not in fixed]
    idx = {r: i for i, r in enumerate(inner)}
    a = np.zeros((len(inner), len(inner)))
    rhs = np.zeros((len(inner), 2))
    for r in inner:
        for j in b.neighbors[r]:
            if j not in members:
                continue
            a[idx[r], idx[r]] += 1
            if j in fixed:
                rhs[idx[r]] += fixed[j]
            else:
                a[idx[r], idx[j]] -= 1
    for r, p in fixed.items():
        pos[r] = p
    pos[inner] = np.linalg.solve(a, rhs)
    return pos


def land_cycle(b: Board) -> tuple[list[int], dict[int, list[int]]]:
    """The land outline (the edge cycle with each sea replaced by its coast) and each sea's coast."""
    cyc = border_cycle(b)
    m = len(cyc)
    first = tutte(b, {r: on_rectangle(i / m) for i, r in enumerate(cyc)}, list(range(b.num_regions)))
    out: list[int] = []
    coasts: dict[int, list[int]] = {}
    for i, r in enumerate(cyc):
        if b.terrain[r] != SEA:
            out.append(r)
            continue
        p, q = cyc[i - 1], cyc[(i + 1) % m]
        land = [j for j in b.neighbors[r] if b.terrain[j] != SEA]
        angle = {j: float(np.arctan2(*(first[j] - first[r])[::-1])) for j in land}
        turn = sorted(land, key=lambda j: (angle[j] - angle[p]) % (2 * np.pi))
        if turn[-1] != q:
            turn = [p] + sorted(land, key=lambda j: (angle[p] - angle[j]) % (2 * np.pi))[1:]
        if turn[0] != p or turn[-1] != q:
            raise ValueError(f"board {b.key}: the coast of sea {r} does not run from {p} to {q}: {turn}")
        out.extend(turn[1:-1])
        coasts[r] = turn
    return out, coasts


def _orient(p, q, r):
    return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])


def crossing(pos: np.ndarray, edges: np.ndarray, e: int) -> bool:
    """Whether edge ``e`` crosses another edge that shares no endpoint with it."""
    a, c = pos[edges[e, 0]], pos[edges[e, 1]]
    s, t = pos[edges[:, 0]], pos[edges[:, 1]]
    share = np.isin(edges, edges[e]).any(1)
    hit = (_orient(a, c, s) * _orient(a, c, t) < 0) & (_orient(s, t, a) * _orient(s, t, c) < 0) & ~share
    return bool(hit.any())


def relax(b: Board, pos: np.ndarray, land: list[int], coast: set[int]) -> np.ndarray:
    """Stress majorisation of the land with a spacing floor, the Lake pulled to the centre, no crossing allowed."""
    index = {r: i for i, r in enumerate(land)}
    edges = np.array([(index[a], index[c]) for a, c in b.edges if a in index and c in index])
    n = len(land)
    hops = np.full((n, n), np.inf)
    np.fill_diagonal(hops, 0)
    hops[edges[:, 0], edges[:, 1]] = hops[edges[:, 1], edges[:, 0]] = 1
    for k in range(n):
        hops = np.minimum(hops, hops[:, k:k + 1] + hops[k:k + 1, :])
    target = 1.3 / hops.max() * hops
    weight = 1 / np.maximum(target, 1e-9) ** 2
    np.fill_diagonal(weight, 0)
    centre = np.array([ASPECT / 2, 0.5])
    lake = index[b.lake]
    incident = [np.flatnonzero((edges == i).any(1)) for i in range(n)]
    p = pos[land].copy()
    step = np.full(n, 0.01)
    for _ in range(ITERS):
        delta = p[:, None] - p[None]
        dist = np.sqrt((delta ** 2).sum(-1)) + 1e-9
        grad = ((weight * (dist - target) / dist)[..., None] * delta).sum(1)
        close = (dist < MIN_GAP) & ~np.eye(n, dtype=bool)
        grad -= 5 * (((MIN_GAP - dist) * close / dist)[..., None] * delta).sum(1)
        grad[lake] += 3 * (p[lake] - centre)
        norm = np.sqrt((grad ** 2).sum(1)) + 1e-9
        for i, r in enumerate(land):
            if r in coast:
                continue
            old = p[i].copy()
            p[i] = np.clip(p[i] - step[i] * grad[i] / norm[i] * min(1.0, norm[i] * 10), 0.06, [ASPECT - 0.06, 0.94])
            if any(crossing(p, edges, e) for e in incident[i]):
                p[i] = old
                step[i] *= 0.5
            else:
                step[i] = min(step[i] * 1.1, 0.01)
    out = pos.copy()
    out[land] = p
    return out


def outward(x: float, y: float) -> np.ndarray:
    """Unit-ish vector pointing off the rectangle from a point on its edge (corners: diagonal)."""
    v = np.array([(x <= 1e-9) * -1.0 + (x >= ASPECT - 1e-9), (y <= 1e-9) * -1.0 + (y >= 1 - 1e-9)])
    return v / (np.linalg.norm(v) or 1.0)


def well_spot(b: Board, pos: np.ndarray, land: list[int]) -> np.ndarray:
    """The point near the Lake farthest from every region and border (the Well of Souls goes there)."""
    lake = pos[b.lake]
    edges = [(pos[a], pos[c]) for a, c in b.edges if a in land and c in land]
    best, best_gap = lake, -1.0
    for radius in (0.09, 0.11, 0.13):
        for k in range(48):
            ang = 2 * np.pi * k / 48
            q = lake + radius * np.array([np.cos(ang), np.sin(ang)])
            gap = min(np.linalg.norm(pos[r] - q) for r in land)
            for a, c in edges:
                t = np.clip(np.dot(q - a, c - a) / max(np.dot(c - a, c - a), 1e-12), 0, 1)
                gap = min(gap, 1.6 * np.linalg.norm(a + t * (c - a) - q))
            if gap > best_gap + 1e-9:
                best, best_gap = q, gap
    return best


def board_layout(key: int) -> dict:
    """The layout of one board as written to layouts.json (coordinates shifted so the sea margin starts at 0)."""
    b = load_board(key)
    outline, coasts = land_cycle(b)
    land = [r for r in range(b.num_regions) if b.terrain[r] != SEA]
    first_coast = coasts[min(coasts)]
    mid = outline.index(first_coast[len(first_coast) // 2])  # the top-left sea's coast meets the corner
    m = len(outline)
    pos = tutte(b, {r: on_rectangle((i - mid) / m) for i, r in enumerate(outline)}, land)
    pos = relax(b, pos, land, set(outline))
    bands = {}
    for sea, coast in coasts.items():
        band = [pos[coast[0]] + OUT * 0.65 * outward(*pos[coast[0]])]
        for a, c in zip(coast, coast[1:]):
            va, vc = outward(*pos[a]), outward(*pos[c])
            if abs(va @ vc) < 1e-9:  # the coast turns round a corner of the frame: so does the band
                corner = np.where(np.abs(va) > np.abs(vc), pos[a], pos[c])
                band.append(corner + OUT * 0.65 * np.sign(va + vc))
            band.append(pos[c] + OUT * 0.65 * vc)
        band = np.array(band)
        seg = np.sqrt((np.diff(band, axis=0) ** 2).sum(1))
        half = seg.sum() / 2
        k = int(np.searchsorted(np.cumsum(seg), half))
        before = np.concatenate([[0], np.cumsum(seg)])[k]
        t = (half - before) / max(seg[k], 1e-12) if len(seg) else 0.0
        anchor = band[k] + t * (band[k + 1] - band[k]) if len(seg) else band[0]
        pos[sea] = anchor
        bands[str(sea)] = band
    well = well_spot(b, pos, land)

    def pt(v) -> list[float]:
        return [round(float(v[0]) + OUT, 4), round(float(v[1]) + OUT, 4)]

    return {"width": round(ASPECT + 2 * OUT, 4), "height": round(1 + 2 * OUT, 4),
            "regions": [pt(v) for v in pos],
            "coasts": {s: [pt(v) for v in band] for s, band in bands.items()},
            "well": pt(well)}


def main() -> None:
    data = {
        "format": "necro_env/board_layouts",
        "version": 1,
        "_doc": "Fixed drawing positions of the regions of each board (made once by tools/board_layouts.py). "
                "regions[r] = [x, y] of region r (y down); coasts[sea] = the polyline of the sea's band along "
                "its coast; well = where the Well of Souls is drawn, beside the Lake; width/height = the frame.",
        "boards": {str(k): board_layout(k) for k in BOARD_KEYS},
    }
    text = json.dumps(data, indent=1)
    text = re.sub(r"\[\s+(-?[\d.]+),\s+(-?[\d.]+)\s+\]", r"[\1, \2]", text)  # one point per line
    OUTFILE.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {OUTFILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

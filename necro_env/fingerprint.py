"""What a saved policy was made for and by: the layout fingerprint and the source commit.

``layout_fingerprint()`` is a short hash (the first 16 hex digits of a SHA-256) of everything that
fixes what an entry of the observation vector and an index of the action table mean:

* the observation layout (``necro_env.observe``): ``OBS_SIZE``, ``OFFSETS`` (every block and every
  flat feature, by name, start and length, in order), the row column tables (``ROW_TABLES``: name,
  column, width of each column of the region, seat and combo rows), the divisors (``SCALES``),
  ``MAX_SEATS`` and the number of regions (``MAX_REGIONS``);
* the order of the one-hots those tables name: race, power and occupant names, phases, terrains
  and board keys (``necro_env.game``);
* the action table (``necro_env.game.actions``): each ``Kind`` by name and value with its
  ``OFFSET``, ``SIZES`` and argument base, and ``NUM_ACTIONS``.

Swapping two features of the same width, renaming one, moving one or changing a divisor changes
the fingerprint; code changes that keep the layout (a faster writer, a refactor) do not. What it
does not cover: the rules (the env version, ``necro_env.versions``) and the boards' region data.
The tables are read when the function is called, so a test can change them and see the hash move.

``source_commit()`` is the git commit of the checkout this package was imported from
(``<40 hex digits>``, with ``-dirty`` when tracked files differ from it), or ``"unknown"``
(not a git checkout, git missing or failing). Neither function imports torch.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

FINGERPRINT_LENGTH = 16
UNKNOWN_COMMIT = "unknown"


def layout_description() -> dict:
    """The JSON-ready data ``layout_fingerprint`` hashes (see the module docstring)."""
    from necro_env import observe
    from necro_env.game import actions
    from necro_env.game.board import BOARD_KEYS, MAX_REGIONS, TERRAIN_NAMES
    from necro_env.game.catalog import OCCUPANT_NAMES, POWERS, RACES
    from necro_env.game.state import Phase

    return {
        "observation": {
            "obs_size": observe.OBS_SIZE,
            "offsets": [[name, start, length] for name, (start, length) in observe.OFFSETS.items()],
            "rows": {block: [[name, col, width] for name, (col, width) in cols.items()]
                     for block, cols in observe.ROW_TABLES.items()},
            "scales": sorted([name, d] for name, d in observe.SCALES.items()),
            "max_seats": observe.MAX_SEATS,
            "max_regions": MAX_REGIONS,
        },
        "one_hots": {
            "races": [r.name for r in RACES], "powers": [p.name for p in POWERS],
            "occupants": list(OCCUPANT_NAMES), "phases": [p.name for p in Phase],
            "terrains": list(TERRAIN_NAMES), "boards": list(BOARD_KEYS),
        },
        "actions": {
            "kinds": [[k.name, int(k), actions.OFFSET[k], actions.SIZES[k], actions.ARG_BASE[k]]
                      for k in actions.Kind],
            "num_actions": actions.NUM_ACTIONS,
        },
    }


def layout_fingerprint() -> str:
    """16 hex digits identifying the observation layout and the action table (see the module docstring)."""
    text = json.dumps(layout_description(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:FINGERPRINT_LENGTH]


def source_commit(timeout: float = 10.0) -> str:
    """``git rev-parse HEAD`` of the checkout holding this package (``-dirty`` appended when tracked
    files differ from it), or ``"unknown"`` when the package is not in a git checkout of its own
    (an installed copy) or git is missing or fails; never raises."""
    pkg = Path(__file__).resolve().parent
    try:
        def git(*args: str) -> str:
            out = subprocess.run(["git", "-C", str(pkg), *args], capture_output=True, text=True, timeout=timeout,
                                 check=True)
            return out.stdout.strip()

        top = Path(git("rev-parse", "--show-toplevel")).resolve()
        if top / pkg.name != pkg:  # e.g. an installed copy inside some other repository's tree
            return UNKNOWN_COMMIT
        head = git("rev-parse", "--verify", "HEAD")
        if len(head) != 40 or any(c not in "0123456789abcdef" for c in head):
            return UNKNOWN_COMMIT
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError, ValueError):
        return UNKNOWN_COMMIT
    return head + ("-dirty" if dirty else "")


def is_commit(value: object) -> bool:
    """Whether ``value`` is what ``source_commit`` returns: 40 hex digits (optionally ``-dirty``) or ``unknown``."""
    if not isinstance(value, str):
        return False
    if value == UNKNOWN_COMMIT:
        return True
    head = value[:-len("-dirty")] if value.endswith("-dirty") else value
    return len(head) == 40 and all(c in "0123456789abcdef" for c in head)


__all__ = ["layout_fingerprint", "layout_description", "source_commit", "is_commit", "FINGERPRINT_LENGTH",
           "UNKNOWN_COMMIT"]

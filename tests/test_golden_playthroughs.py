"""Golden playthroughs (``tests/golden/*.txt``): the stored games replay to the same lines.

Each line holds an action and a digest of every seat's observation before it; a change to the
rules (an action no longer legal, another legal set) or to the observations (another digest)
fails here. If the change is intended, run ``python tests/golden/regenerate.py`` and review the diff.
"""
from __future__ import annotations

import pytest

from golden.regenerate import GAMES, HERE, header, playthrough, stored_actions


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_identically(name: str) -> None:
    options, seed = GAMES[name]
    stored = (HERE / name).read_text(encoding="utf-8").splitlines()
    assert stored[:len(header(options, seed))] == header(options, seed), f"{name}: config or seed changed"
    replayed = playthrough(options, seed, stored_actions(stored))
    for k, (want, got) in enumerate(zip(stored, replayed)):
        assert got == want, (f"{name} line {k + 1} differs (regenerate with python tests/golden/regenerate.py "
                             f"if the change is intended):\n  stored:   {want}\n  replayed: {got}")
    assert len(replayed) == len(stored)


def test_golden_games_are_long_and_varied() -> None:
    """The files cover the base game and the scenario, whole games, hidden coins, many decisions."""
    kinds = set()
    for name in GAMES:
        lines = (HERE / name).read_text(encoding="utf-8").splitlines()
        assert lines[-1].startswith("end ") and len(stored_actions(lines)) > 150
        kinds |= {line.split()[4] for line in lines if line[0].isdigit()}
    assert {"pick", "conquer", "place", "end_redeploy", "necro_start", "buy_ghost"} <= kinds

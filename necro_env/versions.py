"""The env's registered id and its version history (one place for the env, records and saved states).

A new version is registered whenever the behaviour an agent sees changes (rules, observations,
the turn flow), so results and records made with one version are never mixed with another's.
"""
from __future__ import annotations

ENV_ID = "necro_env/NecromancerIsland-v1"
ENV_NAME = "necromancer_island_v1"
#: The single-seat Gymnasium view (``necro_env.single_seat.SingleSeatEnv``), versioned with the AEC env.
SINGLE_SEAT_ENV_ID = "necro_env/NecromancerIslandSingleSeat-" + ENV_ID.rsplit("-", 1)[1]

#: Retired ids -> what changed since (the message of the error raised when one is asked for).
RETIRED_ENV_IDS = {
    "necro_env/NecromancerIsland-v0": (
        "v1 changed the rules and observations: unused Island Ghosts stay on the Island (A14), a Well set "
        "is kept when no Ghost can spawn (A9), under hide_coins the Necromancer's BUY step is always "
        "offered, the illegal-action note is private to the offender, and the observation gained "
        "glob.turn_order, glob.rounds_left, necro.island_returnable, necro.affordable_purchases and the "
        "region_learn block"
    ),
}

#: The version history shown in the env's docstring, newest last.
VERSION_HISTORY = (
    ("v0", "first release."),
    ("v1", "Island Ghosts he does not use stay on the Island (RULES A14: in his redeployment PLACE on the "
           "Lake refills it up to what it held when his conquests began); a set of 4 leaves the Well only "
           "when a Ghost can spawn (A9); ``final_die`` option; under ``hide_coins`` the Necromancer's BUY "
           "step is always entered and PICK/BUY are never skipped as forced; an illegal action's note "
           "(with the offender's legal actions) goes to the offender's info only; observation features "
           "``glob.turn_order``, ``glob.rounds_left``, ``necro.island_returnable``, ``necro.affordable_purchases`` "
           "and the ``region_learn`` block (conquest cost, reach, affordability, threat); ``necro.price`` is the "
           "price of his next purchase (Ghosts in his hand count); the per-turn flags are reset when a turn begins."),
)


def retired_message(env_id: str) -> str | None:
    """Why ``env_id`` can no longer be made or replayed (None if it is not a retired id)."""
    why = RETIRED_ENV_IDS.get(env_id)
    if why is None:
        return None
    return f"{env_id} is retired: use {ENV_ID} ({why})"


def retired_env(*args, **kwargs):
    """The entry point registered for retired ids: raises ``ConfigError`` naming the current id."""
    from .game.errors import ConfigError

    ids = ", ".join(RETIRED_ENV_IDS)
    raise ConfigError(f"{ids} is retired: use {ENV_ID} ({next(iter(RETIRED_ENV_IDS.values()))})")


__all__ = ["retired_env", "ENV_ID", "ENV_NAME", "SINGLE_SEAT_ENV_ID", "RETIRED_ENV_IDS", "VERSION_HISTORY", "retired_message"]

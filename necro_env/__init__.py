"""necro_env: Small World with the Necromancer Island scenario as a PettingZoo multi-agent environment.

    import necro_env
    env = necro_env.env(players=4)          # the wrapped AEC env (see necro_env.env's docstring)
    raw = necro_env.raw_env(players=4)      # the bare one
    env2 = necro_env.replay(record)         # a raw env rebuilt from env.unwrapped.record()

Importing the package registers ``necro_env/NecromancerIsland-v1`` with PettingZoo's
registry (PettingZoo >= 1.27 has one): ``pettingzoo.make("aec", "necro_env/NecromancerIsland-v1", players=5)``.
Retired versions stay registered only to fail with a message naming their successor.
The single-seat view is registered with Gymnasium under the same version:
``gymnasium.make("necro_env/NecromancerIslandSingleSeat-v1", players=3, learner="necromancer")``
(``necro_env.single_seat.SingleSeatEnv``; ``mask_in_obs=True`` puts the mask in the observation).
"""

__version__ = "0.1.0"

from .env import ENV_ID, env, raw_env, replay  # noqa: E402  (binds necro_env.env to the function, not the module)
from .versions import RETIRED_ENV_IDS, SINGLE_SEAT_ENV_ID  # noqa: E402


def _register_gymnasium() -> None:
    """Register the single-seat view with Gymnasium (imported lazily by its entry point)."""
    import gymnasium

    if SINGLE_SEAT_ENV_ID not in gymnasium.registry:
        gymnasium.register(SINGLE_SEAT_ENV_ID, entry_point="necro_env.single_seat:SingleSeatEnv")


_register_gymnasium()


def _register() -> bool:
    """Register the env with PettingZoo's registry when the installed version has one."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27: no registry; necro_env.env() works all the same
        return False
    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point="necro_env:env")
    for old_id in RETIRED_ENV_IDS:  # asking for a retired version says what replaced it
        if old_id not in aec_registry:
            register("aec", old_id, entry_point="necro_env.versions:retired_env")
    return True


REGISTERED = _register()

__all__ = ["__version__", "env", "raw_env", "replay", "ENV_ID", "SINGLE_SEAT_ENV_ID", "REGISTERED"]

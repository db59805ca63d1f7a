"""The former name of ``necro_env.single_seat`` (kept so ``necro_env.wrappers.SingleSeatEnv`` still imports)."""
from .single_seat import SingleSeatEnv

__all__ = ["SingleSeatEnv"]

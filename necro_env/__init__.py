"""necro_env: Small World with the Necromancer Island scenario as a PettingZoo multi-agent environment."""

__version__ = "0.1.0"

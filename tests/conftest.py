"""Shared pytest configuration for necro_env's test suite (fixtures will be added as the engine grows)."""

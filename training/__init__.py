"""Training code for necro_env (MaskablePPO, self-play). Imports necro_env; never imported by it."""

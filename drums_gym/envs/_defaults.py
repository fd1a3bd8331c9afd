"""Defaults the env and the registered ids share (a leaf: registration imports it without
loading the env)."""

__all__ = ["DEFAULT_MAX_STEPS"]

#: OSWorld's default step budget
DEFAULT_MAX_STEPS = 15

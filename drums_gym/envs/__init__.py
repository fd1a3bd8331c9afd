"""Gymnasium environments over Drums desktops."""

from .desktop_env import DEFAULT_MAX_STEPS, DrumsDesktopEnv
from .registration import register_catalog, register_task
from .vector import DrumsForkVectorEnv, make_fork_vector

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DrumsDesktopEnv",
    "DrumsForkVectorEnv",
    "make_fork_vector",
    "register_catalog",
    "register_task",
]

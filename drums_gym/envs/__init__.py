"""Gymnasium environments over Drums desktops (registration of the ``Drums/*`` ids is the
light `drums_gym.registration`, re-exported here)."""

from ..registration import register_catalog, register_task
from .desktop_env import DEFAULT_MAX_STEPS, DrumsDesktopEnv
from .vector import DrumsForkVectorEnv, make_fork_vector

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DrumsDesktopEnv",
    "DrumsForkVectorEnv",
    "make_fork_vector",
    "register_catalog",
    "register_task",
]

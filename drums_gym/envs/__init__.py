"""Gymnasium environments over Drums desktops (registration of the ``Drums/*`` ids is the
light `drums_gym.registration`, re-exported here)."""

from ..registration import register_catalog, register_task
from .desktop_env import DEFAULT_MAX_STEPS, DrumsDesktopEnv
from .make_vec import make_fork_vector
from .truncation import UnscoredEpisodeWarning, VerifyOnTruncation
from .vector import DrumsForkVectorEnv
from .vector_info import info_at, member_info

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DrumsDesktopEnv",
    "DrumsForkVectorEnv",
    "UnscoredEpisodeWarning",
    "VerifyOnTruncation",
    "info_at",
    "make_fork_vector",
    "member_info",
    "register_catalog",
    "register_task",
]

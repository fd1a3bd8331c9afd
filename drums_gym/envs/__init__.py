"""Gymnasium environments over Drums desktops.

The names are loaded on first use, so that ``import drums_gym`` (which registers the
``Drums/*`` ids through `registration`) loads neither the env nor the client.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from ._defaults import DEFAULT_MAX_STEPS
from .registration import register_catalog, register_task

if TYPE_CHECKING:
    from .desktop_env import DrumsDesktopEnv
    from .vector import DrumsForkVectorEnv, make_fork_vector

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DrumsDesktopEnv",
    "DrumsForkVectorEnv",
    "make_fork_vector",
    "register_catalog",
    "register_task",
]

_LAZY = {
    "DrumsDesktopEnv": "desktop_env",
    "DrumsForkVectorEnv": "vector",
    "make_fork_vector": "vector",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # a submodule not imported yet (``drums_gym.envs.vector``)
        if importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

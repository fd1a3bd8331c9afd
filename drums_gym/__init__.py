"""drums-gym: Gymnasium environments over Drums desktops.

Importing the package registers ``Drums/<task>`` for every task of the bundled catalog:

>>> import gymnasium as gym
>>> import drums_gym
>>> "Drums/e0df059f" in gym.registry
True

The root is light: registering (`drums_gym.registration`) reads a generated list of task
ids (`drums_gym._catalog_ids`) and loads neither the env, the client nor the local host's
simulator; `DrumsDesktopEnv`, `DrumsForkVectorEnv` and `register_task` load on first use.
Without Gymnasium installed nothing is registered, and the parts that need no Gymnasium
import as usual (``drums_gym.client``, ``drums_gym.actions``, ``drums_gym.local``).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .envs import DrumsDesktopEnv, DrumsForkVectorEnv, register_task

__all__ = ["DrumsDesktopEnv", "DrumsForkVectorEnv", "__version__", "register_task"]

_LAZY = {
    "DrumsDesktopEnv": "drums_gym.envs",
    "DrumsForkVectorEnv": "drums_gym.envs",
    "register_task": "drums_gym.registration",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # a submodule not imported yet (``drums_gym.client`` after ``import drums_gym``)
        if importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _register_catalog() -> None:
    """Register the catalog's ids if Gymnasium is installed (a missing Gymnasium is no
    error here: the client, the action language and the local host work without it)."""
    try:
        import gymnasium  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name != "gymnasium":
            raise
        return
    from .registration import register_catalog

    register_catalog()


_register_catalog()

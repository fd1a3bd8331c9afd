"""drums-gym: Gymnasium environments over Drums desktops.

Importing the package registers ``Drums/<task>`` for every task of the bundled catalog:

>>> import gymnasium as gym
>>> import drums_gym
>>> "Drums/e0df059f" in gym.registry
True

The root is light: it imports no Gymnasium. The ids (a plain list,
`drums_gym._catalog_ids`) are registered when Gymnasium is imported, before or after
``drums_gym``; registering loads neither the env, the client nor the local host's
simulator, and reads no environment variable (users' task files, ``DRUMS_LOCAL_TASKS``, are
registered by `register_user_tasks`, and read by the host when it starts).
`DrumsDesktopEnv`, `DrumsForkVectorEnv` and `register_task` load on first use. Without
Gymnasium nothing is registered, and the parts that need none import as usual
(``drums_gym.client``, ``drums_gym.actions``, ``drums_gym.local``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .envs import DrumsDesktopEnv, DrumsForkVectorEnv, register_task
    from .registration import register_user_tasks

__all__ = [
    "DrumsDesktopEnv", "DrumsForkVectorEnv", "__version__", "register_task", "register_user_tasks",
]

_LAZY = {
    "DrumsDesktopEnv": "drums_gym.envs",
    "DrumsForkVectorEnv": "drums_gym.envs",
    "register_task": "drums_gym.registration",
    "register_user_tasks": "drums_gym.registration",
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


class _RegisterWithGymnasium(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Registers the ``Drums/*`` ids right after Gymnasium is imported (once), so that
    ``import drums_gym`` neither imports Gymnasium itself nor depends on the import order.
    It finds nothing: it wraps the loader Python finds for ``gymnasium``."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)  # once: and never in the way of the search below
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            self._inner = spec.loader
            spec.loader = self
        return spec

    def create_module(self, spec: Any) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._inner.exec_module(module)
        # importing it registers the ids (if it is being imported now, as when
        # ``import drums_gym.envs`` came first, it registers them as it finishes)
        importlib.import_module(f"{__name__}.registration")


def _register_catalog() -> None:
    """Register the bundled ids with Gymnasium: now if it is imported already, else just
    after it is (a missing Gymnasium is no error: the client, the action language and the
    local host work without it). ``import drums_gym.client`` loads no Gymnasium."""
    if "gymnasium" in sys.modules:
        if sys.modules["gymnasium"] is not None:  # None: blocked, as if not installed
            importlib.import_module(f"{__name__}.registration")  # registers the ids
    elif not any(isinstance(f, _RegisterWithGymnasium) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWithGymnasium())


_register_catalog()

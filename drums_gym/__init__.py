"""drums-gym: Gymnasium environments over Drums desktops.

Importing the package registers ``Drums/<task>`` for every task of the bundled catalog:

>>> import gymnasium as gym
>>> import drums_gym
>>> "Drums/e0df059f" in gym.registry
True
"""

__version__ = "0.1.0"

from .envs import DrumsDesktopEnv, DrumsForkVectorEnv, register_task
from .envs.registration import register_catalog as _register_catalog

_register_catalog()

__all__ = ["DrumsDesktopEnv", "DrumsForkVectorEnv", "__version__", "register_task"]

"""RLlib over Drums desktops, with invalid episodes out of RLlib's episode metrics.

Needs the ``[rllib]`` extra (``pip install 'drums-gym[rllib]'``).

==================  ======================================================================
name                what it is
==================  ======================================================================
DrumsRLlibEnv       an env class for ``config.environment(DrumsRLlibEnv, env_config=...)``:
                    ``Discrete`` clicks, keys and control words (no ``Text``), resized
                    ``float32`` frames in [0, 1]
DrumsCallbacks      ``config.callbacks(DrumsCallbacks)``: invalid episodes never reach
                    ``env_runners/episode_return_mean`` (nor its len, min, max); they are
                    counted in ``env_runners/drums/invalid_episodes`` and by reason
==================  ======================================================================

>>> from ray.rllib.algorithms.ppo import PPOConfig                          # doctest: +SKIP
>>> from drums_gym.integrations.rllib import DrumsCallbacks, DrumsRLlibEnv  # doctest: +SKIP
>>> config = (PPOConfig()
...           .environment(DrumsRLlibEnv, env_config={"task": "e0df059f"})
...           .callbacks(DrumsCallbacks))                                   # doctest: +SKIP
"""

from .callbacks import INVALID_METRIC, DrumsCallbacks
from .env import DrumsRLlibEnv

__all__ = ["INVALID_METRIC", "DrumsCallbacks", "DrumsRLlibEnv"]

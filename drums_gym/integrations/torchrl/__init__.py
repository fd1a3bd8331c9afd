"""TorchRL over Drums desktops, with validity in the tensordict and valid-only returns.

Needs the ``[torchrl]`` extra (``pip install 'drums-gym[torchrl]'``).

==================  ======================================================================
name                what it is
==================  ======================================================================
make_torchrl_env    ``n`` forks of one desktop as a batched TorchRL env: ``Discrete``
                    clicks, keys and control words, resized frames, ``autoreset_mode``
                    DISABLED (TorchRL resets finished members), ``valid``/``score`` read
                    from the infos, ``episode_reward`` summed (``RewardSum``)
DrumsInfoReader     TorchRL's info reader for Drums infos (single or vector env)
valid_returns       the returns of the episodes a rollout finished VALID (the honest
                    figure; ``episode_reward`` at every ``done`` counts invalid as 0)
==================  ======================================================================

>>> from drums_gym.integrations.torchrl import make_torchrl_env, valid_returns  # doctest: +SKIP
>>> env = make_torchrl_env("e0df059f", 4, grid=(4, 3), size=(64, 64))           # doctest: +SKIP
>>> rollout = env.rollout(32, break_when_any_done=False)                       # doctest: +SKIP
>>> valid_returns(rollout).mean()                                              # doctest: +SKIP
"""

from .env import DrumsInfoReader, make_torchrl_env, valid_returns

__all__ = ["DrumsInfoReader", "make_torchrl_env", "valid_returns"]

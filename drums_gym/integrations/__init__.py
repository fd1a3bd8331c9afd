"""One import per training stack, each keeping invalid episodes out of that stack's metrics.

=====================================  ===================================  ===============
module                                 what it gives                        extra
=====================================  ===================================  ===============
``drums_gym.integrations.trl``         an ``environment_factory`` class     ``[trl]``
                                       and a single-turn reward function
                                       for TRL's ``GRPOTrainer``
``drums_gym.integrations.verifiers``   a Taskset and an Env for verifiers   ``[verifiers]``
                                       (``vf-eval``)
``drums_gym.integrations.sb3``         ``DrumsMonitor``, ``DrumsVecEnv``,   ``[sb3]``
                                       ``evaluate_policy``, ``make_sb3_env``
``drums_gym.integrations.ray``         ``run_suite_on_ray``: the suite      ``[ray]``
                                       runner's workers as Ray actors
``drums_gym.integrations.rllib``       ``DrumsRLlibEnv``,                   ``[rllib]``
                                       ``DrumsCallbacks`` for RLlib
``drums_gym.integrations.torchrl``     ``make_torchrl_env``,                ``[torchrl]``
                                       ``DrumsInfoReader``, ``valid_returns``
=====================================  ===================================  ===============

Each module imports its library; this package and ``drums_gym`` itself import none of them.
See ``docs/integrations.md``.
"""

__all__: list[str] = []

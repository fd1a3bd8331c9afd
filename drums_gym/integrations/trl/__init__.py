"""TRL over Drums desktops: GRPO with invalid episodes out of the rewards.

Needs the ``[trl]`` extra (``pip install 'drums-gym[trl]'``).

=====================  ==================================================================
name                   what it is
=====================  ==================================================================
DrumsEnvironments      the ``environment_factory`` (and callback) for ``GRPOTrainer``:
                       multi-turn rollouts whose tools are desktop actions
DrumsToolEnv           one such environment (its public methods are the tools)
DrumsCodeReward        a reward function for single-turn use: a completion's pyautogui
                       code runs on a fresh desktop, which is verified
=====================  ==================================================================

An invalid episode's reward is None: TRL drops it from the group statistics (see
docs/integrations.md for the caveat with a second reward function).
"""

from .._code import completion_code
from .environment import DrumsToolEnv, EpisodeResult
from .factory import DrumsEnvironments
from .quiet import quiet_unscorable_rows
from .reward import DrumsCodeReward

__all__ = [
    "DrumsCodeReward",
    "DrumsEnvironments",
    "DrumsToolEnv",
    "EpisodeResult",
    "completion_code",
    "quiet_unscorable_rows",
]

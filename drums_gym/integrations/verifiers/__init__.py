"""verifiers (v1) over Drums desktops: ``vf-eval drums-gym-verifiers``.

Needs the ``[verifiers]`` extra (``pip install 'drums-gym[verifiers]'``). verifiers loads
a taskset by a top-level module name, so the plugin is ``drums_gym_verifiers`` (which
re-exports this package): ``vf-eval drums-gym-verifiers -m MODEL --client.base-url URL``.

=====================  =================================================================
name                   what it is
=====================  =================================================================
DrumsTaskset           the host's tasks (``--env.taskset.tasks e0df059f,...``)
DrumsEnv               a desktop per episode, turn by turn; an invalid episode raises
                       :class:`InvalidEpisodeError` (an errored rollout, never a 0)
DrumsChatHarness       verifiers' plain chat loop, without uv (the local runtime)
=====================  =================================================================
"""

from .env import DrumsEnv, DrumsEnvConfig, InvalidEpisodeError, in_thread
from .harness import DrumsChatHarness
from .taskset import DrumsData, DrumsTask, DrumsTaskset, DrumsTasksetConfig

__all__ = [
    "DrumsChatHarness",
    "DrumsData",
    "DrumsEnv",
    "DrumsEnvConfig",
    "DrumsTask",
    "DrumsTaskset",
    "DrumsTasksetConfig",
    "InvalidEpisodeError",
    "in_thread",
]

"""The verifiers plugin id ``drums-gym-verifiers``: verifiers imports a taskset by a
top-level module name, so this re-exports :mod:`drums_gym.integrations.verifiers`
(the taskset, its Env and its harness; one of each, as verifiers requires).

    vf-eval drums-gym-verifiers -m MODEL --client.base-url URL --env.player.runtime.type subprocess
"""

from drums_gym.integrations.verifiers import DrumsChatHarness, DrumsEnv, DrumsTaskset

__all__ = ["DrumsChatHarness", "DrumsEnv", "DrumsTaskset"]

"""Small single-purpose wrappers for Drums envs (and, where it makes sense, vector envs).

=============================  ========================================================
wrapper                        what it does
=============================  ========================================================
DrumsEpisodeStatistics         episode return/length/time with validity; success and
                               invalid rates (invalid episodes never enter returns)
DrumsVectorEpisodeStatistics   the same for vector envs
ResizeScreenshot               screenshots resized with Pillow, still uint8
VectorResizeScreenshot         the same for vector envs
WithInstruction                Dict observation: screenshot and task instruction
DiscreteClicks                 Discrete(n) actions: grid clicks, keys, DONE
RecordTrajectory               per episode: PNG frames, steps.jsonl, episode.gif
VectorWithInstruction          WithInstruction for vector envs (n instructions)
VectorDiscreteClicks           DiscreteClicks for vector envs: MultiDiscrete actions
VectorRecordTrajectory         RecordTrajectory for vector envs: ``env-<k>/`` folders
=============================  ========================================================

>>> import gymnasium as gym
>>> from drums_gym.wrappers import DrumsEpisodeStatistics, ResizeScreenshot, WithInstruction
>>> env = gym.make("Drums/e0df059f")                                      # doctest: +SKIP
>>> env = WithInstruction(ResizeScreenshot(DrumsEpisodeStatistics(env), (540, 960)))
... # doctest: +SKIP
"""

from ._trajectory import UNFINISHED
from .discrete_clicks import DEFAULT_KEYS, DiscreteClicks
from .episode_statistics import DrumsEpisodeStatistics
from .record_trajectory import RecordTrajectory
from .resize_screenshot import ResizeScreenshot
from .vector_discrete_clicks import VectorDiscreteClicks
from .vector_episode_statistics import DrumsVectorEpisodeStatistics
from .vector_record_trajectory import VectorRecordTrajectory
from .vector_resize_screenshot import VectorResizeScreenshot
from .vector_with_instruction import VectorWithInstruction
from .with_instruction import INSTRUCTION_CHARSET, MAX_INSTRUCTION_LENGTH, WithInstruction

__all__ = [
    "DEFAULT_KEYS",
    "INSTRUCTION_CHARSET",
    "MAX_INSTRUCTION_LENGTH",
    "UNFINISHED",
    "DiscreteClicks",
    "DrumsEpisodeStatistics",
    "DrumsVectorEpisodeStatistics",
    "RecordTrajectory",
    "ResizeScreenshot",
    "VectorDiscreteClicks",
    "VectorRecordTrajectory",
    "VectorResizeScreenshot",
    "VectorWithInstruction",
    "WithInstruction",
]

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
A11yActions                    Discrete(K) actions: the screen's interactive elements
                               (click, double-, right-click), words, keys, typing;
                               ``info["action_mask"]``, ``action_masks()``
ElementFeatures                a float32 vector of the element slots (CPU policies)
ReverseCurriculum              start from a demo's states, moving back on success
record_states                  save states along a trajectory (``StartState``)
evaluate_from_initial          valid-only success rate from the task's initial state
=============================  ========================================================

>>> import gymnasium as gym
>>> from drums_gym.wrappers import DrumsEpisodeStatistics, ResizeScreenshot, WithInstruction
>>> env = gym.make("Drums/e0df059f")                                      # doctest: +SKIP
>>> env = WithInstruction(ResizeScreenshot(DrumsEpisodeStatistics(env), (540, 960)))
... # doctest: +SKIP
"""

from ._elements import INTERACTIVE_ROLES, Element, ElementSlots, interactive_elements
from ._trajectory import UNFINISHED
from .a11y_actions import KINDS, A11yActions, click_of, quoted_strings
from .discrete_clicks import DEFAULT_KEYS, DiscreteClicks
from .element_features import ElementFeatures
from .episode_statistics import DrumsEpisodeStatistics
from .record_trajectory import RecordTrajectory
from .resize_screenshot import ResizeScreenshot
from .reverse_curriculum import InitialStateEvaluation, ReverseCurriculum, evaluate_from_initial
from .start_states import StartState, record_states
from .vector_discrete_clicks import VectorDiscreteClicks
from .vector_episode_statistics import DrumsVectorEpisodeStatistics
from .vector_record_trajectory import VectorRecordTrajectory
from .vector_resize_screenshot import VectorResizeScreenshot
from .vector_with_instruction import VectorWithInstruction
from .with_instruction import INSTRUCTION_CHARSET, MAX_INSTRUCTION_LENGTH, WithInstruction

__all__ = [
    "DEFAULT_KEYS",
    "INSTRUCTION_CHARSET",
    "INTERACTIVE_ROLES",
    "KINDS",
    "MAX_INSTRUCTION_LENGTH",
    "UNFINISHED",
    "A11yActions",
    "DiscreteClicks",
    "DrumsEpisodeStatistics",
    "DrumsVectorEpisodeStatistics",
    "Element",
    "ElementFeatures",
    "ElementSlots",
    "InitialStateEvaluation",
    "RecordTrajectory",
    "ResizeScreenshot",
    "ReverseCurriculum",
    "StartState",
    "VectorDiscreteClicks",
    "VectorRecordTrajectory",
    "VectorResizeScreenshot",
    "VectorWithInstruction",
    "WithInstruction",
    "click_of",
    "evaluate_from_initial",
    "interactive_elements",
    "quoted_strings",
    "record_states",
]

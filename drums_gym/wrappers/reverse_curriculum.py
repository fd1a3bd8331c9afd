"""`ReverseCurriculum`: episodes start near the goal, and further back as the agent succeeds.

"Learning from a single demonstration": the states along a demo (`record_states`) are the
stages; the first episodes start from the last state (one action from the goal), and once
the agent succeeds often enough from a stage, the start moves back, until episodes start
from the task's initial state. `evaluate_from_initial` measures what counts: the success
rate from the initial state, valid episodes only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from ..outcomes import EpisodeOutcome, rate
from .start_states import StartState

__all__ = ["InitialStateEvaluation", "ReverseCurriculum", "evaluate_from_initial"]


def _fraction(name: str, value: Any, *, low_open: bool = False) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (0.0 < value <= 1.0 if low_open else 0.0 <= value <= 1.0)
    ):
        bounds = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must be a number in {bounds}, got {value!r}")
    return float(value)


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


class ReverseCurriculum(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Start each episode from a state of a demonstration, moving back as the agent learns.

    Stage ``k`` (1 to ``len(states)``) starts from ``states[k - 1]`` (in order of their
    ``step``); stage 0 is the task's initial state. Training begins at the last stage. Over
    the last ``window`` valid episodes started from the current stage (invalid episodes
    are left out), when the success rate reaches ``threshold`` the stage moves
    ``step_back`` stages back (not below 0) and the window starts over. With ``replay`` >
    0, that fraction of resets starts from a stage already passed (uniformly), so what was
    learned stays learned. A reset with an explicit ``options["state"]`` (None: the
    initial state) is passed through and does not count.

    ``info["curriculum_stage"]`` is the stage an episode started from. An episode succeeds
    when it is valid and its score is at least ``success_score``.

    Args:
        env: a Drums env (any wrappers) that accepts ``reset(options={"state": ...})``.
        states: the demonstration's states (:class:`StartState`, or ids in order).
        threshold: success rate over the window that moves the start back.
        window: valid episodes from the current stage the rate is taken over.
        step_back: stages to move back at a time.
        replay: fraction of resets from stages already passed.
        success_score: the score that counts as success.

    Example:
        >>> env = gym.make("Drums/e0df059f")                                   # doctest: +SKIP
        >>> states = record_states(env, demo)                                  # doctest: +SKIP
        >>> env = ReverseCurriculum(env, states, threshold=0.8, window=10)     # doctest: +SKIP
        >>> env.stage, env.stages                                              # doctest: +SKIP
        (3, 3)
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        states: Sequence[StartState | str],
        *,
        threshold: float = 0.8,
        window: int = 10,
        step_back: int = 1,
        replay: float = 0.0,
        success_score: float = 1.0,
    ) -> None:
        if isinstance(states, (str, bytes)) or not all(
            isinstance(s, (StartState, str)) for s in states
        ):
            raise ValueError(
                f"states must be a sequence of StartState or state ids, got {states!r}"
            )
        threshold = _fraction("threshold", threshold, low_open=True)
        window = _count("window", window)
        step_back = _count("step_back", step_back)
        replay = _fraction("replay", replay)
        if isinstance(success_score, bool) or not isinstance(success_score, (int, float)):
            raise ValueError(f"success_score must be a number, got {success_score!r}")
        gym.utils.RecordConstructorArgs.__init__(
            self, states=tuple(states), threshold=threshold, window=window,
            step_back=step_back, replay=replay, success_score=success_score,
        )
        gym.Wrapper.__init__(self, env)
        ordered = sorted(states, key=lambda s: s.step if isinstance(s, StartState) else 0)
        self.states: tuple[StartState | str, ...] = tuple(
            ordered if all(isinstance(s, StartState) for s in states) else states
        )
        self.threshold, self.window, self.step_back = threshold, window, step_back
        self.replay, self.success_score = replay, float(success_score)
        self.stage = len(self.states)
        self.moves: list[tuple[int, int]] = []  # (episodes so far, new stage)
        self.episodes = 0
        self._recent: deque[bool] = deque(maxlen=window)
        self._episode_stage: int | None = None
        self._rng = np.random.default_rng()  # seeded by reset(seed=...)

    @property
    def stages(self) -> int:
        """The last stage (the number of states); stage 0 is the initial state."""
        return len(self.states)

    def _state_of(self, stage: int) -> StartState | str | None:
        return None if stage == 0 else self.states[stage - 1]

    def _pick(self) -> int:
        if self.replay and self.stage < self.stages and self._rng.random() < self.replay:
            return int(self._rng.integers(self.stage + 1, self.stages + 1))
        return self.stage

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if options is not None and "state" in options:  # an explicit start: not counted
            self._episode_stage = None
            return self.env.reset(seed=seed, options=options)
        stage = self._pick()
        self._episode_stage = stage
        obs, info = self.env.reset(
            seed=seed, options={**(options or {}), "state": self._state_of(stage)}
        )
        info["curriculum_stage"] = stage
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and self._episode_stage is not None:
            self._finish(self._episode_stage, EpisodeOutcome.from_info(info, float(reward)))
            info["curriculum_stage"] = self._episode_stage
            self._episode_stage = None
        return obs, reward, terminated, truncated, info

    def _finish(self, stage: int, outcome: EpisodeOutcome) -> None:
        self.episodes += 1
        if not outcome.valid or stage != self.stage:
            return
        self._recent.append(outcome.score is not None and outcome.score >= self.success_score)
        if (
            self.stage > 0
            and len(self._recent) == self.window
            and sum(self._recent) >= self.threshold * self.window
        ):
            self.stage = max(0, self.stage - self.step_back)
            self.moves.append((self.episodes, self.stage))
            self._recent.clear()

    @property
    def recent_success(self) -> float | None:
        """The success rate over the current stage's window so far (None: no episode)."""
        return rate(sum(self._recent), len(self._recent))


@dataclass(frozen=True)
class InitialStateEvaluation:
    """Episodes from the task's initial state: successes among the valid ones."""

    successes: int
    valid: int
    invalid: int

    @property
    def rate(self) -> float | None:
        """The valid-only success rate (None when no episode was valid)."""
        return rate(self.successes, self.valid)


def evaluate_from_initial(
    env: gym.Env[Any, Any],
    policy: Callable[[Any, dict[str, Any]], Any],
    n: int,
    *,
    success_score: float = 1.0,
) -> InitialStateEvaluation:
    """Run ``n`` episodes of ``policy(observation, info) -> action`` from the task's
    initial state (``reset(options={"state": None})``, which a `ReverseCurriculum` passes
    through); invalid episodes are counted apart and left out of the rate."""
    n = _count("n", n)
    successes = valid = invalid = 0
    for _ in range(n):
        obs, info = env.reset(options={"state": None})
        while True:
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            if terminated or truncated:
                break
        outcome = EpisodeOutcome.from_info(info, float(reward))
        if not outcome.valid:
            invalid += 1
            continue
        valid += 1
        successes += outcome.score is not None and outcome.score >= success_score
    return InitialStateEvaluation(successes, valid, invalid)

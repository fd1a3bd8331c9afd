"""`VectorWithInstruction`: each sub-env's instruction beside its screenshot, batched."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from ._vector_info import column
from .with_instruction import INSTRUCTION_CHARSET, instruction_space, warn_if_outside

__all__ = ["VectorWithInstruction"]


class VectorWithInstruction(VectorWrapper):
    """Vector version of :class:`WithInstruction`.

    Observations become ``{"screenshot": (n, H, W, 3) array, "instruction": tuple of n
    str}``. ``single_observation_space`` is ``Dict({"screenshot", "instruction": Text})``
    and ``observation_space`` its batch (``batch_space``: the instructions a ``Tuple`` of
    n ``Text``). Each sub-env's instruction comes from ``infos["instruction"]`` where the
    ``infos["_instruction"]`` mask is set: at ``reset`` and at autoresets (any autoreset
    mode, since the new episode's info is the step's). A sub-env reset without one keeps
    its instruction, or takes the unwrapped env's (the fork parent's, or a sync vector
    env's sub-env's).

    Args:
        env: a vector env with screenshot (or any) single observations.
        charset: the characters of the instruction space.

    Example:
        >>> import gymnasium as gym
        >>> envs = VectorWithInstruction(gym.make_vec("Drums/e0df059f", num_envs=2))
        ... # doctest: +SKIP
        >>> obs, infos = envs.reset(seed=0)                       # doctest: +SKIP
        >>> obs["screenshot"].shape, len(obs["instruction"])      # doctest: +SKIP
        ((2, 1080, 1920, 3), 2)
        >>> envs.observation_space.contains(obs)                  # doctest: +SKIP
        True
        >>> envs.close()                                          # doctest: +SKIP
    """

    def __init__(self, env: VectorEnv, charset: str = INSTRUCTION_CHARSET) -> None:
        text = instruction_space(charset)
        VectorWrapper.__init__(self, env)
        self.single_observation_space = spaces.Dict(
            {"screenshot": env.single_observation_space, "instruction": text}
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._text = text
        self._instructions: list[str] = [""] * self.num_envs

    @property
    def instructions(self) -> tuple[str, ...]:
        """Each sub-env's current instruction."""
        return tuple(self._instructions)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the sub-envs; take their new instructions from the reset infos."""
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:  # read first: envs may pop it
            mask = np.asarray(options["reset_mask"], dtype=bool)
        # VectorEnv.reset is annotated seed: int | None; its implementations take a list too
        obs, infos = self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]
        self._update(infos, fallback=mask)
        return self._observation(obs), infos

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs; an autoreset's info brings its sub-env's new instruction."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        self._update(infos)
        return self._observation(obs), rewards, terminations, truncations, infos

    def _update(self, infos: dict[str, Any], fallback: np.ndarray | None = None) -> None:
        for i, (present, value) in enumerate(column(infos, "instruction", self.num_envs)):
            if present and isinstance(value, str):
                instruction = value
            elif fallback is not None and fallback[i]:
                instruction = self._unwrapped_instruction(i)
            else:
                continue
            if instruction != self._instructions[i]:
                warn_if_outside(self._text, instruction)
            self._instructions[i] = instruction

    def _unwrapped_instruction(self, i: int) -> str:
        base = self.env.unwrapped
        instruction = getattr(getattr(base, "parent", None), "instruction", None)
        if isinstance(instruction, str):
            return instruction
        subs = getattr(base, "envs", None)
        if subs:
            value = getattr(subs[i].unwrapped, "instruction", None)
            if isinstance(value, str):
                return value
        return self._instructions[i]

    def _observation(self, observations: Any) -> dict[str, Any]:
        return {"screenshot": observations, "instruction": tuple(self._instructions)}

"""`WithInstruction`: the task instruction beside the screenshot, in a Dict observation."""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn

__all__ = ["INSTRUCTION_CHARSET", "MAX_INSTRUCTION_LENGTH", "WithInstruction"]

MAX_INSTRUCTION_LENGTH = 4096


def _printable(start: int, stop: int) -> str:
    return "".join(c for c in map(chr, range(start, stop)) if c.isprintable())


#: characters an instruction may hold: printable ASCII with newlines and tabs, Latin-1 and
#: Latin Extended-A letters, typographic punctuation, currency, letterlike symbols and arrows
INSTRUCTION_CHARSET: str = (
    string.printable
    + _printable(0xA0, 0x180)
    + _printable(0x2010, 0x205F)
    + _printable(0x20A0, 0x20C0)
    + _printable(0x2100, 0x2150)
    + _printable(0x2190, 0x2200)
)


def instruction_space(charset: str) -> spaces.Text:
    """The ``Text`` space of instructions over ``charset`` (ValueError if it is empty)."""
    if not isinstance(charset, str) or not charset:
        raise ValueError(f"charset must be a non-empty str, got {charset!r}")
    return spaces.Text(max_length=MAX_INSTRUCTION_LENGTH, min_length=0, charset=charset)


def warn_if_outside(text: spaces.Text, instruction: str) -> None:
    """Warn (once per call) when ``instruction`` does not fit the ``text`` space."""
    if not text.contains(instruction):
        outside = sorted(set(instruction) - text.character_set)
        warn(
            f"the instruction (length {len(instruction)}) does not fit the "
            f"instruction space (max_length {text.max_length}, characters outside "
            f"its charset: {outside[:20]!r}); it is passed on unchanged"
        )


class WithInstruction(
    gym.ObservationWrapper[dict[str, Any], Any, np.ndarray], gym.utils.RecordConstructorArgs
):
    """Observations become ``{"screenshot": array, "instruction": str}``.

    The instruction is the one the last ``reset`` gave in ``info["instruction"]`` (else
    ``env.unwrapped.instruction``); it stays the same for the whole episode. The
    ``"instruction"`` space is ``Text(max_length=4096, charset=charset)``; an instruction
    with characters outside ``charset`` is passed on unchanged, with a warning.

    Args:
        env: an env with screenshot (or any) observations.
        charset: the characters of the instruction space.

    Example:
        >>> import gymnasium as gym
        >>> env = WithInstruction(gym.make("Drums/e0df059f"))  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)                      # doctest: +SKIP
        >>> sorted(obs), obs["instruction"] == info["instruction"]  # doctest: +SKIP
        (['instruction', 'screenshot'], True)
        >>> env.close()                                        # doctest: +SKIP
    """

    def __init__(self, env: gym.Env[np.ndarray, Any], charset: str = INSTRUCTION_CHARSET) -> None:
        text = instruction_space(charset)
        gym.utils.RecordConstructorArgs.__init__(self, charset=charset)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = spaces.Dict(
            {"screenshot": env.observation_space, "instruction": text}
        )
        self._text = text
        self._instruction = ""

    @property
    def instruction(self) -> str:
        """The current episode's instruction."""
        return self._instruction

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env and take the new episode's instruction from its info."""
        obs, info = self.env.reset(seed=seed, options=options)
        instruction = info.get("instruction")
        if not isinstance(instruction, str):
            instruction = getattr(self.env.unwrapped, "instruction", "")
        self._instruction = str(instruction)
        warn_if_outside(self._text, self._instruction)
        # gymnasium annotates Wrapper.env as Env[WrapperObsType, ...] (the outer types, not the
        # inner env's): obs is the inner screenshot, what observation() takes
        return self.observation(obs), info  # type: ignore[arg-type]

    def observation(self, observation: np.ndarray) -> dict[str, Any]:
        """The screenshot and the current instruction."""
        return {"screenshot": observation, "instruction": self._instruction}

"""`VectorDiscreteClicks`: ``MultiDiscrete([k] * n)`` actions of grid clicks, keys and DONE."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorActionWrapper, VectorEnv

from ._action_table import DEFAULT_KEYS, ActionTable, pair, vector_screen_of

__all__ = ["VectorDiscreteClicks"]


class VectorDiscreteClicks(VectorActionWrapper):
    """Vector version of :class:`DiscreteClicks`: one integer per sub-env.

    ``single_action_space`` is ``Discrete(k)`` and ``action_space`` ``MultiDiscrete([k] * n)``;
    each sub-env's integer maps to the same pyautogui string (or control word) as in
    :class:`DiscreteClicks` with the same arguments.

    Args:
        env: a vector env with pyautogui text actions (``env.fork_vector(n)``,
            ``gym.make_vec("Drums/...")``).
        grid, double_click, keys, words: as for :class:`DiscreteClicks`.
        screen: ``(width, height)`` in pixels (default: the fork parent's screen, a sync
            vector env's first sub-env's, else the unwrapped single observation space's).

    Example:
        >>> import gymnasium as gym
        >>> envs = gym.make_vec("Drums/e0df059f", num_envs=2)            # doctest: +SKIP
        >>> envs = VectorDiscreteClicks(envs, grid=(4, 3))               # doctest: +SKIP
        >>> envs.action_space, envs.actions([5, 17])                     # doctest: +SKIP
        (MultiDiscrete([18 18]), ['pyautogui.click(720, 540)', 'DONE'])
        >>> _ = envs.reset(seed=0)                                       # doctest: +SKIP
        >>> *_, infos = envs.step(envs.action_space.sample())            # doctest: +SKIP
        >>> envs.close()                                                 # doctest: +SKIP
    """

    def __init__(
        self,
        env: VectorEnv,
        grid: tuple[int, int] = (16, 9),
        *,
        double_click: bool = False,
        keys: Sequence[str] = DEFAULT_KEYS,
        words: Sequence[str] = ("DONE",),
        screen: tuple[int, int] | None = None,
    ) -> None:
        pair("grid", grid)  # checked before the screen is looked up
        table = ActionTable.build(
            grid,
            screen if screen is not None else vector_screen_of(env),
            double_click=double_click,
            keys=keys,
            words=words,
        )
        VectorActionWrapper.__init__(self, env)
        self.table = table
        self.grid = table.grid
        self.screen = table.screen
        self.codes: tuple[str, ...] = table.codes
        self.meanings: tuple[str, ...] = table.meanings
        self.single_action_space = spaces.Discrete(len(table))
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, len(table)))

    def actions(self, actions: Any) -> list[str]:
        """Each sub-env's pyautogui string (or control word), from ``n`` integers."""
        values = np.asarray(actions)
        if values.shape != (self.num_envs,):
            raise ValueError(
                f"actions must be {self.num_envs} ints (shape ({self.num_envs},)), "
                f"got shape {values.shape}"
            )
        return [self.table.code(value) for value in values]

    def action_meaning(self, action: int) -> str:
        """What the integer ``action`` does in a sub-env, in words (``"press enter"``)."""
        return self.table.meaning(action)

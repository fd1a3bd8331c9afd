"""`DiscreteClicks`: a ``Discrete(n)`` action space of grid clicks, keys and DONE."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._action_table import DEFAULT_KEYS, ActionTable, pair, screen_of

__all__ = ["DEFAULT_KEYS", "DiscreteClicks"]


class DiscreteClicks(
    gym.ActionWrapper[Any, int | np.integer, str], gym.utils.RecordConstructorArgs
):
    """Integer actions for libraries without text action spaces.

    The screen is cut into ``grid = (cols, rows)`` cells; the actions are, in this order:
    a click at the centre of each cell (row by row), a double-click at each centre (when
    ``double_click``), a press of each of ``keys``, then each of ``words`` (``"DONE"``,
    ``"FAIL"``, ``"WAIT"``). Each maps to the pyautogui string the env receives;
    :meth:`action_meaning` says it in words.

    Args:
        env: an env with pyautogui text actions (a :class:`DrumsDesktopEnv`).
        grid: ``(cols, rows)`` of the click grid.
        double_click: also offer a double-click per cell.
        keys: pyautogui key names to offer as presses.
        words: control words to offer.
        screen: ``(width, height)`` in pixels (default: ``env.unwrapped.screen``, else the
            unwrapped observation space's size).

    Example:
        >>> import gymnasium as gym
        >>> env = DiscreteClicks(gym.make("Drums/e0df059f"), grid=(4, 3))  # doctest: +SKIP
        >>> env.action_space, env.action(5), env.action_meaning(env.action_space.n - 1)
        ... # doctest: +SKIP
        (Discrete(18), 'pyautogui.click(720, 540)', 'DONE')
        >>> env.close()                                                   # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env[Any, str],
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
            screen if screen is not None else screen_of(env),
            double_click=double_click,
            keys=keys,
            words=words,
        )
        gym.utils.RecordConstructorArgs.__init__(
            self, grid=grid, double_click=double_click, keys=tuple(keys), words=tuple(words),
            screen=screen,
        )
        gym.ActionWrapper.__init__(self, env)
        self.table = table
        self.grid = table.grid
        self.screen = table.screen
        self.codes: tuple[str, ...] = table.codes
        self.meanings: tuple[str, ...] = table.meanings
        self.action_space = spaces.Discrete(len(table))

    def action(self, action: int | np.integer) -> str:
        """The pyautogui string (or control word) of the integer ``action``."""
        return self.table.code(action)

    def action_meaning(self, action: int) -> str:
        """What the integer ``action`` does, in words (``"press enter"``)."""
        return self.table.meaning(action)

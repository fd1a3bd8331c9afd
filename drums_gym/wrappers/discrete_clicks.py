"""`DiscreteClicks`: a ``Discrete(n)`` action space of grid clicks, keys and DONE."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..actions import CONTROL_WORDS, is_valid_key, normalize_key

__all__ = ["DEFAULT_KEYS", "DiscreteClicks"]

#: keys a `DiscreteClicks` agent can press by default
DEFAULT_KEYS: tuple[str, ...] = ("enter", "escape", "f2", "backspace", "tab")


class DiscreteClicks(gym.ActionWrapper[Any, int, str]):
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
        cols, rows = _pair("grid", grid)
        width, height = _pair("screen", screen if screen is not None else _screen(env))
        if isinstance(keys, str) or not all(isinstance(k, str) and is_valid_key(k) for k in keys):
            raise ValueError(f"keys must be a sequence of pyautogui key names, got {keys!r}")
        if isinstance(words, str) or not all(w in CONTROL_WORDS for w in words):
            raise ValueError(f"words must be a sequence of {sorted(CONTROL_WORDS)}, got {words!r}")
        gym.ActionWrapper.__init__(self, env)
        self.grid = (cols, rows)
        self.screen = (width, height)
        codes: list[str] = []
        meanings: list[str] = []
        kinds = [("click", "click")] + ([("doubleClick", "double-click")] if double_click else [])
        for function, verb in kinds:
            for row in range(rows):
                for col in range(cols):
                    x, y = (2 * col + 1) * width // (2 * cols), (2 * row + 1) * height // (2 * rows)
                    codes.append(f"pyautogui.{function}({x}, {y})")
                    meanings.append(f"{verb} cell ({col}, {row}) at ({x}, {y})")
        for key in keys:
            name = normalize_key(key)
            codes.append(f"pyautogui.press({name!r})")
            meanings.append(f"press {name}")
        for word in words:
            codes.append(word)
            meanings.append(word)
        self.codes: tuple[str, ...] = tuple(codes)
        self.meanings: tuple[str, ...] = tuple(meanings)
        self.action_space = spaces.Discrete(len(codes))

    def action(self, action: int) -> str:
        """The pyautogui string (or control word) of the integer ``action``."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in [0, {len(self.codes)}), got {action!r}")
        if not 0 <= action < len(self.codes):
            raise ValueError(f"action must be in [0, {len(self.codes)}), got {action!r}")
        return self.codes[int(action)]

    def action_meaning(self, action: int) -> str:
        """What the integer ``action`` does, in words (``"press enter"``)."""
        self.action(action)
        return self.meanings[int(action)]


def _pair(name: str, value: Any) -> tuple[int, int]:
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
        or not all(v > 0 for v in value)
    ):
        raise ValueError(f"{name} must be a pair of positive ints, got {value!r}")
    return int(value[0]), int(value[1])


def _screen(env: gym.Env[Any, Any]) -> tuple[int, int]:
    """``(width, height)`` of the desktop under ``env``."""
    screen = getattr(env.unwrapped, "screen", None)
    if screen is not None:
        return screen
    space = env.unwrapped.observation_space
    if isinstance(space, spaces.Box) and len(space.shape) == 3:
        return int(space.shape[1]), int(space.shape[0])
    raise ValueError(f"cannot tell the screen size of {env}: pass screen=(width, height)")

"""The integer action table shared by `DiscreteClicks` and `VectorDiscreteClicks`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from ..actions import CONTROL_WORDS, is_valid_key, normalize_key

__all__ = ["DEFAULT_KEYS", "ActionTable", "pair", "screen_of", "vector_screen_of"]

#: keys a `DiscreteClicks` agent can press by default
DEFAULT_KEYS: tuple[str, ...] = ("enter", "escape", "f2", "backspace", "tab")


@dataclass(frozen=True)
class ActionTable:
    """Integer ``i`` is ``codes[i]`` (a pyautogui string or control word), ``meanings[i]``
    in words: grid clicks row by row, then double-clicks, key presses and words.

    >>> table = ActionTable.build((2, 1), (640, 480), keys=("enter",))
    >>> table.codes
    ('pyautogui.click(160, 240)', 'pyautogui.click(480, 240)', "pyautogui.press('enter')", 'DONE')
    >>> table.meaning(1)
    'click cell (1, 0) at (480, 240)'
    """

    grid: tuple[int, int]
    screen: tuple[int, int]
    codes: tuple[str, ...]
    meanings: tuple[str, ...]

    @classmethod
    def build(
        cls,
        grid: tuple[int, int],
        screen: tuple[int, int],
        *,
        double_click: bool = False,
        keys: Sequence[str] = DEFAULT_KEYS,
        words: Sequence[str] = ("DONE",),
    ) -> ActionTable:
        """The table of ``grid = (cols, rows)`` on a ``screen = (width, height)`` desktop;
        ValueError naming the bad argument."""
        cols, rows = pair("grid", grid)
        width, height = pair("screen", screen)
        if isinstance(keys, str) or not all(isinstance(k, str) and is_valid_key(k) for k in keys):
            raise ValueError(f"keys must be a sequence of pyautogui key names, got {keys!r}")
        if isinstance(words, str) or not all(w in CONTROL_WORDS for w in words):
            raise ValueError(f"words must be a sequence of {sorted(CONTROL_WORDS)}, got {words!r}")
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
        return cls((cols, rows), (width, height), tuple(codes), tuple(meanings))

    def __len__(self) -> int:
        return len(self.codes)

    def index(self, action: Any) -> int:
        """``action`` as a checked int in ``[0, len(self))``, or ValueError."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in [0, {len(self.codes)}), got {action!r}")
        if not 0 <= action < len(self.codes):
            raise ValueError(f"action must be in [0, {len(self.codes)}), got {action!r}")
        return int(action)

    def code(self, action: Any) -> str:
        """The pyautogui string (or control word) of the integer ``action``."""
        return self.codes[self.index(action)]

    def meaning(self, action: Any) -> str:
        """What the integer ``action`` does, in words."""
        return self.meanings[self.index(action)]


def pair(name: str, value: Any) -> tuple[int, int]:
    """``value`` as a pair of positive ints, or ValueError naming ``name``."""
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
        or not all(v > 0 for v in value)
    ):
        raise ValueError(f"{name} must be a pair of positive ints, got {value!r}")
    return int(value[0]), int(value[1])


def _box_screen(space: Any) -> tuple[int, int] | None:
    if isinstance(space, spaces.Box) and len(space.shape) == 3:
        return int(space.shape[1]), int(space.shape[0])
    return None


def screen_of(env: Any) -> tuple[int, int]:
    """``(width, height)`` of the desktop under the env ``env``."""
    screen = getattr(env.unwrapped, "screen", None)
    if screen is not None:
        return screen
    found = _box_screen(env.unwrapped.observation_space)
    if found is None:
        raise ValueError(f"cannot tell the screen size of {env}: pass screen=(width, height)")
    return found


def vector_screen_of(envs: Any) -> tuple[int, int]:
    """``(width, height)`` of the desktops under the vector env ``envs``: the fork
    parent's, a sync vector env's first sub-env's, else the unwrapped single space's."""
    base = envs.unwrapped
    screen = getattr(getattr(base, "parent", None), "screen", None)
    if screen is not None:
        return screen
    subs = getattr(base, "envs", None)
    if subs:
        return screen_of(subs[0])
    found = _box_screen(getattr(base, "single_observation_space", None))
    if found is None:
        raise ValueError(f"cannot tell the screen size of {envs}: pass screen=(width, height)")
    return found

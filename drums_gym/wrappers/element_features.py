"""`ElementFeatures`: a small float32 vector of the screen's elements, for CPU policies."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._action_table import screen_of
from ._elements import INTERACTIVE_ROLES, Element
from .a11y_actions import A11yActions

__all__ = ["FEATURES_PER_SLOT", "SLOT_STATES", "ElementFeatures"]

#: element states that become features, in this order
SLOT_STATES: tuple[str, ...] = ("selected", "focused", "checked", "sensitive")
#: per slot: present, role one-hot, the states, text match, x, y
FEATURES_PER_SLOT = 1 + len(INTERACTIVE_ROLES) + len(SLOT_STATES) + 1 + 2


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _find_actions(env: gym.Env[Any, Any]) -> A11yActions:
    inner: Any = env
    while isinstance(inner, gym.Wrapper):
        if isinstance(inner, A11yActions):
            return inner
        inner = inner.env
    raise ValueError(f"ElementFeatures must wrap an A11yActions env, got {env}")


class ElementFeatures(
    gym.ObservationWrapper[np.ndarray, Any, Any], gym.utils.RecordConstructorArgs
):
    """The observation becomes a ``float32`` vector of the element slots of the
    :class:`A11yActions` it wraps (the screenshot is dropped).

    Per slot, :data:`FEATURES_PER_SLOT` numbers: 1 if an element is in the slot on this
    screen, its role one-hot (:data:`INTERACTIVE_ROLES`), its states (:data:`SLOT_STATES`),
    1 if its text or name holds a line of what the wrapper's actions type (``texts`` and
    the ``pyautogui.write`` strings of ``codes``: what was typed shows), and
    its centre as fractions of the screen. With ``with_mask``, the action mask follows (a
    policy can mask its logits with the last ``action_space.n`` numbers).

    Example:
        >>> import gymnasium as gym
        >>> env = ElementFeatures(A11yActions(gym.make("Drums/e0df059f", accessibility=True),
        ...                                   slots=32))                   # doctest: +SKIP
        >>> env.observation_space.shape                                    # doctest: +SKIP
        (832,)
    """

    def __init__(self, env: gym.Env[Any, Any], *, with_mask: bool = False) -> None:
        actions = _find_actions(env)
        if not isinstance(with_mask, bool):
            raise ValueError(f"with_mask must be True or False, got {with_mask!r}")
        gym.utils.RecordConstructorArgs.__init__(self, with_mask=with_mask)
        gym.ObservationWrapper.__init__(self, env)
        self._actions = actions
        self.with_mask = with_mask
        self.screen = screen_of(env)
        # what was typed shows as a line of an entry's or a terminal's text
        # (whitespace left out: a terminal wraps a long command over several lines)
        self._texts = tuple(
            _squeeze(line) for t in actions.typed for line in t.splitlines() if line.strip()
        )
        size = actions.slots.size * FEATURES_PER_SLOT
        if with_mask:
            size += actions.n_actions
        self.size = size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)

    def _slot_features(self, element: Element, out: np.ndarray) -> None:
        out[0] = 1.0
        out[1 + INTERACTIVE_ROLES.index(element.role)] = 1.0
        base = 1 + len(INTERACTIVE_ROLES)
        for i, state in enumerate(SLOT_STATES):
            out[base + i] = float(state in element.states)
        base += len(SLOT_STATES)
        shown = _squeeze(f"{element.name}{element.text}")
        out[base] = float(any(t in shown for t in self._texts))
        width, height = self.screen
        out[base + 1] = min(1.0, max(0.0, element.center[0] / width))
        out[base + 2] = min(1.0, max(0.0, element.center[1] / height))

    def observation(self, observation: Any) -> np.ndarray:
        """The feature vector of the current screen (``observation`` itself is dropped)."""
        vector = np.zeros(self.size, dtype=np.float32)
        for slot, element in enumerate(self._actions.placed):
            if element is not None:
                start = slot * FEATURES_PER_SLOT
                self._slot_features(element, vector[start:start + FEATURES_PER_SLOT])
        if self.with_mask:
            n = self._actions.n_actions
            vector[-n:] = self._actions.action_masks()
        return vector

"""`A11yActions`: a ``Discrete(K)`` action space of the screen's interactive elements."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..actions import CONTROL_WORDS, ActionError, is_valid_key, normalize_key, parse
from ._elements import Element, ElementSlots, interactive_elements

__all__ = ["KINDS", "A11yActions", "click_of", "quoted_strings"]

#: element action kinds: the pyautogui function of each
KINDS: Mapping[str, str] = {
    "click": "click", "double_click": "doubleClick", "right_click": "rightClick",
}
_KIND_OF: Mapping[tuple[Any, Any], str] = {
    (1, "left"): "click", (2, "left"): "double_click", (1, "right"): "right_click",
}


def click_of(code: str) -> tuple[str, tuple[Any, Any]] | None:
    """``(kind, (x, y))`` when ``code`` is one plain click of a :data:`KINDS` kind, else
    None (a demonstration's clicks, read back as element actions).

    >>> click_of("pyautogui.doubleClick(3, 4)")
    ('double_click', (3, 4))
    >>> click_of("DONE") is None
    True
    """
    try:
        actions = parse(code)
    except ActionError:
        return None
    if len(actions) != 1 or actions[0].name != "click":
        return None
    args = dict(actions[0].args)
    kind = _KIND_OF.get((args.get("clicks"), args.get("button")))
    return None if kind is None else (kind, (args.get("x"), args.get("y")))


_QUOTED = re.compile(r'"([^"\n]+)"|\'([^\'\n]+)\'|“([^”\n]+)”')


def quoted_strings(instruction: str) -> tuple[str, ...]:
    """The strings quoted in ``instruction`` ('…', "…" or “…”), in order, without repeats:
    the texts a typing action may need.

    >>> quoted_strings('Rename "todo_list_Jan_1" into "todo_list_Jan_2"?')
    ('todo_list_Jan_1', 'todo_list_Jan_2')
    >>> quoted_strings("Can't you move 'todo.txt' to 'done/'?")
    ('todo.txt', 'done/')
    """
    if not isinstance(instruction, str):
        raise ValueError(f"instruction must be a string, got {instruction!r}")
    found: list[str] = []
    for match in _QUOTED.finditer(instruction.replace("n't", "n’t")):
        text = next(g for g in match.groups() if g is not None)
        if text not in found:
            found.append(text)
    return tuple(found)


def _key_code(key: str) -> str:
    """``"enter"`` -> a press, ``"ctrl+alt+t"`` -> a hotkey; ValueError for unknown keys."""
    parts = key.split("+") if isinstance(key, str) and "+" in key.strip("+") else [key]
    if not all(isinstance(p, str) and is_valid_key(p) for p in parts):
        raise ValueError(f"keys must be pyautogui key names or 'ctrl+alt+t' chords, got {key!r}")
    names = [normalize_key(p) for p in parts]
    if len(names) == 1:
        return f"pyautogui.press({names[0]!r})"
    return f"pyautogui.hotkey({', '.join(repr(n) for n in names)})"


def _checked_code(code: str) -> str:
    if not isinstance(code, str) or not code.strip():
        raise ValueError(f"codes must be non-empty pyautogui code strings, got {code!r}")
    try:
        parse(code)
    except ActionError as exc:
        raise ValueError(f"codes: {code!r} is not pyautogui code the env accepts: {exc}") from exc
    return code


def _written(codes: Sequence[str]) -> list[str]:
    """The strings the ``pyautogui.write`` calls of ``codes`` type."""
    found: list[str] = []
    for code in codes:
        for action in parse(code):
            message = dict(action.args).get("message") if action.name == "write" else None
            if isinstance(message, str) and message:
                found.append(message)
    return found


class A11yActions(gym.Wrapper[Any, int | np.integer, Any, str], gym.utils.RecordConstructorArgs):
    """Integer actions on the screen's interactive elements, plus fixed ones.

    The actions, in this order: for each of ``kinds`` (``"click"``, ``"double_click"``,
    ``"right_click"``), one per element slot (``slots`` of them); then each control word of
    ``words``, a press of each of ``keys`` (``"enter"``; ``"ctrl+alt+t"`` is a hotkey), a
    ``pyautogui.write`` of each of ``texts``, and each pyautogui string of ``codes``.
    An element's slot is fixed the first time it is seen (`ElementSlots`: identity =
    window, role, name, occurrence), so a slot means the same element all run long.

    ``info["action_mask"]`` (and :meth:`action_masks`, which SB3-contrib's MaskablePPO
    reads) is True for the actions that act on this screen: the fixed ones, and the
    element actions of the slots whose element is on it. A masked action is sent as
    ``"WAIT"`` and flagged ``info["masked_action"] = True``. The env must put the tree in
    ``info["accessibility"]`` (``accessibility=True``).

    Args:
        env: an env with pyautogui text actions and the tree in its infos.
        slots: element slots (an int), or an :class:`ElementSlots` to share with another
            env so that both number elements alike.
        kinds: element action kinds, a subset of :data:`KINDS`.
        words, keys, texts, codes: the fixed actions (see above).

    Example:
        >>> import gymnasium as gym
        >>> env = A11yActions(gym.make("Drums/e0df059f", accessibility=True), slots=32,
        ...                   texts=("todo_list_Jan_2\\n",))                  # doctest: +SKIP
        >>> obs, info = env.reset()                                          # doctest: +SKIP
        >>> env.action_space, int(info["action_mask"].sum())                 # doctest: +SKIP
        (Discrete(100), 16)
        >>> env.action_meaning(0)                                            # doctest: +SKIP
        "click push-button 'Activities'"
    """

    def __init__(
        self,
        env: gym.Env[Any, str],
        slots: int | ElementSlots = 64,
        *,
        kinds: Sequence[str] = ("click", "double_click", "right_click"),
        words: Sequence[str] = ("DONE", "FAIL", "WAIT"),
        keys: Sequence[str] = (),
        texts: Sequence[str] = (),
        codes: Sequence[str] = (),
    ) -> None:
        registry = slots if isinstance(slots, ElementSlots) else ElementSlots(slots)
        if isinstance(kinds, str) or not kinds or not all(k in KINDS for k in kinds):
            raise ValueError(
                f"kinds must be a non-empty sequence of {sorted(KINDS)}, got {kinds!r}"
            )
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"kinds must not repeat, got {kinds!r}")
        if isinstance(words, str) or not all(w in CONTROL_WORDS for w in words):
            raise ValueError(f"words must be a sequence of {sorted(CONTROL_WORDS)}, got {words!r}")
        if isinstance(keys, str):
            raise ValueError(f"keys must be a sequence of key names, got {keys!r}")
        if isinstance(texts, str) or not all(isinstance(t, str) and t for t in texts):
            raise ValueError(f"texts must be a sequence of non-empty strings, got {texts!r}")
        if isinstance(codes, str):
            raise ValueError(f"codes must be a sequence of pyautogui strings, got {codes!r}")
        fixed: list[tuple[str, str]] = [(w, w) for w in words]
        fixed += [(_key_code(k), f"press {k}") for k in keys]
        fixed += [(f"pyautogui.write({t!r})", f"type {t!r}") for t in texts]
        fixed += [(_checked_code(c), c) for c in codes]
        gym.utils.RecordConstructorArgs.__init__(
            self, slots=slots if isinstance(slots, int) else registry.size, kinds=tuple(kinds),
            words=tuple(words), keys=tuple(keys), texts=tuple(texts), codes=tuple(codes),
        )
        gym.Wrapper.__init__(self, env)  # type: ignore[misc]  # its action type is ours
        self._inner: gym.Env[Any, str] = env  # takes the pyautogui strings
        self.slots = registry
        self.kinds: tuple[str, ...] = tuple(kinds)
        self.texts: tuple[str, ...] = tuple(texts)
        #: every string a fixed action types (``texts`` and the writes in ``codes``)
        self.typed: tuple[str, ...] = tuple(dict.fromkeys([*texts, *_written(codes)]))
        self.fixed_codes: tuple[str, ...] = tuple(code for code, _ in fixed)
        self._fixed_meanings = tuple(meaning for _, meaning in fixed)
        self.n_element_actions = len(self.kinds) * registry.size
        self.n_actions = self.n_element_actions + len(fixed)
        self.action_space = spaces.Discrete(self.n_actions)
        self._elements: list[Element] = []  # on the current screen, in drawing order
        self.placed: list[Element | None] = [None] * registry.size  # by slot
        self._mask = np.zeros(self.n_actions, dtype=np.bool_)

    # ------------------------------------------------------------------ the screen
    def _see(self, info: dict[str, Any]) -> dict[str, Any]:
        tree = info.get("accessibility")
        if tree is None:
            if info.get("valid", True) is False:  # an invalid episode has no tree
                self._elements = []
                self.placed = [None] * self.slots.size
            else:
                raise ValueError(
                    "A11yActions needs the accessibility tree in info['accessibility']: make "
                    "the env with accessibility=True"
                )
        else:
            self._elements = interactive_elements(tree)
            self.placed = self.slots.place(self._elements)
        mask = np.zeros(self.n_actions, dtype=np.bool_)
        present = np.array([e is not None for e in self.placed], dtype=bool)
        for k in range(len(self.kinds)):
            mask[k * self.slots.size:(k + 1) * self.slots.size] = present
        mask[self.n_element_actions:] = True
        self._mask = mask
        info["action_mask"] = mask.copy()
        return info

    def action_masks(self) -> np.ndarray:
        """The actions that act on the current screen (MaskablePPO's hook): a bool array."""
        return self._mask.copy()

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self._inner.reset(seed=seed, options=options)
        return obs, self._see(info)

    def step(
        self, action: int | np.integer
    ) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        index = self._index(action)
        code = self.code(index)
        obs, reward, terminated, truncated, info = self._inner.step(code or "WAIT")
        info = self._see(info)
        info["masked_action"] = code is None
        return obs, reward, terminated, truncated, info

    # ------------------------------------------------------------------ the table
    def _index(self, action: Any) -> int:
        n = self.n_actions
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in [0, {n}), got {action!r}")
        if not 0 <= action < n:
            raise ValueError(f"action must be in [0, {n}), got {action!r}")
        return int(action)

    def code(self, action: int | np.integer) -> str | None:
        """The pyautogui string (or control word) of ``action`` on the current screen, or
        None when its element is not on it."""
        index = self._index(action)
        if index >= self.n_element_actions:
            return self.fixed_codes[index - self.n_element_actions]
        kind = self.kinds[index // self.slots.size]
        element = self.placed[index % self.slots.size]
        if element is None:
            return None
        x, y = element.center
        return f"pyautogui.{KINDS[kind]}({x}, {y})"

    def action_meaning(self, action: int | np.integer) -> str:
        """What ``action`` does, in words (``"click push-button 'Files'"``)."""
        index = self._index(action)
        if index >= self.n_element_actions:
            return self._fixed_meanings[index - self.n_element_actions]
        kind = self.kinds[index // self.slots.size].replace("_", "-")
        slot = index % self.slots.size
        keys = self.slots.keys()
        if slot >= len(keys):
            return f"{kind} slot {slot} (no element yet)"
        window, role, name, occurrence = keys[slot]
        where = f" in {window!r}" if window else ""
        nth = f" #{occurrence + 1}" if occurrence else ""
        return f"{kind} {role} {name!r}{nth}{where}"

    def index_of(self, code: str) -> int | None:
        """The action that sends ``code`` on the current screen, or None: a fixed action
        with that exact code, else a click, double-click or right-click at an element's
        centre (the topmost element there). Turns a demonstration's pyautogui strings
        into this wrapper's integers."""
        if code in self.fixed_codes:
            return self.n_element_actions + self.fixed_codes.index(code)
        click = click_of(code)
        if click is None or click[0] not in self.kinds:
            return None
        kind, point = click
        offset = self.kinds.index(kind) * self.slots.size
        for element in reversed(self._elements):  # the topmost element there first
            if element.center == point:
                slot = self.slots.slot_of(element)
                if slot is not None:
                    return offset + slot
        return None

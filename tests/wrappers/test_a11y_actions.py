"""A11yActions and ElementFeatures on the real env against a local host: a fixed-size
action space, the mask, stable slots, and every action kind reaching the desktop."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from drums_gym.client import Client, connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.solvers import a11y
from drums_gym.wrappers import (
    INTERACTIVE_ROLES,
    A11yActions,
    ElementFeatures,
    ElementSlots,
    _elements,
    a11y_actions,
    interactive_elements,
    quoted_strings,
)
from drums_gym.wrappers.element_features import FEATURES_PER_SLOT

SCREEN = (1024, 768)
ICON = "todo_list_Jan_1"


@pytest.fixture
def client(local_host: Any) -> Iterator[Client]:
    with connect(url=local_host.url) as c:
        yield c


def make(client: Client, **kwargs: Any) -> A11yActions:
    base = DrumsDesktopEnv("e0df059f", client=client, screen=SCREEN, accessibility=True,
                           screenshots=False, wait_s=0.0, max_steps=20)
    return A11yActions(base, **kwargs)


def action(env: A11yActions, kind: str, role: str, name: str) -> int:
    """The index of ``kind`` on the element ``role``/``name`` of the current screen."""
    for slot, element in enumerate(env.placed):
        if element is not None and (element.role, element.name) == (role, name):
            return env.kinds.index(kind) * env.slots.size + slot
    raise LookupError(f"no {role} {name!r} on screen")


def fixed(env: A11yActions, code: str) -> int:
    return env.n_element_actions + env.fixed_codes.index(code)


def tree_of(info: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = info["accessibility"]
    return tree


def test_modules_doctests() -> None:
    for module in (_elements, a11y_actions):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_quoted_strings() -> None:
    assert quoted_strings('Rename "a b" to “c”, not \'d\'; "a b" again') == ("a b", "c", "d")
    assert quoted_strings("Can't won't") == ()
    with pytest.raises(ValueError, match="instruction"):
        quoted_strings(None)  # type: ignore[arg-type]


def test_space_is_fixed_and_mask_marks_the_screen(client: Client) -> None:
    env = make(client, slots=32, keys=("enter", "ctrl+alt+t"), texts=("x",))
    try:
        n = 3 * 32 + 3 + 2 + 1
        assert env.action_space.n == n
        _, info = env.reset()
        mask = info["action_mask"]
        assert mask.shape == (n,) and mask.dtype == bool
        assert np.array_equal(mask, env.action_masks())
        on_screen = len(interactive_elements(tree_of(info)))
        assert int(mask[:32].sum()) == on_screen  # clicks: one per element on screen
        assert np.array_equal(mask[:32], mask[32:64]) and np.array_equal(mask[:32], mask[64:96])
        assert mask[96:].all()  # words, keys, texts: always
        # a masked action is a WAIT: the screen does not change, the flag says so
        masked = int(np.flatnonzero(~mask)[0])
        assert env.code(masked) is None
        _, _, terminated, truncated, info = env.step(masked)
        assert info["masked_action"] is True and not (terminated or truncated)
        # the space does not grow when the screen does (a Files window opens)
        _, _, _, _, info = env.step(action(env, "double_click", "icon", ICON))
        assert info["masked_action"] is False
        assert env.action_space.n == n and info["action_mask"].shape == (n,)
        assert int(info["action_mask"][:32].sum()) > on_screen
    finally:
        env.close()


def test_each_action_kind_reaches_the_desktop(client: Client) -> None:
    env = make(client, slots=48, keys=("f2", "escape"), texts=("todo_list_Jan_2\n",),
               codes=("pyautogui.hotkey('ctrl', 'a')",))
    try:
        _, info = env.reset()
        # click: the icon is selected
        _, _, _, _, info = env.step(action(env, "click", "icon", ICON))
        assert a11y.is_selected(a11y.desktop_icon(tree_of(info), ICON))
        # a key press: F2 opens the rename dialog
        _, _, _, _, info = env.step(fixed(env, "pyautogui.press('f2')"))
        entry = a11y.find(tree_of(info), "entry")
        # a code, then typing: the entry's text is replaced and Enter renames
        _, _, _, _, info = env.step(fixed(env, "pyautogui.hotkey('ctrl', 'a')"))
        _, _, _, _, info = env.step(fixed(env, "pyautogui.write('todo_list_Jan_2\\n')"))
        assert entry and a11y.desktop_icon(tree_of(info), "todo_list_Jan_2")
        # right-click: the context menu opens
        _, _, _, _, info = env.step(action(env, "right_click", "icon", "todo_list_Jan_2"))
        assert a11y.find(tree_of(info), "menu", "Context Menu")
        _, _, _, _, info = env.step(fixed(env, "pyautogui.press('escape')"))
        # double-click: a Files window opens on the folder
        _, _, _, _, info = env.step(action(env, "double_click", "icon", "todo_list_Jan_2"))
        assert a11y.frame(tree_of(info), "todo_list_Jan_2")
        # a word: DONE ends the episode, and it is solved
        _, reward, terminated, _, info = env.step(fixed(env, "DONE"))
        assert terminated and reward == 1.0 and info["valid"]
    finally:
        env.close()


def test_slots_are_stable_and_shared(client: Client) -> None:
    slots = ElementSlots(64)
    env = make(client, slots=slots)
    other = make(client, slots=slots)
    try:
        _, info = env.reset()
        files = action(env, "click", "push-button", "Files")
        icon = action(env, "click", "icon", ICON)
        env.step(action(env, "double_click", "icon", ICON))  # new elements take new slots
        assert action(env, "click", "push-button", "Files") == files
        assert action(env, "click", "icon", ICON) == icon
        other.reset()
        assert action(other, "click", "push-button", "Files") == files  # one numbering
        assert "Files" in env.action_meaning(files)
        assert env.index_of(env.code(icon) or "") == icon  # a demo's click maps back
        assert env.index_of("pyautogui.click(1, 1)") is None
    finally:
        env.close()
        other.close()


def test_overflow_is_counted_not_numbered() -> None:
    slots = ElementSlots(2)
    tree = {"role": "desktop-frame", "name": "", "position": [0, 0], "size": [9, 9],
            "states": [], "children": [
                {"role": "push-button", "name": str(i), "position": [i, 0], "size": [1, 1],
                 "states": [], "children": []} for i in range(3)]}
    placed = slots.place(interactive_elements(tree))
    assert [e.name if e else None for e in placed] == ["0", "1"] and slots.overflow == 1


def test_element_features(client: Client) -> None:
    env = ElementFeatures(make(client, slots=16, texts=("todo_list_Jan_1",)), with_mask=True)
    try:
        obs, _ = env.reset()
        n = int(env.action_space.n)
        assert obs.dtype == np.float32 and obs.shape == (16 * FEATURES_PER_SLOT + n,)
        assert env.observation_space.contains(obs)
        inner = env.env
        assert isinstance(inner, A11yActions)
        assert np.array_equal(obs[-n:], inner.action_masks())
        slot = action(inner, "click", "icon", ICON)
        row = obs[slot * FEATURES_PER_SLOT:(slot + 1) * FEATURES_PER_SLOT]
        assert row[0] == 1.0 and row[1 + INTERACTIVE_ROLES.index("icon")] == 1.0
        assert row[1 + len(INTERACTIVE_ROLES) + 4] == 1.0  # the instruction's text shows
        empty = len(inner.slots) * FEATURES_PER_SLOT
        assert not obs[empty:16 * FEATURES_PER_SLOT].any()  # slots not taken are zeros
        with pytest.raises(ValueError, match="A11yActions"):
            ElementFeatures(inner.env)
    finally:
        env.close()


def test_needs_the_tree_and_checks_arguments(client: Client) -> None:
    base = DrumsDesktopEnv("e0df059f", client=client, screen=SCREEN, screenshots=False)
    env = A11yActions(base)
    try:
        with pytest.raises(ValueError, match="accessibility=True"):
            env.reset()
        for kwargs, word in [({"kinds": ("poke",)}, "kinds"), ({"keys": ("nokey",)}, "keys"),
                             ({"words": ("STOP",)}, "words"), ({"texts": ("",)}, "texts"),
                             ({"codes": ("os.system('x')",)}, "codes"), ({"slots": 0}, "size")]:
            with pytest.raises(ValueError, match=word):
                A11yActions(base, **kwargs)
    finally:
        env.close()


def test_screenshots_off_gives_blank_frames_and_the_tree(client: Client) -> None:
    env = make(client, slots=32)
    try:
        obs, info = env.reset()
        assert obs.shape == (SCREEN[1], SCREEN[0], 3) and not obs.any()
        assert info["accessibility"]["role"] == "desktop-frame"
        obs, _, _, _, info = env.step(action(env, "double_click", "icon", ICON))
        assert not obs.any() and a11y.frame(tree_of(info), ICON)
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_typed_command_shows_in_the_features(client: Client) -> None:
    """A terminal task's command, typed by a code, sets its slot's text feature: the state
    before and after typing differ (else a policy could not tell them apart)."""
    command = "echo " + "a long line the terminal wraps " * 5 + "> ~/out.txt"
    base = DrumsDesktopEnv("5ced85fc", client=client, screen=SCREEN, accessibility=True,
                           screenshots=False, wait_s=0.0)
    code = f"pyautogui.write({command + chr(10)!r})"
    env = ElementFeatures(A11yActions(base, slots=32, codes=(code,)))
    try:
        inner = env.env
        assert isinstance(inner, A11yActions) and inner.typed == (command + "\n",)
        before, _ = env.reset()
        after, *_ = env.step(fixed(inner, code))
        slot = next(s for s, e in enumerate(inner.placed) if e is not None and e.role == "terminal")
        match = slot * FEATURES_PER_SLOT + 1 + len(INTERACTIVE_ROLES) + 4
        assert (before[match], after[match]) == (0.0, 1.0)
    finally:
        env.close()

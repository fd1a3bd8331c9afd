"""computer_13 actions: each action_type translated as OSWorld's controller does, and refused
where it raises; then every type through gym.make, as a dict and as its JSON text."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from a11y import center, find

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.actions import ActionError, computer13, parse

#: (computer_13 action, the pyautogui code OSWorld's controller runs for it)
TRANSLATIONS = [
    ({"action_type": "MOVE_TO"}, "pyautogui.moveTo()"),
    ({"action_type": "MOVE_TO", "x": 10, "y": 20}, "pyautogui.moveTo(10, 20)"),
    ({"action_type": "CLICK"}, "pyautogui.click()"),
    ({"action_type": "CLICK", "x": 1, "y": 2}, "pyautogui.click(x=1, y=2)"),
    ({"action_type": "CLICK", "button": "right"}, "pyautogui.click(button='right')"),
    (
        {"action_type": "CLICK", "x": 1, "y": 2, "button": "left", "num_clicks": 2},
        "pyautogui.click(button='left', x=1, y=2, clicks=2)",
    ),
    ({"action_type": "MOUSE_DOWN"}, "pyautogui.mouseDown()"),
    ({"action_type": "MOUSE_DOWN", "button": "right"}, "pyautogui.mouseDown(button='right')"),
    ({"action_type": "MOUSE_UP", "button": "left"}, "pyautogui.mouseUp(button='left')"),
    ({"action_type": "RIGHT_CLICK", "x": 3, "y": 4}, "pyautogui.rightClick(x=3, y=4)"),
    ({"action_type": "DOUBLE_CLICK"}, "pyautogui.doubleClick()"),
    ({"action_type": "DOUBLE_CLICK", "x": 3, "y": 4}, "pyautogui.doubleClick(x=3, y=4)"),
    (
        {"action_type": "DRAG_TO", "x": 5, "y": 6},
        "pyautogui.dragTo(5, 6, duration=1.0, button='left', mouseDownUp=True)",
    ),
    ({"action_type": "DRAG_TO"}, "pass"),
    ({"action_type": "SCROLL", "dy": -3}, "pyautogui.vscroll(-3)"),
    ({"action_type": "SCROLL", "dx": 2, "dy": 1}, "pyautogui.hscroll(2); pyautogui.vscroll(1)"),
    ({"action_type": "TYPING", "text": "it's \\ok"}, "pyautogui.typewrite(\"it's \\\\ok\")"),
    ({"action_type": "PRESS", "key": "Enter"}, "pyautogui.press('Enter')"),
    ({"action_type": "KEY_DOWN", "key": "shift"}, "pyautogui.keyDown('shift')"),
    ({"action_type": "KEY_UP", "key": "shift"}, "pyautogui.keyUp('shift')"),
    ({"action_type": "HOTKEY", "keys": ["ctrl", "c"]}, "pyautogui.hotkey('ctrl', 'c')"),
    ({"action_type": "CLICK", "parameters": {"x": 7, "y": 8}}, "pyautogui.click(x=7, y=8)"),
]


@pytest.mark.parametrize(("action", "code"), TRANSLATIONS, ids=[c for _, c in TRANSLATIONS])
def test_translated_as_osworld_does(action, code):
    assert computer13.translate(action) == parse(code)
    assert computer13.translate(json.loads(computer13.dumps(action))) == parse(code)


@pytest.mark.parametrize("word", ["WAIT", "FAIL", "DONE"])
def test_control_words(word):
    action = {"action_type": word}
    assert computer13.translate(action) == word
    assert computer13.control_of(action) == computer13.control_of(json.dumps(action)) == word


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ({"action_type": "JUMP"}, "unknown action_type 'JUMP'"),
        ({"x": 1}, "no str 'action_type'"),
        ({"action_type": "MOVE_TO", "x": 1}, "MOVE_TO does not take the parameters ['x']"),
        ({"action_type": "CLICK", "num_clicks": 2}, "CLICK does not take"),
        ({"action_type": "SCROLL"}, "SCROLL does not take the parameters []"),
        ({"action_type": "TYPING"}, "TYPING does not take"),
        ({"action_type": "PRESS", "key": "super"}, "key must be one of pyautogui.KEYBOARD_KEYS"),
        ({"action_type": "HOTKEY", "keys": "ctrl+c"}, "keys must be a list"),
        ({"action_type": "HOTKEY", "keys": ["ctrl", "nope"]}, "got 'nope'"),
        ({"action_type": "CLICK", "x": "a", "y": 2}, "argument 'x' must be a number"),
    ],
)
def test_refused_where_osworld_raises(action, fragment):
    with pytest.raises(ActionError, match="computer_13 action") as info:
        computer13.translate(action)
    assert info.value.construct == "computer_13"
    assert fragment in str(info.value)


def test_loads_only_takes_an_action_object():
    assert computer13.loads('{"action_type": "DONE"}') == {"action_type": "DONE"}
    for text in ("pyautogui.click()", "{", '{"x": 1}', "[1]", "DONE"):
        assert computer13.loads(text) is None


@pytest.fixture
def env(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    env = gym.make("Drums/e0df059f", accessibility=True, wait_s=0.0, max_steps=100)
    yield env
    env.close()


def test_every_action_type_through_gym_make_as_dict_and_json(env):
    _, info = env.reset(seed=0)
    for action, _ in TRANSLATIONS:
        for form in (action, json.dumps(action)):
            _, _, terminated, truncated, info = env.step(form)
            assert info["valid"] is True and "action_error" not in info, (form, info)
            assert not (terminated or truncated)
    _, _, _, _, info = env.step({"action_type": "WAIT"})
    assert "action_error" not in info
    _, _, _, _, info = env.step({"action_type": "JUMP"})
    assert "unknown action_type 'JUMP'" in info["action_error"]
    _, _, _, _, info = env.step(json.dumps({"action_type": "PRESS", "key": "nope"}))
    assert "KEYBOARD_KEYS" in info["action_error"]


def test_a_computer_13_solution_scores_one_and_done_ends_it(env):
    _, info = env.reset(seed=0)
    x, y = center(find(info["accessibility"], "todo_list_Jan_1"))
    for action in (
        {"action_type": "CLICK", "x": x, "y": y},
        {"action_type": "PRESS", "key": "f2"},
        {"action_type": "HOTKEY", "keys": ["ctrl", "a"]},
        {"action_type": "TYPING", "text": "todo_list_Jan_2"},
        {"action_type": "PRESS", "key": "enter"},
    ):
        env.step(action)
    _, reward, terminated, _, info = env.step({"action_type": "DONE"})
    assert terminated and reward == 1.0 and info["valid"] is True

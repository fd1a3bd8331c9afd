"""Key names as pyautogui maps them on X11: unknown names are no-ops, never errors."""

from __future__ import annotations

import pytest

from drums_gym.actions import X11_KEYS, KeyDown, KeyUp, expand, parse, presses_key
from drums_gym.actions.keys import MEDIA_KEYS


def events(code: str) -> list[object]:
    return list(expand(parse(code), pointer=(0, 0)))


@pytest.mark.parametrize(
    "code",
    [
        "pyautogui.press('nosuchkey')",
        "pyautogui.press('super')",
        "pyautogui.press('command')",
        "pyautogui.keyDown('cmd'); pyautogui.keyUp('cmd')",
        "pyautogui.keyDown('')",
        "pyautogui.press(['option', 'fn', 'browserback'])",
        "pyautogui.hotkey('meta', 'f25')",
        "pyautogui.write('\\x00')",
        "pyautogui.write(['nope'])",
    ],
)
def test_unknown_and_unmapped_keys_are_noops(code: str) -> None:
    assert events(code) == []


def test_win_is_super_and_a_noop_key_leaves_the_others() -> None:
    assert events("pyautogui.press('win')") == [KeyDown("win"), KeyUp("win")]
    assert events("pyautogui.hotkey('command', 'ctrl', 'c')") == [
        KeyDown("ctrl"), KeyDown("c"), KeyUp("c"), KeyUp("ctrl"),
    ]  # fmt: skip
    assert events("pyautogui.press(['super', 'Enter'])") == [KeyDown("enter"), KeyUp("enter")]


def test_the_x11_set_is_pyautogui_s_mapped_names() -> None:
    # names pyautogui 0.9.54 lists but maps to None on X11 (a planted 'command' would fail)
    unmapped = {"command", "option", "fn", "accept", "browserback", "launchmail"}
    assert not unmapped & X11_KEYS
    # the media keys are the one deliberate exception (docs/actions.md, docs/desktop.md)
    assert X11_KEYS & {"volumeup", "volumedown", "volumemute"} == MEDIA_KEYS
    assert {"win", "winleft", "winright", "f24", "num0", "apps", "\b"} <= X11_KEYS
    assert presses_key("é") and not presses_key("super") and not presses_key("\x07")

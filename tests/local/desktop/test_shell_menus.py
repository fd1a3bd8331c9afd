"""The top bar's menus and the media keys: the clock's menu with Do Not Disturb (f9be0997),
the System menu's volume slider and the volume keys (28cc3b7e), each solving its task
through gym.make as an agent clicks and presses; their rules against gnome-settings-daemon
42's; their accessibility nodes and XML as at-spi exposes them."""

from __future__ import annotations

import doctest
from collections.abc import Iterable
from xml.etree import ElementTree as ET

import gymnasium as gym
import pytest
from pyauto import at, node, run

import drums_gym  # noqa: F401
from drums_gym.accessibility import NAMESPACES, to_xml
from drums_gym.actions import Sleep
from drums_gym.local.desktop import Desktop, date_menu, volume
from drums_gym.local.desktop.date_menu import DateMenu
from drums_gym.local.desktop.shell_menu import SystemMenu
from drums_gym.local.tasks.shell import run_command
from drums_gym.solvers import Solver, a11y
from drums_gym.solvers.base import Step, click, code

PACTL = "pactl list sinks | grep '^[[:space:]]Volume:' | head -n 1 | awk '{print $5}'"


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


class Plan(Solver):
    def __init__(self, steps: Iterable[Step]) -> None:
        self._plan = list(steps)
        super().__init__()

    def plan(self) -> Iterable[Step]:
        return self._plan


def episode(task: str, policy: Solver) -> tuple[float, dict, int]:
    """One episode with the default step limit; ``(reward, last info, steps)``."""
    env = gym.make(f"Drums/{task}", accessibility=True, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        for steps in range(1, 100):
            obs, reward, terminated, truncated, info = env.step(policy(obs, "", info))
            assert "action_error" not in info, info.get("action_error")
            if terminated or truncated:
                return float(reward), info, steps
    finally:
        env.close()
    raise AssertionError("the episode did not end")


def clock(tree: dict) -> dict:
    return a11y.find(a11y.find(tree, "panel", "Top Bar"), "label")


def in_menu(menu: str, role: str, name: str):
    return lambda tree: a11y.find(a11y.find(tree, "menu", menu), role, name)


# -- the clock's menu: Do Not Disturb ------------------------------------------------

def test_the_clock_menu_switches_do_not_disturb_through_gym_make(hosted) -> None:
    switch = in_menu("Date Menu", "toggle-button", "Do Not Disturb")
    policy = Plan([click(clock), click(switch),
                   code("", check=lambda t: a11y.has_state(switch(t), "checked"))])
    reward, info, steps = episode("f9be0997", policy)
    assert info["valid"] and reward == 1.0 and steps == 3


def test_the_switch_is_the_gsettings_key_both_ways() -> None:
    desk = Desktop()
    run(desk, f"pyautogui.click({at(clock(desk.accessibility()))})")
    switch = node(desk, "toggle-button", "Do Not Disturb", within=("menu", "Date Menu"))
    assert "checked" not in switch["states"]
    run_command(desk, "gsettings set org.gnome.desktop.notifications show-banners false")
    switch = node(desk, "toggle-button", "Do Not Disturb", within=("menu", "Date Menu"))
    assert "checked" in switch["states"]
    before = desk.render().tobytes()
    run(desk, f"pyautogui.click({at(switch)})")
    out = run_command(desk, "gsettings get org.gnome.desktop.notifications show-banners")
    assert out.stdout == "true\n" and desk.render().tobytes() != before  # drawn off again


def test_the_clock_menu_closes_as_gnome_shell_closes_it() -> None:
    desk = Desktop()
    label = at(clock(desk.accessibility()))
    run(desk, f"pyautogui.click({label})")
    assert isinstance(desk.menu, DateMenu)
    run(desk, "pyautogui.press('esc')")
    assert desk.menu is None
    run(desk, f"pyautogui.click({label})", "pyautogui.click(300, 900)")
    assert desk.menu is None  # a click outside
    run(desk, f"pyautogui.click({label})", f"pyautogui.click({label})")
    assert desk.menu is None  # the clock again
    run(desk, f"pyautogui.click({label})",
        f"pyautogui.click({at(node(desk, 'push-button', 'System'))})")
    assert isinstance(desk.menu, SystemMenu)  # another panel button opens its own menu


# -- the System menu's slider ----------------------------------------------------------

def test_the_system_menu_slider_sets_the_volume_through_gym_make(hosted) -> None:
    slider = in_menu("System Menu", "slider", "Volume")

    def right_end(tree: dict) -> str:
        (x, y), (w, h) = slider(tree)["position"], slider(tree)["size"]
        return f"pyautogui.click({x + w - 1}, {y + h // 2})"

    policy = Plan([click(lambda t: a11y.find(a11y.find(t, "panel", "Top Bar"),
                                             "push-button", "System")),
                   code("", check=slider), right_end])
    reward, info, steps = episode("28cc3b7e", policy)
    assert info["valid"] and reward == 1.0 and steps == 3


def test_the_slider_follows_a_drag_and_reads_back_as_at_spi_values() -> None:
    desk = Desktop()
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'System'))})")
    s = node(desk, "slider", "Volume", within=("menu", "System Menu"))
    assert (s["value"], s["minimum"], s["maximum"]) == (0.4, 0.0, 1.0)
    (x, y), (w, h) = s["position"], s["size"]
    run(desk, f"pyautogui.moveTo({x + w // 2}, {y + h // 2})", "pyautogui.mouseDown()",
        f"pyautogui.moveTo({x + w // 4}, {y + h // 2})", "pyautogui.mouseUp()")
    assert volume.percent(desk.fs) == 25 and isinstance(desk.menu, SystemMenu)
    assert run_command(desk, PACTL).stdout == "25%\n"
    xml = ET.fromstring(to_xml(desk.accessibility()))
    el = xml.find(".//menu[@name='System Menu']/slider[@name='Volume']")
    val = NAMESPACES["val"]
    assert el is not None
    assert float(el.get(f"{{{val}}}value", "")) == pytest.approx(0.25, abs=0.005)
    assert [el.get(f"{{{val}}}{k}") for k in ("min", "max", "step")] == ["0.0", "1.0", "0.01"]
    run(desk, f"pyautogui.click({at(node(desk, 'menu-item', 'Settings'))})")
    assert a11y.frame(desk.accessibility(), "Settings")  # the items still work


# -- the media keys --------------------------------------------------------------------

def test_twelve_volume_up_presses_solve_max_volume_through_gym_make(hosted) -> None:
    policy = Plan([code("pyautogui.press('volumeup', presses=12)")])
    reward, info, steps = episode("28cc3b7e", policy)
    assert info["valid"] and reward == 1.0 and steps == 2


def test_media_keys_follow_gnome_settings_daemon() -> None:
    desk = Desktop()
    pct = lambda: run_command(desk, PACTL).stdout  # noqa: E731
    run(desk, "pyautogui.press('volumedown')")
    assert pct() == "34%\n"  # 40% minus the 6% step (65536 * 6 // 100 units)
    run(desk, "pyautogui.press('volumemute')")
    assert "Mute: yes" in run_command(desk, "pactl list sinks").stdout
    run(desk, "pyautogui.press('volumeup')")
    assert pct() == "34%\n" and volume.level(desk.fs)[1] is False  # unmutes, no raise
    run(desk, "pyautogui.press('volumedown', presses=6)")
    assert volume.level(desk.fs) == (0, True)  # at or below one step: 0 and muted
    run(desk, "pyautogui.press('volumeup', presses=30)")
    assert pct() == "100%\n"
    run_command(desk, "gsettings set org.gnome.desktop.sound allow-volume-above-100-percent "
                      "true")
    run(desk, "pyautogui.press('volumeup', presses=30)")
    assert pct() == "153%\n"
    run_command(desk, "gsettings set org.gnome.settings-daemon.plugins.media-keys "
                      "volume-step 20")
    run(desk, "pyautogui.press('volumedown')")
    assert pct() == "133%\n"


def test_media_keys_work_whatever_has_focus_and_show_the_osd_briefly() -> None:
    desk = Desktop()
    run(desk, "pyautogui.hotkey('ctrl', 'alt', 't')", "pyautogui.write('ec')")
    plain = desk.render().copy()
    run(desk, "pyautogui.press('volumeup')")
    assert volume.percent(desk.fs) == 46
    assert "ec" in a11y.terminal(desk.accessibility())["text"]  # the key did not reach it
    shown, frame = desk.render().copy(), desk.frame
    box = (desk.width // 2 - 150, desk.height - 140, desk.width // 2 + 150, desk.height - 88)
    assert shown.crop(box).tobytes() != plain.crop(box).tobytes()
    desk.apply([Sleep(1.0)])
    assert desk.frame == frame  # still up after 1 s of the desktop's clock
    desk.apply([Sleep(0.5)])
    assert desk.frame == frame + 1 and desk.render().tobytes() == plain.tobytes()


@pytest.mark.parametrize("module", [volume, date_menu])
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_a_clone_with_the_system_menu_open_has_its_own_volume() -> None:
    desk = Desktop(width=1280, height=800)
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'System'))})")
    child = desk.clone()
    s = node(child, "slider", "Volume", within=("menu", "System Menu"))
    (x, y), (w, h) = s["position"], s["size"]
    run(child, f"pyautogui.click({x + w - 1}, {y + h // 2})")
    assert volume.percent(child.fs) == 100 and volume.percent(desk.fs) == 40
    assert node(desk, "slider", "Volume")["value"] == 0.4

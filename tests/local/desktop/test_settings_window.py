"""The Settings window: GUI changes land in the store that gsettings/timedatectl/pactl read,
their changes show in the window, it opens as on Ubuntu, and its solvers score through
gym.make (wrong GUI changes score 0)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import drums_gym
from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import get_task
from drums_gym.local.tasks.shell import run_command
from drums_gym.solvers import a11y, get_solver, routes
from drums_gym.solvers.settings_gui import (
    BlankScreenGui,
    DoNotDisturbGui,
    EnlargeTextGui,
    LockScreenGui,
    MaxVolumeGui,
    UtcTimezoneGui,
)

SETTINGS_TASKS = ["bedcedc4", "f9be0997", "a4d98375", "3ce045a0", "b6781586", "28cc3b7e",
                  "ec4e3f68"]


def act(desk: Desktop, code: str) -> None:
    desk.advance(1.0)
    desk.apply(expand(parse(code), pointer=desk.pointer))


def click(desk: Desktop, node: dict, button: str = "left") -> None:
    x, y = a11y.center(node)
    act(desk, f"pyautogui.{'rightClick' if button == 'right' else 'click'}({x}, {y})")


def sh(desk: Desktop, line: str) -> str:
    return run_command(desk, line).stdout


def win(desk: Desktop) -> dict:
    return a11y.frame(desk.accessibility(), "Settings")


def ctl(desk: Desktop, role: str, name: str) -> dict:
    return a11y.find(a11y.find(win(desk), "scroll-pane"), role, name)


def panel(desk: Desktop, name: str) -> None:
    click(desk, a11y.find(a11y.find(win(desk), "list", "Settings"), "list-item", name))


def opened(page: str | None = None) -> Desktop:
    desk = Desktop()
    click(desk, a11y.find(desk.accessibility(), "push-button", "System"))
    click(desk, a11y.find(a11y.find(desk.accessibility(), "menu", "System Menu"), "menu-item",
                          "Settings"))
    if page is not None:
        panel(desk, page)
    return desk


def test_system_menu_opens_settings_on_top_with_its_sidebar() -> None:
    desk = opened()
    frame = a11y.active_frame(desk.accessibility())
    assert frame["name"] == "Settings"
    items = [n["name"] for n in a11y.find(frame, "list", "Settings")["children"]]
    assert items[:5] == ["Network", "Bluetooth", "Background", "Appearance", "Notifications"]
    assert "Power" in items and "Dock" not in items
    dock = [n["name"] for n in a11y.find(desk.accessibility(), "tool-bar", "Dock")["children"]]
    assert "Settings" in dock  # running, though not a favourite


def test_screen_blank_dropdown_writes_idle_delay_and_follows_gsettings() -> None:
    desk = opened("Power")
    assert ctl(desk, "combo-box", "Screen Blank")["text"] == "5 minutes"
    click(desk, ctl(desk, "combo-box", "Screen Blank"))
    menu = a11y.find(desk.accessibility(), "menu", "Screen Blank")
    assert [n["name"] for n in menu["children"]] == [
        "Never", "1 minute", "2 minutes", "3 minutes", "4 minutes", "5 minutes", "8 minutes",
        "10 minutes", "12 minutes", "15 minutes"]
    click(desk, a11y.find(menu, "menu-item", "Never"))
    assert sh(desk, "gsettings get org.gnome.desktop.session idle-delay") == "uint32 0\n"
    assert ctl(desk, "combo-box", "Screen Blank")["text"] == "Never"
    sh(desk, "gsettings set org.gnome.desktop.session idle-delay 900")
    assert ctl(desk, "combo-box", "Screen Blank")["text"] == "15 minutes"


def test_switches_write_their_keys_both_ways() -> None:
    desk = opened("Notifications")
    dnd = ctl(desk, "toggle-button", "Do Not Disturb")
    assert "checked" not in dnd["states"]
    click(desk, dnd)
    assert sh(desk, "gsettings get org.gnome.desktop.notifications show-banners") == "false\n"
    assert "checked" in ctl(desk, "toggle-button", "Do Not Disturb")["states"]
    sh(desk, "gsettings reset org.gnome.desktop.notifications show-banners")
    assert "checked" not in ctl(desk, "toggle-button", "Do Not Disturb")["states"]

    panel(desk, "Privacy")  # the sidebar shows Privacy's pages
    panel(desk, "Screen")
    lock = ctl(desk, "toggle-button", "Automatic Screen Lock")
    assert "checked" not in lock["states"]  # the image's lock is off
    click(desk, lock)
    assert sh(desk, "gsettings get org.gnome.desktop.screensaver lock-enabled") == "true\n"
    click(desk, a11y.find(win(desk), "push-button", "Back"))
    side = a11y.find(win(desk), "list", "Settings")
    assert "Accessibility" not in [n["name"] for n in side["children"]]  # below the fold
    x, y = a11y.center(side)
    act(desk, f"pyautogui.moveTo({x}, {y})\npyautogui.scroll(-10)")
    panel(desk, "Accessibility")
    click(desk, ctl(desk, "toggle-button", "Large Text"))
    assert sh(desk, "gsettings get org.gnome.desktop.interface text-scaling-factor") == "1.25\n"
    click(desk, ctl(desk, "toggle-button", "Large Text"))
    assert sh(desk, "gsettings get org.gnome.desktop.interface text-scaling-factor") == "1.0\n"
    sh(desk, "gsettings set org.gnome.desktop.interface text-scaling-factor 1.5")
    assert "checked" in ctl(desk, "toggle-button", "Large Text")["states"]


def test_keyboard_search_tab_and_space() -> None:
    desk = opened()
    act(desk, "pyautogui.write('notif')")
    items = a11y.find(win(desk), "list", "Settings")["children"]
    assert [n["name"] for n in items] == ["Notifications"]
    act(desk, "pyautogui.press('enter')")
    act(desk, "pyautogui.press('tab')")
    assert "focused" in ctl(desk, "toggle-button", "Do Not Disturb")["states"]
    act(desk, "pyautogui.press('space')")
    assert sh(desk, "gsettings get org.gnome.desktop.notifications show-banners") == "false\n"


def test_a_drop_down_is_chosen_with_the_keyboard_alone() -> None:
    desk = opened("Power")
    act(desk, "pyautogui.press('tab')\npyautogui.press('tab')\npyautogui.press('enter')")
    menu = a11y.find(desk.accessibility(), "menu", "Screen Blank")
    assert menu and desk.hovered_menu_item() == 5  # the current choice, 5 minutes
    act(desk, "pyautogui.press('up', presses=5)")
    assert desk.hovered_menu_item() == 0
    act(desk, "pyautogui.press('enter')")
    assert desk.menu is None
    assert sh(desk, "gsettings get org.gnome.desktop.session idle-delay") == "uint32 0\n"
    act(desk, "pyautogui.press('enter')\npyautogui.press('down')\npyautogui.press('enter')")
    assert sh(desk, "gsettings get org.gnome.desktop.session idle-delay") == "uint32 60\n"


def test_volume_slider_click_drag_and_keys_set_what_pactl_reports() -> None:
    desk = opened("Sound")
    slider = ctl(desk, "slider", "Output Volume")
    assert slider["value"] == 40
    pipeline = ("pactl list sinks | grep '^[[:space:]]Volume:' | head -n 1 | "
                "awk '{print $5}' | sed 's/%//g'")
    (x, y), (w, _) = slider["position"], slider["size"]
    act(desk, f"pyautogui.click({x + w // 4}, {y + 3})")
    assert sh(desk, pipeline) == "25\n"
    act(desk, f"pyautogui.moveTo({x + w // 4}, {y + 3})\n"
              f"pyautogui.dragTo({x + w * 3 // 4}, {y + 3}, button='left')")
    assert sh(desk, pipeline) == "75\n"
    act(desk, "pyautogui.press('end')")
    assert sh(desk, pipeline) == "100\n"
    sh(desk, "pactl set-sink-volume @DEFAULT_SINK@ 30%")
    assert ctl(desk, "slider", "Output Volume")["value"] == 30


def test_time_zone_dialog_sets_what_timedatectl_reports() -> None:
    desk = opened()
    act(desk, "pyautogui.write('date')")
    panel(desk, "Date & Time")
    row = ctl(desk, "list-item", "Time Zone")
    assert row["text"] == "EST (New York, United States)"
    click(desk, row)
    dialog = a11y.frame(desk.accessibility(), "Time Zone", active=True)
    assert a11y.find(dialog, "entry", "Search for a city")["text"] == ""
    act(desk, "pyautogui.write('berl')")
    act(desk, "pyautogui.press('enter')")
    assert "Time zone: Europe/Berlin (CET, +0100)" in sh(desk, "timedatectl status")
    sh(desk, "echo password | sudo -S timedatectl set-timezone Asia/Tokyo")
    assert "JST" in ctl(desk, "list-item", "Time Zone")["text"]


def test_activities_search_opens_settings_and_panels() -> None:
    desk = Desktop()
    click(desk, a11y.find(desk.accessibility(), "push-button", "Activities"))
    act(desk, "pyautogui.write('settings')")
    over = a11y.find(desk.accessibility(), "panel", "Overview")
    assert a11y.find(over, "push-button", "Settings")
    act(desk, "pyautogui.press('enter')")
    assert a11y.active_frame(desk.accessibility())["name"] == "Settings"
    desk = Desktop()
    act(desk, "pyautogui.press('win')\npyautogui.write('volume')")
    over = a11y.find(desk.accessibility(), "panel", "Overview")
    click(desk, a11y.find(a11y.find(over, "list", "Settings"), "list-item", "Sound"))
    assert a11y.find(win(desk), "scroll-pane", "Sound")
    act(desk, "pyautogui.press('win')")
    act(desk, "pyautogui.press('escape')")
    assert not any(n["name"] == "Overview" for n in a11y.windows(desk.accessibility()))


def test_settings_window_survives_clone_and_renders_each_panel() -> None:
    desk = opened("Power")
    twin = desk.clone()
    click(twin, ctl(twin, "combo-box", "Screen Blank"))
    click(twin, a11y.find(a11y.find(twin.accessibility(), "menu", "Screen Blank"), "menu-item",
                          "Never"))
    assert sh(desk, "gsettings get org.gnome.desktop.session idle-delay") == "uint32 300\n"
    before = desk.frame
    for name in ("Notifications", "Sound", "Power", "Accessibility", "Date & Time", "About",
                 "Privacy"):
        act(desk, f"pyautogui.write({name!r})\npyautogui.press('enter')")
        assert a11y.find(win(desk), "scroll-pane")["name"] == (
            "Connectivity" if name == "Privacy" else name)
        assert desk.render().size == (1920, 1080)
        act(desk, "pyautogui.press('escape')\npyautogui.press('escape')")
    assert desk.frame > before


# -- the solvers through gym.make --------------------------------------------------------

@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


def run(task: str, policy) -> tuple[float, dict, int]:
    drums_gym.register_task(get_task(task).id)  # in case the generated id list lags the catalog
    env = gym.make(f"Drums/{task}", accessibility=True, max_steps=15, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        policy.reset()
        steps = 0
        while True:
            obs, reward, terminated, truncated, info = env.step(policy(obs, "", info))
            steps += 1
            assert "action_error" not in info, info.get("action_error")
            if terminated or truncated:
                return float(reward), info, steps
    finally:
        env.close()


@pytest.mark.parametrize("task", SETTINGS_TASKS)
def test_gui_solver_scores_one_within_15_steps(hosted, task):
    assert routes(task)[0] == "gui" and "terminal" in routes(task)
    reward, info, steps = run(task, get_solver(task, "gui"))
    assert info["valid"] and reward == 1.0 and steps <= 15


def _variant(base: type, **attrs: object) -> object:
    return type(f"Wrong{base.__name__}", (base,), attrs)()


WRONG = [
    ("bedcedc4", _variant(BlankScreenGui, CHOICE="5 minutes")),
    ("bedcedc4", _variant(BlankScreenGui, CHOICE="15 minutes")),
    ("f9be0997", _variant(DoNotDisturbGui, SWITCH="Lock Screen Notifications")),
    ("a4d98375", _variant(LockScreenGui, SWITCH="Lock Screen on Suspend")),
    ("3ce045a0", _variant(EnlargeTextGui, SWITCH="High Contrast")),
    ("b6781586", _variant(UtcTimezoneGui, SEARCH="Berlin", CITY="Berlin, Germany")),
    ("28cc3b7e", _variant(MaxVolumeGui, KEY="pageup")),
]


@pytest.mark.parametrize(("task", "policy"), WRONG,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(WRONG)])
def test_wrong_gui_changes_score_zero(hosted, task, policy):
    reward, info, _ = run(task, policy)
    assert info["valid"] and reward == 0.0


def test_readme_screenshots_of_settings_and_the_dock_menu_exist() -> None:
    from pathlib import Path

    from PIL import Image

    docs = Path(__file__).resolve().parents[3] / "docs"
    for name in ("settings.png", "dock-menu.png"):
        with Image.open(docs / name, formats=["PNG"]) as image:
            assert image.size == (1920, 1080)
        assert f"docs/{name}" in (docs.parent / "README.md").read_text()

"""The dock is drawn from org.gnome.shell favorite-apps; its right-click menu edits the key."""

from __future__ import annotations

import gymnasium as gym
import pytest

import drums_gym
from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import get_task
from drums_gym.local.tasks.shell import run_command
from drums_gym.solvers import a11y, get_solver
from drums_gym.solvers.settings_gui import RemoveFavoriteGui


def act(desk: Desktop, code: str) -> None:
    desk.advance(1.0)
    desk.apply(expand(parse(code), pointer=desk.pointer))


def dock(desk: Desktop) -> list[str]:
    return [n["name"] for n in a11y.find(desk.accessibility(), "tool-bar", "Dock")["children"]]


def favorites(desk: Desktop) -> str:
    return run_command(desk, "gsettings get org.gnome.shell favorite-apps").stdout


def right_click(desk: Desktop, label: str) -> dict:
    x, y = a11y.center(a11y.dock_button(desk.accessibility(), label))
    act(desk, f"pyautogui.rightClick({x}, {y})")
    return a11y.find(desk.accessibility(), "menu", label)


def test_fresh_dock_is_the_image_favourites_then_trash() -> None:
    desk = Desktop()
    assert dock(desk) == ["Firefox Web Browser", "Thunderbird Mail", "Files", "Terminal",
                          "LibreOffice Writer", "Ubuntu Software", "Help", "Trash",
                          "Show Applications"]
    assert "'org.gnome.Terminal.desktop'" in favorites(desk)


def test_gsettings_changes_redraw_the_dock() -> None:
    desk = Desktop()
    before = desk.render().tobytes()
    run_command(desk, "gsettings set org.gnome.shell favorite-apps "
                      "\"['thunderbird.desktop', 'vim.desktop', 'not-installed.desktop', "
                      "'google-chrome.desktop']\"")
    assert dock(desk) == ["Thunderbird Mail", "Vim", "Google Chrome", "Trash",
                          "Show Applications"]
    assert desk.render().tobytes() != before
    run_command(desk, "gsettings reset org.gnome.shell favorite-apps")  # Ubuntu's default
    assert "Rhythmbox" in dock(desk) and "Terminal" not in dock(desk)


def test_remove_from_favorites_updates_the_key_and_the_dock() -> None:
    desk = Desktop()
    menu = right_click(desk, "Thunderbird Mail")
    names = [n["name"] for n in menu["children"] if n["role"] == "menu-item"]
    assert names == ["New Window", "Remove from Favorites", "Show Details"]
    x, y = a11y.center(a11y.find(menu, "menu-item", "Remove from Favorites"))
    act(desk, f"pyautogui.click({x}, {y})")
    assert "thunderbird" not in favorites(desk)
    assert "Thunderbird Mail" not in dock(desk)
    assert favorites(desk).startswith("['firefox_firefox.desktop', 'org.gnome.Nautilus.desktop'")


def test_a_running_app_not_in_favourites_can_be_added() -> None:
    desk = Desktop()
    desk.open_settings()
    assert dock(desk)[-3:] == ["Settings", "Trash", "Show Applications"]
    menu = right_click(desk, "Settings")
    names = [n["name"] for n in menu["children"] if n["role"] == "menu-item"]
    assert names == ["New Window", "Add to Favorites", "Show Details", "Quit"]
    x, y = a11y.center(a11y.find(menu, "menu-item", "Add to Favorites"))
    act(desk, f"pyautogui.click({x}, {y})")
    assert favorites(desk).endswith("'org.gnome.Settings.desktop']\n")
    menu = right_click(desk, "Settings")
    x, y = a11y.center(a11y.find(menu, "menu-item", "Quit"))
    act(desk, f"pyautogui.click({x}, {y})")
    assert not desk.windows and "Settings" in dock(desk)  # a favourite now


def test_menu_escape_and_left_click_still_launch() -> None:
    desk = Desktop()
    right_click(desk, "Files")
    act(desk, "pyautogui.press('escape')")
    assert desk.menu is None and "Files" in dock(desk)
    x, y = a11y.center(a11y.dock_button(desk.accessibility(), "Files"))
    act(desk, f"pyautogui.click({x}, {y})")
    assert a11y.active_frame(desk.accessibility())["name"] == "Home"


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


def run(policy) -> float:
    drums_gym.register_task(get_task("ec4e3f68").id)
    env = gym.make("Drums/ec4e3f68", accessibility=True, max_steps=15, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        assert [n["name"] for n in a11y.find(info["accessibility"], "tool-bar",
                                             "Dock")["children"]][:3] == [
            "Thunderbird Mail", "Vim", "Google Chrome"]
        policy.reset()
        while True:
            obs, reward, terminated, truncated, info = env.step(policy(obs, "", info))
            if terminated or truncated:
                assert info["valid"]
                return float(reward)
    finally:
        env.close()


def test_gui_route_removes_vim_and_scores_one(hosted) -> None:
    assert run(get_solver("ec4e3f68", "gui")) == 1.0


@pytest.mark.parametrize("app", ["Thunderbird Mail", "Google Chrome"])
def test_removing_another_favourite_scores_zero(hosted, app) -> None:
    wrong = type("WrongRemove", (RemoveFavoriteGui,), {"APP": app})()
    assert run(wrong) == 0.0


def test_dock_and_activities_are_components_of_their_desktop() -> None:
    desk = Desktop()
    twin = desk.clone()
    assert desk.dock.desk is desk and desk.activities.desk is desk
    assert twin.dock.desk is twin and twin.activities.desk is twin
    run_command(twin, "gsettings set org.gnome.shell favorite-apps \"['vim.desktop']\"")
    assert dock(twin)[0] == "Vim" and dock(desk)[0] == "Firefox Web Browser"

"""GUI routes of the settings tasks: the Settings window, Activities search, the dock's menu.

Settings opens as a person opens it on Ubuntu 22.04: from the top bar's system menu
(``System`` → ``Settings``), or from Activities (the Super key, then typing). Every position
comes from the accessibility tree at the time of the click: the Settings window is the
``frame`` named ``Settings``, its sidebar the ``list`` named ``Settings`` (``list-item``
per panel), a switch a ``toggle-button`` (``checked`` when on), a drop-down a
``combo-box`` whose choices open as a ``menu`` of ``menu-item``, the volume a ``slider``.

Each class keeps what it chooses in class attributes (``PANEL``, ``SWITCH``, ``CHOICE``,
``CITY``, ``APP``...), so a variant that makes the wrong choice is one subclass away (the
tests build the wrong solutions that way).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from . import a11y
from .a11y import Node
from .base import Locate, Solver, Step, click, code, press, write

__all__ = [
    "BlankScreenGui",
    "DoNotDisturbGui",
    "EnlargeTextGui",
    "LockScreenGui",
    "MaxVolumeGui",
    "RemoveFavoriteGui",
    "UtcTimezoneGui",
    "open_settings",
    "settings",
]


# -- locators -------------------------------------------------------------------------

def settings(tree: Node) -> Node:
    """The Settings window."""
    return a11y.frame(tree, "Settings")


def sidebar_item(name: str) -> Locate:
    return lambda tree: a11y.find(a11y.find(settings(tree), "list", "Settings"), "list-item",
                                  name)


def control(role: str, name: str) -> Locate:
    """A control of the panel Settings shows (``toggle-button``, ``combo-box``, ...)."""
    return lambda tree: a11y.find(a11y.find(settings(tree), "scroll-pane"), role, name)


def menu_item(menu: str, label: str) -> Locate:
    return lambda tree: a11y.find(a11y.find(tree, "menu", menu), "menu-item", label)


def _top_bar(name: str) -> Locate:
    return lambda tree: a11y.find(a11y.find(tree, "panel", "Top Bar"), "push-button", name)


def _showing(locate: Locate) -> Step:
    """Nothing to do once ``locate`` finds its node (a gate for the next step)."""
    return lambda tree: "" if locate(tree) else None


def open_settings() -> list[Step]:
    """System menu → Settings, unless a Settings window is open already."""
    def system(tree: Node) -> str | None:
        try:
            settings(tree)
            return ""
        except LookupError:
            return click(_top_bar("System"))(tree)

    def entry(tree: Node) -> str | None:
        try:
            settings(tree)
            return ""
        except LookupError:
            return click(menu_item("System Menu", "Settings"))(tree)
    return [system, entry, _showing(settings)]


def toggle(role_name: str, on: bool = True) -> Step:
    """Click the switch ``role_name`` if it is not already ``on``."""
    locate = control("toggle-button", role_name)

    def step(tree: Node) -> str | None:
        node = locate(tree)
        if a11y.has_state(node, "checked") == on:
            return ""
        return click(lambda _t: node)(tree)
    return step


def _switch_task(panel_path: tuple[str, ...], switch: str, on: bool) -> list[Step]:
    steps = open_settings()
    for name in panel_path:
        steps.append(click(sidebar_item(name)))
    steps.append(toggle(switch, on))
    return steps


# -- the tasks -------------------------------------------------------------------------

class BlankScreenGui(Solver):
    """bedcedc4: Settings → Power → Screen Blank → Never (``idle-delay`` 0)."""

    task_id = "bedcedc4-4d72-425e-ad62-21960b11fe0d"
    steps = 6
    route = "gui"
    COMBO: ClassVar[str] = "Screen Blank"
    CHOICE: ClassVar[str] = "Never"

    def plan(self) -> Iterable[Step]:
        return [*open_settings(), click(sidebar_item("Power")),
                click(control("combo-box", self.COMBO)),
                click(menu_item(self.COMBO, self.CHOICE))]


class DoNotDisturbGui(Solver):
    """f9be0997: Settings → Notifications → Do Not Disturb on."""

    task_id = "f9be0997-4b7c-45c5-b05c-4612b44a6118"
    steps = 5
    route = "gui"
    SWITCH: ClassVar[str] = "Do Not Disturb"

    def plan(self) -> Iterable[Step]:
        return _switch_task(("Notifications",), self.SWITCH, True)


class LockScreenGui(Solver):
    """a4d98375: Settings → Privacy → Screen → Automatic Screen Lock on."""

    task_id = "a4d98375-215b-4a4d-aee9-3d4370fccc41"
    steps = 6
    route = "gui"
    SWITCH: ClassVar[str] = "Automatic Screen Lock"

    def plan(self) -> Iterable[Step]:
        return _switch_task(("Privacy", "Screen"), self.SWITCH, True)


class EnlargeTextGui(Solver):
    """3ce045a0: Activities, search "large text", the Accessibility panel → Large Text on."""

    task_id = "3ce045a0-877b-42aa-8d2c-b4a863336ab8"
    steps = 5
    route = "gui"
    SWITCH: ClassVar[str] = "Large Text"

    def plan(self) -> Iterable[Step]:
        overview = lambda tree: a11y.find(tree, "panel", "Overview")  # noqa: E731
        result = lambda tree: a11y.find(a11y.find(overview(tree), "list", "Settings"),  # noqa: E731
                                        "list-item", "Accessibility")
        return [press("win"), write("large text", check=overview), click(result),
                _showing(settings), toggle(self.SWITCH, True)]


class UtcTimezoneGui(Solver):
    """b6781586: Settings, search "date" → Date & Time → Time Zone → search "UTC" → pick
    Coordinated Universal Time."""

    task_id = "b6781586-6346-41cd-935a-a6b1487918fc"
    steps = 8
    route = "gui"
    SEARCH: ClassVar[str] = "UTC"
    CITY: ClassVar[str] = "Coordinated Universal Time (UTC)"

    def plan(self) -> Iterable[Step]:
        dialog = lambda tree: a11y.frame(tree, "Time Zone", active=True)  # noqa: E731
        city = lambda tree: a11y.find(a11y.find(dialog(tree), "list", "Locations"),  # noqa: E731
                                      "list-item", self.CITY)
        return [*open_settings(), write("date", check=settings),
                click(sidebar_item("Date & Time")), click(control("list-item", "Time Zone")),
                write(self.SEARCH, check=dialog), click(city)]


class MaxVolumeGui(Solver):
    """28cc3b7e: Settings → Sound → the Output Volume slider, then End (its maximum)."""

    task_id = "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2"
    steps = 6
    route = "gui"
    KEY: ClassVar[str] = "end"

    def plan(self) -> Iterable[Step]:
        slider = control("slider", "Output Volume")
        return [*open_settings(), click(sidebar_item("Sound")), click(slider),
                code(f"pyautogui.press({self.KEY!r})",
                     check=lambda tree: a11y.has_state(slider(tree), "focused"))]


class RemoveFavoriteGui(Solver):
    """ec4e3f68: right-click Vim in the dock → Remove from Favorites (the checker keeps
    Thunderbird and Google Chrome, so Vim is the one that goes)."""

    task_id = "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3"
    steps = 3
    route = "gui"
    APP: ClassVar[str] = "Vim"

    def plan(self) -> Iterable[Step]:
        return [click(lambda tree: a11y.dock_button(tree, self.APP), button="right"),
                click(menu_item(self.APP, "Remove from Favorites"))]

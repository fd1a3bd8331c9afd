"""The clock's menu (GNOME Shell 42's date menu, as Ubuntu 22.04 draws it): notifications on
the left with the Do Not Disturb switch and Clear, today's date, the month's calendar and
the world clocks / weather buttons on the right.

The switch is bound to ``org.gnome.desktop.notifications show-banners`` (on when banners are
off), in the same GSettings store ``gsettings`` reads. In the accessibility tree the menu is a
``menu`` named ``Date Menu`` with a ``toggle-button`` named ``Do Not Disturb`` (``checked``
when on), as St exposes the switch's button.

>>> from drums_gym.local.desktop.fs import FileSystem
>>> fs = FileSystem()
>>> menu = DateMenu.open(fs, (1920, 1080))
>>> x, y = menu.center_of("Do Not Disturb")
>>> menu.on_press(None, x, y), dnd_on(fs)
(True, True)
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar

from PIL import Image, ImageDraw

from .fs import FileSystem
from .popups import Box
from .settings_store import SettingsStore
from .shell_menu import (
    ARROW,
    DARK_BORDER,
    DARK_DIM,
    DARK_SEP,
    DARK_TEXT,
    ShellMenu,
    draw_switch,
    popover,
)
from .theme import ACCENT, TOP_BAR_H, font, rounded
from .windows import node

__all__ = ["DateMenu", "dnd_on", "set_dnd"]

_BANNERS = ("org.gnome.desktop.notifications", "show-banners")
_BUTTON = (70, 70, 70)


def dnd_on(fs: FileSystem) -> bool:
    """Whether Do Not Disturb is on (banners off)."""
    return not SettingsStore(fs).get(*_BANNERS)


def set_dnd(fs: FileSystem, on: bool) -> None:
    SettingsStore(fs).set(*_BANNERS, not on)


@dataclass
class DateMenu(ShellMenu):
    """The date menu, centred under the clock."""

    W: ClassVar[int] = 720
    H: ClassVar[int] = 440
    SPLIT: ClassVar[int] = 372  # the notification list's width

    @classmethod
    def open(cls, fs: FileSystem, screen: tuple[int, int]) -> DateMenu:
        x = max(0, (screen[0] - cls.W) // 2)
        return cls((), x, TOP_BAR_H + ARROW + 3, cls.W, origin=(screen[0] // 2, TOP_BAR_H),
                   name="Date Menu", fs=fs, arrow_x=screen[0] // 2)

    @property
    def height(self) -> int:
        return self.H

    def _fs(self) -> FileSystem:
        if self.fs is None:
            raise ValueError("DateMenu.fs: the menu needs the desktop's filesystem")
        return self.fs

    def _today(self) -> datetime:
        return datetime.fromtimestamp(self._fs().clock.now(), tz=timezone.utc)

    # -- geometry -----------------------------------------------------------------
    def switch_rect(self) -> Box:
        bottom = self.y + self.H - 30
        x1 = self.x + self.SPLIT - 110
        return x1 - 48, bottom - 13, x1, bottom + 13

    def clear_rect(self) -> Box:
        bottom = self.y + self.H - 30
        x1 = self.x + self.SPLIT - 14
        return x1 - 80, bottom - 16, x1, bottom + 16

    def _boxes(self) -> dict[str, Box]:
        rx0, rx1 = self.x + self.SPLIT + 16, self.x + self.W - 16
        y = self.y + self.H - 118
        return {"Do Not Disturb": self.switch_rect(), "Clear": self.clear_rect(),
                "Previous month": (rx0, self.y + 84, rx0 + 30, self.y + 112),
                "Next month": (rx1 - 30, self.y + 84, rx1, self.y + 112),
                "Add world clocks…": (rx0, y, rx1, y + 44),
                "Select weather location…": (rx0, y + 52, rx1, y + 96)}

    def center_of(self, name: str) -> tuple[int, int]:
        x0, y0, x1, y1 = self._boxes()[name]
        return (x0 + x1) // 2, (y0 + y1) // 2

    # -- input --------------------------------------------------------------------
    def on_press(self, desk: Any, x: int, y: int) -> bool:
        x0, y0, x1, y1 = self.switch_rect()
        if x0 - 160 <= x <= x1 + 4 and y0 - 8 <= y <= y1 + 8:  # the label is the button too
            set_dnd(self._fs(), not dnd_on(self._fs()))
        return True  # nothing else here acts in the simulator

    def render_key(self) -> tuple[Any, ...]:
        return dnd_on(self._fs()), self._today().date()

    # -- drawing ------------------------------------------------------------------
    def draw(self, img: Image.Image, hover: int | None) -> None:
        popover(img, self.rect, self.arrow_x)
        d = ImageDraw.Draw(img)
        x0, y0 = self.x, self.y
        split = x0 + self.SPLIT
        d.line((split, y0 + 16, split, y0 + self.H - 16), fill=DARK_SEP)
        cx, cy = x0 + self.SPLIT // 2, y0 + (self.H - 60) // 2
        _bell(d, cx, cy - 30)
        d.text((cx, cy + 28), "No Notifications", font=font(15, bold=True), fill=DARK_DIM,
               anchor="mm")
        _, sy0, _, sy1 = self.switch_rect()
        d.text((x0 + 20, (sy0 + sy1) // 2), "Do Not Disturb", font=font(14), fill=DARK_TEXT,
               anchor="lm")
        draw_switch(d, self.switch_rect(), dnd_on(self._fs()))
        bx0, by0, bx1, by1 = self.clear_rect()
        rounded(d, (bx0, by0, bx1, by1), 8, fill=_BUTTON)
        d.text(((bx0 + bx1) // 2, (by0 + by1) // 2), "Clear", font=font(14), fill=DARK_DIM,
               anchor="mm")
        self._draw_calendar(d, split + 16, x0 + self.W - 16)

    def _draw_calendar(self, d: ImageDraw.ImageDraw, rx0: int, rx1: int) -> None:
        today, y0 = self._today(), self.y
        d.text((rx0 + 6, y0 + 26), f"{today:%A}", font=font(13, bold=True), fill=DARK_DIM,
               anchor="lm")
        d.text((rx0 + 6, y0 + 52), f"{today:%B} {today.day} {today.year}",
               font=font(20, bold=True), fill=DARK_TEXT, anchor="lm")
        boxes = self._boxes()
        for name, sign in (("Previous month", -1), ("Next month", 1)):
            bx0, by0, bx1, by1 = boxes[name]
            mx, my = (bx0 + bx1) // 2, (by0 + by1) // 2
            d.line((mx - 3 * sign, my - 6, mx + 3 * sign, my, mx - 3 * sign, my + 6),
                   fill=DARK_TEXT, width=2)
        d.text(((rx0 + rx1) // 2, y0 + 98), f"{today:%B}", font=font(14, bold=True),
               fill=DARK_TEXT, anchor="mm")
        cell = (rx1 - rx0) // 7
        for i, letter in enumerate("SMTWTFS"):
            d.text((rx0 + cell * i + cell // 2, y0 + 132), letter, font=font(12, bold=True),
                   fill=DARK_DIM, anchor="mm")
        weeks = calendar.Calendar(firstweekday=6).monthdatescalendar(today.year, today.month)
        row_h = 30
        for r, week in enumerate(weeks[:6]):
            for c, day in enumerate(week):
                mx, my = rx0 + cell * c + cell // 2, y0 + 160 + r * row_h
                if day == today.date():
                    d.ellipse((mx - 14, my - 14, mx + 14, my + 14), fill=ACCENT)
                colour = DARK_TEXT if day.month == today.month else (110, 110, 110)
                if day == today.date():
                    colour = (255, 255, 255)
                d.text((mx, my), str(day.day), font=font(13, bold=day == today.date()),
                       fill=colour, anchor="mm")
        for name in ("Add world clocks…", "Select weather location…"):
            bx0, by0, bx1, by1 = boxes[name]
            rounded(d, (bx0, by0, bx1, by1), 10, fill=(64, 64, 64), outline=DARK_BORDER)
            title = "World Clocks" if name.startswith("Add") else "Weather"
            d.text((bx0 + 14, by0 + 13), title, font=font(12, bold=True), fill=DARK_TEXT,
                   anchor="lm")
            d.text((bx0 + 14, by0 + 31), name, font=font(12), fill=DARK_DIM, anchor="lm")

    def accessibility(self) -> dict[str, Any]:
        today = self._today()
        shown = ["enabled", "showing", "visible"]
        root = node("menu", self.name, self.rect, shown)
        on = dnd_on(self._fs())
        boxes = self._boxes()
        button = ["enabled", "focusable", "sensitive", "showing", "visible"]
        root["children"] = [
            node("label", "No Notifications", (self.x, self.y + 120, self.x + self.SPLIT,
                                                self.y + 260), ["showing", "visible"]),
            node("toggle-button", "Do Not Disturb", boxes["Do Not Disturb"],
                 [*button, "checkable", *(["checked", "pressed"] if on else [])]),
            node("push-button", "Clear", boxes["Clear"], ["focusable", "showing", "visible"]),
            node("label", f"{today:%A}", (self.x + self.SPLIT, self.y + 14, self.x + self.W,
                                           self.y + 38), ["showing", "visible"]),
            node("label", f"{today:%B} {today.day} {today.year}",
                 (self.x + self.SPLIT, self.y + 38, self.x + self.W, self.y + 66),
                 ["showing", "visible"]),
            node("push-button", "Previous month", boxes["Previous month"], button),
            node("label", f"{today:%B}", (self.x + self.SPLIT + 50, self.y + 84,
                                           self.x + self.W - 50, self.y + 112),
                 ["showing", "visible"]),
            node("push-button", "Next month", boxes["Next month"], button),
            node("push-button", "Add world clocks…", boxes["Add world clocks…"], button),
            node("push-button", "Select weather location…", boxes["Select weather location…"],
                 button),
        ]
        return root


def _bell(d: ImageDraw.ImageDraw, cx: int, cy: int) -> None:
    """The notifications placeholder's bell (a large dim symbolic icon)."""
    c = (120, 120, 120)
    d.chord((cx - 22, cy - 26, cx + 22, cy + 22), 180, 360, fill=c)
    d.rectangle((cx - 22, cy - 2, cx + 22, cy + 14), fill=c)
    d.polygon([(cx - 30, cy + 22), (cx - 22, cy + 12), (cx + 22, cy + 12), (cx + 30, cy + 22)],
              fill=c)
    d.ellipse((cx - 7, cy + 22, cx + 7, cy + 34), fill=c)
    d.ellipse((cx - 4, cy - 32, cx + 4, cy - 24), fill=c)

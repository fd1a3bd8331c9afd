"""GNOME Shell 42's panel menus as Ubuntu 22.04 draws them (Yaru dark popovers): the
`ShellMenu` base, the System menu (`SystemMenu`: the output volume slider, then network,
Settings, Lock, Power Off) and the volume OSD.

A shell menu is a `Menu` (``desk.menu``): the pointer, Up/Down/Enter and Escape work on its
items as on any menu, a click outside closes it. Its controls take presses first
(`Menu.on_press`): the System menu's slider sets the volume where it is clicked and follows
a drag (`volume.set_fraction`). In the accessibility tree it is a ``menu`` named
``System Menu`` holding a ``slider`` named ``Volume`` (its ``value`` the volume as a fraction
of 100%, ``minimum`` 0, ``maximum`` 1, or 1.53 with over-amplification, as St's slider
exposes it) and the ``menu-item`` entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image, ImageDraw

from . import art, volume
from .fs import FileSystem
from .popups import SEPARATOR, Box, Menu, MenuItem
from .theme import ACCENT, TOP_BAR_H, font, rounded
from .windows import node as _node

__all__ = ["DARK_BG", "DARK_TEXT", "ShellMenu", "SystemMenu", "draw_osd", "draw_switch"]

DARK_BG = (54, 54, 54)  # Yaru's shell popover
DARK_BORDER = (74, 74, 74)
DARK_TEXT = (238, 238, 236)
DARK_DIM = (164, 164, 160)
DARK_HOVER = (72, 72, 72)
DARK_SEP = (78, 78, 78)
_TROUGH = (96, 96, 96)
_KNOB = (242, 242, 242)
ARROW = 9  # the box pointer's height


def draw_switch(d: ImageDraw.ImageDraw, box: Box, on: bool) -> None:
    """The shell's switch: an accent track with the knob right when on, grey when off."""
    x0, y0, x1, y1 = box
    rounded(d, box, (y1 - y0) // 2, fill=ACCENT if on else (88, 88, 88))
    k = y1 - y0 - 4
    kx = x1 - 2 - k if on else x0 + 2
    d.ellipse((kx, y0 + 2, kx + k, y0 + 2 + k), fill=_KNOB)


def _draw_slider(d: ImageDraw.ImageDraw, track: Box, fraction: float) -> None:
    x0, y0, x1, y1 = track
    cy = (y0 + y1) // 2
    rounded(d, (x0, cy - 2, x1, cy + 2), 2, fill=_TROUGH)
    kx = x0 + round((x1 - x0) * max(0.0, min(1.0, fraction)))
    if kx > x0:
        rounded(d, (x0, cy - 2, kx, cy + 2), 2, fill=ACCENT)
    d.ellipse((kx - 9, cy - 9, kx + 9, cy + 9), fill=_KNOB, outline=(40, 40, 40))


def speaker_icon(d: ImageDraw.ImageDraw, x: int, cy: int, fill: tuple[int, int, int],
                 waves: int = 2) -> None:
    """The audio-volume symbolic icon (``waves`` 0: muted, with a cross)."""
    d.polygon([(x, cy - 3), (x + 4, cy - 3), (x + 9, cy - 7), (x + 9, cy + 7), (x + 4, cy + 3),
               (x, cy + 3)], fill=fill)
    if waves == 0:
        d.line((x + 12, cy - 4, x + 18, cy + 4), fill=fill, width=2)
        d.line((x + 12, cy + 4, x + 18, cy - 4), fill=fill, width=2)
    for i in range(waves):
        r = 5 + 4 * i
        d.arc((x + 7 - r + 4, cy - r, x + 7 + r + 4, cy + r), 300, 60, fill=fill, width=2)


def _item_icon(d: ImageDraw.ImageDraw, action: str, x: int, cy: int) -> None:
    c = DARK_TEXT
    if action == "system-network":
        d.rectangle((x + 5, cy - 7, x + 11, cy - 2), fill=c)
        d.line((x + 8, cy - 2, x + 8, cy + 1), fill=c, width=2)
        d.line((x + 2, cy + 1, x + 14, cy + 1), fill=c, width=2)
        for xx in (x, x + 6, x + 12):
            d.rectangle((xx, cy + 3, xx + 4, cy + 7), fill=c)
    elif action == "system-settings":
        d.ellipse((x + 1, cy - 7, x + 15, cy + 7), outline=c, width=3)
        d.ellipse((x + 6, cy - 2, x + 10, cy + 2), fill=c)
    elif action == "system-lock":
        d.arc((x + 3, cy - 9, x + 13, cy + 1), 180, 360, fill=c, width=2)
        rounded(d, (x + 1, cy - 3, x + 15, cy + 7), 2, fill=c)
    elif action == "system-power":
        d.arc((x + 1, cy - 7, x + 15, cy + 7), 300, 240, fill=c, width=2)
        d.line((x + 8, cy - 8, x + 8, cy), fill=c, width=2)


def popover(img: Image.Image, rect: Box, arrow_x: int | None) -> None:
    """A dark shell popover at ``rect`` (rounded, shadowed) with its box pointer at
    ``arrow_x`` on the top edge."""
    x0, y0, x1, y1 = rect
    sh = art.shadow(x1 - x0, y1 - y0, 10, 110)
    img.paste(sh, (x0 - 20, y0 - 20), sh)
    d = ImageDraw.Draw(img)
    rounded(d, (x0, y0, x1 - 1, y1 - 1), 12, fill=DARK_BG, outline=DARK_BORDER)
    if arrow_x is not None:
        ax = max(x0 + 20, min(arrow_x, x1 - 20))
        d.polygon([(ax - ARROW, y0 + 1), (ax, y0 - ARROW), (ax + ARROW, y0 + 1)], fill=DARK_BG,
                  outline=DARK_BORDER)
        d.line((ax - ARROW + 1, y0 + 1, ax + ARROW - 1, y0 + 1), fill=DARK_BG, width=2)


@dataclass
class ShellMenu(Menu):
    """A panel menu: a dark popover under the top bar, pointing at its button (``arrow_x``).
    ``fs`` is the desktop's filesystem (where the settings it shows live)."""

    fs: FileSystem | None = None
    arrow_x: int | None = None
    shell: bool = True
    dragging: bool = False

    ITEM: ClassVar[int] = 36
    SEP: ClassVar[int] = 13
    HEAD: ClassVar[int] = 0  # the controls above the items (the System menu's slider)

    @property
    def height(self) -> int:
        return self.HEAD + sum(self.SEP if i.separator else self.ITEM for i in self.items) + 16

    def item_rects(self) -> list[Box]:
        out, y = [], self.y + 8 + self.HEAD
        for item in self.items:
            h = self.SEP if item.separator else self.ITEM
            out.append((self.x + 1, y, self.x + self.width - 1, y + h))
            y += h
        return out

    def draw(self, img: Image.Image, hover: int | None) -> None:
        popover(img, self.rect, self.arrow_x)
        d = ImageDraw.Draw(img)
        self.draw_head(img, d)
        f = font(14)
        for i, (bx0, by0, bx1, by1) in enumerate(self.item_rects()):
            item = self.items[i]
            cy = (by0 + by1) // 2
            if item.separator:
                d.line((bx0 + 12, cy, bx1 - 12, cy), fill=DARK_SEP)
                continue
            if i == hover:
                rounded(d, (bx0 + 6, by0 + 1, bx1 - 6, by1 - 1), 8, fill=DARK_HOVER)
            _item_icon(d, item.action, bx0 + 20, cy)
            d.text((bx0 + 48, cy), item.label, font=f,
                   fill=DARK_TEXT if item.enabled else DARK_DIM, anchor="lm")
            if item.action in ("system-network", "system-power"):  # a submenu
                d.line((bx1 - 26, cy - 5, bx1 - 21, cy, bx1 - 26, cy + 5), fill=DARK_TEXT,
                       width=2)

    def draw_head(self, img: Image.Image, d: ImageDraw.ImageDraw) -> None:
        """The controls above the items (subclasses)."""


@dataclass
class SystemMenu(ShellMenu):
    """The System menu (the top bar's right end), with the output volume slider on top."""

    HEAD: ClassVar[int] = 46
    W: ClassVar[int] = 340

    @classmethod
    def open(cls, fs: FileSystem, screen: tuple[int, int]) -> SystemMenu:
        items = (SEPARATOR, MenuItem("Wired Connected", "system-network"), SEPARATOR,
                 MenuItem("Settings", "system-settings"), MenuItem("Lock", "system-lock"),
                 SEPARATOR, MenuItem("Power Off / Log Out", "system-power"))
        x = screen[0] - cls.W - 6
        return cls(items, x, TOP_BAR_H + ARROW + 3, cls.W, origin=(screen[0] - 70, TOP_BAR_H),
                   name="System Menu", fs=fs, arrow_x=screen[0] - 70)

    def _fs(self) -> FileSystem:
        if self.fs is None:
            raise ValueError("SystemMenu.fs: the menu needs the desktop's filesystem")
        return self.fs

    def track_rect(self) -> Box:
        """The slider's track (its ends are 0 and the maximum)."""
        cy = self.y + 8 + self.HEAD // 2
        return self.x + 54, cy - 10, self.x + self.width - 24, cy + 10

    def _limit(self) -> float:
        return volume.max_volume(self._fs()) / volume.NORM

    def _fraction(self) -> float:
        v, muted = volume.level(self._fs())
        return 0.0 if muted else v / volume.NORM

    def _set_at(self, x: int) -> None:
        x0, _, x1, _ = self.track_rect()
        volume.set_fraction(self._fs(), max(0.0, min(1.0, (x - x0) / (x1 - x0))) * self._limit())

    def on_press(self, desk: Any, x: int, y: int) -> bool:
        x0, y0, x1, y1 = self.track_rect()
        if not (x0 - 10 <= x <= x1 + 10 and y0 - 6 <= y <= y1 + 6):
            return False
        self.dragging = True
        self._set_at(x)
        return True

    def on_motion(self, desk: Any, x: int, y: int) -> None:
        if self.dragging:
            self._set_at(x)

    def on_release(self, desk: Any) -> None:
        self.dragging = False

    def render_key(self) -> tuple[Any, ...]:
        return volume.level(self._fs()), self._limit()

    def draw_head(self, img: Image.Image, d: ImageDraw.ImageDraw) -> None:
        fraction = self._fraction()
        cy = self.y + 8 + self.HEAD // 2
        waves = 0 if fraction == 0 else (1 if fraction < 0.5 else 2)
        speaker_icon(d, self.x + 20, cy, DARK_TEXT, waves)
        _draw_slider(d, self.track_rect(), fraction / self._limit())

    def accessibility(self) -> dict[str, Any]:
        node = super().accessibility()
        limit = self._limit()
        value = round(self._fraction(), 4)
        slider = _node("slider", "Volume", self.track_rect(),
                       ["enabled", "focusable", "sensitive", "showing", "visible", "horizontal"],
                       text=f"{round(value * 100)}%", value=value, minimum=0.0, maximum=limit,
                       step=0.01)
        node["children"].insert(0, slider)
        return node


def draw_osd(img: Image.Image, fraction: float, muted: bool, limit: float = 1.0) -> None:
    """GNOME Shell's volume OSD: a dark rounded box near the bottom centre with the speaker
    icon and a level bar."""
    w, h = 300, 52
    x0, y0 = (img.width - w) // 2, img.height - 140
    sh = art.shadow(w, h, 10, 110)
    img.paste(sh, (x0 - 20, y0 - 20), sh)
    d = ImageDraw.Draw(img)
    rounded(d, (x0, y0, x0 + w, y0 + h), h // 2, fill=(40, 40, 40), outline=DARK_BORDER)
    cy = y0 + h // 2
    level = 0.0 if muted else fraction
    speaker_icon(d, x0 + 22, cy, DARK_TEXT, 0 if level == 0 else (1 if level < 0.5 else 2))
    bx0, bx1 = x0 + 62, x0 + w - 26
    rounded(d, (bx0, cy - 3, bx1, cy + 3), 3, fill=_TROUGH)
    fill = bx0 + round((bx1 - bx0) * max(0.0, min(1.0, level / limit)))
    if fill > bx0:
        rounded(d, (bx0, cy - 3, fill, cy + 3), 3, fill=DARK_TEXT)

"""GNOME Shell chrome: the top bar and the Ubuntu dock (geometry, drawing, a11y).

The dock shows a list of `DockApp` (the desktop's `Dock` component builds it from the
favourites in ``org.gnome.shell favorite-apps``, running apps after them, then the Trash);
every function here takes that list, `DOCK_APPS` (how a fresh desktop's dock looks) by
default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from PIL import Image, ImageDraw

from . import art
from .theme import ACCENT, DOCK_W, TOP_BAR_H, font

__all__ = ["CLOCK_HALF_W", "DOCK_APPS", "KNOWN_APPS", "SHOW_APPS", "SYSTEM_W", "TRASH",
           "DockApp", "chrome", "dock_app_at", "dock_rect", "draw_dynamic"]

ICON = 48
STEP = 56
CLOCK_HALF_W = 70  # the clock's button: this far either side of the centre
SYSTEM_W = 140  # the System menu's button: this wide at the right end


@dataclass(frozen=True)
class DockApp:
    """A launcher in the dock: ``key`` names the app, ``icon`` its artwork, ``desktop_id``
    its ``.desktop`` file (what ``favorite-apps`` lists; empty for the Trash)."""

    key: str
    label: str
    icon: str
    desktop_id: str = ""


#: The applications installed on the simulated image, by ``.desktop`` id (a favourite whose
#: id is not here is not installed, and the dock leaves it out, as GNOME does).
KNOWN_APPS: Mapping[str, DockApp] = MappingProxyType({a.desktop_id: a for a in (
    DockApp("firefox", "Firefox Web Browser", "firefox", "firefox_firefox.desktop"),
    DockApp("firefox", "Firefox Web Browser", "firefox", "firefox.desktop"),
    DockApp("thunderbird", "Thunderbird Mail", "thunderbird", "thunderbird.desktop"),
    DockApp("files", "Files", "files", "org.gnome.Nautilus.desktop"),
    DockApp("terminal", "Terminal", "terminal", "org.gnome.Terminal.desktop"),
    DockApp("writer", "LibreOffice Writer", "writer", "libreoffice-writer.desktop"),
    DockApp("software", "Ubuntu Software", "software", "snap-store_ubuntu-software.desktop"),
    DockApp("help", "Help", "help", "yelp.desktop"),
    DockApp("rhythmbox", "Rhythmbox", "rhythmbox", "rhythmbox.desktop"),
    DockApp("settings", "Settings", "settings", "org.gnome.Settings.desktop"),
    DockApp("chrome", "Google Chrome", "chrome", "google-chrome.desktop"),
    DockApp("vim", "Vim", "vim", "vim.desktop"),
    DockApp("code", "Visual Studio Code", "app", "code.desktop"),
    DockApp("vlc", "VLC media player", "app", "vlc.desktop"),
    DockApp("gimp", "GNU Image Manipulation Program", "app", "gimp.desktop"),
    DockApp("calc", "LibreOffice Calc", "app", "libreoffice-calc.desktop"),
    DockApp("impress", "LibreOffice Impress", "app", "libreoffice-impress.desktop"),
    DockApp("gedit", "Text Editor", "app", "org.gnome.gedit.desktop"),
)})
TRASH = DockApp("trash", "Trash", "trash")
#: The dock of a fresh desktop (the image's favourites, then the Trash).
DOCK_APPS: tuple[DockApp, ...] = (
    *(KNOWN_APPS[i] for i in ("firefox_firefox.desktop", "thunderbird.desktop",
                              "org.gnome.Nautilus.desktop", "org.gnome.Terminal.desktop",
                              "libreoffice-writer.desktop",
                              "snap-store_ubuntu-software.desktop", "yelp.desktop")),
    TRASH,
)
SHOW_APPS = DockApp("show-apps", "Show Applications", "apps")


def dock_rect(index: int, height: int) -> tuple[int, int, int, int]:
    """Screen box of dock item ``index`` (``-1`` is Show Applications, at the bottom)."""
    x = (DOCK_W - ICON) // 2
    y = height - 8 - ICON if index < 0 else TOP_BAR_H + 8 + index * STEP
    return x, y, x + ICON, y + ICON


def dock_app_at(x: int, y: int, height: int,
                apps: Sequence[DockApp] = DOCK_APPS) -> DockApp | None:
    """The dock launcher under ``(x, y)``, if any."""
    if x >= DOCK_W or y < TOP_BAR_H:
        return None
    for i, app in [*enumerate(apps), (-1, SHOW_APPS)]:
        x0, y0, x1, y1 = dock_rect(i, height)
        if x0 - 4 <= x < x1 + 4 and y0 - 4 <= y < y1 + 4:
            return app
    return None


def _status_icons(d: ImageDraw.ImageDraw, right: int) -> None:
    c, cy = (235, 235, 235), TOP_BAR_H // 2
    x = right - 26
    d.polygon([(x, cy - 2), (x + 8, cy - 2), (x + 4, cy + 3)], fill=c)  # menu arrow
    x -= 24  # power
    d.arc((x, cy - 7, x + 14, cy + 7), 300, 240, fill=c, width=2)
    d.line((x + 7, cy - 8, x + 7, cy), fill=c, width=2)
    x -= 28  # volume
    d.polygon([(x, cy - 3), (x + 4, cy - 3), (x + 9, cy - 7), (x + 9, cy + 7), (x + 4, cy + 3),
               (x, cy + 3)], fill=c)
    d.arc((x + 6, cy - 6, x + 16, cy + 6), 300, 60, fill=c, width=2)
    x -= 28  # wired network
    d.rectangle((x + 5, cy - 7, x + 11, cy - 2), fill=c)
    d.line((x + 8, cy - 2, x + 8, cy + 1), fill=c, width=2)
    d.line((x + 2, cy + 1, x + 14, cy + 1), fill=c, width=2)
    for xx in (x, x + 6, x + 12):
        d.rectangle((xx, cy + 3, xx + 4, cy + 7), fill=c)


@lru_cache(maxsize=8)
def chrome(width: int, height: int, wallpaper: int = 0) -> Image.Image:
    """Wallpaper (``art.WALLPAPERS[wallpaper]``) + dock background + top bar (without the
    clock and the dock's icons): the static part of every frame."""
    img = art.wallpaper(width, height, wallpaper).copy()
    dock = Image.new("RGBA", (DOCK_W, height - TOP_BAR_H), (28, 28, 28, 200))
    img.paste(dock, (0, TOP_BAR_H), dock)
    x0, y0, _, _ = dock_rect(-1, height)
    icon = art.dock_icon(SHOW_APPS.icon, ICON)
    img.paste(icon, (x0, y0), icon)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, width, TOP_BAR_H - 1), fill=(0, 0, 0))
    d.text((14, TOP_BAR_H // 2), "Activities", font=font(14, bold=True), fill=(240, 240, 240),
           anchor="lm")
    _status_icons(d, width)
    return img


def draw_dynamic(img: Image.Image, clock_text: str, running: frozenset[str],
                 apps: Sequence[DockApp] = DOCK_APPS) -> None:
    """The parts of the chrome that change: the clock, the dock's icons and running-app
    indicators."""
    for i, app in enumerate(apps):
        x0, y0, _, _ = dock_rect(i, img.height)
        icon = art.dock_icon(app.icon, ICON)
        img.paste(icon, (x0, y0), icon)
    d = ImageDraw.Draw(img)
    d.text((img.width // 2, TOP_BAR_H // 2), clock_text, font=font(14, bold=True),
           fill=(240, 240, 240), anchor="mm")
    for i, app in enumerate(apps):
        if app.key in running:
            _, y0, _, y1 = dock_rect(i, img.height)
            cy = (y0 + y1) // 2
            d.ellipse((2, cy - 3, 8, cy + 3), fill=ACCENT)


def accessibility(width: int, height: int, clock_text: str,
                  apps: Sequence[DockApp] = DOCK_APPS) -> list[dict[str, Any]]:
    """a11y nodes for the top bar and the dock."""
    def node(role: str, name: str, box: tuple[int, int, int, int], **extra: Any) -> dict[str, Any]:
        x0, y0, x1, y1 = box
        return {"role": role, "name": name, "position": [x0, y0], "size": [x1 - x0, y1 - y0],
                "states": ["enabled", "sensitive", "showing", "visible"], "children": [], **extra}

    bar = node("panel", "Top Bar", (0, 0, width, TOP_BAR_H))
    bar["children"] = [
        node("push-button", "Activities", (0, 0, 100, TOP_BAR_H)),
        node("label", clock_text, (width // 2 - CLOCK_HALF_W, 0, width // 2 + CLOCK_HALF_W,
                                   TOP_BAR_H), text=clock_text),
        node("push-button", "System", (width - SYSTEM_W, 0, width, TOP_BAR_H)),
    ]
    dock = node("tool-bar", "Dock", (0, TOP_BAR_H, DOCK_W, height))
    dock["children"] = [node("push-button", app.label, dock_rect(i, height))
                        for i, app in [*enumerate(apps), (-1, SHOW_APPS)]]
    return [bar, dock]

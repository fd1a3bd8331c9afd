"""GNOME Shell's Activities overview, reduced to its search: type, see apps and Settings
panels, Enter (or a click) opens the first (or the clicked) result.

`Activities` is a component of `Desktop` (``desk.activities``). The overview opens from the
top bar's Activities button or a tap of the Super key, and closes with Escape, a second
Super tap, a click on Activities or on empty space, or when a result opens.

>>> from drums_gym.actions.events import KeyDown, KeyUp
>>> from drums_gym.local.desktop import Desktop
>>> desk = Desktop()
>>> desk.apply([KeyDown("win"), KeyUp("win")] + [KeyDown(c) for c in "settings"])
>>> [r.label for r in desk.activities.results()][:1]
['Settings']
>>> desk.apply([KeyDown("enter")])
>>> desk.active_window().title
'Settings'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from ..budget import charge
from . import art
from .settings_panels import KEYWORDS, PANELS
from .textfield import TextField
from .theme import DOCK_W, TOP_BAR_H, font, rounded
from .topbar_dock import KNOWN_APPS
from .windows import Box, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["Activities", "Result"]

_SHOWN = ["enabled", "sensitive", "showing", "visible"]
#: Extra words each app is found by (GNOME matches the .desktop file's Keywords).
_APP_WORDS = {"settings": ("settings", "preferences", "control center", "gnome-control-center"),
              "terminal": ("shell", "prompt", "command", "console"),
              "files": ("folder", "manager", "explore", "nautilus")}
TILE_W, TILE_H, ROW_H = 120, 118, 40


@dataclass(frozen=True)
class Result:
    """A search result: an app (``kind`` ``"app"``, ``target`` its key) or a Settings panel
    (``"panel"``, ``target`` the panel's name)."""

    kind: str
    label: str
    target: str
    icon: str = "settings"


class Activities:
    """The overview's state (open or not, the search text) and its behaviour."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk
        self.is_open = False
        self.field = TextField()

    def open(self) -> None:
        self.is_open, self.field = True, TextField()
        self.desk.menu = None

    def close(self) -> None:
        self.is_open, self.field = False, TextField()

    def toggle(self) -> None:
        if self.is_open:
            self.close()
        else:
            self.open()

    def key(self) -> tuple[Any, ...] | None:
        """What the overview looks like (part of the desktop's frame key)."""
        return (self.field.text, self.field.cursor) if self.is_open else None

    # -- search ------------------------------------------------------------------------
    def results(self) -> list[Result]:
        q = self.field.text.strip().lower()
        if not q:
            return []
        apps: list[Result] = []
        seen: set[str] = set()
        for app in KNOWN_APPS.values():
            charge()
            words = (app.label.lower(), app.key, *_APP_WORDS.get(app.key, ()))
            if app.key not in seen and any(q in w for w in words):
                seen.add(app.key)
                apps.append(Result("app", app.label, app.key, app.icon))
        apps.sort(key=lambda r: (not r.label.lower().startswith(q), r.label))
        panels = [Result("panel", p, p) for p in PANELS
                  if q in p.lower() or any(q in k for k in KEYWORDS.get(p, ()))]
        return apps[:6] + panels[:5]

    def run(self, result: Result) -> None:
        self.close()
        if result.kind == "app":
            self.desk.launch(result.target)
        else:
            self.desk.open_settings(result.target)

    # -- input -------------------------------------------------------------------------
    def press_key(self, key: str) -> None:
        """A key press while the overview is open."""
        mods = self.desk.mods
        if key == "escape":
            if self.field.text:
                self.field = TextField()
            else:
                self.close()
        elif key == "enter":
            found = self.results()
            if found:
                self.run(found[0])
        else:
            self.field.key(key, shift=mods.shift, ctrl=mods.ctrl)

    def press(self, x: int, y: int, button: str) -> None:
        """A click in the overview (outside the top bar and the dock)."""
        if button != "left":
            return
        for result, box in self.layout():
            if box[0] <= x < box[2] and box[1] <= y < box[3]:
                self.run(result)
                return
        ex0, ey0, ex1, ey1 = self.entry_rect()
        if not (ex0 <= x < ex1 and ey0 <= y < ey1):
            self.close()

    # -- geometry ----------------------------------------------------------------------
    def entry_rect(self) -> Box:
        cx = (DOCK_W + self.desk.width) // 2
        return cx - 220, TOP_BAR_H + 30, cx + 220, TOP_BAR_H + 70

    def layout(self) -> list[tuple[Result, Box]]:
        found = self.results()
        apps = [r for r in found if r.kind == "app"]
        panels = [r for r in found if r.kind == "panel"]
        cx = (DOCK_W + self.desk.width) // 2
        out: list[tuple[Result, Box]] = []
        y = self.entry_rect()[3] + 40
        x = cx - len(apps) * TILE_W // 2
        for i, r in enumerate(apps):
            out.append((r, (x + i * TILE_W, y, x + (i + 1) * TILE_W, y + TILE_H)))
        y += (TILE_H + 30) if apps else 0
        for i, r in enumerate(panels):
            out.append((r, (cx - 260, y + i * ROW_H, cx + 300, y + (i + 1) * ROW_H)))
        return out

    # -- drawing and accessibility -----------------------------------------------------------
    def draw(self, img: Image.Image) -> None:
        desk = self.desk
        area = (DOCK_W, TOP_BAR_H, desk.width, desk.height)
        shade = Image.new("RGBA", (area[2] - area[0], area[3] - area[1]), (20, 20, 24, 205))
        img.paste(shade, area[:2], shade)
        d = ImageDraw.Draw(img)
        ex0, ey0, ex1, ey1 = self.entry_rect()
        rounded(d, (ex0, ey0, ex1, ey1), 20, fill=(70, 70, 74), outline=(110, 110, 114))
        f, cy = font(15), (ey0 + ey1) // 2
        d.ellipse((ex0 + 16, cy - 8, ex0 + 30, cy + 6), outline=(220, 220, 220), width=2)
        d.line((ex0 + 27, cy + 3, ex0 + 33, cy + 9), fill=(220, 220, 220), width=2)
        text = self.field.text
        d.text((ex0 + 44, cy), text or "Type to search", font=f,
               fill=(245, 245, 245) if text else (170, 170, 170), anchor="lm")
        caret = ex0 + 44 + f.getlength(text[: self.field.cursor])
        d.line((caret, cy - 10, caret, cy + 10), fill=(245, 245, 245))
        laid = self.layout()
        if text and not laid:
            d.text(((ex0 + ex1) // 2, ey1 + 80), "No results.", font=font(18, bold=True),
                   fill=(220, 220, 220), anchor="mm")
        first = True
        for result, (x0, y0, x1, y1) in laid:
            if result.kind == "app":
                if first:
                    rounded(d, (x0 + 6, y0, x1 - 6, y1), 14, fill=(90, 90, 96))
                icon = art.dock_icon(result.icon, 64)
                img.paste(icon, ((x0 + x1) // 2 - 32, y0 + 12), icon)
                d.text(((x0 + x1) // 2, y1 - 20), result.label if len(result.label) < 16
                       else result.label[:14] + "…", font=font(13), fill=(245, 245, 245),
                       anchor="mm")
            else:
                if first:
                    rounded(d, (x0, y0 + 2, x1, y1 - 2), 10, fill=(90, 90, 96))
                icon = art.dock_icon("settings", 28)
                img.paste(icon, (x0 + 10, (y0 + y1) // 2 - 14), icon)
                d.text((x0 + 50, (y0 + y1) // 2), result.label, font=font(15, bold=True),
                       fill=(245, 245, 245), anchor="lm")
                d.text((x0 + 260, (y0 + y1) // 2), "Settings", font=font(13),
                       fill=(190, 190, 190), anchor="lm")
            first = False

    def accessibility(self) -> dict[str, Any]:
        desk = self.desk
        root = node("panel", "Overview", (DOCK_W, TOP_BAR_H, desk.width, desk.height), _SHOWN)
        a, b = self.field.selection()
        root["children"].append(node("entry", "Type to search", self.entry_rect(),
                                     [*_SHOWN, "editable", "focusable", "focused",
                                      "single-line"], text=self.field.text,
                                     caret=self.field.cursor, selection=[a, b]))
        laid = self.layout()
        for result, box in laid:
            if result.kind == "app":
                root["children"].append(node("push-button", result.label, box,
                                             [*_SHOWN, "focusable"]))
        boxes = [box for result, box in laid if result.kind == "panel"]
        if boxes:
            panels = node("list", "Settings", (boxes[0][0], boxes[0][1], boxes[-1][2],
                                               boxes[-1][3]), _SHOWN)
            panels["children"] = [node("list-item", r.label, box, [*_SHOWN, "selectable"])
                                  for r, box in laid if r.kind == "panel"]
            root["children"].append(panels)
        return root

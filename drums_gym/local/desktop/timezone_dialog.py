"""Settings' Time Zone dialog: a city search above a world map; choosing a match sets the
system time zone (``/etc/timezone``, what ``timedatectl`` reports).

Type in the search field; the matches drop down below it; click one, or pick it with
Down/Up and Enter. Escape clears the search, then closes the dialog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image, ImageDraw

from .bash.cmd_system import timezone_name
from .settings_panels import set_timezone
from .textfield import TextField
from .theme import ACCENT, TEXT, TEXT_DIM, font, rounded
from .timezones import Location, describe_zone, search, zone_offset
from .windows import Box, Window, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["TimeZoneDialog", "open_timezone_dialog"]

RESULT_H = 36
_SHOWN = ["enabled", "sensitive", "showing", "visible"]


def open_timezone_dialog(host: Desktop, owner: Window) -> TimeZoneDialog:
    """Open the dialog centred on ``owner`` (focused, on top)."""
    for shown in host.windows:
        if isinstance(shown, TimeZoneDialog):
            host.raise_window(shown)
            return shown
    w, h = 720, 520
    x = owner.x + (owner.w - w) // 2
    y = max(28, owner.y + (owner.h - h) // 2)
    dialog = TimeZoneDialog((x, y, x + w, y + h))
    host.windows.append(dialog)
    host.desktop_focused = False
    return dialog


class TimeZoneDialog(Window):
    """The Time Zone dialog."""

    app: ClassVar[str] = "settings"
    CONTROLS: ClassVar[tuple[str, ...]] = ("close",)

    def __init__(self, box: Box) -> None:
        super().__init__(box)
        self.field = TextField()
        self.highlight = 0

    @property
    def title(self) -> str:
        return "Time Zone"

    def matches(self) -> list[Location]:
        return search(self.field.text)

    # -- geometry --------------------------------------------------------------------
    def entry_rect(self) -> Box:
        cx = self.x + self.w // 2
        top = self.y + self.HEADER_H + 16
        return cx - 200, top, cx + 200, top + 36

    def result_rect(self, i: int) -> Box:
        x0, _, x1, y1 = self.entry_rect()
        top = y1 + 6 + i * RESULT_H
        return x0, top, x1, top + RESULT_H

    def map_rect(self) -> Box:
        _, _, _, y1 = self.entry_rect()
        return self.x + 24, y1 + 20, self.x + self.w - 24, self.y + self.h - 56

    # -- drawing ---------------------------------------------------------------------
    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        return (*super().render_key(host), self.field.text, self.field.cursor, self.highlight,
                timezone_name(host.fs))

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        zone = timezone_name(host.fs)
        now = host.fs.clock.now()
        mx0, my0, mx1, my1 = self.map_rect()
        rounded(d, (mx0, my0, mx1, my1), 8, fill=(214, 230, 245), outline=(200, 210, 220))
        for k in range(1, 12):  # meridians
            xx = mx0 + (mx1 - mx0) * k // 12
            d.line((xx, my0 + 1, xx, my1 - 1), fill=(200, 216, 232))
        for blob in ((0.08, 0.2, 0.3, 0.55), (0.2, 0.55, 0.32, 0.9), (0.44, 0.15, 0.58, 0.45),
                     (0.46, 0.45, 0.58, 0.8), (0.58, 0.12, 0.9, 0.5), (0.78, 0.62, 0.9, 0.8)):
            bx0, by0, bx1, by1 = blob
            d.ellipse((mx0 + (mx1 - mx0) * bx0, my0 + (my1 - my0) * by0,
                       mx0 + (mx1 - mx0) * bx1, my0 + (my1 - my0) * by1), fill=(236, 232, 222))
        hours = zone_offset(zone, now).total_seconds() / 3600
        band = mx0 + (mx1 - mx0) * (0.5 + hours / 24)
        d.rectangle((band - (mx1 - mx0) / 48, my0 + 1, band + (mx1 - mx0) / 48, my1 - 1),
                    fill=(240, 190, 160))
        d.ellipse((band - 6, (my0 + my1) / 2 - 6, band + 6, (my0 + my1) / 2 + 6), fill=ACCENT)
        d.text((self.x + self.w // 2, self.y + self.h - 30),
               f"Time Zone: {describe_zone(zone, now)}", font=font(14), fill=TEXT, anchor="mm")
        ex0, ey0, ex1, ey1 = self.entry_rect()
        rounded(d, (ex0, ey0, ex1, ey1), 6, fill=(255, 255, 255), outline=ACCENT, width=2)
        f, cy = font(14), (ey0 + ey1) // 2
        if self.field.text:
            d.text((ex0 + 34, cy), self.field.text, font=f, fill=TEXT, anchor="lm")
        else:
            d.text((ex0 + 34, cy), "Search for a city", font=f, fill=TEXT_DIM, anchor="lm")
        d.ellipse((ex0 + 10, cy - 7, ex0 + 22, cy + 5), outline=TEXT_DIM, width=2)
        d.line((ex0 + 20, cy + 3, ex0 + 25, cy + 8), fill=TEXT_DIM, width=2)
        cx = ex0 + 34 + f.getlength(self.field.text[: self.field.cursor])
        d.line((cx, cy - 9, cx, cy + 9), fill=TEXT)
        found = self.matches()
        if found:
            x0, y0, x1, _ = self.result_rect(0)
            y1 = self.result_rect(len(found) - 1)[3]
            rounded(d, (x0, y0, x1, y1 + 6), 8, fill=(255, 255, 255), outline=(210, 208, 206))
            for i, loc in enumerate(found):
                rx0, ry0, rx1, ry1 = self.result_rect(i)
                if i == self.highlight:
                    rounded(d, (rx0 + 4, ry0 + 3, rx1 - 4, ry1 - 1), 5, fill=(232, 232, 231))
                d.text((rx0 + 14, (ry0 + ry1) // 2 + 1), loc.label, font=f, fill=TEXT,
                       anchor="lm")

    # -- input -----------------------------------------------------------------------
    def choose(self, host: Desktop, loc: Location) -> None:
        set_timezone(host.fs, loc.zone)
        self.field = TextField()
        self.highlight = 0

    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        if button != "left":
            return
        for i, loc in enumerate(self.matches()):
            x0, y0, x1, y1 = self.result_rect(i)
            if x0 <= x < x1 and y0 <= y < y1:
                self.choose(host, loc)
                return

    def on_key(self, host: Desktop, key: str) -> bool:
        found = self.matches()
        if key == "escape":
            if self.field.text:
                self.field = TextField()
            else:
                host.close_window(self)
            return True
        if key in ("down", "up") and found:
            step = 1 if key == "down" else -1
            self.highlight = max(0, min(len(found) - 1, self.highlight + step))
            return True
        if key == "enter":
            if found:
                self.choose(host, found[min(self.highlight, len(found) - 1)])
            return True
        if self.field.key(key, shift=host.mods.shift, ctrl=host.mods.ctrl):
            self.highlight = 0
            return True
        return False

    # -- accessibility -----------------------------------------------------------------
    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        a, b = self.field.selection()
        out = [node("entry", "Search for a city", self.entry_rect(),
                    [*_SHOWN, "editable", "focusable", "focused", "single-line"],
                    text=self.field.text, caret=self.field.cursor, selection=[a, b])]
        found = self.matches()
        if found:
            x0, y0, x1, _ = self.result_rect(0)
            pop = node("list", "Locations", (x0, y0, x1, self.result_rect(len(found) - 1)[3]),
                       _SHOWN)
            for i, loc in enumerate(found):
                states = [*_SHOWN, "selectable"] + (["selected"] if i == self.highlight else [])
                pop["children"].append(node("list-item", loc.label, self.result_rect(i), states))
            out.append(pop)
        zone = timezone_name(host.fs)
        text = f"Time Zone: {describe_zone(zone, host.fs.clock.now())}"
        out.append(node("label", text, (self.x, self.y + self.h - 44, self.x + self.w,
                                        self.y + self.h - 16), ["showing", "visible"], text=text))
        return out

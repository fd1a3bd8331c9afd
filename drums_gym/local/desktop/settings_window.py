"""The Settings window (GNOME Control Center 42): a sidebar of panels, the panel at the right.

`settings_panels` says what each panel shows and sets; `settings_view` draws the window and
builds its accessibility nodes; this module holds the window's state and geometry and
handles input.

Mouse: a sidebar item opens its panel (Privacy shows its pages in the sidebar, with a back
button); a switch toggles; a drop-down opens its list; a slider takes the value under the
pointer (press, or drag); a link row opens its page or dialog (Time Zone); the wheel
scrolls the sidebar or the panel. Keys: typing searches the panels (Enter opens the first
match, Escape clears the search, or goes back from Privacy's pages); Up/Down move in the
sidebar; Tab / shift+Tab move the focus through the panel's controls, Space or Enter
activates the focused one, Left/Right/Page Up/Page Down/Home/End move a focused slider.

>>> from drums_gym.local.desktop import Desktop
>>> desk = Desktop()
>>> win = desk.open_settings("Notifications")
>>> [r.label for r in win.page_rows(desk)][:1]
['Do Not Disturb']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image, ImageDraw

from ..budget import charge
from . import settings_view
from .popups import Menu, MenuItem
from .settings_panels import KEYWORDS, PANELS, PRIVACY_PAGES, Row, rows, set_value
from .textfield import TextField
from .timezone_dialog import open_timezone_dialog
from .windows import Box, Window

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["SettingsWindow", "open_settings"]

SIDEBAR_W = 290
ITEM_H = 44
ROW_H, ROW_SUB_H, HEAD_H, GAP = 52, 66, 38, 18
COLUMN_W = 640
SWITCH_W, SWITCH_H = 48, 26
SCROLL_STEP = 48


def _inside(box: Box, x: int, y: int) -> bool:
    return box[0] <= x < box[2] and box[1] <= y < box[3]


class SettingsWindow(Window):
    """The Settings application's window, showing one panel (``page``)."""

    app: ClassVar[str] = "settings"

    def __init__(self, box: Box, page: str = "Network") -> None:
        super().__init__(box)
        self.section: str | None = None  # "Privacy" while its pages fill the sidebar
        self.sidebar_scroll = 0
        self.panel = "Network"
        self.page = "Network"
        self.search: TextField | None = None
        self.focus: int | None = None  # index into the page's focusable rows
        self.sidebar_scroll = 0
        self.scroll = 0
        self.dragging: str | None = None  # the key of the slider being dragged
        self._rows: tuple[tuple[Any, ...], list[Row]] | None = None
        self.show(page)

    @property
    def title(self) -> str:
        return "Settings"

    # -- model ---------------------------------------------------------------------
    def show(self, page: str) -> None:
        """Open a panel (of `PANELS`) or one of Privacy's pages."""
        if (page in PRIVACY_PAGES or page == "Privacy") != (self.section is not None):
            self.sidebar_scroll = 0
        if page in PRIVACY_PAGES:
            self.section, self.panel, self.page = "Privacy", "Privacy", page
        elif page == "Privacy":
            self.section, self.panel, self.page = "Privacy", "Privacy", PRIVACY_PAGES[0]
        elif page in PANELS:
            self.section, self.panel, self.page = None, page, page
        else:
            raise ValueError(f"page must be a Settings panel, got {page!r}")
        self.focus, self.scroll = None, 0

    def sidebar_items(self) -> list[str]:
        """The names the sidebar lists now (panels, the search's matches, or Privacy's pages)."""
        if self.section == "Privacy":
            return list(PRIVACY_PAGES)
        if self.search is None or not self.search.text.strip():
            return list(PANELS)
        q = self.search.text.strip().lower()
        charge(len(PANELS))
        return [p for p in PANELS if q in p.lower()
                or any(q in k for k in KEYWORDS.get(p, ()))]

    def page_rows(self, host: Desktop) -> list[Row]:
        """The rows of the page shown (read from the store; cached per filesystem change)."""
        fs = host.fs
        stamp = (fs.version, self.page, int(fs.clock.now() // 60))
        if self._rows is None or self._rows[0] != stamp:
            self._rows = (stamp, rows(fs, self.page))
        return self._rows[1]

    def focusable(self, host: Desktop) -> list[Row]:
        return [r for r in self.page_rows(host) if r.kind in ("switch", "combo", "slider",
                                                                "link") and r.enabled]

    def focused_row(self, host: Desktop) -> Row | None:
        items = self.focusable(host)
        return items[self.focus] if self.focus is not None and self.focus < len(items) else None

    # -- geometry -------------------------------------------------------------------
    def sidebar_rect(self) -> Box:
        return self.x + 1, self.y + self.HEADER_H, self.x + SIDEBAR_W, self.y + self.h - 1

    def pane_rect(self) -> Box:
        return self.x + SIDEBAR_W + 1, self.y + self.HEADER_H, self.x + self.w - 1, \
            self.y + self.h - 1

    def search_button_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + 10, cy - 15, self.x + 42, cy + 15

    def menu_button_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + SIDEBAR_W - 44, cy - 15, self.x + SIDEBAR_W - 12, cy + 15

    def search_rect(self) -> Box | None:
        if self.search is None or self.section is not None:
            return None
        x0, y0, x1, _ = self.sidebar_rect()
        return x0 + 12, y0 + 10, x1 - 12, y0 + 44

    def back_rect(self) -> Box | None:
        if self.section is None:
            return None
        x0, y0, x1, _ = self.sidebar_rect()
        return x0 + 8, y0 + 6, x1 - 8, y0 + 6 + ITEM_H - 4

    def _items_top(self) -> int:
        top = self.sidebar_rect()[1] + 6
        if self.search_rect() is not None:
            top += 46
        if self.section is not None:
            top += ITEM_H + 8
        return top

    def item_rect(self, i: int) -> Box:
        x0, _, x1, _ = self.sidebar_rect()
        top = self._items_top() + i * ITEM_H - self.sidebar_scroll
        return x0 + 8, top, x1 - 8, top + ITEM_H - 4

    def item_visible(self, i: int) -> bool:
        _, y0, _, y1 = self.item_rect(i)
        return y0 >= self._items_top() - 2 and y1 <= self.sidebar_rect()[3]

    def _max_sidebar_scroll(self) -> int:
        n = len(self.sidebar_items())
        return max(0, self._items_top() + n * ITEM_H + 8 - self.sidebar_rect()[3])

    def column(self) -> tuple[int, int]:
        px0, _, px1, _ = self.pane_rect()
        width = min(COLUMN_W, px1 - px0 - 48)
        x0 = px0 + (px1 - px0 - width) // 2
        return x0, x0 + width

    def layout(self, host: Desktop) -> list[tuple[Row, Box]]:
        """Each row of the page with its screen box (scrolled; may lie outside the pane)."""
        x0, x1 = self.column()
        y = self.pane_rect()[1] + 24 - self.scroll
        out: list[tuple[Row, Box]] = []
        prev: Row | None = None
        for row in self.page_rows(host):
            charge()
            if row.kind == "heading":
                if prev is not None:
                    y += GAP
                out.append((row, (x0, y, x1, y + HEAD_H)))
                y += HEAD_H
            else:
                h = ROW_SUB_H if row.subtitle else ROW_H
                out.append((row, (x0, y, x1, y + h)))
                y += h
            prev = row
        return out

    def _content_height(self, host: Desktop) -> int:
        boxes = self.layout(host)
        return boxes[-1][1][3] + self.scroll - self.pane_rect()[1] + 24 if boxes else 0

    def row_visible(self, box: Box) -> bool:
        _, py0, _, py1 = self.pane_rect()
        return box[1] >= py0 and box[3] <= py1

    @staticmethod
    def switch_rect(box: Box) -> Box:
        cy = (box[1] + box[3]) // 2
        return box[2] - 16 - SWITCH_W, cy - SWITCH_H // 2, box[2] - 16, cy + SWITCH_H // 2

    @staticmethod
    def combo_rect(box: Box) -> Box:
        cy = (box[1] + box[3]) // 2
        return box[2] - 230, cy - 17, box[2] - 12, cy + 17

    @staticmethod
    def track_rect(box: Box) -> Box:
        cy = (box[1] + box[3]) // 2
        return box[0] + 200, cy - 3, box[2] - 28, cy + 3

    def slider_value_at(self, row: Row, box: Box, x: int) -> int:
        tx0, _, tx1, _ = self.track_rect(box)
        frac = (min(max(x, tx0), tx1) - tx0) / max(1, tx1 - tx0)
        return round(frac * row.maximum)

    # -- drawing and accessibility (settings_view) ---------------------------------------
    def draw_header(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                    active: bool) -> None:
        settings_view.draw_header(self, d, host, active)

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        settings_view.draw_content(self, img, host, active)

    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        return settings_view.accessibility(self, host)

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        search = None if self.search is None else (self.search.text, self.search.cursor)
        return (*super().render_key(host), self.section, self.panel, self.page, search,
                self.focus, self.sidebar_scroll, self.scroll, tuple(self.page_rows(host)))

    # -- mouse -------------------------------------------------------------------------
    def header_widget_at(self, x: int, y: int) -> bool:
        return _inside(self.search_button_rect(), x, y) or _inside(self.menu_button_rect(), x, y)

    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        if button != "left":
            return
        if y < self.y + self.HEADER_H:
            if _inside(self.search_button_rect(), x, y):
                self.toggle_search()
            return
        if _inside(self.sidebar_rect(), x, y):
            self._press_sidebar(x, y)
            return
        for i, (row, box) in enumerate(self.layout(host)):
            if _inside(box, x, y) and self.row_visible(box):
                self._press_row(host, row, box, x)
                names = [(r.kind, r.label) for r in self.focusable(host)]
                here = (row.kind, row.label)
                self.focus = names.index(here) if here in names else None
                return
            charge(i)

    def _press_sidebar(self, x: int, y: int) -> None:
        back = self.back_rect()
        if back is not None and _inside(back, x, y):
            self.go_back()
            return
        for i, name in enumerate(self.sidebar_items()):
            if self.item_visible(i) and _inside(self.item_rect(i), x, y):
                self.show(name)
                return

    def _press_row(self, host: Desktop, row: Row, box: Box, x: int) -> None:
        if not row.enabled:
            return
        if row.kind == "switch":
            set_value(host.fs, row.key, not row.value)
        elif row.kind == "combo":
            self.open_combo(host, row, box)
        elif row.kind == "slider":
            tx0, _, tx1, _ = self.track_rect(box)
            if tx0 - 12 <= x <= tx1 + 12:
                set_value(host.fs, row.key, self.slider_value_at(row, box, x))
                self.dragging = row.key
        elif row.kind == "link":
            self.activate_link(host, row)

    def on_motion(self, host: Desktop, x: int, y: int) -> None:
        """The pointer moves with the left button held (dragging a slider)."""
        if self.dragging is None:
            return
        for row, box in self.layout(host):
            if row.kind == "slider" and row.key == self.dragging:
                value = self.slider_value_at(row, box, x)
                if value != row.value:
                    set_value(host.fs, row.key, value)
                return

    def on_release(self, host: Desktop) -> None:
        self.dragging = None

    def on_scroll(self, host: Desktop, dx: int, dy: int) -> None:
        px, py = host.pointer
        if _inside(self.sidebar_rect(), px, py):
            self.sidebar_scroll = max(0, min(self.sidebar_scroll - dy * SCROLL_STEP,
                                             self._max_sidebar_scroll()))
            return
        pane_h = self.pane_rect()[3] - self.pane_rect()[1]
        most = max(0, self._content_height(host) - pane_h)
        self.scroll = max(0, min(self.scroll - dy * SCROLL_STEP, most))

    # -- actions ------------------------------------------------------------------------
    def toggle_search(self) -> None:
        if self.section is not None:
            return
        self.search = TextField() if self.search is None else None
        self.sidebar_scroll = 0

    def go_back(self) -> None:
        """Leave Privacy's pages for the panel list (showing Privacy's first page)."""
        self.section = None
        self.sidebar_scroll = 0

    def open_combo(self, host: Desktop, row: Row, box: Box) -> None:
        cx0, _, _, cy1 = self.combo_rect(box)
        items = tuple(MenuItem(c, f"set:{row.key}:{c}") for c in row.choices)
        host.menu = Menu.at(items, (cx0, cy1 + 2), (host.width, host.height), owner=self,
                            name=row.label)
        if row.value in row.choices:  # the current choice is highlighted, as GTK does
            host.menu.focus = row.choices.index(str(row.value))
        host.menu_targets = ()

    def activate_link(self, host: Desktop, row: Row) -> None:
        if row.key.startswith("page:"):
            self.show(row.key[len("page:"):])
        elif row.key == "timezone":
            open_timezone_dialog(host, self)

    def run_menu_action(self, host: Desktop, action: str, targets: list[str]) -> None:
        kind, _, rest = action.partition(":")
        key, _, choice = rest.partition(":")
        if kind == "set":
            for row in self.page_rows(host):
                if row.key == key and choice in row.choices:
                    set_value(host.fs, key, choice)
                    return

    # -- keyboard -----------------------------------------------------------------------
    def on_key(self, host: Desktop, key: str) -> bool:
        mods = host.mods
        if mods.ctrl and key.lower() == "f":
            self.toggle_search()
            return True
        row = self.focused_row(host)
        if key == "tab":
            n = len(self.focusable(host))
            if n:
                cur = -1 if self.focus is None else self.focus
                self.focus = (cur + (-1 if mods.shift else 1)) % n
                self._reveal(host)
            return True
        if row is not None and self._row_key(host, row, key):
            return True
        if key in ("up", "down") and not mods.any():
            self._sidebar_step(1 if key == "down" else -1)
            return True
        if key == "escape":
            if self.search is not None and self.search.text:
                self.search = TextField()
            elif self.search is not None:
                self.search = None
            elif self.section is not None:
                self.go_back()
            self.focus = None
            return True
        if key == "enter" and self.search is not None:
            found = self.sidebar_items()
            if found:
                self.show(found[0])
            return True
        if self.section is None and not mods.ctrl and not mods.alt and (
                (len(key) == 1 and key.isprintable()
                 and (key != " " or (self.search is not None and self.search.text)))
                or (self.search is not None and key in ("backspace", "delete", "left",
                                                        "right", "home", "end"))):
            if self.search is None:
                self.search = TextField()
            self.search.key(key, shift=mods.shift)
            self.sidebar_scroll, self.focus = 0, None
            return True
        return False

    def _row_key(self, host: Desktop, row: Row, key: str) -> bool:
        if key in (" ", "enter"):
            if row.kind == "switch":
                set_value(host.fs, row.key, not row.value)
            elif row.kind == "combo":
                box = next(b for r, b in self.layout(host) if r == row)
                self.open_combo(host, row, box)
            elif row.kind == "link":
                self.activate_link(host, row)
            return True
        if row.kind == "slider" and key in ("left", "right", "pageup", "pagedown", "home",
                                            "end", "up", "down"):
            value = int(row.value)  # type: ignore[call-overload]
            step = {"left": -1, "down": -1, "right": 1, "up": 1, "pageup": 10,
                    "pagedown": -10}
            new = 0 if key == "home" else row.maximum if key == "end" else value + step[key]
            set_value(host.fs, row.key, max(0, min(row.maximum, new)))
            return True
        return False

    def _sidebar_step(self, step: int) -> None:
        items = self.sidebar_items()
        current = self.page if self.section is not None else self.panel
        i = items.index(current) if current in items else -1
        target = max(0, min(len(items) - 1, i + step))
        if items:
            self.show(items[target])
            top, bottom = self.item_rect(target)[1], self.item_rect(target)[3]
            if bottom > self.sidebar_rect()[3]:
                self.sidebar_scroll += bottom - self.sidebar_rect()[3] + 8
            elif top < self._items_top():
                self.sidebar_scroll = max(0, self.sidebar_scroll - (self._items_top() - top))

    def _reveal(self, host: Desktop) -> None:
        row = self.focused_row(host)
        for r, box in self.layout(host):
            if r == row:
                _, py0, _, py1 = self.pane_rect()
                if box[3] > py1:
                    self.scroll += box[3] - py1 + 12
                elif box[1] < py0:
                    self.scroll = max(0, self.scroll - (py0 - box[1]) - 12)
                return


def open_settings(host: Desktop, page: str | None = None) -> SettingsWindow:
    """Open the Settings window (or raise the open one), showing ``page`` when given."""
    for shown in host.windows:
        if isinstance(shown, SettingsWindow):
            host.raise_window(shown)
            if page is not None:
                shown.show(page)
            return shown
    x0, y0, x1, y1 = host.work_area()
    w, h = min(1000, x1 - x0 - 40), min(700, y1 - y0 - 40)
    x = x0 + (x1 - x0 - w) // 2
    y = y0 + (y1 - y0 - h) // 2
    win = SettingsWindow((x, y, x + w, y + h), page or "Network")
    host.windows.append(win)
    host.desktop_focused = False
    return win

"""Mouse input: pointer moves, presses and releases, double-clicks, dragging windows.

`Mouse` is a component of `Desktop` (``desk.mouse``); `Desktop.apply` hands it every
``MouseMove``, ``MouseDown`` and ``MouseUp``. A press goes to the open menu, the rename
popover, the window under the pointer (its controls, its header, its content), the dock, or
the desktop's icons; drag and drop (``desk.dnd``) sees each press, move and release first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .theme import DOCK_W, TOP_BAR_H
from .topbar_dock import CLOCK_HALF_W, SYSTEM_W, dock_app_at

if TYPE_CHECKING:
    from .desktop import Desktop
    from .windows import Window

__all__ = ["DOUBLE_CLICK_DISTANCE", "DOUBLE_CLICK_TIME", "Mouse"]

DOUBLE_CLICK_TIME = 0.5  # seconds of simulated time
DOUBLE_CLICK_DISTANCE = 5  # pixels


class Mouse:
    """The buttons held, the last click (for double-clicks), a window dragged by its header."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk
        self.buttons: set[str] = set()
        self.last_click: tuple[float, int, int, int] | None = None  # time, x, y, count
        self.window_drag: tuple[Window, int, int] | None = None  # window, grab offset
        self.grab: Window | None = None  # the window a left press in its content went to

    def move(self, x: int, y: int) -> None:
        """The pointer moves to ``(x, y)`` (clamped to the screen)."""
        desk = self.desk
        old = desk.pointer
        desk.pointer = (max(0, min(desk.width - 1, x)), max(0, min(desk.height - 1, y)))
        if desk.menu is not None and desk.pointer != old and desk.menu.contains(*desk.pointer):
            desk.menu.focus = None  # the pointer takes over from the arrow keys
        if desk.menu is not None and "left" in self.buttons:
            desk.menu.on_motion(desk, *desk.pointer)
        if self.window_drag is not None:
            w, dx, dy = self.window_drag
            px, py = desk.pointer
            w.move_to(px - dx, max(TOP_BAR_H, py - dy))
        elif self.grab is not None and "left" in self.buttons and self.grab in desk.windows:
            self.grab.on_motion(desk, *desk.pointer)
        desk.dnd.motion()

    def _count_clicks(self, x: int, y: int) -> int:
        last, now = self.last_click, self.desk.clock
        clicks = 1
        if (last is not None and now - last[0] <= DOUBLE_CLICK_TIME
                and abs(x - last[1]) <= DOUBLE_CLICK_DISTANCE
                and abs(y - last[2]) <= DOUBLE_CLICK_DISTANCE and last[3] == 1):
            clicks = 2
        self.last_click = (now, x, y, clicks)
        return clicks

    def press(self, button: str) -> None:
        """A button goes down at the pointer."""
        desk = self.desk
        if button in self.buttons:
            return
        self.buttons.add(button)
        x, y = desk.pointer
        clicks = self._count_clicks(x, y) if button == "left" else 1
        desk.dnd.press(button)
        if desk.menu is not None:
            if desk.menu.contains(x, y):
                if button != "left" or not desk.menu.on_press(desk, x, y):
                    desk.menu.pressed = desk.menu.item_at(x, y)
            else:
                closed, desk.menu = desk.menu, None  # a click elsewhere dismisses the menu
                if y < TOP_BAR_H and button == "left":  # and goes to another panel menu
                    panel = self._panel_menu_at(x)
                    if panel is not None and panel != closed.name:
                        self._open_panel_menu(panel)
            return
        if desk.rename is not None:
            if desk.rename.contains(x, y):
                desk.rename_flow.press(x, y)
            else:
                desk.commit_rename(cancel_if_invalid=True)
            return
        if desk.activities.is_open and y >= TOP_BAR_H and x >= DOCK_W:
            desk.activities.press(x, y, button)
            return
        w = desk.window_at(x, y)
        if w is not None:
            desk.raise_window(w)
            part = w.part_at(x, y)
            if part in w.CONTROLS:
                w.pressed = part
            elif part == "header" and button == "left":
                if clicks >= 2:
                    w.toggle_maximize(desk.work_area())
                else:
                    self.window_drag = (w, x - w.x, y - w.y)
            else:
                if button == "left":
                    self.grab = w
                w.on_press(desk, x, y, button, clicks)
            return
        desk.desktop_focused = True
        if y < TOP_BAR_H:
            if button == "left" and x < 110:
                desk.activities.toggle()
            elif button == "left" and (panel := self._panel_menu_at(x)) is not None:
                desk.activities.close()
                self._open_panel_menu(panel)
            return
        if x < DOCK_W:
            app = dock_app_at(x, y, desk.height, desk.dock.apps())
            if app is not None and button in ("left", "right"):
                desk.activities.close()
                if button == "left":
                    desk.launch(app.key)
                else:
                    desk.dock.open_menu(app, (x, y))
            return
        self._press_desktop(x, y, button, clicks)

    def _panel_menu_at(self, x: int) -> str | None:
        """The top bar's menu button at ``x``: the clock's (``Date Menu``) or the System
        menu's, as `topbar_dock.accessibility` places them."""
        width = self.desk.width
        if abs(x - width // 2) <= CLOCK_HALF_W:
            return "Date Menu"
        if x >= width - SYSTEM_W:
            return "System Menu"
        return None

    def _open_panel_menu(self, name: str) -> None:
        if name == "Date Menu":
            self.desk.menus.open_date_menu()
        else:
            self.desk.menus.open_system_menu()

    def _press_desktop(self, x: int, y: int, button: str, clicks: int) -> None:
        desk = self.desk
        name = desk.grid.at(x, y)
        if button == "left":
            if name is None:
                if not desk.mods.ctrl:
                    desk.selected = set()
            elif desk.mods.ctrl:
                desk.selected ^= {name}
            elif desk.mods.shift:
                desk.selected.add(name)
            else:
                desk.selected = {name}
                if clicks >= 2:
                    desk.open_paths([name])
        elif button == "right":
            if name is None:
                desk.selected = set()
                desk.open_desktop_menu((x, y))
            else:
                if name not in desk.selected:
                    desk.selected = {name}
                desk.open_icon_menu((x, y))

    def release(self, button: str) -> None:
        """A button comes up at the pointer."""
        desk = self.desk
        if button not in self.buttons:
            return
        self.buttons.discard(button)
        x, y = desk.pointer
        if button == "left" and self.grab is not None:
            grabbed, self.grab = self.grab, None
            if grabbed in desk.windows:
                grabbed.on_release(desk)
        if desk.dnd.release(button):
            return
        if self.window_drag is not None and button == "left":
            self.window_drag = None
            return
        if desk.menu is not None and button == "left":
            desk.menu.on_release(desk)
        if desk.menu is not None and desk.menu.pressed is not None:
            pressed, desk.menu.pressed = desk.menu.pressed, None
            if desk.menu.item_at(x, y) == pressed:
                desk.run_menu_action(desk.menu.items[pressed].action)
            return
        for w in list(desk.windows):
            if w.pressed is not None:
                part, w.pressed = w.pressed, None
                if w.contains(x, y) and w.part_at(x, y) == part:
                    self._window_control(w, part)

    def _window_control(self, w: Window, part: str) -> None:
        desk = self.desk
        if part == "close":
            desk.close_window(w)
        elif part == "maximize":
            w.toggle_maximize(desk.work_area())
        elif part == "minimize":
            w.minimized = True
            desk.desktop_focused = desk.active_window_candidate() is None

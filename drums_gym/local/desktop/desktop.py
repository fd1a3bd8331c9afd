"""`Desktop`: a simulated Ubuntu 22.04 GNOME desktop driven by primitive input events."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from PIL import Image

from drums_gym.actions.events import (
    Event,
    KeyDown,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Scroll,
    Sleep,
)

from .a11y import tree
from .actions import DESKTOP_DIR, DesktopActions
from .drag import DragAndDrop
from .fs import DEFAULT_EPOCH, FileSystem, SimClock
from .icons import IconGrid
from .keyboard import KeyboardInput
from .keys import Modifiers, normalize_key
from .popups import Menu, RenamePopover
from .render import compose_scene, pointer_overlay
from .shell import dock_app_at
from .terminal_host import TerminalApps
from .theme import DOCK_W, TOP_BAR_H
from .windows import Window

__all__ = ["DOUBLE_CLICK_DISTANCE", "DOUBLE_CLICK_TIME", "Desktop"]

DOUBLE_CLICK_TIME = 0.5  # seconds of simulated time
DOUBLE_CLICK_DISTANCE = 5  # pixels
_SHARED = frozenset({"_image", "_scene"})  # immutable caches a clone may share


class Desktop(DragAndDrop, TerminalApps, KeyboardInput, DesktopActions):
    """An Ubuntu-like desktop: filesystem, icons, windows, menus; fed `Event`s, rendered by Pillow.

    ``frame`` counts visible changes (it increments exactly when the rendered
    image would differ); ``clock`` is simulated seconds, advanced only by
    `Sleep` events. Rendering is cached per frame: `render` returns the cached
    image, which callers must treat as read-only (copy it before drawing on it).

    >>> from drums_gym.actions.events import KeyDown, MouseDown, MouseMove, MouseUp
    >>> d = Desktop(seed=0)
    >>> d.fs.mkdir("~/Desktop/todo")
    >>> x, y = d.icon_center("todo")
    >>> d.apply([MouseMove(x, y), MouseDown("left"), MouseUp("left"), KeyDown("f2")])
    >>> d.apply([KeyDown(c) for c in "done"] + [KeyDown("enter")])
    >>> d.fs.is_dir("~/Desktop/done")
    True
    >>> d.render().size
    (1920, 1080)
    """

    def __init__(self, width: int = 1920, height: int = 1080, seed: int = 0) -> None:
        if width < 640 or height < 480:
            raise ValueError(f"screen must be at least 640x480, got width={width} height={height}")
        self.width, self.height, self.seed = width, height, seed
        start = random.Random(seed).randrange(0, 8 * 3600, 60)
        self._clock = SimClock(DEFAULT_EPOCH + start, 0.0)
        self.fs = FileSystem(self._clock)
        self.pointer: tuple[int, int] = (width // 2, height // 2)
        self.mods = Modifiers()
        self.grid = IconGrid(width, height)
        self.selected: set[str] = set()
        self.windows: list[Window] = []
        self.desktop_focused = True
        self.menu: Menu | None = None
        self.menu_targets: tuple[str, ...] = ()
        self.rename: RenamePopover | None = None
        self.clipboard: tuple[str, tuple[str, ...]] | None = None
        self.text_clipboard = ""
        self._incidents: list[tuple[str, str]] = []
        self._buttons: set[str] = set()
        self._last_click: tuple[float, int, int, int] | None = None  # time, x, y, count
        self._drag: tuple[Window, int, int] | None = None
        self._frame = 0
        self._key: tuple[Any, ...] = ()
        self._image: Image.Image | None = None
        self._image_frame = -1
        self._scene: Image.Image | None = None
        self._scene_key: tuple[Any, ...] | None = None
        self._sync()

    # -- public API -------------------------------------------------------
    @property
    def clock(self) -> float:
        """Simulated seconds since the desktop started."""
        return self._clock.seconds

    @property
    def frame(self) -> int:
        """Counter of visible changes (also catches direct ``fs`` edits)."""
        self._sync()
        return self._frame

    def clock_text(self) -> str:
        """The top bar's clock, e.g. ``"Jan 1  09:00"``."""
        dt = datetime.fromtimestamp(self._clock.now(), tz=timezone.utc)
        return f"{dt:%b} {dt.day}  {dt:%H:%M}"

    def advance(self, seconds: float) -> None:
        """Let simulated time pass (what a `Sleep` event does)."""
        if seconds > 0:
            self._clock.seconds += float(seconds)

    def apply(self, events: Iterable[Event]) -> None:
        """Feed input events in order. Raises TypeError for anything that is not an `Event`."""
        self._sync_model()
        for ev in events:
            if isinstance(ev, MouseMove):
                self._move(int(ev.x), int(ev.y))
            elif isinstance(ev, MouseDown):
                self._press(ev.button)
            elif isinstance(ev, MouseUp):
                self._release(ev.button)
            elif isinstance(ev, KeyDown):
                self._key_down(ev.key)
            elif isinstance(ev, KeyUp):
                self.mods.release(normalize_key(ev.key))
            elif isinstance(ev, Sleep):
                self.advance(ev.seconds)
            elif isinstance(ev, Scroll):
                w = self.window_at(*self.pointer) if self.menu is None else None
                if w is not None:
                    w.on_scroll(self, ev.dx, ev.dy)
            else:
                raise TypeError(f"events: expected input events, got {ev!r}")
            self._sync_model()
        self._sync()

    def render(self) -> Image.Image:
        """The current screen (RGB). Cached per frame: do not mutate the returned image."""
        self._sync()
        if self._image is not None and self._image_frame == self._frame:
            return self._image
        scene_key = self._key[:-1]
        if self._scene is None or self._scene_key != scene_key:
            self._scene = self._patched_scene(scene_key) or compose_scene(self)
            self._scene_key = scene_key
        self._image = pointer_overlay(self._scene, self.pointer, self.dnd_overlay())
        self._image_frame = self._frame
        return self._image

    def accessibility(self) -> dict[str, Any]:
        """An OSWorld-style accessibility tree (role, name, position, size, states, children)."""
        self._sync()
        return tree(self)

    def icon_center(self, name: str) -> tuple[int, int]:
        """Screen centre of the desktop icon of ~/Desktop/``name`` (KeyError if none)."""
        self._sync()
        x0, y0, x1, y1 = self.grid.hit_box(name)
        return (x0 + x1) // 2, (y0 + y1) // 2

    def clone(self) -> Desktop:
        """An independent deep copy (forks); render caches are shared read-only."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Desktop:
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k in _SHARED else copy.deepcopy(v, memo)
        return new

    def take_incidents(self) -> list[tuple[str, str]]:
        """Return and clear incidents such as ``("window_closed", title)``."""
        out, self._incidents = self._incidents, []
        return out

    # -- model upkeep -----------------------------------------------------
    def desktop_entries(self) -> list[str]:
        """Visible (non-hidden) names in ~/Desktop."""
        if not self.fs.is_dir(DESKTOP_DIR):
            return []
        return [n for n in self.fs.listdir(DESKTOP_DIR) if not n.startswith(".")]

    def _sync_model(self) -> None:
        self.grid.sync(self.desktop_entries())
        self.selected &= set(self.grid.slots)
        for w in self.windows:
            w.sync(self)
        if self.rename is not None and not self.fs.exists(self.rename.path):
            self.rename = None

    def _visual_key(self) -> tuple[Any, ...]:
        names = self.grid.ordered()
        icons = tuple((n, self.grid.slots[n], self.fs.is_dir(f"{DESKTOP_DIR}/{n}"),
                       n in self.selected) for n in names)
        menu = None
        if self.menu is not None:
            menu = (self.menu.items, self.menu.rect, self.hovered_menu_item())
        pop = None
        if self.rename is not None:
            f = self.rename.field
            pop = (self.rename.rect, f.text, f.cursor, f.anchor, self.rename.message,
                   self.rename.ok)
        active = self.active_window()
        wins = tuple((w.render_key(self), w is active) for w in self.windows)
        running = tuple(sorted({w.app for w in self.windows}))
        return (self.clock_text(), icons, self.hovered_icon(), menu, pop, wins, running,
                (self.pointer, self.dnd_key()))

    def _patched_scene(self, key: tuple[Any, ...]) -> Image.Image | None:
        """The previous scene with only the top window redrawn, when nothing else changed
        (keys as `_visual_key` builds them, without the pointer; index 5 holds the windows)."""
        old, scene = self._scene_key, self._scene
        if old is None or scene is None or key[3] is not None or key[4] is not None:
            return None
        if old[:5] != key[:5] or old[6:] != key[6:] or len(old[5]) != len(key[5]):
            return None
        wins_old, wins = old[5], key[5]
        if not wins or wins_old[:-1] != wins[:-1] or wins_old[-1][1] != wins[-1][1]:
            return None
        img = scene.copy()
        return img if self.windows[-1].patch(img, self, wins[-1][1], wins_old[-1][0]) else None

    def _sync(self) -> None:
        self._sync_model()
        key = self._visual_key()
        if key != self._key:
            self._key = key
            self._frame += 1

    def hovered_icon(self) -> str | None:
        """The desktop icon under the pointer when nothing covers it (drawn highlighted)."""
        x, y = self.pointer
        if self.menu is not None or self._drag is not None or self.window_at(x, y) is not None:
            return None
        if self.rename is not None and self.rename.contains(x, y):
            return None
        return self.grid.at(x, y)

    def window_at(self, x: int, y: int) -> Window | None:
        for w in reversed(self.windows):
            if w.contains(x, y):
                return w
        return None

    # -- mouse ------------------------------------------------------------
    def _move(self, x: int, y: int) -> None:
        self.pointer = (max(0, min(self.width - 1, x)), max(0, min(self.height - 1, y)))
        if self._drag is not None:
            w, dx, dy = self._drag
            px, py = self.pointer
            w.move_to(px - dx, max(TOP_BAR_H, py - dy))
        self.dnd_motion()

    def _count_clicks(self, x: int, y: int) -> int:
        last, now = self._last_click, self.clock
        clicks = 1
        if (last is not None and now - last[0] <= DOUBLE_CLICK_TIME
                and abs(x - last[1]) <= DOUBLE_CLICK_DISTANCE
                and abs(y - last[2]) <= DOUBLE_CLICK_DISTANCE and last[3] == 1):
            clicks = 2
        self._last_click = (now, x, y, clicks)
        return clicks

    def _press(self, button: str) -> None:
        if button in self._buttons:
            return
        self._buttons.add(button)
        x, y = self.pointer
        clicks = self._count_clicks(x, y) if button == "left" else 1
        self.dnd_press(button)
        if self.menu is not None:
            if self.menu.contains(x, y):
                self.menu.pressed = self.menu.item_at(x, y)
            else:
                self.menu = None  # a click elsewhere dismisses the menu and is consumed
            return
        if self.rename is not None:
            if self.rename.contains(x, y):
                self._press_popover(x, y)
            else:
                self.commit_rename(cancel_if_invalid=True)
            return
        w = self.window_at(x, y)
        if w is not None:
            self.raise_window(w)
            part = w.part_at(x, y)
            if part in w.CONTROLS:
                w.pressed = part
            elif part == "header" and button == "left":
                if clicks >= 2:
                    w.toggle_maximize(self.work_area())
                else:
                    self._drag = (w, x - w.x, y - w.y)
            else:
                w.on_press(self, x, y, button, clicks)
            return
        self.desktop_focused = True
        if y < TOP_BAR_H:
            return
        if x < DOCK_W:
            app = dock_app_at(x, y, self.height)
            if app is not None and button == "left":
                self.launch(app.key)
            return
        self._press_desktop(x, y, button, clicks)

    def _press_desktop(self, x: int, y: int, button: str, clicks: int) -> None:
        name = self.grid.at(x, y)
        if button == "left":
            if name is None:
                if not self.mods.ctrl:
                    self.selected = set()
            elif self.mods.ctrl:
                self.selected ^= {name}
            elif self.mods.shift:
                self.selected.add(name)
            else:
                self.selected = {name}
                if clicks >= 2:
                    self.open_paths([name])
        elif button == "right":
            if name is None:
                self.selected = set()
                self.open_desktop_menu((x, y))
            else:
                if name not in self.selected:
                    self.selected = {name}
                self.open_icon_menu((x, y))

    def _press_popover(self, x: int, y: int) -> None:
        pop = self.rename
        if pop is None:
            return
        bx0, by0, bx1, by1 = pop.button_rect()
        if bx0 <= x < bx1 and by0 <= y < by1:
            self.commit_rename()
            return
        ex0, ey0, ex1, ey1 = pop.entry_rect()
        if ex0 <= x < ex1 and ey0 <= y < ey1:
            pop.field.set_cursor(pop.index_at(x), extend=self.mods.shift)

    def _release(self, button: str) -> None:
        if button not in self._buttons:
            return
        self._buttons.discard(button)
        x, y = self.pointer
        if self.dnd_release(button):
            return
        if self._drag is not None and button == "left":
            self._drag = None
            return
        if self.menu is not None and self.menu.pressed is not None:
            pressed, self.menu.pressed = self.menu.pressed, None
            if self.menu.item_at(x, y) == pressed:
                self.run_menu_action(self.menu.items[pressed].action)
            return
        for w in list(self.windows):
            if w.pressed is not None:
                part, w.pressed = w.pressed, None
                if w.contains(x, y) and w.part_at(x, y) == part:
                    self._window_control(w, part)

    def _window_control(self, w: Window, part: str) -> None:
        if part == "close":
            self.close_window(w)
        elif part == "maximize":
            w.toggle_maximize(self.work_area())
        elif part == "minimize":
            w.minimized = True
            self.desktop_focused = self.active_window_candidate() is None

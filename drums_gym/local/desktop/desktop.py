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

from ..budget import charge
from .a11y import tree
from .bash.cmd_system import OPEN_REQUESTS
from .desktop_menus import DesktopMenus
from .dock import Dock
from .drag import DragAndDrop
from .files_window import TRASH_URI, FolderWindow
from .fs import DEFAULT_EPOCH, DESKTOP_DIR, HOME, FileSystem, SimClock
from .icon_actions import IconActions
from .icons import IconGrid
from .keyboard import Keyboard
from .keys import Modifiers
from .mouse import DOUBLE_CLICK_DISTANCE, DOUBLE_CLICK_TIME, Mouse
from .overview import Activities
from .popups import Menu, RenamePopover
from .rename_flow import RenameFlow
from .render import compose_scene, pointer_overlay
from .settings_window import SettingsWindow, open_settings
from .terminal import TerminalWindow
from .terminal_launcher import TerminalLauncher
from .theme import DOCK_W, TOP_BAR_H
from .volume import Osd, level, max_volume, media_key
from .windows import Window

__all__ = ["DOUBLE_CLICK_DISTANCE", "DOUBLE_CLICK_TIME", "Desktop"]

_SHARED = frozenset({"_image", "_scene"})  # immutable caches a clone may share
MAX_OPEN_REQUESTS = 16  # xdg-open requests acted on per sync (the newest)


class Desktop:
    """An Ubuntu-like desktop: filesystem, icons, windows, menus; fed `Event`s, rendered by Pillow.

    The desktop holds the state (``fs``, ``pointer``, ``mods``, ``grid``, ``selected``,
    ``windows``, ``menu``, ``rename``, the clipboards) and manages the window stack; its
    components, each holding a reference to it, do the rest: ``mouse`` and ``keyboard``
    route input, ``dnd`` drags files, ``menus`` the context menus, ``rename_flow`` the
    rename popover, ``icon_actions`` the operations on desktop files, ``terminals`` opens
    Terminal windows, ``dock`` the dock's launchers (the ``favorite-apps`` setting) and
    menu, ``activities`` the Activities overview's search. The desktop's methods of the
    same names call them.

    Per-event work does not grow with the number of files: what the desktop derives from
    the filesystem (icon slots, Files listings, the frame key's icons) is recomputed only
    when ``fs.version`` says the tree changed, and icons are found by slot arithmetic. Each
    event, and each entry walked or laid out, is charged to the work budget in force
    (`drums_gym.local.budget`); when it runs out mid-event the desktop stays consistent
    (caches are replaced only once rebuilt whole) and the next event or render goes on.

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
        self.osd: Osd | None = None  # the volume OSD the media keys showed last
        self._incidents: list[tuple[str, str]] = []
        #: the wallpaper (an index of `art.WALLPAPERS`) and the offset new windows open at
        #: (0 and (0, 0) unless `variation.vary` chose others)
        self.wallpaper = 0
        self.window_offset: tuple[int, int] = (0, 0)
        self.mouse = Mouse(self)
        self.keyboard = Keyboard(self)
        self.dnd = DragAndDrop(self)
        self.menus = DesktopMenus(self)
        self.rename_flow = RenameFlow(self)
        self.icon_actions = IconActions(self)
        self.terminals = TerminalLauncher(self)
        self.dock = Dock(self)
        self.activities = Activities(self)
        self._frame = 0
        self._key: tuple[Any, ...] = ()
        self._image: Image.Image | None = None
        self._image_frame = -1
        self._scene: Image.Image | None = None
        self._scene_key: tuple[Any, ...] | None = None
        self._icons_version = -1  # fs.version the icon grid was last synced at
        self._checked_selection: set[str] | None = None  # the selection last filtered
        self._icons_key: tuple[tuple[int, int], tuple[Any, ...]] | None = None
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
            charge()
            if isinstance(ev, MouseMove):
                self.mouse.move(int(ev.x), int(ev.y))
            elif isinstance(ev, MouseDown):
                self.mouse.press(ev.button)
            elif isinstance(ev, MouseUp):
                self.mouse.release(ev.button)
            elif isinstance(ev, KeyDown):
                self.keyboard.key_down(ev.key)
            elif isinstance(ev, KeyUp):
                self.keyboard.key_up(ev.key)
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
        scene, pointer, overlay = self.layers()
        self._image = pointer_overlay(scene, pointer, overlay)
        self._image_frame = self._frame
        return self._image

    def layers(self) -> tuple[Image.Image, tuple[int, int], Any]:
        """What `render` composes: the scene (cached, read-only; the same object while it
        is unchanged), the pointer, and what follows it (a drag's drawing, or None)."""
        self._sync()
        scene_key = self._key[:-1]
        if self._scene is None or self._scene_key != scene_key:
            self._scene = self._patched_scene(scene_key) or compose_scene(self)
            self._scene_key = scene_key
        return self._scene, self.pointer, self.dnd.overlay()

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
        version = self.fs.version
        if version != self._icons_version and self.fs.is_file(OPEN_REQUESTS):
            self.open_requested()
            version = self.fs.version
        if version != self._icons_version:
            self.grid.sync(self.desktop_entries())
            self._icons_version = version
            self._checked_selection = None
        if self.selected is not self._checked_selection:
            # a new selection (in-place edits only ever add names from the grid)
            slots = self.grid.slots
            charge(len(self.selected))
            stale = [n for n in self.selected if n not in slots]
            if stale:
                self.selected -= set(stale)
            self._checked_selection = self.selected
        charge(len(self.windows))
        for w in self.windows:
            w.sync(self)
        if self.rename is not None and not self.fs.exists(self.rename.path):
            self.rename = None

    def _icons(self) -> tuple[Any, ...]:
        """``(name, slot, is_dir)`` of every icon in slot order, rebuilt when the grid or the
        filesystem changed."""
        stamp = (self.grid.version, self.fs.version)
        if self._icons_key is None or self._icons_key[0] != stamp:
            names = self.grid.ordered()
            charge(len(names))
            icons = tuple((n, self.grid.slots[n], self.fs.is_dir(f"{DESKTOP_DIR}/{n}"))
                          for n in names)
            self._icons_key = (stamp, icons)
        return self._icons_key[1]

    def _visual_key(self) -> tuple[Any, ...]:
        charge(len(self.selected))
        icons = (self._icons(), frozenset(self.selected))
        menu = None
        if self.menu is not None:
            menu = (self.menu.items, self.menu.rect, self.hovered_menu_item(),
                    self.menu.render_key())
        pop = None
        if self.rename is not None:
            f = self.rename.field
            pop = (self.rename.rect, f.text, f.cursor, f.anchor, self.rename.message,
                   self.rename.ok)
        active = self.active_window()
        wins = tuple((w.render_key(self), w is active) for w in self.windows)
        running = (tuple(sorted({w.app for w in self.windows})), self.dock.apps(),
                   self.activities.key())
        osd = self.osd_level()
        return (self.clock_text(), icons, self.hovered_icon(), menu, pop, wins,
                (running, osd), (self.pointer, self.dnd.key()))

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

    def volume_key(self, key: str) -> bool:
        """A media key (``volumeup``, ``volumedown``, ``volumemute``): change the volume and
        show the OSD. False for any other key."""
        if not media_key(self.fs, key):
            return False
        self.osd = Osd(self.clock)
        return True

    def osd_level(self) -> tuple[int, bool, int] | None:
        """``(volume, muted, maximum)`` the volume OSD shows now, or None when it is hidden."""
        if self.osd is None or not self.osd.showing(self.clock):
            return None
        return (*level(self.fs), max_volume(self.fs))

    def hovered_icon(self) -> str | None:
        """The desktop icon under the pointer when nothing covers it (drawn highlighted)."""
        x, y = self.pointer
        if (self.menu is not None or self.mouse.window_drag is not None
                or self.window_at(x, y) is not None):
            return None
        if self.rename is not None and self.rename.contains(x, y):
            return None
        return self.grid.at(x, y)

    def window_at(self, x: int, y: int) -> Window | None:
        """The topmost (not minimized) window under ``(x, y)``."""
        for w in reversed(self.windows):
            if w.contains(x, y):
                return w
        return None

    # -- the window stack -------------------------------------------------
    def active_window(self) -> Window | None:
        """The focused window (top of the stack), or None when the desktop has focus."""
        if self.desktop_focused:
            return None
        for w in reversed(self.windows):
            if not w.minimized:
                return w
        return None

    def raise_window(self, w: Window) -> None:
        """Put ``w`` on top (unminimized) and give it focus."""
        self.windows.remove(w)
        self.windows.append(w)
        w.minimized = False
        self.desktop_focused = False

    def close_window(self, w: Window) -> None:
        """Close ``w`` and record a ``("window_closed", title)`` incident."""
        self.windows.remove(w)
        self._incidents.append(("window_closed", w.title))
        self.desktop_focused = self.active_window_candidate() is None

    def active_window_candidate(self) -> Window | None:
        """The window that would have focus if the desktop gave it up."""
        return next((w for w in reversed(self.windows) if not w.minimized), None)

    def work_area(self) -> tuple[int, int, int, int]:
        """The screen minus the top bar and the dock (where maximized windows go)."""
        return DOCK_W, TOP_BAR_H, self.width, self.height

    def offset_window(self, x: int, y: int, w: int, h: int) -> tuple[int, int]:
        """Where a new ``w`` x ``h`` window meant for ``(x, y)`` opens: moved by
        ``window_offset``, kept inside the work area along each axis it moves."""
        dx, dy = self.window_offset
        x0, y0, x1, y1 = self.work_area()
        if dx:
            x = min(max(x0, x + dx), max(x0, x1 - w))
        if dy:
            y = min(max(y0, y + dy), max(y0, y1 - h))
        return x, y

    def open_folder(self, path: str) -> FolderWindow:
        """Open (or raise) a Files window on ``path`` (a folder, or ``trash:///``)."""
        path = path if path == TRASH_URI else self.fs.normpath(path)
        for shown in self.windows:
            if isinstance(shown, FolderWindow) and shown.path == path:
                self.raise_window(shown)
                return shown
        x0, y0, x1, y1 = self.work_area()
        w, h = min(980, x1 - x0 - 60), min(640, y1 - y0 - 60)
        k = len(self.windows) % 6
        x, y = self.offset_window(x0 + (x1 - x0 - w) // 2 + 32 * k,
                                  y0 + (y1 - y0 - h) // 2 + 32 * k, w, h)
        win = FolderWindow((x, y, x + w, y + h), path)
        self.windows.append(win)
        self.desktop_focused = False
        return win

    def open_requested(self) -> None:
        """Open what ``xdg-open`` asked for (`OPEN_REQUESTS`): a folder (``file://`` or a
        path) in Files, ``trash:///`` in Files' Trash; a file only where the simulated image
        has the app Ubuntu would pick (none yet: a text editor or image viewer is not
        simulated, so those open nothing)."""
        data = self.fs.read_file(OPEN_REQUESTS).decode(errors="replace")
        self.fs.remove(OPEN_REQUESTS)
        for line in data.splitlines()[-MAX_OPEN_REQUESTS:]:
            charge()
            target = line.removeprefix("file://")
            if target.rstrip("/") == TRASH_URI.rstrip("/"):
                self.open_folder(TRASH_URI)
            elif "://" not in target and self.fs.is_dir(target):
                self.open_folder(target)

    def open_terminal(self, cwd: str = HOME) -> TerminalWindow:
        """Open a new 80x24 Terminal window in ``cwd`` (focused, on top)."""
        return self.terminals.open(cwd)

    def open_settings(self, page: str | None = None) -> SettingsWindow:
        """Open (or raise) the Settings window, on ``page`` (a panel) when given."""
        return open_settings(self, page)

    def launch(self, app: str) -> None:
        """A dock click: Files, Terminal and Settings raise their windows or open one; Trash
        opens the Trash; other apps come later."""
        if app == "settings":
            self.open_settings()
            return
        if app == "terminal":
            self.terminals.launch()
            return
        if app == "trash":
            self.open_folder(TRASH_URI)
            return
        if app != "files":
            return
        mine = [w for w in self.windows if w.app == "files"]
        if not mine:
            self.open_folder(HOME)
            return
        for w in mine:
            self.raise_window(w)

    # -- desktop files, renaming, menus (the components) ---------------------
    def open_paths(self, names: list[str]) -> None:
        """Open desktop entries (folders in Files)."""
        self.icon_actions.open_paths(names)

    def new_folder(self, near: tuple[int, int]) -> str:
        """Create "New Folder" on the desktop near ``near`` and start renaming it."""
        return self.icon_actions.new_folder(near)

    def trash(self, names: list[str]) -> None:
        """Move desktop entries to the Trash."""
        self.icon_actions.trash(names)

    def set_clipboard(self, op: str, names: list[str]) -> None:
        """Copy or cut desktop entries to the file clipboard."""
        self.icon_actions.set_clipboard(op, names)

    def paste(self) -> None:
        """Paste the file clipboard onto the desktop."""
        self.icon_actions.paste()

    def paste_into(self, directory: str) -> list[str]:
        """Paste the file clipboard into ``directory``; the new names."""
        return self.icon_actions.paste_into(directory)

    def start_rename(self, name: str) -> None:
        """Open the rename popover on desktop entry ``name``."""
        self.rename_flow.start(name)

    def start_rename_path(self, path: str, anchor: tuple[int, int, int, int],
                          owner: Window | None = None, creating: bool = False,
                          name: str = "") -> None:
        """Open the rename (or, ``creating``, New Folder) popover for ``path``."""
        self.rename_flow.start_path(path, anchor, owner=owner, creating=creating, name=name)

    def validate_rename(self) -> None:
        """Re-check the name typed in the rename popover."""
        self.rename_flow.validate()

    def commit_rename(self, cancel_if_invalid: bool = False) -> bool:
        """Rename to the popover's text (see `RenameFlow.commit`)."""
        return self.rename_flow.commit(cancel_if_invalid)

    def hovered_menu_item(self) -> int | None:
        """The enabled menu item under the pointer."""
        return self.menus.hovered_item()

    def open_icon_menu(self, point: tuple[int, int]) -> None:
        """The context menu of the selected icons."""
        self.menus.open_icon_menu(point)

    def open_desktop_menu(self, point: tuple[int, int]) -> None:
        """The context menu of the desktop background."""
        self.menus.open_desktop_menu(point)

    def run_menu_action(self, action: str) -> None:
        """Run an item of the open menu (closing it)."""
        self.menus.run_action(action)

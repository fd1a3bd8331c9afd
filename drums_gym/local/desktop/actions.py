"""What the desktop does: open, rename, trash, clipboard, new folder, context menus.

`DesktopActions` is a mixin of `Desktop`; it holds the operations that input
handlers (clicks, keys, menu items) trigger, so they can be unit-tested and
reused by later apps.
"""

from __future__ import annotations

from . import file_ops
from .files_properties import open_properties
from .files_window import TRASH_URI, FolderWindow
from .fs import HOME, FileSystem, split_ext
from .icons import IconGrid
from .popups import SEPARATOR, Menu, MenuItem, RenamePopover, rename_problem
from .textfield import TextField
from .theme import DOCK_W, TOP_BAR_H
from .windows import Window

__all__ = ["DESKTOP_DIR", "DesktopActions"]

DESKTOP_DIR = HOME + "/Desktop"


class DesktopActions:
    """Operations on the desktop model (mixed into `Desktop`)."""

    width: int
    height: int
    fs: FileSystem
    pointer: tuple[int, int]
    grid: IconGrid
    selected: set[str]
    windows: list[Window]
    menu: Menu | None
    menu_targets: tuple[str, ...]
    rename: RenamePopover | None
    clipboard: tuple[str, tuple[str, ...]] | None
    text_clipboard: str
    desktop_focused: bool
    _incidents: list[tuple[str, str]]

    # -- windows ----------------------------------------------------------
    def active_window(self) -> Window | None:
        """The focused window (top of the stack), or None when the desktop has focus."""
        if self.desktop_focused:
            return None
        for w in reversed(self.windows):
            if not w.minimized:
                return w
        return None

    def raise_window(self, w: Window) -> None:
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
        return next((w for w in reversed(self.windows) if not w.minimized), None)

    def work_area(self) -> tuple[int, int, int, int]:
        return DOCK_W, TOP_BAR_H, self.width, self.height

    def open_folder(self, path: str) -> FolderWindow:
        """Open (or raise) a Files window on ``path`` (a folder, or ``trash:///``)."""
        path = path if path == TRASH_URI else self.fs.normpath(path)
        for w in self.windows:
            if isinstance(w, FolderWindow) and w.path == path:
                self.raise_window(w)
                return w
        x0, y0, x1, y1 = self.work_area()
        w, h = min(980, x1 - x0 - 60), min(640, y1 - y0 - 60)
        k = len(self.windows) % 6
        x = x0 + (x1 - x0 - w) // 2 + 32 * k
        y = y0 + (y1 - y0 - h) // 2 + 32 * k
        win = FolderWindow((x, y, x + w, y + h), path)
        self.windows.append(win)
        self.desktop_focused = False
        return win

    def launch(self, app: str) -> None:
        """A dock click: Files raises its windows or opens Home; other apps come later."""
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

    # -- files ------------------------------------------------------------
    def open_paths(self, names: list[str]) -> None:
        """Open desktop entries: folders in a Files window (files: a hook for later apps)."""
        for name in names:
            path = f"{DESKTOP_DIR}/{name}"
            if self.fs.is_dir(path):
                self.open_folder(path)

    def start_rename(self, name: str) -> None:
        """Open the rename popover for desktop entry ``name`` (stem selected for files)."""
        path = f"{DESKTOP_DIR}/{name}"
        if not self.fs.exists(path) or name not in self.grid.slots:
            return
        self.start_rename_path(path, self.grid.hit_box(name))
        self.selected = {name}

    def start_rename_path(self, path: str, anchor: tuple[int, int, int, int],
                          owner: Window | None = None, creating: bool = False,
                          name: str = "") -> None:
        """The rename popover for any ``path`` under ``anchor`` (a screen box); with
        ``creating``, Files' New Folder popover creating ``name`` in the folder ``path``."""
        is_dir = creating or self.fs.is_dir(path)
        text = name if creating else path.rsplit("/", 1)[1]
        end = len(text) if is_dir else len(split_ext(text)[0])
        self.menu = None
        self.rename = RenamePopover(path, is_dir, anchor, (self.width, self.height),
                                    TextField(text, end, 0), creating=creating, owner=owner)
        self.validate_rename()

    def validate_rename(self) -> None:
        pop = self.rename
        if pop is None:
            return
        siblings = set(self.fs.listdir(pop.parent)) if self.fs.is_dir(pop.parent) else set()
        pop.ok, pop.message = rename_problem(pop.field.text, pop.old_name, siblings, pop.is_dir)

    def commit_rename(self, cancel_if_invalid: bool = False) -> bool:
        """Rename to the field's text. Invalid names keep the popover open with an error
        (or close it, with ``cancel_if_invalid``, as a click elsewhere does)."""
        pop = self.rename
        if pop is None:
            return False
        new = pop.field.text
        if new == pop.old_name and not pop.creating:
            self.rename = None
            return True
        self.validate_rename()
        if not pop.ok:
            if cancel_if_invalid:
                self.rename = None
            elif not pop.message:
                pop.message = "The name cannot be empty."
            return False
        parent = pop.parent
        new_path = f"{parent.rstrip('/')}/{new}"
        self.rename = None
        if pop.creating:
            self.fs.mkdir(new_path)
            if pop.owner is not None:
                pop.owner.path_created(new_path)
            return True
        self.fs.rename(pop.path, new_path)
        if parent == DESKTOP_DIR:
            self.grid.rename(pop.old_name, new)
            if pop.old_name in self.selected:
                self.selected = (self.selected - {pop.old_name}) | {new}
        for w in self.windows:
            w.path_moved(pop.path, new_path)
        return True

    def new_folder(self, near: tuple[int, int]) -> str:
        """Create "New Folder" (or "New Folder 2", ...) near a point and start renaming it."""
        name = "New Folder"
        n = 2
        while self.fs.exists(f"{DESKTOP_DIR}/{name}"):
            name, n = f"New Folder {n}", n + 1
        self.fs.mkdir(f"{DESKTOP_DIR}/{name}", parents=True)
        self.grid.place(name, near)
        self.selected = {name}
        self.start_rename(name)
        return name

    def trash(self, names: list[str]) -> None:
        for name in names:
            if self.fs.exists(f"{DESKTOP_DIR}/{name}"):
                self.fs.trash(f"{DESKTOP_DIR}/{name}")
        self.selected -= set(names)

    def set_clipboard(self, op: str, names: list[str]) -> None:
        if names:
            self.clipboard = (op, tuple(f"{DESKTOP_DIR}/{n}" for n in names))

    def paste(self) -> None:
        """Paste copied/cut files into ~/Desktop ("name (copy)" on clashes)."""
        self.selected = set(self.paste_into(DESKTOP_DIR))

    def paste_into(self, directory: str) -> list[str]:
        """Paste the clipboard into ``directory`` (a cut is consumed); the new names."""
        pasted = file_ops.paste(self.fs, self.clipboard, directory)
        if self.clipboard is not None and self.clipboard[0] == "cut":
            self.clipboard = None
        return pasted

    # -- menus ------------------------------------------------------------
    def hovered_menu_item(self) -> int | None:
        """The enabled menu item under the pointer (highlighted, and what Enter runs)."""
        return None if self.menu is None else self.menu.item_at(*self.pointer)

    def open_icon_menu(self, point: tuple[int, int]) -> None:
        names = sorted(self.selected)
        one = len(names) == 1
        is_dir = one and self.fs.is_dir(f"{DESKTOP_DIR}/{names[0]}")
        items = (
            MenuItem("Open", "open"), MenuItem("Open With Other Application", "open-with", one),
            SEPARATOR,
            MenuItem("Cut", "cut"), MenuItem("Copy", "copy"),
            MenuItem("Rename…", "rename", one), MenuItem("Move to Trash", "trash"),
            SEPARATOR,
            MenuItem("Properties", "properties"), MenuItem("Show in Files", "show-in-files"),
            *((MenuItem("Open in Terminal", "terminal"),) if is_dir else ()),
        )
        self.menu = Menu.at(items, point, (self.width, self.height))
        self.menu_targets = tuple(names)

    def open_desktop_menu(self, point: tuple[int, int]) -> None:
        items = (
            MenuItem("New Folder", "new-folder"), SEPARATOR,
            MenuItem("Paste", "paste", self.clipboard is not None),
            MenuItem("Select All", "select-all"), SEPARATOR,
            MenuItem("Show Desktop in Files", "show-desktop"),
            MenuItem("Open in Terminal", "terminal"), SEPARATOR,
            MenuItem("Change Background…", "background"), SEPARATOR,
            MenuItem("Desktop Icons Settings", "icon-settings"),
            MenuItem("Display Settings", "display-settings"),
        )
        self.menu = Menu.at(items, point, (self.width, self.height))
        self.menu_targets = ()

    def run_menu_action(self, action: str) -> None:
        """Run a context-menu item (closes the menu first). Unknown actions are no-ops."""
        menu, targets = self.menu, list(self.menu_targets)
        self.menu, self.menu_targets = None, ()
        if menu is not None and menu.owner is not None:
            if menu.owner in self.windows:
                menu.owner.run_menu_action(self, action, targets)
            return
        if action == "open":
            self.open_paths(targets)
        elif action == "rename" and len(targets) == 1:
            self.start_rename(targets[0])
        elif action == "trash":
            self.trash(targets)
        elif action in ("cut", "copy"):
            self.set_clipboard(action, targets)
        elif action == "properties" and targets:
            open_properties(self, f"{DESKTOP_DIR}/{targets[0]}")
        elif action == "show-in-files" or action == "show-desktop":
            win = self.open_folder(DESKTOP_DIR)
            win.selected = set(targets)
        elif action == "new-folder":
            self.new_folder(menu.origin if menu is not None else self.pointer)
        elif action == "paste":
            self.paste()
        elif action == "select-all":
            self.selected = set(self.grid.slots)

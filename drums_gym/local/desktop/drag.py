"""Drag and drop of files, and rubber-band selection, on the desktop and in Files.

`DragAndDrop` is a component of `Desktop` (``desk.dnd``); the desktop's mouse handlers call
its three hooks (`press` before a press is handled, `motion` after the pointer moves,
`release` when a button comes up). A press on a file or folder that moves more
than `DRAG_THRESHOLD` pixels drags the selection; a press on empty space draws a
selection rectangle. Dropping:

- on a folder icon (desktop or Files), or on a Files window's empty space, or on a
  place in the Files sidebar: moves the files there (ctrl held at the drop: copies);
- on the Trash (dock launcher, sidebar place, or the Trash view): moves them to the Trash;
- desktop icons dropped on empty desktop space move to that spot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from ..budget import charge
from . import file_ops
from .file_icons import file_icon
from .files_model import PLACES, TRASH_URI, inside
from .files_window import FolderWindow
from .fs import DESKTOP_DIR
from .theme import ACCENT, DOCK_W, TOP_BAR_H, font
from .topbar_dock import dock_app_at
from .windows import Box, Window

if TYPE_CHECKING:
    from collections.abc import Callable

    from .desktop import Desktop

__all__ = ["DRAG_THRESHOLD", "DragAndDrop", "DragState"]

DRAG_THRESHOLD = 8  # pixels (GTK's default drag threshold)


@dataclass
class DragState:
    """A left-button press that may become a drag (``band``: a selection rectangle)."""

    origin: tuple[int, int]
    window: Window | None  # the Files window it started in; None: the desktop
    band: bool = False
    keep: set[str] | None = None  # the multi-selection to drag (the press narrowed it)
    base: set[str] = field(default_factory=set)  # band: what stays selected (ctrl)
    active: bool = False
    paths: tuple[str, ...] = ()


class DragAndDrop:
    """Drag and drop of files and rubber-band selection (``state``: the press in progress)."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk
        self.state: DragState | None = None

    # -- hooks --------------------------------------------------------------
    def press(self, button: str) -> None:
        """Before a press is handled: note what is under the pointer."""
        desk = self.desk
        self.state = None
        if button != "left" or desk.menu is not None or desk.rename is not None:
            return
        x, y = desk.pointer
        w = desk.window_at(x, y)
        ctrl, any_mod = desk.mods.ctrl, desk.mods.any()
        if isinstance(w, FolderWindow):
            if w.part_at(x, y) != "content" or not inside(w.view_rect(), x, y):
                return
            item = w.item_at(desk, x, y)
            if item is None:
                self.state = DragState((x, y), w, band=True,
                                       base=set(w.selected) if ctrl else set())
            else:
                keep = set(w.selected) if item.key in w.selected and not any_mod else None
                self.state = DragState((x, y), w, keep=keep)
        elif w is None and y >= TOP_BAR_H and x >= DOCK_W:
            name = desk.grid.at(x, y)
            if name is None:
                self.state = DragState((x, y), None, band=True,
                                       base=set(desk.selected) if ctrl else set())
            else:
                keep = set(desk.selected) if name in desk.selected and not any_mod else None
                self.state = DragState((x, y), None, keep=keep)

    def motion(self) -> None:
        """After the pointer moved: start the drag past the threshold; grow the band."""
        st = self.state
        if st is None or "left" not in self.desk.mouse.buttons:
            return
        x, y = self.desk.pointer
        if not st.active:
            if max(abs(x - st.origin[0]), abs(y - st.origin[1])) <= DRAG_THRESHOLD:
                return
            paths = () if st.band else self._drag_paths(st)  # may stop on the budget
            st.active, st.paths = True, paths
        if st.band:
            self._band_select(st)

    def release(self, button: str) -> bool:
        """A button came up: finish a drag (True: the release is consumed)."""
        st, self.state = self.state, None
        if st is None or button != "left" or not st.active:
            return False
        if not st.band and st.paths:
            self._drop(st)
        return True

    def key(self) -> tuple[Any, ...] | None:
        """What the drag shows (for frame counting)."""
        st = self.state
        if st is None or not st.active:
            return None
        return (st.band, st.origin, st.paths)

    def overlay(self) -> Callable[[Image.Image], None] | None:
        """Draws the drag (the dragged icon, or the rectangle) under the pointer sprite."""
        st = self.state
        if st is None or not st.active:
            return None
        if st.band:
            box = self._band_box(st)
            return lambda img: _draw_band(img, box)
        icon = file_icon(self.desk.fs, st.paths[0], 48)
        at, count = self.desk.pointer, len(st.paths)
        return lambda img: _draw_dragged(img, icon, at, count)

    # -- helpers --------------------------------------------------------------
    def _drag_paths(self, st: DragState) -> tuple[str, ...]:
        desk = self.desk
        if isinstance(st.window, FolderWindow):
            w = st.window
            if st.keep is not None:
                w.selected = set(st.keep)
            return tuple(i.path for i in w.selected_items(desk))
        if st.keep is not None:
            desk.selected = set(st.keep)
        slots = desk.grid.slots
        charge(len(desk.selected))
        names = sorted((n for n in desk.selected if n in slots), key=slots.__getitem__)
        return tuple(f"{DESKTOP_DIR}/{n}" for n in names)

    def _band_box(self, st: DragState) -> Box:
        (ox, oy), (x, y) = st.origin, self.desk.pointer
        box = (min(ox, x), min(oy, y), max(ox, x) + 1, max(oy, y) + 1)
        if isinstance(st.window, FolderWindow):
            vx0, vy0, vx1, vy1 = st.window.view_rect()
            box = (max(box[0], vx0), max(box[1], vy0), min(box[2], vx1), min(box[3], vy1))
        return box

    def _band_select(self, st: DragState) -> None:
        desk = self.desk
        box = self._band_box(st)
        if isinstance(st.window, FolderWindow):
            w = st.window
            items = w.items(desk)
            hits = {items[n].key for n in w.visible_indices(len(items))
                    if _overlap(w.tile(n), box)}
            w.selected = st.base | hits
        else:
            desk.selected = st.base | desk.grid.in_box(box)

    def _drop(self, st: DragState) -> None:
        desk = self.desk
        x, y = desk.pointer
        fs, paths = desk.fs, list(st.paths)
        op = "copy" if desk.mods.ctrl else "cut"
        target: FolderWindow | None = None
        if x < DOCK_W:
            app = dock_app_at(x, y, desk.height, desk.dock.apps())
            if app is not None and app.key == "trash":
                file_ops.trash(fs, paths)
            return
        w = desk.window_at(x, y)
        if isinstance(w, FolderWindow):
            dest = self._window_target(w, x, y, paths)
            target = w
        elif w is not None or y < TOP_BAR_H:
            return  # other applications take no files
        else:
            name = desk.grid.at(x, y)
            folder = f"{DESKTOP_DIR}/{name}" if name is not None else ""
            if name is not None and fs.is_dir(folder) and folder not in paths:
                dest = folder
            elif st.window is None:  # desktop icons onto empty desktop space: move them
                for n in (p.rsplit("/", 1)[1] for p in paths):
                    desk.grid.place(n, (x, y))
                return
            else:
                dest = DESKTOP_DIR
        if dest == TRASH_URI:
            file_ops.trash(fs, paths)
            return
        if not dest or (op == "cut" and all(p.rsplit("/", 1)[0] == dest for p in paths)):
            return
        names = file_ops.paste(fs, (op, tuple(paths)), dest)
        if op == "cut":
            for old, new in zip(paths, (f"{dest}/{n}" for n in names), strict=False):
                for win in desk.windows:
                    win.path_moved(old, new)
        if dest == DESKTOP_DIR:
            for n in names:
                desk.grid.place(n, (x, y))
            desk.selected = set(names)
        elif target is not None and target.path == dest and names:
            target.selected = set(names)

    def _window_target(self, w: FolderWindow, x: int, y: int, paths: list[str]) -> str:
        """Where a drop on Files window ``w`` goes: a folder item, a place, or ``w``'s folder."""
        if inside(w.view_rect(), x, y):
            if w.in_trash:
                return TRASH_URI
            item = w.item_at(self.desk, x, y)
            if item is not None and item.is_dir and item.path not in paths:
                return item.path
            return w.path
        for i, (_, path) in enumerate(PLACES):
            if path and inside(w.place_rect(i), x, y) and (
                    path == TRASH_URI or self.desk.fs.is_dir(path)):
                return path
        return ""


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _draw_band(img: Image.Image, box: Box) -> None:
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return
    layer = Image.new("RGBA", (x1 - x0, y1 - y0), (*ACCENT, 50))
    ImageDraw.Draw(layer).rectangle((0, 0, x1 - x0 - 1, y1 - y0 - 1), outline=(*ACCENT, 220))
    img.paste(layer, (x0, y0), layer)


def _draw_dragged(img: Image.Image, icon: Image.Image, at: tuple[int, int], count: int) -> None:
    faded = icon.copy()
    faded.putalpha(faded.getchannel("A").point(lambda a: a * 3 // 4))
    img.paste(faded, (at[0] - 12, at[1] - 8), faded)
    if count > 1:
        d = ImageDraw.Draw(img)
        cx, cy = at[0] + 34, at[1] - 6
        d.ellipse((cx - 10, cy - 10, cx + 10, cy + 10), fill=ACCENT)
        d.text((cx, cy), str(count), font=font(12, bold=True), fill=(255, 255, 255), anchor="mm")

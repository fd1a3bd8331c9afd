"""The model of a Files window: its location, entries, selection, history and geometry.

`FolderWindow` (in `files_window`) adds input and operations on top. A location is
a folder path, or ``trash:///`` (the Trash).

A folder may hold many thousands of entries: the sorted listing (and its key-to-position
index and frame key) is rebuilt only when ``fs.version``, the location or ``show_hidden``
changed, charging the work budget per entry; hit-testing and drawing reach only the tiles
in view, found by arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..budget import charge
from . import file_ops
from .fs import HOME, TRASH
from .textfield import TextField
from .theme import font, text_width
from .windows import Box, Window

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["PLACES", "SIDEBAR_W", "TILE_H", "TILE_W", "TRASH_BAR_H", "TRASH_URI", "FilesModel",
           "Item", "display_name", "inside"]

TRASH_URI = "trash:///"
SIDEBAR_W = 210
TILE_W, TILE_H = 112, 118
TRASH_BAR_H = 48
PLACES: tuple[tuple[str, str], ...] = (
    ("Recent", ""), ("Starred", ""), ("Home", HOME), ("Desktop", HOME + "/Desktop"),
    ("Documents", HOME + "/Documents"), ("Downloads", HOME + "/Downloads"),
    ("Music", HOME + "/Music"), ("Pictures", HOME + "/Pictures"),
    ("Videos", HOME + "/Videos"), ("Trash", TRASH_URI), ("Other Locations", ""),
)


def display_name(path: str) -> str:
    if path == TRASH_URI:
        return "Trash"
    return "Home" if path == HOME else ("/" if path == "/" else path.rsplit("/", 1)[1])


@dataclass(frozen=True)
class Item:
    """One entry of the view: ``key`` (its name in the folder, or in Trash/files),
    ``label`` (what is shown), ``path`` (absolute), ``is_dir``."""

    key: str
    label: str
    path: str
    is_dir: bool


class FilesModel(Window):
    """State and geometry of a Files window on ``path``."""

    app: ClassVar[str] = "files"

    def __init__(self, box: Box, path: str) -> None:
        super().__init__(box)
        self.path = path
        self.history: list[str] = []
        self.future: list[str] = []
        self.selected: set[str] = set()
        self.cursor: str | None = None  # the focused item (arrow keys move it)
        self.anchor: str | None = None  # where shift-selections start
        self.scroll = 0
        self.show_hidden = False
        self.location: TextField | None = None  # the typed location (ctrl+L), when open
        # the listing, rebuilt when its stamp (fs.version, path, show_hidden) changes
        self._listing: tuple[tuple[int, str, bool], tuple[Item, ...], dict[str, int],
                             tuple[Any, ...]] | None = None
        self._checked_selection: tuple[tuple[int, str, bool], set[str]] | None = None

    @property
    def title(self) -> str:
        return display_name(self.path)

    @property
    def in_trash(self) -> bool:
        return self.path == TRASH_URI

    # -- model ------------------------------------------------------------
    def _list(self, host: Desktop) -> tuple[tuple[int, str, bool], tuple[Item, ...],
                                             dict[str, int], tuple[Any, ...]]:
        """``(stamp, items, index of each key, frame key)``, rebuilt when the stamp moved."""
        fs = host.fs
        stamp = (fs.version, self.path, self.show_hidden)
        if self._listing is not None and self._listing[0] == stamp:
            return self._listing
        if self.in_trash:
            out = [Item(t.name, t.display_name, f"{TRASH}/files/{t.name}",
                        fs.is_dir(f"{TRASH}/files/{t.name}")) for t in fs.trash_items()]
        elif fs.is_dir(self.path):
            base = self.path.rstrip("/")
            out = [Item(n, n, f"{base}/{n}", fs.is_dir(f"{base}/{n}"))
                   for n in fs.listdir(self.path) if self.show_hidden or not n.startswith(".")]
        else:
            out = []
        charge(2 * len(out))  # listed, then sorted and stat-ed for the frame key
        items = tuple(sorted(out, key=lambda i: file_ops.sort_key(i.label, i.is_dir)))
        index = {item.key: n for n, item in enumerate(items)}
        kinds = tuple((i.key, i.label, i.is_dir, fs.stat(i.path).st_mtime) for i in items)
        self._listing = (stamp, items, index, kinds)
        return self._listing

    def items(self, host: Desktop) -> Sequence[Item]:
        """The entries shown, in Files' order (folders first, natural name order).

        Cached until the filesystem, the location or ``show_hidden`` changes: read-only."""
        return self._list(host)[1]

    def entries(self, host: Desktop) -> list[str]:
        """The keys of `items`, in order."""
        return [i.key for i in self.items(host)]

    def index_of(self, host: Desktop, key: str | None) -> int | None:
        """The position of entry ``key`` in `items` (None when it is not shown)."""
        return None if key is None else self._list(host)[2].get(key)

    def selected_items(self, host: Desktop) -> list[Item]:
        """The selected entries, in view order."""
        _, items, index, _ = self._list(host)
        charge(len(self.selected))
        return [items[i] for i in sorted(index[k] for k in self.selected if k in index)]

    def navigate(self, path: str, remember: bool = True) -> None:
        self.location = None
        if path != self.path:
            if remember:
                self.history.append(self.path)
                self.future = []
            self.path, self.selected, self.scroll = path, set(), 0
            self.cursor = self.anchor = None

    def back(self) -> None:
        if self.history:
            self.future.append(self.path)
            self.navigate(self.history.pop(), remember=False)

    def forward(self) -> None:
        if self.future:
            self.history.append(self.path)
            self.navigate(self.future.pop(), remember=False)

    def up(self) -> None:
        if not self.in_trash and self.path != "/":
            child = self.path
            self.navigate(self.path.rsplit("/", 1)[0] or "/")
            self.selected = {child.rsplit("/", 1)[1]}

    def sync(self, host: Desktop) -> None:
        if not self.in_trash:
            while not host.fs.is_dir(self.path) and self.path != "/":
                self.path = self.path.rsplit("/", 1)[0] or "/"
        stamp, items, index, _ = self._list(host)
        checked = self._checked_selection
        if checked is None or checked[0] != stamp or checked[1] is not self.selected:
            # a new listing or a new selection (in-place edits only add shown keys)
            charge(len(self.selected))
            stale = {k for k in self.selected if k not in index}
            if stale:
                self.selected -= stale
            self._checked_selection = (stamp, self.selected)
        if self.cursor not in index:
            self.cursor = None
        if self.anchor not in index:
            self.anchor = None
        self.scroll = max(0, min(self.scroll, self.max_scroll(len(items))))

    def path_moved(self, old: str, new: str) -> None:
        def moved(p: str) -> str:
            return new + p[len(old):] if p == old or p.startswith(old + "/") else p

        self.path = moved(self.path)
        self.history = [moved(p) for p in self.history]
        self.future = [moved(p) for p in self.future]
        parent, name = old.rsplit("/", 1)
        if parent == self.path and name in self.selected:
            self.selected = (self.selected - {name}) | {new.rsplit("/", 1)[1]}
            self.cursor = self.anchor = new.rsplit("/", 1)[1]

    def _select_only(self, key: str) -> None:
        self.selected, self.cursor, self.anchor = {key}, key, key

    def path_created(self, path: str) -> None:
        parent, name = path.rsplit("/", 1)
        if parent == self.path:
            self._select_only(name)

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        kinds = self._list(host)[3]
        charge(len(self.selected))
        loc = None if self.location is None else (self.location.text, self.location.cursor,
                                                   self.location.anchor)
        return (*super().render_key(host), self.path, bool(self.history), bool(self.future),
                tuple(sorted(self.selected)), kinds, self.scroll, loc,
                host.clipboard is not None)

    # -- geometry ---------------------------------------------------------
    def back_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + 8, cy - 16, self.x + 40, cy + 16

    def forward_rect(self) -> Box:
        x0, y0, x1, y1 = self.back_rect()
        return x0 + 36, y0, x1 + 36, y1

    def pathbar_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + 84, cy - 16, max(self.x + 200, self.x + self.w - 320), cy + 16

    def crumbs(self) -> list[tuple[str, str]]:
        """``(label, path)`` of each path-bar button, outermost first."""
        if self.in_trash:
            return [("Trash", TRASH_URI)]
        if self.path == HOME or self.path.startswith(HOME + "/"):
            out, cur = [("Home", HOME)], HOME
            rest = self.path[len(HOME):]
        else:
            out, cur, rest = [("/", "/")], "", self.path
        for part in rest.split("/"):
            if part:
                cur = f"{cur}/{part}"
                out.append((part, cur))
        return out

    def crumb_rects(self) -> list[tuple[str, str, Box]]:
        """``(label, path, box)`` of the visible path-bar buttons (leading ones drop when
        the bar is too narrow, as in Files)."""
        px0, py0, px1, py1 = self.pathbar_rect()
        crumbs = self.crumbs()
        f, fb = font(14), font(14, bold=True)

        def widths(cs: list[tuple[str, str]]) -> list[int]:
            out = []
            for i, (label, path) in enumerate(cs):
                w = int(text_width(label, fb if i == len(cs) - 1 else f)) + 12
                out.append(w + (20 if path in (HOME, TRASH_URI) else 0))
            return out

        while len(crumbs) > 1 and sum(widths(crumbs)) + 14 * len(crumbs) > px1 - px0 - 16:
            crumbs = crumbs[1:]
        out, x = [], px0 + 4
        for (label, path), w in zip(crumbs, widths(crumbs), strict=True):
            w = min(w, px1 - 4 - x)
            out.append((label, path, (x, py0 + 3, x + w, py1 - 3)))
            x += w + 14
        return out

    def place_rect(self, i: int) -> Box:
        cx0, cy0, _, _ = self.content_rect()
        y = cy0 + 8 + i * 36 + (8 if i >= 2 else 0) + (8 if i >= 9 else 0)
        return cx0 + 6, y, cx0 + SIDEBAR_W - 6, y + 34

    def view_rect(self) -> Box:
        """The icon view (right of the sidebar, below the Trash bar in the Trash)."""
        cx0, cy0, cx1, cy1 = self.content_rect()
        top = cy0 + (TRASH_BAR_H if self.in_trash else 0)
        return cx0 + SIDEBAR_W + 1, top, cx1, cy1

    def trash_button_rects(self) -> dict[str, Box]:
        _, cy0, cx1, _ = self.content_rect()
        y0, y1 = cy0 + 8, cy0 + TRASH_BAR_H - 8
        return {"Empty…": (cx1 - 96, y0, cx1 - 12, y1), "Restore": (cx1 - 196, y0, cx1 - 104, y1)}

    def per_row(self) -> int:
        vx0, _, vx1, _ = self.view_rect()
        return max(1, (vx1 - vx0 - 24) // TILE_W)

    def max_scroll(self, count: int) -> int:
        _, vy0, _, vy1 = self.view_rect()
        rows = -(-count // self.per_row())
        return max(0, rows * TILE_H + 24 - (vy1 - vy0))

    def tile(self, i: int) -> Box:
        """Screen box of item ``i`` (it may lie outside the view when scrolled away)."""
        vx0, vy0, _, _ = self.view_rect()
        row, col = divmod(i, self.per_row())
        x = vx0 + 12 + col * TILE_W
        y = vy0 + 12 + row * TILE_H - self.scroll
        return x, y, x + TILE_W - 6, y + TILE_H - 6

    def tile_visible(self, i: int) -> bool:
        _, y0, _, y1 = self.tile(i)
        _, vy0, _, vy1 = self.view_rect()
        return y1 > vy0 and y0 < vy1

    def visible_indices(self, count: int) -> list[int]:
        """The items of ``count`` whose tiles show in the view (`tile_visible`), found from
        the scroll offset rather than by testing every tile."""
        _, vy0, _, vy1 = self.view_rect()
        per_row = self.per_row()
        first_row = max(0, (self.scroll - TILE_H) // TILE_H)
        last_row = max(0, (vy1 - vy0 + self.scroll - 12) // TILE_H + 1)
        candidates = range(first_row * per_row, min(count, (last_row + 1) * per_row))
        charge(len(candidates))
        return [i for i in candidates if self.tile_visible(i)]

    def index_at(self, x: int, y: int, count: int) -> int | None:
        """The item of ``count`` whose tile holds the screen point ``(x, y)``, if any."""
        vx0, vy0, _, _ = self.view_rect()
        col = (x - vx0 - 12) // TILE_W
        row = (y - vy0 - 12 + self.scroll) // TILE_H
        if col < 0 or col >= self.per_row() or row < 0:
            return None
        i = row * self.per_row() + col
        return i if i < count and inside(self.tile(i), x, y) else None

    def header_widget_at(self, x: int, y: int) -> bool:
        return any(inside(b, x, y) for b in (self.back_rect(), self.forward_rect(),
                                               self.pathbar_rect()))



def inside(box: Box, x: int, y: int) -> bool:
    return box[0] <= x < box[2] and box[1] <= y < box[3]

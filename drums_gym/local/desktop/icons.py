"""Desktop icons (Desktop Icons NG): a column-major grid of stable slots, and their drawing.

Icons keep their slot across renames (as DING does); new entries take the
first free slot, column by column from the top-left (or in the order `IconGrid.arrange`
gave: a randomized desktop's, see `drums_gym.local.desktop.variation`).

A desktop may hold many thousands of entries, most of them off screen: hit-testing, the
band selection and drawing find icons from slot arithmetic (a slot-to-name map), not by
scanning every icon, and placing new entries charges the work budget per entry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain

from PIL import Image, ImageDraw

from ..budget import charge
from . import art
from .theme import DOCK_W, TOP_BAR_H, font, wrap

__all__ = ["ICON_SIZE", "TILE_H", "TILE_W", "IconGrid", "draw_icons"]

TILE_W, TILE_H = 120, 122
ICON_SIZE = 64
LABEL_FONT = 13
_X0, _Y0 = DOCK_W + 10, TOP_BAR_H + 10

Box = tuple[int, int, int, int]


@dataclass
class IconGrid:
    """Maps desktop entry names to grid slots for a ``width`` x ``height`` screen.

    ``slots`` (name -> slot) is read-only outside this class: its methods keep the reverse
    map and the cached order in step with it, and bump ``version`` on every change.
    ``order`` (the order new entries fill the screen's slots in) and ``salt`` (what new
    names are shuffled by) are None, column by column from the top-left and by name,
    unless `arrange` set them.
    """

    width: int
    height: int
    slots: dict[str, int] = field(default_factory=dict)
    version: int = field(default=0, compare=False)
    order: tuple[int, ...] | None = field(default=None, compare=False)
    salt: str | None = field(default=None, compare=False)
    _by_slot: dict[int, str] = field(default_factory=dict, repr=False, compare=False)
    _order: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_slot = {s: n for n, s in self.slots.items()}

    def _changed(self) -> None:
        self.version += 1
        self._order = None

    @property
    def rows(self) -> int:
        return max(1, (self.height - _Y0 - 10) // TILE_H)

    @property
    def cols(self) -> int:
        return max(1, (self.width - _X0 - 10) // TILE_W)

    def tile(self, slot: int) -> Box:
        """Screen box of ``slot`` (column-major from the top-left)."""
        col, row = divmod(slot, self.rows)
        x, y = _X0 + col * TILE_W, _Y0 + row * TILE_H
        return x, y, x + TILE_W, y + TILE_H

    def arrange(self, order: Sequence[int], salt: str | None = None) -> None:
        """From now on, fill the screen's slots in ``order`` (a permutation of
        ``range(rows * cols)``), placing the names of one `sync` shuffled by ``salt``
        (None: in name order). Icons already placed stay where they are."""
        screen = self.rows * self.cols
        if sorted(order) != list(range(screen)):
            raise ValueError(
                f"order must be a permutation of the screen's {screen} slots, got {len(order)} "
                "slots"
            )
        self.order, self.salt = tuple(order), salt

    def _name_key(self, name: str) -> tuple[str, str]:
        if self.salt is None:
            return name.casefold(), name
        digest = hashlib.blake2b(f"{self.salt}/{name}".encode(errors="surrogatepass"),
                                 digest_size=8).hexdigest()
        return digest, name

    def _free(self, count: int | None = None) -> list[int]:
        """Free slots in order: those of the screen's grid (in ``order``) and past it, as
        many as there are used ones (or the first ``count``, however far they reach)."""
        used = self._by_slot
        screen = self.rows * self.cols
        limit = screen + len(used) + (count or 0)
        slots = range(limit) if self.order is None else chain(self.order, range(screen, limit))
        out = []
        scanned = 0
        for s in slots:
            scanned += 1
            if s not in used:
                out.append(s)
                if count is not None and len(out) >= count:
                    break
        charge(scanned)
        return out

    def _assign(self, name: str, slot: int) -> None:
        old = self.slots.pop(name, None)
        if old is not None and self._by_slot.get(old) == name:
            del self._by_slot[old]
        self.slots[name] = slot
        self._by_slot[slot] = name

    def _forget(self, name: str) -> None:
        slot = self.slots.pop(name)
        if self._by_slot.get(slot) == name:
            del self._by_slot[slot]

    def sync(self, names: list[str]) -> bool:
        """Forget vanished names, place new ones in free slots. True if anything changed."""
        charge(len(names) + len(self.slots))
        present = set(names)
        gone = [n for n in self.slots if n not in present]
        new = sorted((n for n in names if n not in self.slots), key=self._name_key)
        for n in gone:
            self._forget(n)
        if gone:
            self._changed()
        free = self._free(len(new)) if new else []  # may stop on the budget: gone are gone
        for n, s in zip(new, free, strict=False):
            self._assign(n, s)
        if new:
            self._changed()
        return bool(gone or new)

    def place(self, name: str, near: tuple[int, int]) -> None:
        """Put ``name`` in the free slot nearest to the point ``near``."""
        taken = self.slots.get(name)
        if taken is not None:
            del self._by_slot[taken]  # its own slot counts as free
        try:
            free = self._free()
        finally:
            if taken is not None:
                self._by_slot[taken] = name
        free = free[: self.rows * self.cols] or free

        def dist(s: int) -> float:
            x0, y0, x1, y1 = self.tile(s)
            return ((x0 + x1) / 2 - near[0]) ** 2 + ((y0 + y1) / 2 - near[1]) ** 2

        self._assign(name, min(free, key=dist))
        self._changed()

    def rename(self, old: str, new: str) -> None:
        if old in self.slots:
            slot = self.slots[old]
            self._forget(old)
            if new in self.slots:
                self._forget(new)
            self._assign(new, slot)
            self._changed()

    def hit_box(self, name: str) -> Box:
        """The clickable box of an icon (its tile minus a small margin)."""
        x0, y0, x1, y1 = self.tile(self.slots[name])
        return x0 + 6, y0 + 2, x1 - 6, y1 - 4

    def at(self, x: int, y: int) -> str | None:
        """The icon under ``(x, y)``, if any (found from its slot, not by a scan)."""
        col, row = (x - _X0) // TILE_W, (y - _Y0) // TILE_H
        if col < 0 or not 0 <= row < self.rows:
            return None
        name = self._by_slot.get(col * self.rows + row)
        if name is None:
            return None
        x0, y0, x1, y1 = self.hit_box(name)
        return name if x0 <= x < x1 and y0 <= y < y1 else None

    def name_at_slot(self, slot: int) -> str | None:
        """The entry in ``slot``, if any."""
        return self._by_slot.get(slot)

    def ordered(self) -> list[str]:
        """Names in slot order."""
        if self._order is None:
            charge(len(self.slots))
            self._order = tuple(sorted(self.slots, key=self.slots.__getitem__))
        return list(self._order)

    def first(self) -> str | None:
        """The name in the lowest slot."""
        return self._by_slot[min(self._by_slot)] if self._by_slot else None

    def in_box(self, box: Box) -> set[str]:
        """Names whose hit box overlaps the screen box ``box`` (only tiles it can reach)."""
        bx0, by0, bx1, by1 = box
        rows = self.rows
        c0, c1 = max(0, (bx0 - _X0) // TILE_W), max(0, (bx1 - _X0) // TILE_W)
        r0, r1 = max(0, (by0 - _Y0) // TILE_H), min(rows - 1, (by1 - _Y0) // TILE_H)
        out = set()
        for col in range(c0, c1 + 1):
            charge(max(0, r1 - r0 + 1))
            for row in range(r0, r1 + 1):
                name = self._by_slot.get(col * rows + row)
                if name is not None:
                    x0, y0, x1, y1 = self.hit_box(name)
                    if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                        out.add(name)
        return out

    def on_screen(self) -> Iterable[str]:
        """Names whose tiles start on the screen, in slot order (the rest draw nothing)."""
        cols = max(0, -(-(self.width - _X0) // TILE_W))
        rows = self.rows
        for slot in range(cols * rows):
            name = self._by_slot.get(slot)
            if name is not None:
                yield name


@lru_cache(maxsize=8)
def _highlight(w: int, h: int, alpha: int, border: int) -> Image.Image:
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ImageDraw.Draw(img).rounded_rectangle((0, 0, w - 1, h - 1), radius=8,
                                          fill=(255, 255, 255, alpha),
                                          outline=(255, 255, 255, border))
    return img


def label_lines(name: str, selected: bool) -> list[str]:
    """The wrapped label of an icon: 2 lines, or up to 5 when selected (full name)."""
    return wrap(name, font(LABEL_FONT), TILE_W - 12, 5 if selected else 2)


def draw_icons(img: Image.Image, grid: IconGrid, dirs: set[str], selected: set[str],
               hovered: str | None,
               icon_for: Callable[[str], Image.Image] | None = None) -> None:
    """Draw every icon of ``grid`` onto ``img``: ``icon_for(name)`` gives an icon's image
    (thumbnails), else folders for names in ``dirs`` and documents for the rest."""
    d = ImageDraw.Draw(img)
    f = font(LABEL_FONT)
    line_h = LABEL_FONT + 4
    # selected and hovered icons last: their expanded labels overlap neighbours; icons
    # whose tiles start past the screen's right edge draw nothing and are skipped
    order = sorted((n for n in grid.on_screen() if grid.tile(grid.slots[n])[0] < img.width),
                   key=lambda n: n in selected or n == hovered)
    for name in order:
        charge()
        x0, y0, x1, y1 = grid.hit_box(name)
        sel = name in selected
        lines = label_lines(name, sel)
        if sel or name == hovered:
            h = max(y1 - y0, ICON_SIZE + 14 + line_h * len(lines))
            hl = _highlight(x1 - x0, h, 70 if sel else 35, 110 if sel else 0)
            img.paste(hl, (x0, y0), hl)
        if icon_for is not None:
            icon = icon_for(name)
        else:
            icon = art.folder_icon(ICON_SIZE) if name in dirs else art.document_icon(ICON_SIZE)
        cx = (x0 + x1) // 2
        img.paste(icon, (cx - ICON_SIZE // 2, y0 + 4), icon)
        ty = y0 + ICON_SIZE + 10
        for i, line in enumerate(lines):
            y = ty + i * line_h
            d.text((cx + 1, y + 1), line, font=f, fill=(0, 0, 0), anchor="ma")
            d.text((cx, y), line, font=f, fill=(255, 255, 255), anchor="ma")

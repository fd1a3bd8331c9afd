"""Desktop icons (Desktop Icons NG): a column-major grid of stable slots, and their drawing.

Icons keep their slot across renames (as DING does); new entries take the
first free slot, column by column from the top-left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw

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
    """Maps desktop entry names to grid slots for a ``width`` x ``height`` screen."""

    width: int
    height: int
    slots: dict[str, int] = field(default_factory=dict)

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

    def _free(self) -> list[int]:
        used = set(self.slots.values())
        return [s for s in range(self.rows * self.cols + len(used)) if s not in used]

    def sync(self, names: list[str]) -> bool:
        """Forget vanished names, place new ones in free slots. True if anything changed."""
        present = set(names)
        gone = [n for n in self.slots if n not in present]
        for n in gone:
            del self.slots[n]
        new = sorted((n for n in names if n not in self.slots), key=lambda n: (n.casefold(), n))
        free = self._free()
        for n, s in zip(new, free, strict=False):
            self.slots[n] = s
        return bool(gone or new)

    def place(self, name: str, near: tuple[int, int]) -> None:
        """Put ``name`` in the free slot nearest to the point ``near``."""
        self.slots.pop(name, None)
        free = self._free()[: self.rows * self.cols] or self._free()

        def dist(s: int) -> float:
            x0, y0, x1, y1 = self.tile(s)
            return ((x0 + x1) / 2 - near[0]) ** 2 + ((y0 + y1) / 2 - near[1]) ** 2

        self.slots[name] = min(free, key=dist)

    def rename(self, old: str, new: str) -> None:
        if old in self.slots:
            self.slots[new] = self.slots.pop(old)

    def hit_box(self, name: str) -> Box:
        """The clickable box of an icon (its tile minus a small margin)."""
        x0, y0, x1, y1 = self.tile(self.slots[name])
        return x0 + 6, y0 + 2, x1 - 6, y1 - 4

    def at(self, x: int, y: int) -> str | None:
        """The icon under ``(x, y)``, if any."""
        for name in self.slots:
            x0, y0, x1, y1 = self.hit_box(name)
            if x0 <= x < x1 and y0 <= y < y1:
                return name
        return None

    def ordered(self) -> list[str]:
        """Names in slot order."""
        return sorted(self.slots, key=self.slots.__getitem__)


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
    # selected and hovered icons last: their expanded labels overlap neighbours
    order = sorted(grid.ordered(), key=lambda n: n in selected or n == hovered)
    for name in order:
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

"""A Files (Nautilus)-like window showing one folder: path bar, sidebar, icon grid."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image, ImageDraw

from . import art
from .fs import HOME
from .theme import ACCENT, SIDEBAR_BG, TEXT, TEXT_DIM, ellipsize, font, rounded, wrap
from .windows import Box, Window, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["FolderWindow"]

SIDEBAR_W = 210
TILE_W, TILE_H, ICON = 112, 118, 64
PLACES: tuple[tuple[str, str], ...] = (
    ("Recent", ""), ("Starred", ""), ("Home", HOME), ("Desktop", HOME + "/Desktop"),
    ("Documents", HOME + "/Documents"), ("Downloads", HOME + "/Downloads"),
    ("Music", HOME + "/Music"), ("Pictures", HOME + "/Pictures"),
    ("Videos", HOME + "/Videos"), ("Trash", ""), ("Other Locations", ""),
)


def display_name(path: str) -> str:
    return "Home" if path == HOME else ("/" if path == "/" else path.rsplit("/", 1)[1])


def _house(d: ImageDraw.ImageDraw, x: int, cy: int, fill: tuple[int, int, int]) -> None:
    d.polygon([(x, cy - 1), (x + 7, cy - 8), (x + 14, cy - 1)], fill=fill)
    d.rectangle((x + 2, cy - 1, x + 12, cy + 7), fill=fill)
    d.rectangle((x + 6, cy + 2, x + 8, cy + 7), fill=(255, 255, 255))


def _place_glyph(d: ImageDraw.ImageDraw, label: str, x: int, cy: int) -> None:
    """A small symbolic icon for a sidebar place."""
    c = (90, 90, 90)
    if label == "Home":
        _house(d, x, cy, c)
    elif label == "Recent":
        d.ellipse((x, cy - 7, x + 14, cy + 7), outline=c, width=2)
        d.line((x + 7, cy - 4, x + 7, cy, x + 10, cy + 2), fill=c, width=2)
    elif label == "Starred":
        pts = []
        for i in range(10):
            r = 7.5 if i % 2 == 0 else 3.2
            a = math.pi / 2 + i * math.pi / 5
            pts.append((x + 7 + r * math.cos(a), cy - r * math.sin(a)))
        d.polygon(pts, outline=c, width=2)
    elif label == "Trash":
        d.rectangle((x + 2, cy - 4, x + 12, cy + 7), outline=c, width=2)
        d.line((x, cy - 6, x + 14, cy - 6), fill=c, width=2)
    elif label == "Other Locations":
        d.line((x + 7, cy - 7, x + 7, cy + 7), fill=c, width=2)
        d.line((x, cy, x + 14, cy), fill=c, width=2)
    else:
        d.polygon([(x, cy - 6), (x + 5, cy - 6), (x + 7, cy - 4), (x + 14, cy - 4),
                   (x + 14, cy + 6), (x, cy + 6)], outline=c, width=2)


class FolderWindow(Window):
    """Lists ``path``; double-click a folder to enter it, Back / alt+Left to return."""

    app: ClassVar[str] = "files"

    def __init__(self, box: Box, path: str) -> None:
        super().__init__(box)
        self.path = path
        self.history: list[str] = []
        self.selected: set[str] = set()

    @property
    def title(self) -> str:
        return display_name(self.path)

    # -- model ------------------------------------------------------------
    def entries(self, host: Desktop) -> list[str]:
        if not host.fs.is_dir(self.path):
            return []
        return [n for n in host.fs.listdir(self.path) if not n.startswith(".")]

    def navigate(self, path: str, remember: bool = True) -> None:
        if path != self.path:
            if remember:
                self.history.append(self.path)
            self.path, self.selected = path, set()

    def sync(self, host: Desktop) -> None:
        while not host.fs.is_dir(self.path) and self.path != "/":
            self.path = self.path.rsplit("/", 1)[0] or "/"
        self.selected &= set(self.entries(host))

    def path_moved(self, old: str, new: str) -> None:
        if self.path == old or self.path.startswith(old + "/"):
            self.path = new + self.path[len(old):]
        self.history = [new + p[len(old):] if p == old or p.startswith(old + "/") else p
                        for p in self.history]

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        kinds = tuple((n, host.fs.is_dir(f"{self.path}/{n}")) for n in self.entries(host))
        return (*super().render_key(host), self.path, bool(self.history),
                tuple(sorted(self.selected)), kinds)

    # -- geometry ---------------------------------------------------------
    def _back_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + 8, cy - 16, self.x + 40, cy + 16

    def _pathbar_rect(self) -> Box:
        cy = self.y + self.HEADER_H // 2
        return self.x + 84, cy - 16, self.x + self.w - 320, cy + 16

    def _tile(self, i: int) -> Box:
        cx0, cy0, cx1, _ = self.content_rect()
        per_row = max(1, (cx1 - cx0 - SIDEBAR_W - 24) // TILE_W)
        row, col = divmod(i, per_row)
        x = cx0 + SIDEBAR_W + 12 + col * TILE_W
        y = cy0 + 12 + row * TILE_H
        return x, y, x + TILE_W - 6, y + TILE_H - 6

    def _place_rect(self, i: int) -> Box:
        cx0, cy0, _, _ = self.content_rect()
        y = cy0 + 8 + i * 36 + (8 if i >= 2 else 0)
        return cx0 + 6, y, cx0 + SIDEBAR_W - 6, y + 34

    def header_widget_at(self, x: int, y: int) -> bool:
        for x0, y0, x1, y1 in (self._back_rect(), self._pathbar_rect()):
            if x0 <= x < x1 and y0 <= y < y1:
                return True
        return False

    # -- drawing ----------------------------------------------------------
    def draw_header(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                    active: bool) -> None:
        fg = TEXT if active else TEXT_DIM
        for i, glyph in enumerate(("<", ">")):
            x0, y0, x1, y1 = self._back_rect()
            x0, x1 = x0 + i * 36, x1 + i * 36
            on = bool(self.history) if i == 0 else False
            rounded(d, (x0, y0, x1, y1), 6, fill=(222, 221, 219) if on else None)
            d.text(((x0 + x1) // 2, (y0 + y1) // 2), glyph, font=font(16, bold=True),
                   fill=fg if on else (180, 180, 180), anchor="mm")
        px0, py0, px1, py1 = self._pathbar_rect()
        rounded(d, (px0, py0, px1, py1), 6, fill=(255, 255, 255), outline=(210, 208, 206))
        parts = self._crumbs()
        x, f, fb = px0 + 10, font(14), font(14, bold=True)
        if parts[0][1] == HOME:
            _house(d, x, (py0 + py1) // 2, fg)
            x += 20
        for i, (label, _) in enumerate(parts):
            last = i == len(parts) - 1
            label = ellipsize(label, fb if last else f, max(40, px1 - x - 30))
            d.text((x, (py0 + py1) // 2), label, font=fb if last else f, fill=fg, anchor="lm")
            x += int((fb if last else f).getlength(label)) + 8
            if not last:
                d.text((x, (py0 + py1) // 2), "/", font=f, fill=TEXT_DIM, anchor="lm")
                x += 14
        cy = self.y + self.HEADER_H // 2
        cx = px1 + 26
        d.ellipse((cx - 7, cy - 7, cx + 3, cy + 3), outline=fg, width=2)
        d.line((cx + 2, cy + 2, cx + 7, cy + 7), fill=fg, width=2)
        cx += 40
        for dy in (-5, 0, 5):
            d.line((cx - 7, cy + dy, cx + 7, cy + dy), fill=fg, width=2)

    def _crumbs(self) -> list[tuple[str, str]]:
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

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        cx0, cy0, cx1, cy1 = self.content_rect()
        d.rectangle((cx0, cy0 + 1, cx0 + SIDEBAR_W, cy1 - 8), fill=SIDEBAR_BG)
        d.rounded_rectangle((cx0, cy0 + 1, cx0 + SIDEBAR_W, cy1), radius=10, fill=SIDEBAR_BG,
                            corners=(False, False, False, True))
        d.line((cx0 + SIDEBAR_W, cy0 + 1, cx0 + SIDEBAR_W, cy1), fill=(220, 218, 216))
        for i, (label, path) in enumerate(PLACES):
            x0, y0, x1, y1 = self._place_rect(i)
            if path and path == self.path:
                rounded(d, (x0, y0, x1, y1), 6, fill=(222, 221, 219))
            d.text((x0 + 36, (y0 + y1) // 2), label, font=font(14), fill=TEXT, anchor="lm")
            _place_glyph(d, label, x0 + 10, (y0 + y1) // 2)
        names = self.entries(host)
        if not names:
            mx = (cx0 + SIDEBAR_W + cx1) // 2
            my = (cy0 + cy1) // 2
            big = art.folder_icon(128, (200, 200, 200))
            img.paste(big, (mx - 64, my - 110), big)
            d.text((mx, my + 40), "Folder is Empty", font=font(20, bold=True),
                   fill=(160, 160, 160), anchor="mm")
            return
        f = font(13)
        for i, name in enumerate(names):
            x0, y0, x1, y1 = self._tile(i)
            if y1 > cy1:
                break
            sel = name in self.selected
            if sel:
                rounded(d, (x0, y0, x1, y1), 8, fill=(250, 221, 208))
            is_dir = host.fs.is_dir(f"{self.path}/{name}")
            icon = art.folder_icon(ICON) if is_dir else art.document_icon(ICON)
            img.paste(icon, ((x0 + x1) // 2 - ICON // 2, y0 + 4), icon)
            for j, line in enumerate(wrap(name, f, TILE_W - 14, 3 if sel else 2)):
                cx, ty = (x0 + x1) // 2, y0 + ICON + 12 + j * 17
                if sel:
                    half = int(f.getlength(line)) // 2 + 4
                    rounded(d, (cx - half, ty - 2, cx + half, ty + 15), 4, fill=ACCENT)
                d.text((cx, ty), line, font=f, fill=(255, 255, 255) if sel else TEXT, anchor="ma")

    # -- input ------------------------------------------------------------
    def _item_at(self, host: Desktop, x: int, y: int) -> str | None:
        for i, name in enumerate(self.entries(host)):
            x0, y0, x1, y1 = self._tile(i)
            if x0 <= x < x1 and y0 <= y < y1:
                return name
        return None

    def back(self) -> None:
        if self.history:
            self.navigate(self.history.pop(), remember=False)

    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        bx0, by0, bx1, by1 = self._back_rect()
        if bx0 <= x < bx1 and by0 <= y < by1:
            self.back()
            return
        cx0, cy0, _, _ = self.content_rect()
        if y >= cy0 and x < cx0 + SIDEBAR_W:
            for i, (_, path) in enumerate(PLACES):
                x0, y0, x1, y1 = self._place_rect(i)
                if path and x0 <= x < x1 and y0 <= y < y1 and host.fs.is_dir(path):
                    self.navigate(path)
            return
        if y < cy0:
            return
        name = self._item_at(host, x, y)
        if name is None:
            self.selected = set()
        elif host.mods.ctrl and button == "left":
            self.selected ^= {name}
        else:
            self.selected = {name}
            if clicks >= 2 and button == "left":
                self._open(host, name)

    def _open(self, host: Desktop, name: str) -> None:
        path = f"{self.path}/{name}"
        if host.fs.is_dir(path):
            self.navigate(path)

    def on_key(self, host: Desktop, key: str) -> bool:
        mods = host.mods
        if (mods.alt and key == "left") or (key == "backspace" and not mods.any()):
            self.back()
        elif mods.alt and key == "up":
            if self.path != "/":
                self.navigate(self.path.rsplit("/", 1)[0] or "/")
        elif key == "enter" and len(self.selected) == 1:
            self._open(host, next(iter(self.selected)))
        elif mods.ctrl and key.lower() == "a":
            self.selected = set(self.entries(host))
        elif key == "escape":
            self.selected = set()
        else:
            return False
        return True

    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        crumbs = node("tool-bar", "Location", self._pathbar_rect(), text=self.path)
        crumbs["children"] = [node("push-button", label, self._pathbar_rect())
                              for label, _ in self._crumbs()]
        back = node("push-button", "Back", self._back_rect(),
                    ["showing", "visible"] + (["enabled", "sensitive"] if self.history else []))
        cx0, cy0, _, cy1 = self.content_rect()
        places = node("list", "Places", (cx0, cy0, cx0 + SIDEBAR_W, cy1))
        places["children"] = [node("list-item", label, self._place_rect(i))
                              for i, (label, _) in enumerate(PLACES)]
        view = node("layered-pane", "Files View", self.content_rect())
        for i, name in enumerate(self.entries(host)):
            states = ["enabled", "selectable", "showing", "visible"]
            states += ["selected"] if name in self.selected else []
            view["children"].append(node("icon", name, self._tile(i), states))
        return [back, crumbs, places, view]

"""Popups above the desktop: context menus and the rename popover (models + drawing)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from . import art
from .textfield import TextField
from .theme import (
    ACCENT,
    BORDER,
    DOCK_W,
    ERROR,
    MENU_BG,
    MENU_HOVER,
    TEXT,
    TEXT_DIM,
    ellipsize,
    font,
    rounded,
    text_width,
)

__all__ = ["Menu", "MenuItem", "RenamePopover", "rename_problem"]

Box = tuple[int, int, int, int]
ITEM_H, SEP_H, PAD, MENU_FONT = 30, 9, 6, 14


@dataclass(frozen=True)
class MenuItem:
    """A menu entry; ``action`` is what the desktop runs, ``"-"`` makes a separator."""

    label: str
    action: str
    enabled: bool = True

    @property
    def separator(self) -> bool:
        return self.action == "-"


SEPARATOR = MenuItem("", "-")


def _node(role: str, name: str, box: Box, states: list[str], **extra: Any) -> dict[str, Any]:
    return {"role": role, "name": name, "position": [box[0], box[1]],
            "size": [box[2] - box[0], box[3] - box[1]], "states": states, "children": [],
            **extra}


@dataclass
class Menu:
    """A GTK-style popup menu placed at a point, flipped to stay on screen."""

    items: tuple[MenuItem, ...]
    x: int
    y: int
    width: int
    origin: tuple[int, int] = (0, 0)
    pressed: int | None = None
    owner: Any = None  # the window whose items these are (None: the desktop's)
    name: str = "Context Menu"
    focus: int | None = None  # the item Up/Down moved to (None: the pointer's)
    shell: bool = False  # GNOME Shell's menu (the dock's, the panel's), not an app's

    @classmethod
    def at(cls, items: tuple[MenuItem, ...], point: tuple[int, int],
           screen: tuple[int, int], owner: Any = None, name: str = "Context Menu",
           shell: bool = False) -> Menu:
        f = font(MENU_FONT)
        width = max(200, int(max(text_width(i.label, f) for i in items)) + 48)
        height = sum(SEP_H if i.separator else ITEM_H for i in items) + 2 * PAD
        x, y = point
        if x + width > screen[0]:
            x = max(0, x - width)
        if y + height > screen[1]:
            y = max(0, y - height)
        return cls(items, x, y, width, origin=point, owner=owner, name=name, shell=shell)

    @property
    def height(self) -> int:
        return sum(SEP_H if i.separator else ITEM_H for i in self.items) + 2 * PAD

    @property
    def rect(self) -> Box:
        return self.x, self.y, self.x + self.width, self.y + self.height

    def item_rects(self) -> list[Box]:
        out, y = [], self.y + PAD
        for item in self.items:
            h = SEP_H if item.separator else ITEM_H
            out.append((self.x + 1, y, self.x + self.width - 1, y + h))
            y += h
        return out

    def contains(self, x: int, y: int) -> bool:
        x0, y0, x1, y1 = self.rect
        return x0 <= x < x1 and y0 <= y < y1

    def step(self, start: int | None, delta: int) -> int | None:
        """The next enabled item from ``start`` going ``delta`` (+1 down, -1 up), wrapping."""
        n = len(self.items)
        i = (-1 if delta > 0 else n) if start is None else start
        for _ in range(n):
            i = (i + delta) % n
            if self.items[i].enabled and not self.items[i].separator:
                return i
        return None

    def item_at(self, x: int, y: int) -> int | None:
        """Index of the enabled item under ``(x, y)``."""
        for i, (x0, y0, x1, y1) in enumerate(self.item_rects()):
            item = self.items[i]
            if x0 <= x < x1 and y0 <= y < y1 and item.enabled and not item.separator:
                return i
        return None

    # -- hooks of popups with controls besides items (the shell's menus) -----------
    def on_press(self, desk: Any, x: int, y: int) -> bool:
        """A press inside the menu not meant for an item (a slider, a switch): True when
        taken."""
        return False

    def on_motion(self, desk: Any, x: int, y: int) -> None:
        """The pointer moved with the left button held."""

    def on_release(self, desk: Any) -> None:
        """The left button came up."""

    def render_key(self) -> tuple[Any, ...]:
        """What the drawing depends on besides the items, the box and the hover."""
        return ()

    def draw(self, img: Image.Image, hover: int | None) -> None:
        x0, y0, x1, y1 = self.rect
        sh = art.shadow(self.width, self.height, 10, 70)
        img.paste(sh, (x0 - 20, y0 - 20), sh)
        d = ImageDraw.Draw(img)
        rounded(d, (x0, y0, x1 - 1, y1 - 1), 8, fill=MENU_BG, outline=BORDER)
        f = font(MENU_FONT)
        for i, (bx0, by0, bx1, by1) in enumerate(self.item_rects()):
            item = self.items[i]
            if item.separator:
                d.line((bx0 + 1, (by0 + by1) // 2, bx1 - 1, (by0 + by1) // 2), fill=(225, 225, 225))
                continue
            if i == hover:
                rounded(d, (bx0 + 4, by0, bx1 - 4, by1 - 1), 5, fill=MENU_HOVER)
            d.text((bx0 + 18, (by0 + by1) // 2), item.label, font=f,
                   fill=TEXT if item.enabled else TEXT_DIM, anchor="lm")

    def accessibility(self) -> dict[str, Any]:
        node = _node("menu", self.name, self.rect, ["enabled", "showing", "visible"])
        for item, box in zip(self.items, self.item_rects(), strict=True):
            if item.separator:
                node["children"].append(_node("separator", "", box, ["showing", "visible"]))
                continue
            states = ["showing", "visible", "selectable"]
            states += ["enabled", "sensitive"] if item.enabled else []
            node["children"].append(_node("menu-item", item.label, box, states))
        return node


def rename_problem(name: str, old: str, siblings: set[str], is_dir: bool) -> tuple[bool, str]:
    """``(ok, message)`` for renaming ``old`` to ``name`` among ``siblings`` (Nautilus texts)."""
    what = "Folder" if is_dir else "File"
    if not name:
        return False, ""
    if "/" in name:
        return False, f"{what} names cannot contain “/”."
    if name in (".", ".."):
        return False, f"A {what.lower()} cannot be called “{name}”."
    if name != old and name in siblings:
        return False, f"A {'folder' if is_dir else 'file'} with that name already exists."
    if name.startswith("."):
        return True, f"{what}s with “.” at the beginning of their name are hidden."
    return True, ""


@dataclass
class RenamePopover:
    """The rename popover (DING, Files): a title, an entry with the name, a Rename button.

    With ``creating`` it is Files' New Folder popover instead: ``path`` is the
    folder to create in and the button reads Create. ``owner`` is the window
    that opened it (told about the result), None for the desktop.
    """

    path: str
    is_dir: bool
    anchor: Box
    screen: tuple[int, int]
    field: TextField = field(default_factory=TextField)
    message: str = ""
    ok: bool = True
    creating: bool = False
    owner: Any = None

    W, TITLE_H, ROW_H = 330, 34, 40

    @property
    def old_name(self) -> str:
        return "" if self.creating else self.path.rsplit("/", 1)[1]

    @property
    def parent(self) -> str:
        """The folder the entry is (or will be) in."""
        return self.path if self.creating else (self.path.rsplit("/", 1)[0] or "/")

    @property
    def title(self) -> str:
        return "Folder name" if self.is_dir else "File name"

    @property
    def action(self) -> str:
        return "Create" if self.creating else "Rename"

    @property
    def rect(self) -> Box:
        h = self.TITLE_H + self.ROW_H + (26 if self.message else 8) + 6
        cx = (self.anchor[0] + self.anchor[2]) // 2
        x0 = max(DOCK_W + 4, min(cx - self.W // 2, self.screen[0] - self.W - 4))
        y0 = self.anchor[3] + 8
        if y0 + h > self.screen[1]:
            y0 = self.anchor[1] - 8 - h
        return x0, y0, x0 + self.W, y0 + h

    def entry_rect(self) -> Box:
        x0, y0, x1, _ = self.rect
        top = y0 + self.TITLE_H
        return x0 + 12, top, x1 - 104, top + 32

    def button_rect(self) -> Box:
        _, y0, x1, _ = self.rect
        top = y0 + self.TITLE_H
        return x1 - 96, top, x1 - 12, top + 32

    def contains(self, x: int, y: int) -> bool:
        x0, y0, x1, y1 = self.rect
        return x0 <= x < x1 and y0 - 8 <= y < y1

    def _scroll(self) -> float:
        f = font(14)
        inner = self.entry_rect()[2] - self.entry_rect()[0] - 16
        cur = text_width(self.field.text[: self.field.cursor], f)
        return max(0.0, cur - inner + 2)

    def index_at(self, x: int) -> int:
        """Text index nearest to screen x inside the entry."""
        f, text = font(14), self.field.text
        rel = x - self.entry_rect()[0] - 8 + self._scroll()
        best, dist = 0, abs(rel)
        for i in range(1, len(text) + 1):
            dd = abs(text_width(text[:i], f) - rel)
            if dd < dist:
                best, dist = i, dd
        return best

    def draw(self, img: Image.Image) -> None:
        x0, y0, x1, y1 = self.rect
        sh = art.shadow(x1 - x0, y1 - y0, 10, 80)
        img.paste(sh, (x0 - 20, y0 - 20), sh)
        d = ImageDraw.Draw(img)
        rounded(d, (x0, y0, x1 - 1, y1 - 1), 9, fill=MENU_BG, outline=BORDER)
        ax = max(x0 + 16, min((self.anchor[0] + self.anchor[2]) // 2, x1 - 16))
        if y0 > self.anchor[3]:
            d.polygon([(ax - 9, y0 + 1), (ax, y0 - 8), (ax + 9, y0 + 1)], fill=MENU_BG,
                      outline=BORDER)
            d.line((ax - 8, y0 + 1, ax + 8, y0 + 1), fill=MENU_BG, width=2)
        d.text(((x0 + x1) // 2, y0 + self.TITLE_H // 2 + 1), self.title,
               font=font(13, bold=True), fill=TEXT, anchor="mm")
        self._draw_entry(img)
        bx0, by0, bx1, by1 = self.button_rect()
        enabled = self.ok and bool(self.field.text)
        rounded(d, (bx0, by0, bx1, by1), 6, fill=ACCENT if enabled else (222, 222, 222))
        d.text(((bx0 + bx1) // 2, (by0 + by1) // 2), self.action, font=font(13, bold=True),
               fill=(255, 255, 255) if enabled else (160, 160, 160), anchor="mm")
        if self.message:
            d.text((x0 + 14, by1 + 8), ellipsize(self.message, font(12), self.W - 28),
                   font=font(12), fill=ERROR if not self.ok else TEXT_DIM)

    def _draw_entry(self, img: Image.Image) -> None:
        ex0, ey0, ex1, ey1 = self.entry_rect()
        d = ImageDraw.Draw(img)
        rounded(d, (ex0, ey0, ex1, ey1), 6, fill=(255, 255, 255), outline=ACCENT, width=2)
        inner = Image.new("RGB", (ex1 - ex0 - 8, ey1 - ey0 - 6), (255, 255, 255))
        di = ImageDraw.Draw(inner)
        f, text, off = font(14), self.field.text, 4 - self._scroll()
        cy = inner.height // 2
        di.text((off, cy), text, font=f, fill=TEXT, anchor="lm")
        a, b = self.field.selection()
        if a != b:
            sx0, sx1 = off + text_width(text[:a], f), off + text_width(text[:b], f)
            di.rectangle((sx0, cy - 9, sx1, cy + 9), fill=ACCENT)
            di.text((sx0, cy), text[a:b], font=f, fill=(255, 255, 255), anchor="lm")
        else:
            cx = off + text_width(text[: self.field.cursor], f)
            di.line((cx, cy - 9, cx, cy + 9), fill=TEXT, width=1)
        img.paste(inner, (ex0 + 4, ey0 + 3))

    def accessibility(self) -> dict[str, Any]:
        title = self.title
        name = "New Folder" if self.creating else f"Rename {self.old_name}"
        node = _node("dialog", name, self.rect, ["enabled", "showing", "visible", "modal"])
        a, b = self.field.selection()
        node["children"] = [
            _node("label", title, (self.rect[0], self.rect[1], self.rect[2],
                                   self.rect[1] + self.TITLE_H), ["showing", "visible"]),
            _node("entry", title, self.entry_rect(),
                  ["editable", "enabled", "focusable", "focused", "sensitive", "showing",
                   "single-line", "visible"], text=self.field.text,
                  caret=self.field.cursor, selection=[a, b]),
            _node("push-button", self.action, self.button_rect(),
                  ["focusable", "showing", "visible"]
                  + (["enabled", "sensitive"] if self.ok and self.field.text else [])),
        ]
        if self.message:
            node["children"].append(_node("label", self.message, self.rect,
                                          ["showing", "visible"]))
        return node

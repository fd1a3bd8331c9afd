"""Top-level windows: the `Window` base class (frame, header bar, window controls).

A subclass draws its content and handles input inside it; the desktop owns the
stack (focus, raising, dragging by the header, closing). New applications
(a Terminal, a text editor) subclass `Window` and override the ``content_*``
hooks and `header_widgets`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image, ImageDraw

from . import art
from .theme import BORDER, HEADER_BG, HEADER_BG_INACTIVE, TEXT, TEXT_DIM, font, rounded

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["Box", "Window", "node"]

Box = tuple[int, int, int, int]


def node(role: str, name: str, box: Box, states: list[str] | None = None,
         **extra: Any) -> dict[str, Any]:
    """An a11y node dict for a screen box ``(x0, y0, x1, y1)``."""
    return {"role": role, "name": name, "position": [box[0], box[1]],
            "size": [box[2] - box[0], box[3] - box[1]],
            "states": states if states is not None else ["enabled", "showing", "visible"],
            "children": [], **extra}


class Window:
    """A GNOME (CSD) window: header bar with minimize/maximize/close, content below.

    Attributes: ``x, y, w, h`` (screen box), ``minimized``, ``maximized``,
    ``pressed`` (the window control under a pending press).
    """

    app: ClassVar[str] = "window"
    HEADER_H: ClassVar[int] = 46
    CONTROLS: ClassVar[tuple[str, ...]] = ("minimize", "maximize", "close")

    def __init__(self, box: Box) -> None:
        self.x, self.y = box[0], box[1]
        self.w, self.h = box[2] - box[0], box[3] - box[1]
        self.minimized = False
        self.maximized: Box | None = None  # the box to restore, when maximized
        self.pressed: str | None = None

    # -- identity ---------------------------------------------------------
    @property
    def title(self) -> str:
        return "Window"

    @property
    def rect(self) -> Box:
        return self.x, self.y, self.x + self.w, self.y + self.h

    def contains(self, x: int, y: int) -> bool:
        inside = self.x <= x < self.x + self.w and self.y <= y < self.y + self.h
        return inside and not self.minimized

    # -- geometry ---------------------------------------------------------
    def control_rect(self, name: str) -> Box:
        i = len(self.CONTROLS) - 1 - self.CONTROLS.index(name)
        cx = self.x + self.w - 22 - i * 36
        cy = self.y + self.HEADER_H // 2
        return cx - 12, cy - 12, cx + 12, cy + 12

    def content_rect(self) -> Box:
        return self.x + 1, self.y + self.HEADER_H, self.x + self.w - 1, self.y + self.h - 1

    def part_at(self, x: int, y: int) -> str:
        """``"close"``, ``"minimize"``, ``"maximize"``, ``"header"`` or ``"content"``."""
        for name in self.CONTROLS:
            x0, y0, x1, y1 = self.control_rect(name)
            if x0 - 4 <= x < x1 + 4 and y0 - 4 <= y < y1 + 4:
                return name
        if y < self.y + self.HEADER_H and not self.header_widget_at(x, y):
            return "header"
        return "content"

    def move_to(self, x: int, y: int) -> None:
        self.x, self.y = x, y

    def toggle_maximize(self, work: Box) -> None:
        if self.maximized is not None:
            box, self.maximized = self.maximized, None
        else:
            self.maximized, box = self.rect, work
        self.x, self.y, self.w, self.h = box[0], box[1], box[2] - box[0], box[3] - box[1]

    # -- drawing ----------------------------------------------------------
    def draw(self, img: Image.Image, host: Desktop, active: bool) -> None:
        if self.minimized:
            return
        x0, y0, x1, y1 = self.rect
        sh = art.shadow(self.w, self.h, 16, 110 if active else 70)
        img.paste(sh, (x0 - 32, y0 - 32), sh)
        d = ImageDraw.Draw(img)
        rounded(d, (x0, y0, x1 - 1, y1 - 1), 10, fill=(255, 255, 255), outline=BORDER)
        d.rectangle((x0, y0 + self.HEADER_H - 10, x1 - 1, y1 - 1), fill=(255, 255, 255),
                    outline=BORDER)
        d.rounded_rectangle((x0, y0, x1 - 1, y0 + self.HEADER_H), radius=10,
                            fill=HEADER_BG if active else HEADER_BG_INACTIVE, outline=BORDER,
                            corners=(True, True, False, False))
        d.line((x0, y0 + self.HEADER_H, x1 - 1, y0 + self.HEADER_H), fill=BORDER)
        self.draw_header(img, d, host, active)
        for name in self.CONTROLS:
            self._draw_control(d, name, active)
        self.draw_content(img, d, host, active)

    def _draw_control(self, d: ImageDraw.ImageDraw, name: str, active: bool) -> None:
        x0, y0, x1, y1 = self.control_rect(name)
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        bg = (200, 198, 196) if self.pressed == name else (220, 218, 216)
        d.ellipse((x0, y0, x1, y1), fill=bg if active else (235, 235, 235))
        c = TEXT if active else TEXT_DIM
        if name == "close":
            d.line((cx - 4, cy - 4, cx + 4, cy + 4), fill=c, width=2)
            d.line((cx - 4, cy + 4, cx + 4, cy - 4), fill=c, width=2)
        elif name == "maximize":
            d.rectangle((cx - 4, cy - 4, cx + 4, cy + 4), outline=c, width=2)
        else:
            d.line((cx - 4, cy + 3, cx + 4, cy + 3), fill=c, width=2)

    def draw_header(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                    active: bool) -> None:
        """Header content; the default centres the title."""
        d.text((self.x + self.w // 2, self.y + self.HEADER_H // 2), self.title,
               font=font(14, bold=True), fill=TEXT if active else TEXT_DIM, anchor="mm")

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        """Draw the client area (subclasses)."""

    # -- state hooks ------------------------------------------------------
    def sync(self, host: Desktop) -> None:
        """Catch up with the filesystem (or other host state) before drawing."""

    def patch(self, img: Image.Image, host: Desktop, active: bool,
              old_key: tuple[Any, ...]) -> bool:
        """Redraw this (topmost) window over its previous pixels in ``img`` after only its
        `render_key` changed from ``old_key``; False when a full redraw is needed."""
        return False

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        """Everything that affects how this window looks (used for frame counting)."""
        return (type(self).__name__, self.rect, self.minimized, self.title, self.pressed)

    # -- input hooks ------------------------------------------------------
    def header_widget_at(self, x: int, y: int) -> bool:
        """True when ``(x, y)`` is a header widget (so the header does not start a drag)."""
        return False

    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        """A mouse press inside the window that is not on a window control."""

    def on_key(self, host: Desktop, key: str) -> bool:
        """A key press while focused; return True when handled."""
        return False

    def on_motion(self, host: Desktop, x: int, y: int) -> None:
        """The pointer moved with the left button held after a press in the content."""

    def on_release(self, host: Desktop) -> None:
        """The left button came up after a press in the content."""

    def path_moved(self, old: str, new: str) -> None:
        """A path was renamed/moved through the GUI (file managers follow it)."""

    def path_created(self, path: str) -> None:
        """A popover this window opened created ``path`` (Files selects it)."""

    def on_scroll(self, host: Desktop, dx: int, dy: int) -> None:
        """Wheel clicks over the window (``dy > 0`` is up)."""

    def run_menu_action(self, host: Desktop, action: str, targets: list[str]) -> None:
        """A context-menu item chosen from a menu this window opened."""

    # -- accessibility ----------------------------------------------------
    def accessibility(self, host: Desktop, active: bool) -> dict[str, Any]:
        states = ["enabled", "resizable", "showing", "visible"] + (["active"] if active else [])
        root = node("frame", self.title, self.rect, states)
        root["children"] = [node("push-button", n.capitalize(), self.control_rect(n))
                            for n in self.CONTROLS]
        root["children"].extend(self.content_accessibility(host))
        return root

    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        return []

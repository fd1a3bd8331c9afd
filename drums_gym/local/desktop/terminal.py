"""A GNOME Terminal-like window running `bash.BashSession` over the simulated filesystem.

Ubuntu's look: a dark header bar (new-tab, search and menu buttons), the
aubergine profile background, DejaVu Sans Mono (Pillow's default font when it
is missing), the coloured ``user@ubuntu:~$`` prompt and a block cursor.
Keyboard: typing, Enter, Backspace/Delete, Left/Right/Home/End, Up/Down
history, Tab completion, ctrl+C/L/D/A/E/U/K/W, ctrl+shift+V pastes,
shift+PageUp/PageDown and the wheel scroll the scrollback.

Rendering is incremental: rows are drawn into a per-window image and redrawn
only when their text or the cursor changes, and `TerminalWindow.patch` lets
the desktop update just this window when nothing else changed.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from PIL import Image, ImageDraw, ImageFont

from . import art
from .bash import BashSession
from .fs import HOME, FileSystem
from .terminal_screen import DEFAULT, Line, Screen, Style, parse, plain, wrap
from .theme import Font, ellipsize, font
from .windows import Box, Window, node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["FONT_SIZE", "TerminalWindow", "mono_font"]

FONT_SIZE = 15
PAD = 4
BG = (48, 10, 36)  # Ubuntu's aubergine profile background (#300A24)
FG = (255, 255, 255)
HEADER = (48, 48, 48)
HEADER_INACTIVE = (36, 36, 36)
HEADER_FG = (238, 238, 238)
HEADER_FG_DIM = (146, 146, 146)
FRAME = (22, 22, 22)
PALETTE = (  # Tango, as Ubuntu's terminal profile uses it
    (46, 52, 54), (204, 0, 0), (78, 154, 6), (196, 160, 0), (52, 101, 164), (117, 80, 123),
    (6, 152, 154), (211, 215, 207), (85, 87, 83), (239, 41, 41), (138, 226, 52),
    (252, 233, 79), (114, 159, 207), (173, 127, 168), (52, 226, 226), (238, 238, 236),
)
_MONO_DIR = "/usr/share/fonts/truetype/dejavu"


@lru_cache(maxsize=8)
def mono_font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans Mono when installed, else Pillow's built-in font at ``size``."""
    path = os.path.join(_MONO_DIR, "DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf")
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=8)
def _metrics(size: int) -> tuple[float, int, bool]:
    """(cell width, line height, monospaced?) of the terminal font."""
    f = mono_font(size)
    cell = float(f.getlength("M"))
    if isinstance(f, ImageFont.FreeTypeFont):
        ascent, descent = f.getmetrics()
        height = ascent + descent + 1
    else:  # pragma: no cover - bitmap fallback of very old Pillow
        height = size + 4
    return cell, height, abs(f.getlength("i") - cell) < 0.01


def _color(style: Style, default: tuple[int, int, int], fg: bool) -> tuple[int, int, int]:
    index = style[0] if fg else style[1]
    if index < 0:
        return default
    if fg and style[2] and index < 8:
        index += 8  # bold is bright
    return PALETTE[index]


class _RenderCache:
    """Drawn rows of one terminal; never copied (a clone starts with an empty cache)."""

    def __init__(self) -> None:
        self.image: Image.Image | None = None
        self.keys: list[tuple[Any, ...]] = []

    def __reduce__(self) -> tuple[type[_RenderCache], tuple[()]]:
        return (_RenderCache, ())


class TerminalWindow(Window):
    """A terminal with one bash session; ``exit`` closes the window."""

    app: ClassVar[str] = "terminal"
    HEADER_H: ClassVar[int] = 46

    def __init__(self, box: Box, fs: FileSystem, cwd: str = HOME) -> None:
        super().__init__(box)
        self.session = BashSession(fs, cwd)
        self.screen = Screen()
        self.input = ""
        self.cursor = 0
        self.scroll = 0  # rows scrolled back from the bottom
        self.history_pos: int | None = None
        self.saved_input = ""
        self._cache = _RenderCache()

    @classmethod
    def default_size(cls, cols: int = 80, rows: int = 24) -> tuple[int, int]:
        """Window size for a ``cols`` x ``rows`` grid (GNOME Terminal opens at 80x24)."""
        cell, line, _ = _metrics(FONT_SIZE)
        return int(cols * cell + 2 * PAD + 2 + 0.999), cls.HEADER_H + rows * line + 2 * PAD + 1

    @property
    def title(self) -> str:
        return self.session.title()

    # -- grid -------------------------------------------------------------
    def grid(self) -> tuple[int, int]:
        """(columns, rows) that fit the content area."""
        cx0, cy0, cx1, cy1 = self.content_rect()
        cell, line, _ = _metrics(FONT_SIZE)
        return max(10, int((cx1 - cx0 - 2 * PAD) / cell)), max(1, (cy1 - cy0 - 2 * PAD) // line)

    def live_line(self) -> tuple[Line, int]:
        """The prompt line being edited and the cursor's index in it."""
        prompt, _, _ = parse(self.session.prompt())
        typed = self.input if self.session.echo else ""
        line = tuple(self.screen.partial) + tuple(prompt) + (((typed, DEFAULT),) if typed else ())
        before = len(plain(self.screen.partial)) + sum(len(t) for t, _ in prompt)
        return line, before + (self.cursor if self.session.echo else 0)

    def view(self) -> tuple[list[Line], tuple[int, int] | None]:
        """The visible rows and the cursor's (row, col) in them (None when scrolled away)."""
        cols, nrows = self.grid()
        line, index = self.live_line()
        live = wrap(line, cols)
        crow, ccol = divmod(index, cols)
        while crow >= len(live):
            live.append(())
        before = self.screen.rows_before(cols, max(0, nrows + self.scroll - len(live)))
        rows = before + live
        crow += len(before)
        if len(rows) <= nrows:
            return rows, (crow, ccol)
        end = len(rows) - min(self.scroll, len(rows) - nrows)
        start = end - nrows
        cursor = (crow - start, ccol) if start <= crow < end else None
        return rows[start:end], cursor

    def text(self) -> str:
        """The visible text (what the accessibility tree reports)."""
        rows, _ = self.view()
        return "\n".join(plain(r).rstrip() for r in rows).rstrip("\n")

    # -- drawing ----------------------------------------------------------
    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        echo = self.session.echo
        return (*super().render_key(host), self.screen.version, self.session.prompt(),
                self.input if echo else "", self.cursor if echo else 0, self.scroll)

    def _buttons(self) -> dict[str, Box]:
        cy = self.y + self.HEADER_H // 2
        x_menu = self.control_rect("minimize")[0] - 30
        return {"new-tab": (self.x + 8, cy - 16, self.x + 42, cy + 16),
                "menu": (x_menu - 34, cy - 16, x_menu, cy + 16),
                "search": (x_menu - 74, cy - 16, x_menu - 40, cy + 16)}

    def header_widget_at(self, x: int, y: int) -> bool:
        return any(x0 <= x < x1 and y0 <= y < y1 for x0, y0, x1, y1 in self._buttons().values())

    def draw(self, img: Image.Image, host: Desktop, active: bool) -> None:
        if self.minimized:
            return
        x0, y0, x1, y1 = self.rect
        sh = art.shadow(self.w, self.h, 16, 120 if active else 80)
        img.paste(sh, (x0 - 32, y0 - 32), sh)
        d = ImageDraw.Draw(img)
        d.rounded_rectangle((x0, y0, x1 - 1, y1 - 1), radius=10, fill=BG, outline=FRAME)
        d.rectangle((x0, y0 + self.HEADER_H - 10, x1 - 1, y1 - 1), fill=BG, outline=FRAME)
        self.patch(img, host, active, None)

    def patch(self, img: Image.Image, host: Desktop, active: bool,
              old_key: tuple[Any, ...] | None) -> bool:
        """Redraw the header and the text over this window's previous pixels."""
        if old_key is not None and (old_key[1] != self.rect or old_key[2] or self.minimized):
            return False
        d = ImageDraw.Draw(img)
        self._draw_header(d, active)
        self.draw_content(img, d, host, active)
        return True

    def _draw_header(self, d: ImageDraw.ImageDraw, active: bool) -> None:
        x0, y0, x1, _ = self.rect
        h = self.HEADER_H
        d.rounded_rectangle((x0, y0, x1 - 1, y0 + h), radius=10, outline=FRAME,
                            fill=HEADER if active else HEADER_INACTIVE,
                            corners=(True, True, False, False))
        fg = HEADER_FG if active else HEADER_FG_DIM
        f = font(14, bold=True)
        room = 2 * min(self._buttons()["search"][0] - (x0 + self.w // 2),
                       (x0 + self.w // 2) - self._buttons()["new-tab"][2]) - 24
        title = ellipsize(self.title, f, max(40, room))
        d.text((x0 + self.w // 2, y0 + h // 2), title, font=f, fill=fg, anchor="mm")
        for name, (bx0, by0, bx1, by1) in self._buttons().items():
            cx, cy = (bx0 + bx1) // 2, (by0 + by1) // 2
            if name == "new-tab":
                d.rounded_rectangle((bx0, by0, bx1, by1), radius=6,
                                    fill=(62, 62, 62) if active else (44, 44, 44))
                d.line((cx - 6, cy, cx + 6, cy), fill=fg, width=2)
                d.line((cx, cy - 6, cx, cy + 6), fill=fg, width=2)
            elif name == "search":
                d.ellipse((cx - 7, cy - 7, cx + 3, cy + 3), outline=fg, width=2)
                d.line((cx + 2, cy + 2, cx + 7, cy + 7), fill=fg, width=2)
            else:
                for dy in (-5, 0, 5):
                    d.line((cx - 7, cy + dy, cx + 7, cy + dy), fill=fg, width=2)
        for name in self.CONTROLS:
            bx0, by0, bx1, by1 = self.control_rect(name)
            cx, cy = (bx0 + bx1) // 2, (by0 + by1) // 2
            pressed = self.pressed == name
            d.ellipse((bx0, by0, bx1, by1), fill=(90, 90, 90) if pressed else (
                (66, 66, 66) if active else (50, 50, 50)))
            if name == "close":
                d.line((cx - 4, cy - 4, cx + 4, cy + 4), fill=fg, width=2)
                d.line((cx - 4, cy + 4, cx + 4, cy - 4), fill=fg, width=2)
            elif name == "maximize":
                d.rectangle((cx - 4, cy - 4, cx + 4, cy + 4), outline=fg, width=2)
            else:
                d.line((cx - 4, cy + 3, cx + 4, cy + 3), fill=fg, width=2)

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        cx0, cy0, cx1, cy1 = self.content_rect()
        size = (cx1 - cx0, cy1 - cy0)
        cache = self._cache
        if cache.image is None or cache.image.size != size:
            cache.image, cache.keys = Image.new("RGB", size, BG), []
        rows, cursor = self.view()
        _, nrows = self.grid()
        keys = []
        for i in range(nrows):
            row = rows[i] if i < len(rows) else ()
            col = cursor[1] if cursor is not None and cursor[0] == i else -1
            key = (row, col, active)
            keys.append(key)
            if i >= len(cache.keys) or cache.keys[i] != key:
                self._draw_row(cache.image, i, row, col, active)
        cache.keys = keys
        img.paste(cache.image, (cx0, cy0))

    def _draw_row(self, target: Image.Image, i: int, row: Line, col: int, active: bool) -> None:
        cell, line, mono = _metrics(FONT_SIZE)
        width = target.width - 2 * PAD
        band = Image.new("RGB", (width, line), BG)
        d = ImageDraw.Draw(band)
        x = 0
        cells: list[tuple[str, Style]] = []
        for text, style in row:
            bg = _color(style, BG, False)
            if bg != BG:
                d.rectangle((round(x * cell), 0, round((x + len(text)) * cell) - 1, line), fill=bg)
            if mono:
                f = mono_font(FONT_SIZE, style[2])
                d.text((round(x * cell), 0), text, font=f, fill=_color(style, FG, True))
            cells.extend((c, style) for c in text)
            x += len(text)
        if not mono:  # proportional fallback font: one glyph per cell
            for k, (c, style) in enumerate(cells):
                d.text((round(k * cell), 0), c, font=mono_font(FONT_SIZE, style[2]),
                       fill=_color(style, FG, True))
        if col >= 0:
            cx = round(col * cell)
            box = (cx, 0, round((col + 1) * cell) - 1, line - 1)
            if active:
                d.rectangle(box, fill=FG)
                if col < len(cells):
                    ch, style = cells[col]
                    d.text((cx, 0), ch, font=mono_font(FONT_SIZE, style[2]), fill=BG)
            else:
                d.rectangle(box, outline=FG)
        target.paste(band, (PAD, PAD + i * line))

    # -- input ------------------------------------------------------------
    def on_key(self, host: Desktop, key: str) -> bool:
        from .terminal_keys import handle_key

        return handle_key(self, host, key)

    def on_scroll(self, host: Desktop, dx: int, dy: int) -> None:
        self.scroll_by(3 * dy)

    def scroll_by(self, rows: int) -> None:
        cols, nrows = self.grid()
        live = len(wrap(self.live_line()[0], cols))
        most = max(0, self.screen.rows_total(cols) + live - nrows)
        self.scroll = max(0, min(most, self.scroll + rows))

    # -- accessibility ----------------------------------------------------
    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        states = ["enabled", "focusable", "editable", "showing", "visible", "multi-line",
                  "selectable"]
        if host.active_window() is self:
            states.insert(2, "focused")
        return [node("terminal", self.title, self.content_rect(), states, text=self.text())]

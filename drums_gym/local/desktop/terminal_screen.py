"""The terminal's text model: scrollback of styled lines, ANSI SGR parsing, line wrapping.

A line is a tuple of segments ``(text, style)``; a style is ``(fg, bg, bold)``
with palette indexes (``-1`` is the profile's default colour). Output text
may carry SGR escapes (``\\x1b[01;34m``) and the clear-screen sequence
(``\\x1b[2J``), as programs write them to a real terminal.

>>> s = Screen()
>>> s.write("\\x1b[01;34mdir\\x1b[0m file\\n")
>>> s.lines[-1]
(('dir', (4, -1, True)), (' file', (-1, -1, False)))
>>> wrap(s.lines[-1], 4)
[(('dir', (4, -1, True)), (' ', (-1, -1, False))), (('file', (-1, -1, False)),)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["DEFAULT", "MAX_LINES", "Line", "Screen", "Style", "parse", "plain", "wrap"]

Style = tuple[int, int, bool]
Line = tuple[tuple[str, Style], ...]
DEFAULT: Style = (-1, -1, False)
MAX_LINES = 2000  # scrollback bound (lines, as VTE counts them)

_ESCAPE = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")


def _sgr(params: str, style: Style) -> Style:
    fg, bg, bold = style
    codes = [int(c) if c.isdigit() else 0 for c in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            fg, bg, bold = DEFAULT
        elif c == 1:
            bold = True
        elif c == 22:
            bold = False
        elif 30 <= c <= 37:
            fg = c - 30
        elif 90 <= c <= 97:
            fg = c - 90 + 8
        elif c == 39:
            fg = -1
        elif 40 <= c <= 47:
            bg = c - 40
        elif 100 <= c <= 107:
            bg = c - 100 + 8
        elif c == 49:
            bg = -1
        elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
            value = codes[i + 2] if codes[i + 2] < 16 else 7
            fg, bg = (value, bg) if c == 38 else (fg, value)
            i += 2
        i += 1
    return fg, bg, bold


def parse(text: str, style: Style = DEFAULT) -> tuple[list[tuple[str, Style]], Style, bool]:
    """Split ``text`` (no newlines) into styled segments; also returns the final style and
    whether a clear-screen sequence was seen."""
    segs: list[tuple[str, Style]] = []
    cleared = False
    pos = 0
    for m in _ESCAPE.finditer(text):
        if m.start() > pos:
            segs.append((text[pos:m.start()], style))
        pos = m.end()
        if m.group(2) == "m":
            style = _sgr(m.group(1), style)
        elif m.group(2) == "J" and m.group(1) in ("2", "3"):
            cleared = True
            segs = []
    if pos < len(text):
        segs.append((text[pos:], style))
    return segs, style, cleared


def _merge(segs: list[tuple[str, Style]]) -> Line:
    out: list[tuple[str, Style]] = []
    col = 0
    for raw, style in segs:
        chars: list[str] = []
        for c in raw:
            if c == "\t":
                chars.append(" " * (8 - (col + len(chars)) % 8))
            elif c.isprintable():
                chars.append(c)
        text = "".join(chars)
        col += len(text)
        if not text:
            continue
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + text, style)
        else:
            out.append((text, style))
    return tuple(out)


def plain(line: Line) -> str:
    """The text of a line without styles."""
    return "".join(t for t, _ in line)


def wrap(line: Line, cols: int) -> list[Line]:
    """Rows of at most ``cols`` characters (an empty line is one empty row)."""
    rows: list[Line] = []
    cur: list[tuple[str, Style]] = []
    used = 0
    for text, style in line:
        while text:
            room = cols - used
            piece, text = text[:room], text[room:]
            cur.append((piece, style))
            used += len(piece)
            if used >= cols:
                rows.append(tuple(cur))
                cur, used = [], 0
    if cur or not rows:
        rows.append(tuple(cur))
    return rows


@dataclass
class Screen:
    """Committed lines (``lines``), an unterminated output line (``partial``), the SGR
    state, the first line shown after a clear (``top``), and a change counter."""

    lines: list[Line] = field(default_factory=list)
    partial: Line = ()
    style: Style = DEFAULT
    top: int = 0
    version: int = 0

    def write(self, text: str) -> None:
        """Append program output (``\\n`` ends lines; SGR and clear sequences apply)."""
        if not text:
            return
        self.version += 1
        chunks = text.split("\n")
        for k, chunk in enumerate(chunks):
            segs, self.style, cleared = parse(chunk, self.style)
            if cleared:
                self.clear()
            self.partial = _merge([*self.partial, *segs])
            if k < len(chunks) - 1:
                self.lines.append(self.partial)
                self.partial = ()
        self._trim()

    def clear(self) -> None:
        """Start the view at the next line (ctrl+L / ``clear``)."""
        if not self.partial and self.top == len(self.lines):
            return  # already clear: nothing changes on screen
        self.version += 1
        self.partial = ()
        self.top = len(self.lines)

    def _trim(self) -> None:
        extra = len(self.lines) - MAX_LINES
        if extra > 0:
            del self.lines[:extra]
            self.top = max(0, self.top - extra)

    def rows_before(self, cols: int, want: int) -> list[Line]:
        """The last ``want`` display rows of the committed lines shown after ``top``."""
        out: list[Line] = []
        k = len(self.lines) - 1
        while k >= self.top and len(out) < want:
            out[:0] = wrap(self.lines[k], cols)
            k -= 1
        return out[-want:] if want else []

    def rows_total(self, cols: int) -> int:
        return sum(len(wrap(line, cols)) for line in self.lines[self.top:])

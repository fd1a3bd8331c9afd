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

__all__ = ["DEFAULT", "MAX_CHARS", "MAX_LINES", "MAX_LINE_CHARS", "Line", "Screen", "Style",
           "parse", "plain", "wrap"]

Style = tuple[int, int, bool]
Line = tuple[tuple[str, Style], ...]
DEFAULT: Style = (-1, -1, False)
MAX_LINES = 2000  # scrollback bound (lines, as VTE counts them)
MAX_LINE_CHARS = 16_384  # a longer line keeps its first MAX_LINE_CHARS characters
MAX_CHARS = 256_000  # scrollback bound in characters (oldest lines go first)
_RAW_LINE = 4 * MAX_LINE_CHARS  # raw text (escapes included) read of one line
_STYLE_SCAN = 65_536  # raw characters of dropped output scanned for the SGR state

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
        if raw.isprintable():
            text = raw
        else:
            chars: list[str] = []
            width = col
            for c in raw:
                if c == "\t":
                    chars.append(" " * (8 - width % 8))
                    width += len(chars[-1])
                elif c.isprintable():
                    chars.append(c)
                    width += 1
            text = "".join(chars)
        col += len(text)
        if not text:
            continue
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + text, style)
        else:
            out.append((text, style))
    return tuple(out)


def _truncate(line: Line, limit: int) -> Line:
    """``line`` cut to its first ``limit`` characters."""
    out: list[tuple[str, Style]] = []
    for text, style in line:
        if limit <= 0:
            break
        out.append((text[:limit], style))
        limit -= len(text)
    return tuple(out)


def _line_chars(line: Line) -> int:
    return sum(len(t) for t, _ in line)


def _capped_lines(text: str) -> tuple[list[str], str | None]:
    """The raw lines of ``text`` (split at ``\n``) that can stay in the scrollback, each
    cut to `_RAW_LINE` characters, and the text before them when some had to be dropped.

    Only the kept part is looked at: a 10-million-character write costs a few scans in C."""
    pieces: list[str] = []
    end, kept = len(text), 0
    while True:
        nl = text.rfind("\n", 0, end)
        start = nl + 1
        piece = text[start:min(end, start + _RAW_LINE)]
        pieces.append(piece)
        kept += len(piece)
        if nl < 0:
            return pieces[::-1], None
        end = nl
        if len(pieces) > MAX_LINES or kept > 2 * MAX_CHARS:
            return pieces[::-1], text[:nl]


def _style_after(head: str, style: Style) -> Style:
    """The SGR state after dropped output ``head`` (scanned from its last reset)."""
    if "\x1b" not in head:
        return style
    k = max(head.rfind("\x1b[0m"), head.rfind("\x1b[m"), head.rfind("\x1b[00m"))
    region = head[max(k, 0):][-_STYLE_SCAN:]
    for m in _ESCAPE.finditer(region):
        if m.group(2) == "m":
            style = _sgr(m.group(1), style)
    return style


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
    chars: int = 0  # characters in ``lines``

    def write(self, text: str) -> None:
        """Append program output (``\\n`` ends lines; SGR and clear sequences apply).

        The scrollback keeps at most `MAX_LINES` lines and `MAX_CHARS` characters, each
        line at most `MAX_LINE_CHARS`; output beyond that is dropped before it is parsed."""
        if not text:
            return
        self.version += 1
        chunks, head = _capped_lines(text)
        if head is not None:  # everything before the kept lines scrolls out of the buffer
            self.style = _style_after(head, self.style)
            self.lines, self.partial, self.top, self.chars = [], (), 0, 0
        for k, chunk in enumerate(chunks):
            segs, self.style, cleared = parse(chunk, self.style)
            if cleared:
                self.clear()
            self.partial = _truncate(_merge([*self.partial, *segs]), MAX_LINE_CHARS)
            if k < len(chunks) - 1:
                self.lines.append(self.partial)
                self.chars += _line_chars(self.partial)
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
        extra = max(0, len(self.lines) - MAX_LINES)
        chars = self.chars - sum(_line_chars(line) for line in self.lines[:extra])
        while chars > MAX_CHARS and extra < len(self.lines):
            chars -= _line_chars(self.lines[extra])
            extra += 1
        if extra > 0:
            del self.lines[:extra]
            self.top = max(0, self.top - extra)
        self.chars = chars

    def rows_before(self, cols: int, want: int) -> list[Line]:
        """The last ``want`` display rows of the committed lines shown after ``top``."""
        out: list[Line] = []
        k = len(self.lines) - 1
        while k >= self.top and len(out) < want:
            out[:0] = wrap(self.lines[k], cols)
            k -= 1
        return out[-want:] if want else []

    def rows_total(self, cols: int) -> int:
        """Display rows of the lines shown after ``top`` (counted, not wrapped)."""
        return sum(max(1, -(-_line_chars(line) // cols)) for line in self.lines[self.top:])

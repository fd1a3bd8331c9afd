"""Look and feel: Yaru-like colours, fonts, geometry constants and text helpers."""

from __future__ import annotations

import os
from functools import lru_cache

from PIL import ImageDraw, ImageFont

__all__ = [
    "ACCENT",
    "DOCK_W",
    "TOP_BAR_H",
    "Font",
    "ellipsize",
    "font",
    "rounded",
    "text_width",
    "wrap",
]

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

# Geometry (pixels at scale 1, as Ubuntu 22.04 draws it at 1920x1080).
TOP_BAR_H = 28
DOCK_W = 72

# Colours.
ACCENT = (233, 84, 32)  # Yaru orange
ACCENT_DARK = (200, 66, 20)
TEXT = (61, 61, 61)
TEXT_DIM = (120, 120, 120)
WINDOW_BG = (255, 255, 255)
HEADER_BG = (235, 235, 235)
HEADER_BG_INACTIVE = (246, 246, 246)
SIDEBAR_BG = (246, 245, 244)
BORDER = (205, 199, 194)
MENU_BG = (255, 255, 255)
MENU_HOVER = (232, 232, 231)
ERROR = (198, 28, 36)
SELECT_TEXT_BG = (233, 84, 32)

_FONT_DIR = "/usr/share/fonts/truetype/dejavu"


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    """DejaVu Sans when installed, else Pillow's built-in FreeType font."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = os.path.join(_FONT_DIR, name)
    if os.path.exists(path):
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def text_width(text: str, f: Font) -> float:
    return f.getlength(text) if text else 0.0


def ellipsize(text: str, f: Font, width: float) -> str:
    """``text`` cut with a trailing ellipsis to fit ``width`` pixels."""
    if text_width(text, f) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", f) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


def wrap(text: str, f: Font, width: float, max_lines: int) -> list[str]:
    """Word-wrap (breaking inside long words when needed, like Pango WORD_CHAR)."""
    lines: list[str] = []
    rest = text
    while rest and len(lines) < max_lines:
        if text_width(rest, f) <= width:
            lines.append(rest)
            rest = ""
            break
        if len(lines) == max_lines - 1:
            lines.append(ellipsize(rest, f, width))
            rest = ""
            break
        cut = 1
        while cut < len(rest) and text_width(rest[: cut + 1], f) <= width:
            cut += 1
        space = rest.rfind(" ", 0, cut + 1)
        if space > 0:
            cut = space + 1
        lines.append(rest[:cut].rstrip(" "))
        rest = rest[cut:]
    return lines


def rounded(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], r: int,
            fill: tuple[int, ...] | None = None, outline: tuple[int, ...] | None = None,
            width: int = 1) -> None:
    """A rounded rectangle (thin wrapper keeping call sites short)."""
    draw.rounded_rectangle(box, radius=r, fill=fill, outline=outline, width=width)

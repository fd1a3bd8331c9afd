"""Procedurally drawn artwork: wallpaper, icons, the pointer, shadows.

Everything here is pure (a function of its arguments) and cached, so a sprite
is drawn once per process and composited many times. Callers must treat the
returned images as read-only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from .theme import font

__all__ = ["WALLPAPERS", "dock_icon", "document_icon", "folder_icon", "pointer", "shadow",
           "wallpaper"]

_SS = 4  # supersampling factor for antialiased sprites


def _smooth(img: Image.Image, size: tuple[int, int]) -> Image.Image:
    return img.resize(size, Image.Resampling.LANCZOS)


@dataclass(frozen=True)
class _Wallpaper:
    """One Ubuntu-like wallpaper: a gradient along ``(du, dv)`` through colour ``stops``
    at ``pos``, ribbons of ``ribbon`` frequency and strength, a glow at ``glow``."""

    stops: tuple[tuple[int, int, int], ...]
    pos: tuple[float, ...]
    du: float = 0.62
    dv: float = 0.38
    ribbon: float = 6.0
    ribbon_light: float = 0.10
    glow: tuple[float, float] = (0.72, 0.35)
    glow_light: float = 0.22
    mirror: bool = False


#: The wallpapers, by variant: 0 is the default (a fresh desktop's); the others are
#: what a randomized desktop may show (`drums_gym.local.desktop.variation`).
WALLPAPERS: tuple[_Wallpaper, ...] = (
    _Wallpaper(((36, 4, 32), (94, 22, 84), (170, 45, 86), (233, 84, 32)), (0.0, 0.45, 0.75, 1.0)),
    # Jammy-like: deep aubergine, the warm glow low on the right
    _Wallpaper(((20, 4, 26), (62, 14, 64), (128, 32, 84), (214, 72, 40)), (0.0, 0.5, 0.8, 1.0),
               du=0.35, dv=0.65, ribbon=4.5, glow=(0.8, 0.75), glow_light=0.18),
    # warm orange to aubergine, mirrored
    _Wallpaper(((233, 84, 32), (196, 58, 64), (119, 33, 111), (44, 0, 30)), (0.0, 0.3, 0.7, 1.0),
               ribbon=7.5, ribbon_light=0.14, glow=(0.3, 0.3), mirror=True),
    # dark aubergine, almost plain, faint ribbons
    _Wallpaper(((44, 0, 30), (72, 12, 58), (94, 39, 80)), (0.0, 0.6, 1.0),
               du=0.5, dv=0.5, ribbon=5.0, ribbon_light=0.06, glow=(0.5, 0.45), glow_light=0.12),
    # Ubuntu's warm grey with an orange glow
    _Wallpaper(((38, 34, 36), (66, 58, 62), (120, 78, 60), (210, 96, 48)), (0.0, 0.5, 0.85, 1.0),
               du=0.7, dv=0.3, ribbon=6.5, glow=(0.85, 0.4), glow_light=0.2),
)


@lru_cache(maxsize=8)
def wallpaper(width: int, height: int, variant: int = 0) -> Image.Image:
    """An Ubuntu-like wallpaper: variant 0 (the default) is aubergine to orange with soft
    diagonal ribbons; the others (up to ``len(WALLPAPERS) - 1``) vary its colours and
    geometry."""
    if not 0 <= variant < len(WALLPAPERS):
        raise ValueError(f"variant must be 0 to {len(WALLPAPERS) - 1}, got {variant!r}")
    spec = WALLPAPERS[variant]
    w, h = max(2, width // 4), max(2, height // 4)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = xs / (w - 1), ys / (h - 1)
    if spec.mirror:
        u = 1.0 - u
    t = np.clip(spec.du * u + spec.dv * v, 0.0, 1.0)
    stops = np.array(spec.stops, np.float32)
    pos = np.array(spec.pos, np.float32)
    rgb = np.stack([np.interp(t, pos, stops[:, c]) for c in range(3)], axis=-1)
    # ribbons: smooth bright bands running bottom-left to top-right
    band = np.sin((u * 1.3 - v * 0.9) * spec.ribbon + np.sin(u * 3.0) * 0.8)
    gu, gv = spec.glow
    glow = np.exp(-(((u - gu) ** 2) / 0.05 + ((v - gv) ** 2) / 0.09))
    light = spec.ribbon_light * np.clip(band, 0, 1) ** 3 + spec.glow_light * glow
    rgb = rgb + (255.0 - rgb) * light[..., None] * 0.6
    vignette = 1.0 - 0.25 * ((u - 0.5) ** 2 + (v - 0.5) ** 2)
    rgb = np.clip(rgb * vignette[..., None], 0, 255).astype(np.uint8)
    small = Image.fromarray(rgb)
    return small.resize((width, height), Image.Resampling.BICUBIC)


@lru_cache(maxsize=16)
def folder_icon(size: int, accent: tuple[int, int, int] = (233, 84, 32)) -> Image.Image:
    """A Yaru-style folder (RGBA)."""
    s = size * _SS
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    r = s // 14
    back = tuple(int(c * 0.72) for c in accent)
    d.rounded_rectangle((s * 0.06, s * 0.16, s * 0.46, s * 0.34), radius=r, fill=back)
    d.rounded_rectangle((s * 0.06, s * 0.22, s * 0.94, s * 0.86), radius=r, fill=back)
    d.rectangle((s * 0.12, s * 0.28, s * 0.88, s * 0.5), fill=(250, 250, 248))
    top = tuple(min(255, int(c + (255 - c) * 0.12)) for c in accent)
    front = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    fd = ImageDraw.Draw(front)
    fd.rounded_rectangle((s * 0.04, s * 0.34, s * 0.96, s * 0.88), radius=r, fill=top)
    grad = np.linspace(1.08, 0.9, s, dtype=np.float32)[:, None, None]
    arr = np.asarray(front).astype(np.float32)
    arr[..., :3] = np.clip(arr[..., :3] * grad, 0, 255)
    front = Image.fromarray(arr.astype(np.uint8))
    img.alpha_composite(front)
    d = ImageDraw.Draw(img)
    d.line((s * 0.08, s * 0.36, s * 0.92, s * 0.36), fill=(255, 255, 255, 90), width=_SS * 2)
    return _smooth(img, (size, size))


@lru_cache(maxsize=16)
def document_icon(size: int) -> Image.Image:
    """A white page with a folded corner (RGBA)."""
    s = size * _SS
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1, fold = s * 0.2, s * 0.08, s * 0.8, s * 0.92, s * 0.18
    d.polygon([(x0, y0), (x1 - fold, y0), (x1, y0 + fold), (x1, y1), (x0, y1)],
              fill=(252, 252, 252), outline=(170, 170, 170))
    d.polygon([(x1 - fold, y0), (x1 - fold, y0 + fold), (x1, y0 + fold)], fill=(215, 215, 215))
    for i in range(6):
        y = y0 + fold + s * 0.08 + i * s * 0.085
        d.rectangle((x0 + s * 0.08, y, x1 - s * (0.08 if i % 3 else 0.2), y + s * 0.025),
                    fill=(190, 190, 190))
    return _smooth(img, (size, size))


@lru_cache(maxsize=4)
def pointer(height: int = 22) -> Image.Image:
    """The arrow cursor (RGBA, hotspot at the top-left pixel)."""
    k = height / 21.0 * _SS
    pts = [(0, 0), (0, 16.5), (4, 12.7), (6.8, 19.4), (9.4, 18.3), (6.7, 11.8), (12, 11.8)]
    w, h = int(15 * k), int(23 * k)
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    poly = [(1.5 * k + x * k, 1.5 * k + y * k) for x, y in pts]
    d.polygon(poly, fill=(250, 250, 250, 255), outline=(16, 16, 16, 255), width=int(1.3 * k))
    return _smooth(img, (w // _SS, h // _SS))


@lru_cache(maxsize=32)
def shadow(width: int, height: int, radius: int = 12, alpha: int = 90) -> Image.Image:
    """A soft drop shadow for a ``width`` x ``height`` box, padded by ``radius`` each side."""
    pad = radius * 2
    img = Image.new("L", (width + 2 * pad, height + 2 * pad), 0)
    ImageDraw.Draw(img).rounded_rectangle((pad, pad + 3, pad + width, pad + height + 3),
                                          radius=8, fill=alpha)
    img = img.filter(ImageFilter.GaussianBlur(radius / 2))
    black = Image.new("RGBA", img.size, (0, 0, 0, 0))
    black.putalpha(img)
    return black


# -- dock icons ---------------------------------------------------------------

def _firefox(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.06, s * 0.06, s * 0.94, s * 0.94), fill=(255, 113, 57))
    d.ellipse((s * 0.22, s * 0.2, s * 0.8, s * 0.78), fill=(130, 56, 200))
    d.ellipse((s * 0.3, s * 0.3, s * 0.72, s * 0.72), fill=(60, 120, 230))
    d.pieslice((s * 0.06, s * 0.06, s * 0.94, s * 0.94), 200, 330, fill=(255, 170, 40))


def _thunderbird(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.06, s * 0.06, s * 0.94, s * 0.94), fill=(10, 132, 255))
    d.rectangle((s * 0.24, s * 0.34, s * 0.76, s * 0.68), fill=(245, 245, 250))
    d.line((s * 0.24, s * 0.34, s * 0.5, s * 0.54, s * 0.76, s * 0.34), fill=(10, 90, 200),
           width=s // 24)


def _files(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.08, s * 0.14, s * 0.5, s * 0.3), radius=s // 14,
                        fill=(120, 120, 120))
    d.rounded_rectangle((s * 0.08, s * 0.2, s * 0.92, s * 0.86), radius=s // 14,
                        fill=(120, 120, 120))
    d.rounded_rectangle((s * 0.06, s * 0.3, s * 0.94, s * 0.88), radius=s // 14,
                        fill=(210, 210, 210))
    d.rounded_rectangle((s * 0.38, s * 0.44, s * 0.62, s * 0.5), radius=s // 40,
                        fill=(120, 120, 120))


def _terminal(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.08, s * 0.12, s * 0.92, s * 0.88), radius=s // 10,
                        fill=(48, 10, 36), outline=(90, 90, 90), width=s // 40)
    d.line((s * 0.22, s * 0.36, s * 0.36, s * 0.48, s * 0.22, s * 0.6), fill=(240, 240, 240),
           width=s // 18)
    d.line((s * 0.42, s * 0.62, s * 0.62, s * 0.62), fill=(240, 240, 240), width=s // 18)


def _writer(d: ImageDraw.ImageDraw, s: int) -> None:
    d.polygon([(s * 0.18, s * 0.06), (s * 0.64, s * 0.06), (s * 0.82, s * 0.24),
               (s * 0.82, s * 0.94), (s * 0.18, s * 0.94)], fill=(250, 250, 250))
    d.rectangle((s * 0.18, s * 0.62, s * 0.82, s * 0.94), fill=(33, 117, 200))
    for i in range(3):
        y = s * (0.3 + i * 0.09)
        d.rectangle((s * 0.28, y, s * 0.72, y + s * 0.03), fill=(150, 150, 150))


def _software(d: ImageDraw.ImageDraw, s: int) -> None:
    d.arc((s * 0.32, s * 0.08, s * 0.68, s * 0.44), 180, 360, fill=(200, 70, 25), width=s // 16)
    d.rounded_rectangle((s * 0.14, s * 0.26, s * 0.86, s * 0.9), radius=s // 10,
                        fill=(233, 84, 32))
    f = font(max(8, s // 3), bold=True)
    d.text((s * 0.5, s * 0.6), "A", font=f, fill=(255, 255, 255), anchor="mm")


def _help(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.08, s * 0.08, s * 0.92, s * 0.92), fill=(46, 132, 227))
    d.ellipse((s * 0.28, s * 0.28, s * 0.72, s * 0.72), fill=(255, 255, 255))
    f = font(max(8, s // 3), bold=True)
    d.text((s * 0.5, s * 0.51), "?", font=f, fill=(46, 132, 227), anchor="mm")


def _trash(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.2, s * 0.26, s * 0.8, s * 0.9), radius=s // 14,
                        fill=(225, 225, 225), outline=(150, 150, 150), width=s // 40)
    d.rounded_rectangle((s * 0.14, s * 0.16, s * 0.86, s * 0.26), radius=s // 30,
                        fill=(180, 180, 180))
    for x in (0.36, 0.5, 0.64):
        d.line((s * x, s * 0.36, s * x, s * 0.8), fill=(160, 160, 160), width=s // 30)


def _apps(d: ImageDraw.ImageDraw, s: int) -> None:
    for i in range(3):
        for j in range(3):
            cx, cy = s * (0.26 + 0.24 * i), s * (0.26 + 0.24 * j)
            d.ellipse((cx - s * 0.06, cy - s * 0.06, cx + s * 0.06, cy + s * 0.06),
                      fill=(235, 235, 235))


def _chrome(d: ImageDraw.ImageDraw, s: int) -> None:
    box = (s * 0.06, s * 0.06, s * 0.94, s * 0.94)
    d.pieslice(box, 210, 330, fill=(219, 68, 55))
    d.pieslice(box, 330, 90, fill=(244, 180, 0))
    d.pieslice(box, 90, 210, fill=(15, 157, 88))
    d.ellipse((s * 0.3, s * 0.3, s * 0.7, s * 0.7), fill=(255, 255, 255))
    d.ellipse((s * 0.36, s * 0.36, s * 0.64, s * 0.64), fill=(66, 133, 244))


def _vim(d: ImageDraw.ImageDraw, s: int) -> None:
    d.polygon([(s * 0.5, s * 0.04), (s * 0.96, s * 0.5), (s * 0.5, s * 0.96), (s * 0.04, s * 0.5)],
              fill=(1, 147, 57), outline=(20, 90, 40))
    f = font(max(8, s // 3), bold=True)
    d.text((s * 0.5, s * 0.52), "V", font=f, fill=(240, 240, 240), anchor="mm")


def _rhythmbox(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.08, s * 0.08, s * 0.92, s * 0.92), radius=s // 6,
                        fill=(250, 180, 40))
    d.ellipse((s * 0.24, s * 0.24, s * 0.76, s * 0.76), fill=(60, 60, 60))
    d.ellipse((s * 0.44, s * 0.44, s * 0.56, s * 0.56), fill=(250, 180, 40))


def _settings(d: ImageDraw.ImageDraw, s: int) -> None:
    cx = cy = s * 0.5
    d.ellipse((s * 0.06, s * 0.06, s * 0.94, s * 0.94), fill=(94, 92, 100))
    teeth = []
    for i in range(16):
        r = s * (0.36 if i % 2 == 0 else 0.27)
        a = math.pi * 2 * (i + 0.5 * (i % 2)) / 16
        teeth.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    d.polygon(teeth, fill=(222, 221, 218))
    d.ellipse((s * 0.39, s * 0.39, s * 0.61, s * 0.61), fill=(94, 92, 100))


def _app(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.1, s * 0.1, s * 0.9, s * 0.9), radius=s // 6,
                        fill=(120, 130, 150))
    d.rounded_rectangle((s * 0.3, s * 0.3, s * 0.7, s * 0.7), radius=s // 12,
                        fill=(230, 232, 236))


_DOCK: dict[str, Callable[[ImageDraw.ImageDraw, int], None]] = {
    "firefox": _firefox, "thunderbird": _thunderbird, "files": _files, "terminal": _terminal,
    "writer": _writer, "software": _software, "help": _help, "trash": _trash, "apps": _apps,
    "chrome": _chrome, "vim": _vim, "rhythmbox": _rhythmbox, "settings": _settings, "app": _app,
}


@lru_cache(maxsize=32)
def dock_icon(name: str, size: int = 48) -> Image.Image:
    """The dock icon ``name`` (one of the keys of ``_DOCK``) as RGBA."""
    s = size * _SS
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    _DOCK[name](ImageDraw.Draw(img), s)
    return _smooth(img, (size, size))

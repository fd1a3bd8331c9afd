"""Small, deterministic stand-ins for the files OSWorld configs download (images).

Same names and kinds as the originals (a JPEG is a real JPEG, a WebP a real WebP),
drawn with Pillow from a fixed recipe, so every desktop gets byte-identical files.

>>> jpeg("beach").startswith(b"\\xff\\xd8"), png("us").startswith(b"\\x89PNG")
(True, True)
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache

from PIL import Image, ImageDraw

from ..desktop.theme import font

__all__ = ["jpeg", "png", "poster_webp", "webp"]


def _picture(label: str, size: tuple[int, int]) -> Image.Image:
    """A landscape-ish picture whose colours derive from ``label``."""
    h = hashlib.sha256(label.encode()).digest()
    sky, ground, sun = (h[0] // 2 + 60, h[1] // 2 + 90, 200), (h[2] // 3, h[3] // 2 + 90, 60), \
        (250, 200 + h[4] % 50, 60)
    w, ht = size
    img = Image.new("RGB", size, sky)
    d = ImageDraw.Draw(img)
    d.rectangle((0, ht * 2 // 3, w, ht), fill=ground)
    r = ht // 8
    cx = w // 5 + h[5] % (w // 2)
    d.ellipse((cx - r, ht // 5 - r, cx + r, ht // 5 + r), fill=sun)
    for i in range(3):
        x = (h[6 + i] * w) // 256
        d.polygon([(x - w // 6, ht * 2 // 3), (x, ht // 3 + h[9 + i] % (ht // 4)),
                   (x + w // 6, ht * 2 // 3)], fill=(90 + i * 20, 80 + i * 15, 100))
    d.text((8, ht - 22), label[:40], font=font(14), fill=(255, 255, 255))
    return img


@lru_cache(maxsize=32)
def jpeg(label: str, size: tuple[int, int] = (320, 240)) -> bytes:
    """A JPEG photo."""
    buf = io.BytesIO()
    _picture(label, size).save(buf, "JPEG", quality=85)
    return buf.getvalue()


@lru_cache(maxsize=8)
def png(label: str, size: tuple[int, int] = (320, 240)) -> bytes:
    """A PNG picture."""
    buf = io.BytesIO()
    _picture(label, size).save(buf, "PNG", optimize=False)
    return buf.getvalue()


@lru_cache(maxsize=8)
def webp(label: str, size: tuple[int, int] = (320, 240)) -> bytes:
    """A WebP picture (lossless)."""
    buf = io.BytesIO()
    _picture(label, size).save(buf, "WEBP", lossless=True)
    return buf.getvalue()


@lru_cache(maxsize=2)
def poster_webp(size: tuple[int, int] = (300, 420)) -> bytes:
    """A "party night" poster as WebP."""
    w, h = size
    img = Image.new("RGB", size, (24, 10, 48))
    d = ImageDraw.Draw(img)
    for i, color in enumerate([(233, 84, 32), (250, 200, 60), (120, 60, 200), (40, 180, 220)]):
        d.ellipse((20 + i * 60, 40 + (i % 2) * 50, 100 + i * 60, 120 + (i % 2) * 50),
                  fill=color)
    d.text((w // 2, h // 2 + 40), "PARTY", font=font(48, bold=True), fill=(255, 255, 255),
           anchor="mm")
    d.text((w // 2, h // 2 + 95), "NIGHT", font=font(48, bold=True), fill=(250, 200, 60),
           anchor="mm")
    d.text((w // 2, h - 30), "Sat 9 PM", font=font(18), fill=(220, 220, 220), anchor="mm")
    buf = io.BytesIO()
    img.save(buf, "WEBP", lossless=True)
    return buf.getvalue()

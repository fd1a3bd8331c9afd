"""The icon a file shows in Files and on the desktop: folder, image thumbnail, document.

Images (``.jpg``, ``.png``, ``.webp``, ...) show a thumbnail of their content, as
Files and Desktop Icons NG do; anything undecodable falls back to a picture glyph.
All results are cached and must be treated as read-only.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, UnidentifiedImageError

from . import art
from .fs import FileSystem, split_ext

__all__ = ["IMAGE_EXTS", "file_icon", "kind_of"]

IMAGE_EXTS = frozenset({".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".tif", ".tiff"})


def kind_of(fs: FileSystem, path: str) -> str:
    """``"folder"``, ``"image"`` or ``"document"``."""
    if fs.is_dir(path):
        return "folder"
    if split_ext(path.rsplit("/", 1)[-1])[1].lower() in IMAGE_EXTS:
        return "image"
    return "document"


@lru_cache(maxsize=8)
def _picture_glyph(size: int) -> Image.Image:
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    m = size // 8
    d.rounded_rectangle((m, m + size // 10, size - m, size - m - size // 10), radius=size // 16,
                        fill=(245, 245, 245), outline=(160, 160, 160), width=max(1, size // 40))
    d.polygon([(m * 2, size - m * 2 - 2), (size // 2 - 2, size // 2),
               (size - m * 2, size - m * 2 - 2)], fill=(90, 160, 90))
    d.ellipse((size - m * 3 - 6, m * 2 + 4, size - m * 3 + 6, m * 2 + 16), fill=(240, 190, 50))
    return img


@lru_cache(maxsize=64)
def _thumbnail(data: bytes, size: int) -> Image.Image | None:
    try:
        with Image.open(io.BytesIO(data)) as src:
            src.draft("RGB", (size * 2, size * 2))
            pic = src.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    pic.thumbnail((size - 4, size - 4), Image.Resampling.LANCZOS)
    out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    x, y = (size - pic.width) // 2, (size - pic.height) // 2
    ImageDraw.Draw(out).rectangle((x - 2, y - 2, x + pic.width + 1, y + pic.height + 1),
                                  fill=(255, 255, 255, 255), outline=(190, 190, 190, 255))
    out.paste(pic, (x, y))
    return out


def file_icon(fs: FileSystem, path: str, size: int) -> Image.Image:
    """The RGBA icon of ``path`` at ``size`` pixels."""
    kind = kind_of(fs, path)
    if kind == "folder":
        return art.folder_icon(size)
    if kind == "image":
        try:
            thumb = _thumbnail(fs.read_file(path), size)
        except OSError:
            thumb = None
        return thumb if thumb is not None else _picture_glyph(size)
    return art.document_icon(size)

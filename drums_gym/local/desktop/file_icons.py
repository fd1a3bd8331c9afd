"""The icon a file shows in Files and on the desktop: folder, image thumbnail, document.

Images (``.jpg``, ``.png``, ``.webp``, ...) show a thumbnail of their content, as
Files and Desktop Icons NG do. File contents come from the agent (a terminal can write
anything under an image's name), so thumbnails are made defensively:

- only the formats the desktop shows are decoded (`THUMBNAIL_FORMATS`, Pillow's
  ``formats=``): no plugin that runs an external program (EPS runs Ghostscript) is reachable;
- the pixel count is checked from the header, before anything is decoded: an image larger
  than `MAX_THUMBNAIL_PIXELS` (after JPEG's draft scaling) is not decoded at all;
- any decode failure (bad data, truncation, decompression bombs, a plugin's own error)
  shows the broken-image icon, `broken_image_icon`, Files' generic picture.

All results are cached and must be treated as read-only.
"""

from __future__ import annotations

import io
import struct
import threading
from collections import OrderedDict
from functools import lru_cache

from PIL import Image, ImageDraw

from . import art
from .fs import FileSystem, split_ext

__all__ = ["IMAGE_EXTS", "MAX_THUMBNAIL_PIXELS", "THUMBNAIL_FORMATS", "broken_image_icon",
           "file_icon", "kind_of"]

IMAGE_EXTS = frozenset({".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".tif", ".tiff"})
#: The Pillow formats a thumbnail may be decoded from (those of `IMAGE_EXTS`).
THUMBNAIL_FORMATS = ("PNG", "JPEG", "GIF", "BMP", "WEBP", "TIFF")
#: The most pixels a thumbnail decodes (16 MP; a JPEG counts at its draft scale): at most
#: about 64 MB of pixels per thumbnail, whatever the header claims.
MAX_THUMBNAIL_PIXELS = 4096 * 4096
#: What decoding untrusted bytes can raise: Pillow's plugins raise OSError (incl.
#: UnidentifiedImageError), ValueError, SyntaxError, EOFError, struct.error, and on
#: malformed data also index, key, type and arithmetic errors; MemoryError on absurd
#: sizes; DecompressionBombError past Pillow's own limit. (Not ``Exception``: the work
#: budget's BudgetExceeded must pass.)
_DECODE_ERRORS: tuple[type[BaseException], ...] = (
    OSError, ValueError, SyntaxError, EOFError, struct.error, LookupError, TypeError,
    ArithmeticError, AttributeError, MemoryError, Image.DecompressionBombError,
    Image.DecompressionBombWarning)  # a warning only when warnings are errors
_CACHE_ENTRIES = 64
_CACHE_BYTES = 64 * 1024 * 1024  # file contents the thumbnail cache may keep alive


def kind_of(fs: FileSystem, path: str) -> str:
    """``"folder"``, ``"image"`` or ``"document"``."""
    if fs.is_dir(path):
        return "folder"
    if split_ext(path.rsplit("/", 1)[-1])[1].lower() in IMAGE_EXTS:
        return "image"
    return "document"


@lru_cache(maxsize=8)
def broken_image_icon(size: int) -> Image.Image:
    """The icon of an image file without a thumbnail (undecodable, too large): a picture."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    m = size // 8
    d.rounded_rectangle((m, m + size // 10, size - m, size - m - size // 10), radius=size // 16,
                        fill=(245, 245, 245), outline=(160, 160, 160), width=max(1, size // 40))
    d.polygon([(m * 2, size - m * 2 - 2), (size // 2 - 2, size // 2),
               (size - m * 2, size - m * 2 - 2)], fill=(90, 160, 90))
    d.ellipse((size - m * 3 - 6, m * 2 + 4, size - m * 3 + 6, m * 2 + 16), fill=(240, 190, 50))
    return img


class _ThumbnailCache:
    """Thumbnails by (file contents, size), least recently used first out, bounded both in
    entries and in the bytes of contents it keeps alive (shared by every desktop: locked)."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[bytes, int], Image.Image | None] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, data: bytes, size: int) -> Image.Image | None:
        key = (data, size)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        thumb = _decode_thumbnail(data, size)
        if len(data) > _CACHE_BYTES // 4:
            return thumb
        with self._lock:
            if key not in self._items:
                self._items[key] = thumb
                self._bytes += len(data)
            while len(self._items) > _CACHE_ENTRIES or self._bytes > _CACHE_BYTES:
                (old, _), _ = self._items.popitem(last=False)
                self._bytes -= len(old)
        return thumb


_thumbnails = _ThumbnailCache()


def _decode_thumbnail(data: bytes, size: int) -> Image.Image | None:
    """The framed thumbnail of image bytes ``data``, or None when they cannot be shown."""
    try:
        with Image.open(io.BytesIO(data), formats=THUMBNAIL_FORMATS) as src:
            src.draft("RGB", (size * 2, size * 2))  # JPEG: decode at a reduced scale
            width, height = src.size  # from the header: nothing is decoded yet
            if width * height > MAX_THUMBNAIL_PIXELS:
                return None
            pic = src.convert("RGB")
        pic.thumbnail((size - 4, size - 4), Image.Resampling.LANCZOS)
    except _DECODE_ERRORS:
        return None
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
            thumb = _thumbnails.get(fs.read_file(path), size)
        except OSError:
            thumb = None
        return thumb if thumb is not None else broken_image_icon(size)
    return art.document_icon(size)

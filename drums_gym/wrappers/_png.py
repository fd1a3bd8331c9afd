"""A fast PNG encoder for recorded frames: the "Up" filter in numpy, then zlib level 1.

About twice as fast as Pillow's ``compress_level=1`` on desktop screenshots, with files
about as small (rows of a desktop repeat vertically), and zlib releases the GIL while it
compresses, so a background writer thread does not hold up the stepping thread.

>>> import io, numpy as np
>>> from PIL import Image
>>> frame = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
>>> with Image.open(io.BytesIO(encode_png(frame)), formats=["PNG"]) as image:
...     bool((np.asarray(image) == frame).all())
True
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_FILTER_NONE, _FILTER_UP = 0, 2


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF)
    )


def encode_png(frame: np.ndarray, level: int = 1) -> bytes:
    """The PNG (8-bit RGB) of a ``(H, W, 3)`` uint8 frame."""
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"frame must be a (H, W, 3) uint8 array, got {frame.dtype} {frame.shape}")
    height, width, _ = frame.shape
    rows = np.ascontiguousarray(frame).reshape(height, width * 3)
    filtered = np.empty((height, width * 3 + 1), dtype=np.uint8)
    filtered[0, 0] = _FILTER_NONE
    filtered[0, 1:] = rows[0]
    filtered[1:, 0] = _FILTER_UP
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])  # modulo 256, as PNG's Up is
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        _SIGNATURE
        + _chunk(b"IHDR", header)
        # numpy declares ndarray.__buffer__ only for Python >= 3.12 (PEP 688); it is a buffer
        + _chunk(b"IDAT", zlib.compress(filtered, level))  # type: ignore[arg-type]
        + _chunk(b"IEND", b"")
    )

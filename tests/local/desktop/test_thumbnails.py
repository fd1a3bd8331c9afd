"""Thumbnails of agent-written files: only the desktop's formats, a pixel cap, no process.

A terminal can write anything under an image's name. The desktop decodes only PNG, JPEG,
GIF, BMP, WEBP and TIFF (Pillow's ``formats=``), checks the pixel count from the header
before decoding, and shows the broken-image icon for anything it cannot or will not decode.
"""

from __future__ import annotations

import io
import os
import random
import struct
import textwrap
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.file_icons import (
    MAX_THUMBNAIL_PIXELS,
    THUMBNAIL_FORMATS,
    broken_image_icon,
    file_icon,
)

POSTSCRIPT = (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 64 64\n"
              b"newpath 0 0 moveto 64 64 lineto stroke showpage\n%%EOF\n")


def rle_bomb(side: int = 12288, size: int = 642) -> bytes:
    """A BMP (RLE8) of ``side`` x ``side`` pixels in ``size`` bytes: delta escapes skip
    255 columns and 255 rows each, so a few hundred bytes claim 150 million pixels."""
    deltas = b"\x00\x02\xff\xff\xff\xff" * (side * side // (255 + 255 * side) + 1)
    body = deltas + b"\x00\x01"  # end of bitmap
    colors = (size - 54 - len(body)) // 4
    palette = bytes(i % 256 for i in range(colors * 4))
    offset = 54 + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, side, side, 1, 8, 1, len(body), 2835, 2835,
                       colors, 0)
    head = b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset)
    return head + info + palette + body


def png(width: int, height: int, color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def fake_ghostscript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in ``gs`` first on PATH that leaves a canary file when anything runs it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    canary = tmp_path / "gs-ran"
    gs = bin_dir / "gs"
    gs.write_text(f"#!/bin/sh\necho \"$@\" > {canary}\nexit 1\n")
    gs.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return canary


def test_postscript_named_as_an_image_never_runs_ghostscript(fake_ghostscript: Path) -> None:
    desk = Desktop()
    for name in ("poster.png", "poster.jpg", "poster.tif", "poster.bmp"):
        desk.fs.write_file(f"~/Desktop/{name}", POSTSCRIPT)
    desk.render()
    desk.open_folder("~/Desktop")
    desk.render()
    desk.accessibility()
    assert not fake_ghostscript.exists(), "a file's contents made the host run gs"
    broken = broken_image_icon(64)
    for name in ("poster.png", "poster.jpg", "poster.tif", "poster.bmp"):
        assert file_icon(desk.fs, f"/home/user/Desktop/{name}", 64) is broken


def test_a_642_byte_bmp_of_150_megapixels_costs_little(tmp_path: Path) -> None:
    bomb = rle_bomb()
    assert len(bomb) == 642
    with Image.open(io.BytesIO(bomb)) as im:
        assert im.size == (12288, 12288), "the header claims 150 million pixels"
    limit = Image.MAX_IMAGE_PIXELS
    desk = Desktop()
    desk.fs.write_file("~/Desktop/huge.bmp", bomb)
    desk.open_folder("~/Desktop")
    tracemalloc.start()
    try:
        desk.render()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024, f"drawing its thumbnail peaked at {peak / 1e6:.0f} MB"
    assert file_icon(desk.fs, "/home/user/Desktop/huge.bmp", 64) is broken_image_icon(64)
    assert limit == Image.MAX_IMAGE_PIXELS, "the cap is the desktop's own, not Pillow's global"


def test_the_pixel_cap_is_read_from_the_header_before_decoding(monkeypatch) -> None:
    """An image past the cap is refused without loading a pixel; one within it is drawn."""
    side = int(MAX_THUMBNAIL_PIXELS ** 0.5) + 1
    big = io.BytesIO()
    Image.new("1", (side, side)).save(big, "PNG")  # 1-bit: a small file of many pixels
    fs = Desktop().fs
    fs.write_file("~/Desktop/big.png", big.getvalue())
    fs.write_file("~/Desktop/ok.png", png(40, 30))
    loads: list[tuple[int, int]] = []
    real_load = Image.Image.load

    def counting_load(self: Image.Image):
        loads.append(self.size)
        return real_load(self)

    monkeypatch.setattr(Image.Image, "load", counting_load)
    assert file_icon(fs, "/home/user/Desktop/big.png", 64) is broken_image_icon(64)
    assert (side, side) not in loads, "the oversized image was decoded"
    thumb = file_icon(fs, "/home/user/Desktop/ok.png", 64)
    assert thumb is not broken_image_icon(64) and (40, 30) in loads
    assert thumb.getpixel((32, 32))[:3] == (200, 40, 40)


def test_jpeg_counts_at_its_draft_scale() -> None:
    """A large photo still gets its thumbnail: JPEG decodes at 1/8 scale, under the cap."""
    buf = io.BytesIO()
    Image.new("RGB", (5000, 4000), (20, 90, 200)).save(buf, "JPEG", quality=50)
    assert MAX_THUMBNAIL_PIXELS < 5000 * 4000
    fs = Desktop().fs
    fs.write_file("~/Desktop/photo.jpg", buf.getvalue())
    thumb = file_icon(fs, "/home/user/Desktop/photo.jpg", 64)
    assert thumb is not broken_image_icon(64)
    r, g, b = thumb.getpixel((32, 32))[:3]
    assert b > 150 and r < 60


def malformed_images() -> Iterator[tuple[str, bytes]]:
    good = {fmt: _encoded(fmt) for fmt in THUMBNAIL_FORMATS}
    yield "empty.png", b""
    yield "text.png", b"hello, not an image\n"
    yield "eps.png", POSTSCRIPT
    for fmt, data in good.items():
        ext = {"JPEG": "jpg", "TIFF": "tif"}.get(fmt, fmt.lower())
        for cut in (8, 16, 33, len(data) // 2, len(data) - 3):
            yield f"truncated-{cut}.{ext}", data[:cut]
        rng = random.Random(fmt)
        for n in range(25):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 12)):
                mutated[rng.randrange(12, len(mutated))] = rng.randrange(256)
            yield f"mutated-{n}.{ext}", bytes(mutated)
    # a PNG whose header claims 2**31-1 pixels a side (Pillow's own bomb check refuses it)
    data = bytearray(good["PNG"])
    data[16:24] = struct.pack(">II", 0x7FFFFFFF, 0x7FFFFFFF)
    yield "bomb.png", bytes(data)


def _encoded(fmt: str) -> bytes:
    img = Image.new("RGB", (48, 32))
    img.putdata([(x * 5 % 256, y * 8 % 256, (x + y) % 256) for y in range(32) for x in range(48)])
    buf = io.BytesIO()
    img.save(buf, fmt)
    return buf.getvalue()


def test_any_decode_failure_shows_the_broken_image_icon() -> None:
    desk = Desktop()
    cases = list(malformed_images())
    for i, (name, data) in enumerate(cases):
        desk.fs.write_file(f"~/Desktop/{i:03d}-{name}", data)
    desk.render()
    for i, (name, _) in enumerate(cases):
        icon = file_icon(desk.fs, f"/home/user/Desktop/{i:03d}-{name}", 64)
        assert icon.size == (64, 64) and icon.mode == "RGBA"
    for name in ("empty.png", "text.png", "eps.png", "bomb.png"):
        i = next(k for k, (n, _) in enumerate(cases) if n == name)
        assert file_icon(desk.fs, f"/home/user/Desktop/{i:03d}-{name}", 64) is \
            broken_image_icon(64)


def test_every_image_open_in_the_host_names_its_formats() -> None:
    """A static check over drums_gym/local (shown to catch a planted call)."""
    import ast

    import drums_gym

    def unbounded(source: str) -> list[int]:
        out = []
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "open"
                    and getattr(node.func.value, "id", None) == "Image"
                    and not any(k.arg == "formats" for k in node.keywords)):
                out.append(node.lineno)
        return out

    root = Path(drums_gym.__file__).parent / "local"
    found = {str(p): unbounded(p.read_text()) for p in root.rglob("*.py")}
    assert {p: lines for p, lines in found.items() if lines} == {}
    assert unbounded(textwrap.dedent("""
        from PIL import Image
        Image.open(data, formats=["PNG"])
        Image.open(data)
    """)) == [4]


def test_a_terminal_written_postscript_poster_over_http(local_host, fake_ghostscript) -> None:
    """The issue's attack through the real host: write PostScript as poster.png from the
    Terminal, take screenshots: 200s, and gs never runs."""
    with httpx.Client(base_url=local_host.url, timeout=30) as http:
        r = http.post("/v1/slots", json={"task": "e0df059f"})
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        try:
            lines = ["echo '%!PS-Adobe-3.0 EPSF-3.0' > ~/Desktop/poster.png",
                     "echo '%%BoundingBox: 0 0 64 64' >> ~/Desktop/poster.png",
                     "echo 'newpath 0 0 moveto 64 64 lineto stroke showpage' >> "
                     "~/Desktop/poster.png"]
            code = "pyautogui.hotkey('ctrl', 'alt', 't')\n" + "\n".join(
                f"pyautogui.write({line + chr(10)!r})" for line in lines)
            r = http.post(f"/v1/slots/{sid}/actions", json={"code": code})
            assert r.status_code == 200, r.text
            for _ in range(2):
                shot = http.get(f"/v1/slots/{sid}/screenshot")
                assert shot.status_code == 200, shot.text
            tree = http.get(f"/v1/slots/{sid}/accessibility").json()["tree"]
            assert "poster.png" in str(tree)
            with Image.open(io.BytesIO(shot.content), formats=["PNG"]) as img:
                assert np.asarray(img).std() > 10
        finally:
            http.delete(f"/v1/slots/{sid}")
    assert not fake_ghostscript.exists(), "a file's contents made the host run gs"

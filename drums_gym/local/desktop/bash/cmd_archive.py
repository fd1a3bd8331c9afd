"""Compressed files and file types: ``gzip``, ``gunzip``, ``zcat`` (real gzip data, zlib)
and ``file`` (what a file is, from its first bytes, as libmagic names the common kinds).

``gzip FILE`` replaces FILE by FILE.gz (keeping its mode and modification time, as gzip
does); ``-k`` keeps the original, ``-d`` decompresses, ``-c`` writes to standard output,
``-r`` walks folders, ``-f`` overwrites. Decompressing is charged to the work budget as the
data comes out, so a small bomb cannot blow up memory.
"""

from __future__ import annotations

import struct
import zlib
from datetime import datetime, timezone

from ...budget import charge, charge_bytes
from .cmd_files import walk
from .context import Ctx
from .registry import Args, Opts, command

__all__ = ["compress", "decompress", "describe"]

_CHUNK = 1 << 16


def compress(data: bytes, name: str = "", mtime: float = 0.0) -> bytes:
    """gzip data with the original ``name`` and ``mtime`` in the header, as gzip writes it."""
    charge(1 + len(data) // _CHUNK)
    flags = 0x08 if name else 0
    header = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", int(mtime) & 0xFFFFFFFF)
    header += b"\x00\x03" + (name.encode("latin-1", "replace") + b"\x00" if name else b"")
    co = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = co.compress(data) + co.flush()
    return header + body + struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF,
                                       len(data) & 0xFFFFFFFF)


class GzipError(ValueError):
    """Not gzip data, or damaged (``str()`` is gzip's complaint)."""


def decompress(data: bytes) -> bytes:
    """The data of one or more gzip members (`GzipError` when it is not gzip)."""
    out: list[bytes] = []
    pos = 0
    while pos < len(data):
        if data[pos:pos + 2] != b"\x1f\x8b":
            if out:
                break  # trailing garbage: gzip warns and keeps what it has
            raise GzipError("not in gzip format")
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        rest = data[pos:]
        while rest:
            charge()
            piece = d.decompress(rest, _CHUNK)
            charge_bytes(len(piece))
            out.append(piece)
            rest = d.unconsumed_tail
        if not d.eof:
            piece = d.flush()
            if not d.eof:
                raise GzipError("unexpected end of file")
            out.append(piece)
        pos = len(data) - len(d.unused_data)
    return b"".join(out)


@command("gzip", opts=Opts("dcfkrnlvq1923456789t", {
    "decompress": "d", "stdout": "c", "to-stdout": "c", "force": "f", "keep": "k",
    "recursive": "r", "verbose": "v", "quiet": "q", "test": "t", "list": "l"}))
def gzip(ctx: Ctx, a: Args) -> int:
    return _gzip(ctx, a, "gzip", "d" in a.flags)


@command("gunzip", opts=Opts("cfkrvqtl", {
    "stdout": "c", "to-stdout": "c", "force": "f", "keep": "k", "recursive": "r",
    "verbose": "v", "quiet": "q", "test": "t", "list": "l"}))
def gunzip(ctx: Ctx, a: Args) -> int:
    return _gzip(ctx, a, "gunzip", True)


@command("zcat", opts=Opts("f", {"force": "f"}))
def zcat(ctx: Ctx, a: Args) -> int:
    a.flags.add("c")
    return _gzip(ctx, a, "zcat", True)


def _gzip(ctx: Ctx, a: Args, prog: str, unzip: bool) -> int:
    fs, flags = ctx.fs, a.flags
    if not a.operands:
        data = ctx.io.stdin.encode("latin-1", "replace")
        if not unzip:
            if ctx.io.tty and "f" not in flags:
                ctx.err(f"{prog}: compressed data not written to a terminal. Use -f to force "
                        "compression.\nFor help, type: gzip -h")
                return 1
            ctx.out(compress(data).decode("latin-1"))
            return 0
        try:
            ctx.out(decompress(data).decode(errors="replace"))
        except GzipError as exc:
            ctx.err(f"{prog}: stdin: {exc}")
            return 1
        return 0
    status = 0
    for arg in a.operands:
        p = ctx.path(arg)
        if not fs.exists(p):
            ctx.err(f"{prog}: {arg}: No such file or directory")
            status = 1
            continue
        if fs.is_dir(p):
            if "r" not in flags:
                ctx.err(f"{prog}: {arg} is a directory -- ignored")
                status = max(status, 2)
                continue
            for sub in walk(fs, p):
                if fs.is_file(sub) and (sub.endswith(".gz") == unzip):
                    status = max(status, _one(ctx, sub, sub, prog, unzip, flags))
            continue
        status = max(status, _one(ctx, p, arg, prog, unzip, flags))
    return status


def _one(ctx: Ctx, p: str, arg: str, prog: str, unzip: bool, flags: set[str]) -> int:
    fs = ctx.fs
    if not ctx.may(p, "r"):
        ctx.err(f"{prog}: {arg}: Permission denied")
        return 1
    if unzip and not p.endswith((".gz", ".tgz")) and "c" not in flags:
        ctx.err(f"{prog}: {arg}: unknown suffix -- ignored")
        return 2
    if not unzip and p.endswith(".gz") and "c" not in flags and "f" not in flags:
        ctx.err(f"{prog}: {arg} already has .gz suffix -- unchanged")
        return 2
    data = fs.read_file(p)
    st = fs.stat(p)
    if unzip:
        try:
            out = decompress(data)
        except GzipError as exc:
            ctx.err(f"{prog}: {arg}: {exc}")
            return 1
        target = p[:-3] if p.endswith(".gz") else p[:-4] + ".tar"
    else:
        out = compress(data, p.rsplit("/", 1)[-1], st.st_mtime)
        target = p + ".gz"
    if "c" in flags:
        ctx.out(out.decode("latin-1") if not unzip else out.decode(errors="replace"))
        return 0
    shown = target if arg == p else arg[:-3] if unzip else arg + ".gz"
    if fs.exists(target) and "f" not in flags:
        ctx.err(f"{prog}: {shown} already exists; not overwritten")
        return 2
    parent = target.rsplit("/", 1)[0] or "/"
    if not ctx.may(parent, "w"):
        ctx.err(f"{prog}: {shown}: Permission denied")
        return 1
    charge_bytes(len(out))
    fs.write_file(target, out, mode=ctx.mode(p))
    fs.set_mtime(target, st.st_mtime)
    if "k" not in flags:
        fs.remove(p)
    if "v" in flags:
        ctx.err(f"{arg}:\t replaced with {shown}")
    return 0


# -- file ---------------------------------------------------------------------------------

def describe(data: bytes, name: str = "") -> str:
    """What ``file`` says a file holding ``data`` is."""
    if not data:
        return "empty"
    if data[:2] == b"\x1f\x8b" and len(data) >= 10:
        extra = ""
        if data[3] & 0x08:
            end = data.find(b"\x00", 10)
            if end > 0:
                extra = f', was "{data[10:end].decode("latin-1")}"'
        mtime = struct.unpack("<I", data[4:8])[0]
        when = datetime.fromtimestamp(mtime, tz=timezone.utc).strftime("%a %b %e %H:%M:%S %Y")
        size = struct.unpack("<I", data[-4:])[0]
        return (f"gzip compressed data{extra}, last modified: {when}, from Unix, "
                f"original size modulo 2^32 {size}")
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG image data, JFIF standard 1.01"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24]) if len(data) >= 24 else (0, 0)
        return f"PNG image data, {w} x {h}, 8-bit/color RGB, non-interlaced"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "RIFF (little-endian) data, Web/P image"
    if data[:4] == b"PK\x03\x04":
        return "Zip archive data, at least v2.0 to extract"
    if data[:5] == b"%PDF-":
        return f"PDF document, version {data[5:8].decode('latin-1')}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "data"
    if text.startswith("#!"):
        interp = text[2:].split("\n", 1)[0].strip().split()
        prog = interp[-1].rsplit("/", 1)[-1] if interp else "sh"
        kind = {"bash": "Bourne-Again shell script", "sh": "POSIX shell script"}.get(
            prog, f"a {prog} script")
        return f"{kind}, ASCII text executable"
    if name.endswith(".ipynb") and text.lstrip().startswith("{"):
        return "JSON data"
    kind = "ASCII text" if text.isascii() else "Unicode text, UTF-8 text"
    return kind + ("" if "\n" in text else ", with no line terminators")


@command("file", opts=Opts("bL", {"brief": "b", "dereference": "L"}))
def file(ctx: Ctx, a: Args) -> int:
    if not a.operands:
        ctx.err("Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n"
                "            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n"
                "            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"
                "            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]")
        return 1
    for arg in a.operands:
        charge()
        p = ctx.path(arg)
        if not ctx.fs.exists(p):
            what = f"cannot open `{arg}' (No such file or directory)"
        elif ctx.fs.is_dir(p):
            what = "directory"
        elif not ctx.may(p, "r"):
            what = "regular file, no read permission"
        else:
            what = describe(ctx.fs.read_file(p), p)
        ctx.out(what + "\n" if "b" in a.flags else f"{arg}: {what}\n")
    return 0

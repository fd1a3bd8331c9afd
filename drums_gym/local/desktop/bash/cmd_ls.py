"""``ls``: columns on a terminal, one per line in pipes, ``-l`` long format, colours."""

from __future__ import annotations

import math
import stat as stat_mod
from datetime import datetime, timezone

from ...budget import charge
from .context import Ctx, shell_quote
from .globbing import collate_key
from .registry import Args, Opts, command

__all__ = ["columns", "mode_string"]

_SIX_MONTHS = 15_778_476  # seconds, as coreutils counts them


def mode_string(mode: int) -> str:
    """``drwxr-xr-x``-style text for a full ``st_mode``."""
    return stat_mod.filemode(mode)


def columns(names: list[str], widths: list[int], width: int) -> list[str]:
    """GNU ls's vertical column layout of ``names`` (display widths given) in ``width``."""
    n = len(names)
    if n == 0:
        return []
    best = 1
    for cols in range(min(n, max(1, width // 3)), 0, -1):
        rows = -(-n // cols)
        cols_used = -(-n // rows)
        col_w = [max(widths[c * rows:(c + 1) * rows]) + 2 for c in range(cols_used)]
        if sum(col_w) - 2 <= width or cols == 1:
            best = cols
            break
    rows = -(-n // best)
    cols_used = -(-n // rows)
    col_w = [max(widths[c * rows:(c + 1) * rows]) + 2 for c in range(cols_used)]
    lines = []
    for r in range(rows):
        parts = []
        for c in range(cols_used):
            k = c * rows + r
            if k >= n:
                break
            last = c == cols_used - 1 or (c + 1) * rows + r >= n
            parts.append(names[k] + ("" if last else " " * (col_w[c] - widths[k])))
        lines.append("".join(parts))
    return lines


def _color(ctx: Ctx, path: str, name: str) -> str:
    st = ctx.fs.stat(path)
    mode = st.st_mode
    if stat_mod.S_ISDIR(mode):
        if mode & 0o1002 == 0o1002:
            return f"\x1b[30;42m{name}\x1b[0m"
        if mode & 0o002:
            return f"\x1b[34;42m{name}\x1b[0m"
        return f"\x1b[01;34m{name}\x1b[0m"
    if mode & 0o111:
        return f"\x1b[01;32m{name}\x1b[0m"
    return name


def _human(n: int) -> str:
    """``ls -h`` sizes: 1.5K, 12M (rounded up, as coreutils does)."""
    if n < 1024:
        return str(n)
    value = float(n)
    for unit in "KMGTPE":
        value /= 1024
        if value < 1024 or unit == "E":
            tenths = math.ceil(value * 10) / 10
            if tenths < 10:
                return f"{tenths:.1f}{unit}"
            return f"{math.ceil(value)}{unit}"
    return str(n)  # pragma: no cover


def _blocks(ctx: Ctx, path: str) -> int:
    st = ctx.fs.stat(path)
    return 4 if st.is_dir else -(-st.st_size // 4096) * 4


class _Lister:
    def __init__(self, ctx: Ctx, flags: set[str]) -> None:
        self.ctx, self.flags = ctx, flags
        self.now = ctx.fs.clock.now()
        self.color = ctx.io.tty
        self.quote = ctx.io.tty

    def shown(self, path: str, name: str) -> str:
        text = shell_quote(name) if self.quote else name
        pad = " " if self.quote and text == name and any(
            shell_quote(n) != n for n in self.batch) else ""
        return pad + (_color(self.ctx, path, text) if self.color else text)

    def entries(self, d: str) -> list[tuple[str, str]]:
        fs, flags = self.ctx.fs, self.flags
        names = fs.listdir(d)
        if "a" not in flags:
            names = [n for n in names if not n.startswith(".") or "A" in flags]
        out = [(n, f"{d.rstrip('/')}/{n}") for n in names]
        if "a" in flags:
            out = [(".", d), ("..", d.rsplit("/", 1)[0] or "/"), *out]
        return self.order(out)

    def order(self, items: list[tuple[str, str]]) -> list[tuple[str, str]]:
        fs = self.ctx.fs
        items = sorted(items, key=lambda it: collate_key(it[0]))
        if "t" in self.flags:
            items.sort(key=lambda it: -fs.stat(it[1]).st_mtime)
        elif "S" in self.flags:
            items.sort(key=lambda it: -fs.stat(it[1]).st_size)
        if "r" in self.flags:
            items.reverse()
        return items

    def emit(self, items: list[tuple[str, str]], total: bool) -> None:
        ctx = self.ctx
        charge(1 + len(items))
        self.batch = [n for n, _ in items]
        if "l" in self.flags:
            if total:
                ctx.out(f"total {sum(_blocks(ctx, p) for _, p in items)}\n")
            self.long(items)
            return
        texts = [self.shown(p, n) for n, p in items]
        if "1" in self.flags or not ctx.io.tty:
            for t in texts:
                ctx.out(t + "\n")
            return
        widths = [len(self.shown_plain(n)) for n, _ in items]
        for line in columns(texts, widths, ctx.state.columns):
            ctx.out(line + "\n")

    def shown_plain(self, name: str) -> str:
        text = shell_quote(name) if self.quote else name
        if self.quote and text == name and any(shell_quote(n) != n for n in self.batch):
            return " " + text
        return text

    def long(self, items: list[tuple[str, str]]) -> None:
        fs = self.ctx.fs
        rows = []
        for name, path in items:
            st = fs.stat(path)
            links = 2 + sum(fs.is_dir(f"{path}/{c}") for c in fs.listdir(path)) if st.is_dir \
                else 1
            owner = self.ctx.owner(path)
            size = _human(st.st_size) if "h" in self.flags else str(st.st_size)
            when = datetime.fromtimestamp(st.st_mtime, tz=timezone.utc)
            recent = abs(self.now - st.st_mtime) < _SIX_MONTHS
            stamp = f"{when:%b} {when.day:>2} " + (f"{when:%H:%M}" if recent else f"{when.year:>5}")
            rows.append((mode_string(st.st_mode), str(links), owner, owner, size, stamp,
                         self.shown(path, name)))
        w = [max(len(r[k]) for r in rows) for k in range(5)] if rows else [0] * 5
        for r in rows:
            self.ctx.out(f"{r[0]} {r[1]:>{w[1]}} {r[2]:<{w[2]}} {r[3]:<{w[3]}} {r[4]:>{w[4]}} "
                         f"{r[5]} {r[6]}\n")


@command("ls", "dir", opts=Opts("aAlLh1drtSRF", {
    "all": "a", "almost-all": "A", "human-readable": "h", "directory": "d", "reverse": "r",
    "recursive": "R", "color": "", "group-directories-first": ""}, usage_status=2))
def ls(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    lister = _Lister(ctx, flags)
    fs = ctx.fs
    status = 0
    files: list[tuple[str, str]] = []
    dirs: list[tuple[str, str]] = []
    for arg in ops or ["."]:
        p = ctx.path(arg)
        if not fs.exists(p):
            ctx.err(f"ls: cannot access '{arg}': No such file or directory")
            status = 2
        elif fs.is_dir(p) and "d" not in flags:
            dirs.append((arg, p))
        else:
            files.append((arg, p))
    if files:
        lister.emit(lister.order(files), total=False)
    queue = lister.order(dirs) if len(dirs) > 1 else dirs
    header = len(ops) > 1 or "R" in flags
    first = not files
    while queue:
        arg, p = queue.pop(0)
        if not first:
            ctx.out("\n")
        first = False
        if header:
            ctx.out(f"{arg}:\n")
        if not ctx.may(p, "r"):
            ctx.err(f"ls: cannot open directory '{arg}': Permission denied")
            status = 2
            continue
        items = lister.entries(p)
        lister.emit(items, total=True)
        if "R" in flags:
            subs = [(f"{arg.rstrip('/')}/{n}", sp) for n, sp in items
                    if n not in (".", "..") and fs.is_dir(sp)]
            queue[:0] = subs
    return status



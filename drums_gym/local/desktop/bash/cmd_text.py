"""Text commands: echo, printf, cat, head, tail, wc, sort, uniq, tee."""

from __future__ import annotations

import re

from ...budget import charge, charge_bytes
from .context import Ctx
from .globbing import collate_key
from .registry import Args, Opts, command

__all__ = ["backslash_escapes", "printf_format", "read_text"]

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "a": "\a", "b": "\b", "e": "\x1b",
                   "E": "\x1b", "f": "\f", "r": "\r", "v": "\v", '"': '"', "'": "'"}


def backslash_escapes(s: str, echo: bool = False) -> tuple[str, bool]:
    """Interpret ``\\n``-style escapes; returns (text, stop) where ``\\c`` asks to stop."""
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 >= len(s):
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n == "c":
            return "".join(out), True
        if n in _SIMPLE_ESCAPES and not (echo and n in "\"'"):
            out.append(_SIMPLE_ESCAPES[n])
            i += 2
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            if m:
                out.append(chr(int(m.group(), 16)))
                i += 2 + len(m.group())
            else:
                out.append("\\x")
                i += 2
        elif n in "01234567":
            limit = 4 if (echo and n == "0") else 3
            digits = re.match(f"[0-7]{{1,{limit}}}", s[i + 1:])
            text = digits.group() if digits else "0"
            out.append(chr(int(text, 8) & 0xFF))
            i += 1 + len(text)
        else:
            out.append("\\" + n)
            i += 2
    return "".join(out), False


@command("echo", builtin=True, program=True)
def echo(ctx: Ctx, args: list[str]) -> int:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for c in args[0][1:]:
            newline = newline and c != "n"
            escapes = (escapes or c == "e") and c != "E"
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = backslash_escapes(text, echo=True)
        newline = newline and not stop
    ctx.out(text + ("\n" if newline else ""))
    return 0


_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXfFeEgGcsb%])")


def printf_format(fmt: str, args: list[str]) -> tuple[str, list[str]]:
    """Format like bash's ``printf`` (the format is reused while arguments remain).
    Returns (output, error messages)."""
    out: list[str] = []
    errors: list[str] = []
    args = list(args)
    while True:
        consumed = False
        pos = 0
        for m in _SPEC.finditer(fmt):
            text, stop = backslash_escapes(fmt[pos:m.start()])
            out.append(text)
            if stop:
                return "".join(out), errors
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            if width == "*":
                width, consumed = (args.pop(0) if args else "0"), True
            if prec == "*":
                prec, consumed = (args.pop(0) if args else "0"), True
            arg = args.pop(0) if args else None
            consumed = consumed or arg is not None
            out.append(_convert(flags, width, prec, conv, arg, errors))
        text, stop = backslash_escapes(fmt[pos:])
        out.append(text)
        if stop or not args or not consumed:
            return "".join(out), errors


_INT_MAX = 2**31 - 1  # bash's printf takes widths and precisions as C ints


def _field_number(text: str | None, errors: list[str]) -> int | None:
    """A width or precision (from the format or a ``*`` argument); None when absent."""
    if text is None:
        return None
    try:
        return int(text.strip() or "0")
    except ValueError:
        errors.append(f"printf: {text}: invalid number")
        return 0


def _convert(flags: str, width_text: str | None, prec_text: str | None, conv: str,
             arg: str | None, errors: list[str]) -> str:
    width = _field_number(width_text, errors)
    prec = _field_number(prec_text, errors)
    if width is not None and width < 0:
        flags, width = flags + "-", -width
    if (width or 0) > _INT_MAX or (prec or 0) > _INT_MAX:
        return ""  # bash's printf prints nothing for a field no C int can size
    if prec is not None and prec < 0:
        prec = None
    spec = "%" + flags + (str(width) if width is not None else "") + (
        f".{prec}" if prec is not None else "")
    if conv in "sbc":
        value = arg or ""
        if conv == "b":
            value = backslash_escapes(value, echo=True)[0]
        elif conv == "c":
            value = value[:1]
        shown = min(len(value), prec) if prec is not None and conv != "c" else len(value)
        charge_bytes(max(width or 0, shown))
        return (spec + "s") % value
    raw = (arg or "0").strip()
    try:
        if raw[:1] in "'\"" and len(raw) > 1:
            num: float = ord(raw[1])
        elif conv in "fFeEgG":
            num = float(raw)
        else:
            num = int(raw, 0) if raw.lower().startswith(("0x", "-0x")) else int(raw)
    except ValueError:
        errors.append(f"printf: {raw}: invalid number")
        num = 0
    # what the conversion can make: the width, or the precision's digits and a few more
    charge_bytes(max(width or 0, (prec or 0) + 32))
    if conv in "fFeEgG":
        return (spec + conv) % float(num)
    n = int(num)
    if not -2**63 <= n < 2**63:
        errors.append(f"printf: warning: {raw}: Numerical result out of range")
        n = 2**63 - 1 if n > 0 else -2**63
    if conv in "diu":
        return (spec + "d") % (n & (2**64 - 1) if conv == "u" else n)
    return (spec + conv) % (n & (2**64 - 1))


@command("printf", builtin=True, program=True)
def printf(ctx: Ctx, args: list[str]) -> int:
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        ctx.err("printf: usage: printf [-v var] format [arguments]")
        return 2
    text, errors = printf_format(args[0], args[1:])
    ctx.out(text)
    for e in errors:
        ctx.err(f"bash: {e}")
    return 1 if errors else 0


def read_text(ctx: Ctx, prog: str, arg: str) -> str | None:
    """The text of file ``arg`` (``-`` is stdin), or None after printing the error."""
    if arg == "-":
        return ctx.io.stdin
    p, fs = ctx.path(arg), ctx.fs
    if not fs.exists(p):
        ctx.err(f"{prog}: {arg}: No such file or directory")
    elif fs.is_dir(p):
        ctx.err(f"{prog}: {arg}: Is a directory")
    elif not ctx.may(p, "r"):
        ctx.err(f"{prog}: {arg}: Permission denied")
    else:
        return fs.read_file(p).decode(errors="replace")
    return None


@command("cat", opts=Opts("nbAEs", {"number": "n"}))
def cat(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    status, n = 0, 0
    for arg in ops or ["-"]:
        text = read_text(ctx, "cat", arg)
        if text is None:
            status = 1
            continue
        if "n" in flags:
            lines = text.splitlines(keepends=True)
            charge(len(lines))
            out = []
            for line in lines:
                n += 1
                out.append(f"{n:>6}\t{line}")
            text = "".join(out)
        ctx.out(text)
    return status


_HEAD_TAIL = Opts("nqvcf", {"lines": "n"}, with_value="nc", number="n")


def _head_tail(ctx: Ctx, a: Args, tail: bool) -> int:
    prog = "tail" if tail else "head"
    ops, vals = a.operands, a.values
    raw = vals.get("n", "10")
    from_start = tail and raw.startswith("+")
    count_text = raw.lstrip("+-")
    if not count_text.isdecimal():
        ctx.err(f"{prog}: invalid number of lines: ‘{raw}’")
        return 1
    count = int(count_text)
    status = 0
    files = ops or ["-"]
    for k, arg in enumerate(files):
        text = read_text(ctx, prog, arg)
        if text is None:
            status = 1
            continue
        if len(files) > 1:
            ctx.out(("\n" if k else "") + f"==> {'standard input' if arg == '-' else arg} <==\n")
        if "c" in vals:
            raw_c = vals["c"].lstrip("+-")
            n = int(raw_c) if raw_c.isdecimal() else 0
            data = text.encode()
            ctx.out((data[-n:] if tail and n else (b"" if tail else data[:n])).decode(
                errors="replace"))
            continue
        lines = text.splitlines(keepends=True)
        if tail:
            picked = lines[count - 1:] if from_start else (lines[-count:] if count else [])
        else:
            picked = lines[:-count] if raw.startswith("-") else lines[:count]
        ctx.out("".join(picked))
    return status


@command("head", opts=_HEAD_TAIL)
def head(ctx: Ctx, a: Args) -> int:
    return _head_tail(ctx, a, tail=False)


@command("tail", opts=_HEAD_TAIL)
def tail(ctx: Ctx, a: Args) -> int:
    return _head_tail(ctx, a, tail=True)


@command("wc", opts=Opts("lwcm", {"lines": "l", "words": "w", "bytes": "c", "chars": "m"}))
def wc(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    which = [f for f in "lwmc" if f in flags] or ["l", "w", "c"]
    rows: list[tuple[list[int], str]] = []
    status = 0
    for arg in ops or ["-"]:
        text = read_text(ctx, "wc", arg)
        if text is None:
            status = 1
            continue
        counts = {"l": text.count("\n"), "w": len(text.split()), "m": len(text),
                  "c": len(text.encode())}
        rows.append(([counts[f] for f in which], "" if arg == "-" and not ops else arg))
    if len(rows) > 1:
        rows.append(([sum(r[0][k] for r in rows) for k in range(len(which))], "total"))
    width = max((len(str(v)) for r in rows for v in r[0]), default=1)
    if not ops and len(which) > 1:
        width = max(width, 7)
    if len(rows) == 1 and len(which) == 1:
        width = 1
    for values, name in rows:
        line = " ".join(f"{v:>{width}}" for v in values)
        ctx.out(line + (f" {name}" if name else "") + "\n")
    return status


@command("sort", opts=Opts("rnuf", {"reverse": "r", "unique": "u"}, usage_status=2))
def sort(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    lines: list[str] = []
    for arg in ops or ["-"]:
        text = read_text(ctx, "sort", arg)
        if text is None:
            return 2
        lines.extend(text.splitlines())
    if "n" in flags:
        def num(s: str) -> float:
            m = re.match(r"\s*-?\d+(\.\d+)?", s)
            return float(m.group()) if m else 0.0
        lines.sort(key=lambda s: (num(s), collate_key(s)))
    else:
        lines.sort(key=collate_key)
    if "r" in flags:
        lines.reverse()
    if "u" in flags:
        lines = list(dict.fromkeys(lines))
    ctx.out("".join(line + "\n" for line in lines))
    return 0


@command("uniq", opts=Opts("cdu", {"count": "c"}))
def uniq(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    text = read_text(ctx, "uniq", ops[0] if ops else "-")
    if text is None:
        return 1
    groups: list[list[str]] = []
    for line in text.splitlines():
        if groups and groups[-1][0] == line:
            groups[-1].append(line)
        else:
            groups.append([line])
    for g in groups:
        if ("d" in flags and len(g) < 2) or ("u" in flags and len(g) > 1):
            continue
        ctx.out((f"{len(g):>7} " if "c" in flags else "") + g[0] + "\n")
    return 0


@command("tee", opts=Opts("a", {"append": "a"}))
def tee(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    data = ctx.io.stdin
    status = 0
    for arg in ops:
        p, fs = ctx.path(arg), ctx.fs
        parent = p.rsplit("/", 1)[0] or "/"
        if fs.is_dir(p) or not fs.is_dir(parent) or not (
                ctx.may(p, "w") if fs.exists(p) else ctx.may_change(p)):
            why = "Is a directory" if fs.is_dir(p) else (
                "Permission denied" if fs.is_dir(parent) else "No such file or directory")
            ctx.err(f"tee: {arg}: {why}")
            status = 1
            continue
        old = fs.read_file(p) if "a" in flags and fs.is_file(p) else b""
        charge_bytes(len(data))
        fs.write_file(p, old + data.encode())
    ctx.out(data)
    return status



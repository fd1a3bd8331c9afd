"""``grep``: basic/extended/fixed patterns, -i -v -n -c -l -w -x -r, colours on a terminal."""

from __future__ import annotations

from ...budget import charge
from .cmd_files import walk
from .cmd_text import read_text
from .context import Ctx
from .regexes import RegexError, compile_regex, escape
from .registry import Args, Opts, command

__all__: list[str] = []


def _bre(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            out.append(n if n in "(){}|+?" else "\\" + n)
            i += 2
            continue
        out.append("\\" + c if c in "(){}|+?" else c)
        i += 1
    return "".join(out)


@command("grep", "egrep", opts=Opts("ivncrRlLwxEFoqhHse", {
    "ignore-case": "i", "invert-match": "v", "line-number": "n", "count": "c",
    "recursive": "r", "files-with-matches": "l", "word-regexp": "w", "extended-regexp": "E",
    "fixed-strings": "F", "quiet": "q", "color": "", "regexp": "e"}, with_value="e",
    usage_status=2))
def grep(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    patterns = list(a.all_values.get("e", []))
    if not patterns and ops:
        patterns, ops = [ops[0]], ops[1:]
    if not patterns:
        ctx.err("Usage: grep [OPTION]... PATTERNS [FILE]...\n"
                "Try 'grep --help' for more information.")
        return 2
    src = "|".join(f"(?:{escape(p) if 'F' in flags else (p if 'E' in flags else _bre(p))})"
                   for p in patterns)
    if "w" in flags:
        src = rf"\b(?:{src})\b"
    if "x" in flags:
        src = rf"^(?:{src})$"
    try:
        rx = compile_regex(src, "i" in flags)
    except RegexError as exc:
        ctx.err(f"grep: {exc}")
        return 2
    files = _grep_files(ctx, ops, bool(flags & {"r", "R"}))
    show_name = ("H" in flags or len(files) > 1 or bool(flags & {"r", "R"})) and "h" not in flags
    color = ctx.io.tty
    found = False
    for arg in files:
        text = read_text(ctx, "grep", arg) if arg != "(standard input)" else ctx.io.stdin
        if text is None:
            continue
        hits = 0
        for n, line in enumerate(text.splitlines(), start=1):
            charge(1 + len(line) // 4096)
            if bool(rx.search(line)) == ("v" in flags):
                continue
            hits += 1
            found = True
            if flags & {"q", "l", "L", "c"}:
                continue
            prefix = ""
            if show_name:
                prefix += f"\x1b[35m\x1b[K{arg}\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K" \
                    if color else f"{arg}:"
            if "n" in flags:
                prefix += f"\x1b[32m\x1b[K{n}\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K" \
                    if color else f"{n}:"
            if color and "v" not in flags:
                line = rx.sub(lambda m: f"\x1b[01;31m\x1b[K{m.group()}\x1b[m\x1b[K", line)
            ctx.out(prefix + line + "\n")
        if "c" in flags:
            ctx.out((f"{arg}:" if show_name else "") + f"{hits}\n")
        elif "l" in flags and hits:
            ctx.out(f"{arg}\n")
    return 0 if found else 1


def _grep_files(ctx: Ctx, ops: list[str], recursive: bool) -> list[str]:
    if not ops and not recursive:
        return ["(standard input)"]
    if not recursive:
        return ops
    out: list[str] = []
    for arg in ops or [""]:
        base = ctx.path(arg or ".")
        for path in walk(ctx.fs, base):
            if ctx.fs.is_file(path):
                rel = path[len(base) + 1:]
                out.append(arg if path == base else (f"{arg.rstrip('/')}/{rel}" if arg else rel))
    return out



"""Shell patterns: ``*``, ``?``, ``[...]`` matching and pathname expansion over the fs.

A pattern string escapes literal characters with a backslash (quoted text in a
word becomes ``\\*`` etc.), as bash's internal form does.

>>> match("*.txt", "a.txt"), match("*.txt", ".a.txt"), match("[!a]?", "bc")
(True, False, True)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ...budget import charge, charge_bytes
from ..fs import FileSystem
from .regexes import RegexError, compile_regex, escape

__all__ = ["collate_key", "expand", "has_magic", "match"]


def collate_key(name: str) -> tuple[str, str]:
    """en_US.UTF-8-like sort order: case and punctuation ignored first (as ``ls`` sorts)."""
    folded = "".join(c for c in name.lower() if c.isalnum())
    return (folded or name.lower(), name)


def has_magic(pattern: str) -> bool:
    """Whether ``pattern`` has an unescaped ``*``, ``?`` or ``[``."""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?[":
            return True
        i += 1
    return False


def unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


@lru_cache(maxsize=512)
def _compile(pattern: str, ignore_case: bool) -> Any:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i + 1
            if j < len(pattern) and pattern[j] in "!^":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                j += 1
            if j >= len(pattern):
                out.append(escape("["))
            else:
                body = pattern[i + 1:j]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{'^' if neg else ''}{body}]")
                i = j
        else:
            out.append(escape(c))
        i += 1
    try:
        return compile_regex("".join(out), ignore_case, dot_nl=True)
    except RegexError:  # a bracket RE2 refuses: the pattern matches only itself
        return compile_regex(escape(unescape(pattern)), ignore_case, dot_nl=True)


def match(pattern: str, name: str, period: bool = True, ignore_case: bool = False) -> bool:
    """Whether ``name`` matches; with ``period`` a leading dot must be matched literally."""
    if period and name.startswith(".") and not (pattern.startswith(".")
                                                 or pattern.startswith("\\.")):
        return False
    return _compile(pattern, ignore_case).fullmatch(name) is not None


def expand(fs: FileSystem, cwd: str, pattern: str) -> list[str]:
    """Pathnames matching ``pattern`` (relative to ``cwd``), sorted; [] when none match."""
    absolute = pattern.startswith("/")
    comps = [c for c in pattern.split("/") if c]
    trailing = pattern.endswith("/")
    results: list[tuple[str, str]] = [("/" if absolute else "", "/" if absolute else cwd)]
    for k, comp in enumerate(comps):
        last = k == len(comps) - 1
        nxt: list[tuple[str, str]] = []
        for shown, real in results:
            if not fs.is_dir(real):
                continue
            sep = "" if shown in ("", "/") else "/"
            if not has_magic(comp):
                name = unescape(comp)
                target = f"{real.rstrip('/')}/{name}"
                if name in (".", "..") or fs.exists(target):
                    nxt.append((f"{shown}{sep}{name}", fs.normpath(target)))
                continue
            entries = fs.listdir(real)
            charge(1 + len(entries))
            names = sorted((n for n in entries if match(comp, n)), key=collate_key)
            for n in names:
                target = f"{real.rstrip('/')}/{n}"
                if (last and not trailing) or fs.is_dir(target):
                    nxt.append((f"{shown}{sep}{n}", target))
        results = nxt
        charge(1 + len(results))
        charge_bytes(sum(len(shown) + 1 for shown, _ in results))
    return [shown + ("/" if trailing else "") for shown, _ in results]

"""Regular expressions for the commands (grep, globs, and whatever else matches text): RE2.

RE2 matches in time linear in the text (no catastrophic backtracking: ``^(a+)+$`` on a
long line answers at once) and bounds the memory a compiled pattern may take. What RE2
cannot do (back-references, look-around) is refused with an error the command prints.

>>> compile_regex("^(a+)+$").search("a" * 50 + "!") is None
True
>>> compile_regex(r"(a)\\1")
Traceback (most recent call last):
...
drums_gym.local.desktop.bash.regexes.RegexError: back-references are not supported
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

__all__ = ["MAX_PATTERN_MEMORY", "RegexError", "compile_regex", "escape"]

MAX_PATTERN_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern


class RegexError(Exception):
    """A pattern this engine refuses; ``str()`` says why, in words a user understands."""


def escape(text: str) -> str:
    """``text`` as a pattern matching itself."""
    return str(re2.escape(text))


def _reason(message: str, pattern: str) -> str:
    if "invalid escape sequence: \\" in message and message[-1:].isdecimal():
        return "back-references are not supported"
    if "invalid perl operator: (?" in message:
        return "look-around and (?...) groups are not supported"
    if "missing )" in message or "unexpected )" in message or "missing ]" in message:
        return "Unmatched ( or \\(" if ")" in message else "Unmatched [, [^, [:, [., or [="
    if "pattern too large" in message or "repetition size" in message:
        return "regular expression is too big"
    return message or f"invalid pattern {pattern!r}"


@lru_cache(maxsize=256)
def compile_regex(pattern: str, ignore_case: bool = False, dot_nl: bool = False) -> Any:
    """Compile ``pattern`` (RE2 syntax, close to POSIX ERE) or raise `RegexError`."""
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    options.dot_nl = dot_nl
    options.max_mem = MAX_PATTERN_MEMORY
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        message = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
        raise RegexError(_reason(message, pattern)) from None

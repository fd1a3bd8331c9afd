"""Word expansion, in bash's order: braces, tilde, parameters, command substitution,
arithmetic, field splitting, pathname expansion (globs), quote removal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..fs import HOME, FileSystem
from .globbing import expand as expand_pattern
from .nodes import Part, Word

__all__ = ["Expander", "ExpansionError", "brace_expand"]

_GLOB_CHARS = "*?[]\\"


class ExpansionError(Exception):
    """A failed expansion; ``str()`` is bash's message (``x: unbound variable`` ...)."""


def _brace_span(text: str) -> tuple[int, int, list[str]] | None:
    """The first brace group ``{a,b}`` / ``{1..3}`` in ``text``: (start, end, alternatives)."""
    for start, c in enumerate(text):
        if c != "{":
            continue
        depth, alts, cur = 0, [], start + 1
        for j in range(start + 1, len(text)):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}" and depth:
                depth -= 1
            elif text[j] == "," and not depth:
                alts.append(text[cur:j])
                cur = j + 1
            elif text[j] == "}":
                if alts:
                    return start, j, [*alts, text[cur:j]]
                seq = _sequence(text[start + 1:j])
                if seq is not None:
                    return start, j, seq
                break
    return None


def _sequence(body: str) -> list[str] | None:
    a, sep, b = body.partition("..")
    if not sep:
        return None
    try:
        x, y = int(a), int(b)
    except ValueError:
        if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
            step = 1 if ord(b) >= ord(a) else -1
            return [chr(c) for c in range(ord(a), ord(b) + step, step)]
        return None
    step = 1 if y >= x else -1
    width = max(len(a), len(b)) if (a.startswith("0") or b.startswith("0")) else 0
    return [str(n).zfill(width) for n in range(x, y + step, step)][:10000]


def brace_expand(word: Word) -> list[Word]:
    """``a{b,c}d`` -> ``abd acd`` (brace groups inside one unquoted literal run)."""
    for k, (kind, text, quoted) in enumerate(word):
        if kind != "lit" or quoted:
            continue
        span = _brace_span(text)
        if span is None:
            continue
        start, end, alts = span
        out: list[Word] = []
        for alt in alts:
            mid: tuple[Part, ...] = (("lit", text[:start] + alt + text[end + 1:], False),)
            out.extend(brace_expand(word[:k] + mid + word[k + 1:]))
        return out
    return [word]


@dataclass
class _Field:
    text: list[str] = field(default_factory=list)
    pattern: list[str] = field(default_factory=list)
    magic: bool = False
    real: bool = False

    def add(self, s: str, quoted: bool) -> None:
        self.text.append(s)
        if quoted:
            self.pattern.append("".join("\\" + c if c in _GLOB_CHARS else c for c in s))
        else:
            self.pattern.append(s)
            self.magic = self.magic or any(c in "*?[" for c in s)
        self.real = self.real or quoted or bool(s)


class Expander:
    """Expands words for one shell: ``lookup(name)`` gives parameters, ``capture(src)``
    runs a command substitution and returns its output."""

    def __init__(self, fs: FileSystem, cwd: str, lookup: Callable[[str], str | None],
                 capture: Callable[[str], str], positional: list[str]) -> None:
        self.fs, self.cwd = fs, cwd
        self.lookup, self.capture, self.positional = lookup, capture, positional

    def words(self, words: tuple[Word, ...] | list[Word]) -> list[str]:
        """Expand a list of words into fields (argv)."""
        out: list[str] = []
        for w in words:
            for b in brace_expand(w):
                out.extend(self.word(b))
        return out

    def word(self, word: Word, split: bool = True, globbing: bool = True) -> list[str]:
        fields: list[_Field] = [_Field()]

        def split_add(value: str) -> None:
            if not split:
                fields[-1].add(value, False)
                return
            pieces = value.split()
            if value[:1].isspace() and fields[-1].real:
                fields.append(_Field())
            for n, piece in enumerate(pieces):
                if n:
                    fields.append(_Field())
                fields[-1].add(piece, False)
            if value[-1:].isspace() and fields[-1].real:
                fields.append(_Field())

        for kind, text, quoted in word:
            if kind == "lit":
                fields[-1].add(text, quoted)
            elif kind == "tilde":
                fields[-1].add(HOME if text in ("", "user") else
                               ("/root" if text == "root" else "~" + text), True)
            elif kind == "var" and text == "@" and quoted:
                for n, arg in enumerate(self.positional):
                    if n:
                        fields.append(_Field())
                    fields[-1].add(arg, True)
            else:
                value = self.value(kind, text)
                if quoted:
                    fields[-1].add(value, True)
                elif value:
                    split_add(value)
        result: list[str] = []
        for f in fields:
            if not f.real:
                continue
            if f.magic and globbing:
                matches = expand_pattern(self.fs, self.cwd, "".join(f.pattern))
                if matches:
                    result.extend(matches)
                    continue
            result.append("".join(f.text))
        return result

    def single(self, word: Word) -> str:
        """A word expanded without splitting or globbing (assignments, case words)."""
        return " ".join(self.word(word, split=False, globbing=False))

    def value(self, kind: str, text: str) -> str:
        if kind == "cmd":
            return self.capture(text).rstrip("\n")
        if kind == "arith":
            return str(self.arith(text))
        return self.param(text)

    def param(self, text: str) -> str:
        name, op, arg = text, "", ""
        for candidate in (":-", ":=", ":+", "-", "+"):
            if candidate in text and not text.startswith("#"):
                name, _, arg = text.partition(candidate)
                op = candidate
                break
        if name.startswith("#") and len(name) > 1:
            return str(len(self.lookup(name[1:]) or ""))
        value = self.lookup(name)
        if op in (":-", ":="):
            return value if value else arg
        if op == "-":
            return value if value is not None else arg
        if op == ":+":
            return arg if value else ""
        if op == "+":
            return arg if value is not None else ""
        return value or ""

    def arith(self, src: str) -> int:
        return _Arith(src, self.lookup).parse()


class _Arith:
    """Integer arithmetic for ``$((...))``: + - * / % ** and parentheses, names read as ints."""

    def __init__(self, src: str, lookup: Callable[[str], str | None]) -> None:
        self.toks = re.findall(r"\d+|[A-Za-z_]\w*|\*\*|[-+*/%()]", src.replace("$", ""))
        self.i, self.lookup = 0, lookup

    def parse(self) -> int:
        value = self.expr()
        if self.i != len(self.toks):
            raise ExpansionError("syntax error in expression")
        return value

    def expr(self) -> int:
        value = self.term()
        while self.i < len(self.toks) and self.toks[self.i] in "+-":
            op = self.toks[self.i]
            self.i += 1
            value = value + self.term() if op == "+" else value - self.term()
        return value

    def term(self) -> int:
        value = self.unary()
        while self.i < len(self.toks) and self.toks[self.i] in ("*", "/", "%"):
            op = self.toks[self.i]
            self.i += 1
            rhs = self.unary()
            if op != "*" and rhs == 0:
                raise ExpansionError("division by 0 (error token is \"0\")")
            value = value * rhs if op == "*" else (int(value / rhs) if op == "/"
                                                   else value - rhs * int(value / rhs))
        return value

    def unary(self) -> int:
        if self.i < len(self.toks) and self.toks[self.i] in "+-":
            op = self.toks[self.i]
            self.i += 1
            return -self.unary() if op == "-" else self.unary()
        base = self.atom()
        if self.i < len(self.toks) and self.toks[self.i] == "**":
            self.i += 1
            return int(base ** min(self.unary(), 64))
        return base

    def atom(self) -> int:
        if self.i >= len(self.toks):
            raise ExpansionError("syntax error: operand expected")
        tok = self.toks[self.i]
        self.i += 1
        if tok == "(":
            value = self.expr()
            if self.i >= len(self.toks) or self.toks[self.i] != ")":
                raise ExpansionError("missing `)'")
            self.i += 1
            return value
        if tok.isdigit():
            return int(tok)
        if tok[0].isalpha() or tok[0] == "_":
            raw = self.lookup(tok) or "0"
            return int(raw) if raw.lstrip("-").isdigit() else 0
        raise ExpansionError(f"syntax error: operand expected (error token is \"{tok}\")")

"""Word expansion, in bash's order: braces, tilde, parameters, command substitution,
arithmetic, field splitting, pathname expansion (globs), quote removal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...budget import charge, charge_bytes
from ..fs import HOME, FileSystem
from .arith import ArithError, evaluate
from .globbing import expand as expand_pattern
from .nodes import Word

__all__ = ["Expander", "ExpansionError", "brace_expand", "brace_size"]

_GLOB_CHARS = "*?[]\\"


class ExpansionError(Exception):
    """A failed expansion; ``str()`` is bash's message (``x: unbound variable`` ...)."""


class _Alts:
    """The alternatives of one brace group, sized before they are built: a comma list
    (``items``) or a sequence ``{x..y[..step]}`` of numbers or letters."""

    def __init__(self, items: list[str] | None = None,
                 seq: tuple[int, int, int, int] = (0, 0, 1, 0), letters: bool = False) -> None:
        self.items, self.seq, self.letters = items, seq, letters

    @property
    def count(self) -> int:
        if self.items is not None:
            return len(self.items)
        x, y, step, _ = self.seq
        return abs(y - x) // step + 1

    def longest(self) -> int:
        x, y, _, width = self.seq
        return 1 if self.letters else max(len(str(x)), len(str(y)), width)

    def values(self) -> Iterator[str]:
        if self.items is not None:
            yield from self.items
            return
        x, y, step, width = self.seq
        for n in range(x, y + (1 if y >= x else -1), step if y >= x else -step):
            if self.letters:
                yield chr(n)
            elif width and n < 0:
                yield "-" + str(-n).zfill(width - 1)
            else:
                yield str(n).zfill(width)


_INT = re.compile(r"[-+]?[0-9]+")


def _brace_span(text: str) -> tuple[int, int, _Alts] | None:
    """The first brace group ``{a,b}`` / ``{1..3}`` in ``text``: (start, end, alternatives)."""
    if "}" not in text:
        return None
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
                charge(1 + (j - start) // 64)
                if alts:
                    return start, j, _Alts([*alts, text[cur:j]])
                seq = _sequence(text[start + 1:j])
                if seq is not None:
                    return start, j, seq
                break
        else:
            charge(1 + (len(text) - start) // 64)
    return None


def _sequence(body: str) -> _Alts | None:
    parts = body.split("..")
    if len(parts) not in (2, 3) or (len(parts) == 3 and not _INT.fullmatch(parts[2])):
        return None
    a, b = parts[0], parts[1]
    step = max(1, abs(int(parts[2]))) if len(parts) == 3 else 1
    if _INT.fullmatch(a) and _INT.fullmatch(b):
        padded = any(v.lstrip("+-").startswith("0") and len(v.lstrip("+-")) > 1 for v in (a, b))
        width = max(len(a), len(b)) if padded else 0
        return _Alts(seq=(int(a), int(b), step, width))
    if len(a) == 1 and len(b) == 1 and a.isascii() and b.isascii() and a.isalpha() \
            and b.isalpha():
        return _Alts(seq=(ord(a), ord(b), step, 0), letters=True)
    return None


_MAX_BRACE_NESTING = 64


def _text_size(text: str, depth: int = 0) -> tuple[int, int]:
    """(words, characters) the brace expansion of ``text`` makes, computed without making
    them (groups in a row multiply; alternatives add up)."""
    count, length, prefix = 1, 0, 0
    while True:
        span = _brace_span(text) if depth < _MAX_BRACE_NESTING else None
        if span is None:
            return count, length + count * (prefix + len(text))
        start, end, alts = span
        if alts.items is None:
            ac, al = alts.count, alts.count * alts.longest()
        else:
            ac = al = 0
            for alt in alts.items:
                c, n = _text_size(alt, depth + 1)
                ac, al = ac + c, al + n
        # words so far x this group; each word carries the prefix, its alternative's text
        length = length * ac + count * (al + ac * (prefix + start))
        count *= ac
        prefix, text = 0, text[end + 1:]
        if count > 1 << 62:  # already far past any budget
            return count, length


def brace_size(word: Word) -> tuple[int, int]:
    """(words, characters) ``brace_expand(word)`` will produce."""
    count, length = 1, 0
    for kind, text, quoted in word:
        c, n = _text_size(text) if kind == "lit" and not quoted else (1, len(text))
        length = length * c + count * n
        count *= c
    return count, length


def brace_expand(word: Word) -> list[Word]:
    """``a{b,c}d`` -> ``abd acd`` (brace groups inside one unquoted literal run).

    The size of the result is charged to the work budget before any of it is built."""
    count, length = brace_size(word)
    if count == 1:
        return [word]
    charge(count)
    charge_bytes(length + count)
    out: list[Word] = []
    stack = [word]
    while stack:
        w = stack.pop()
        for k, (kind, text, quoted) in enumerate(w):
            if kind != "lit" or quoted:
                continue
            span = _brace_span(text)
            if span is None:
                continue
            start, end, alts = span
            made = [(*w[:k], ("lit", text[:start] + alt + text[end + 1:], False), *w[k + 1:])
                    for alt in alts.values()]
            stack.extend(reversed(made))
            break
        else:
            out.append(w)
    return out


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
                 capture: Callable[[str], str], positional: list[str],
                 assign: Callable[[str, str], None] | None = None) -> None:
        self.fs, self.cwd = fs, cwd
        self.lookup, self.capture, self.positional = lookup, capture, positional
        self.assign = assign

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
                charge()
                charge_bytes(len(value))
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
        try:
            return evaluate(src, self.lookup, self.assign)
        except ArithError as exc:
            raise ExpansionError(str(exc)) from None

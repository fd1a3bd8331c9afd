"""Tokenizing a command line: words (with their quoting) and operators.

>>> [t.value for t in tokenize("echo 'a b' && ls>out")]
['echo', "'a b'", '&&', 'ls', '>', 'out']
>>> tokenize('echo "$HOME/x"')[1].word
(('var', 'HOME', True), ('lit', '/x', True))
"""

from __future__ import annotations

from dataclasses import dataclass

from .nodes import Part, Word

__all__ = ["BashSyntaxError", "Incomplete", "Token", "tokenize"]

OPERATORS = ("&>>", "&&", "||", ";;", ">>", ">&", "&>", "<<", "|", "&", ";", "<", ">", "(", ")")
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME_CHARS = _NAME_START + "0123456789"
_SPECIAL_PARAMS = "?$#@*!-0123456789"


class Incomplete(Exception):
    """The line needs more input (an open quote, a trailing ``\\``, an open ``do``...)."""


class BashSyntaxError(Exception):
    """A syntax error; ``str()`` is bash's message without the ``bash: `` prefix."""


@dataclass(frozen=True)
class Token:
    """``kind`` is ``"word"``, ``"op"`` (``value`` the operator) or ``"newline"``."""

    kind: str
    value: str
    word: Word = ()
    fd: int | None = None  # an io number before a redirection operator (``2>``)


def _matching_paren(s: str, i: int) -> int:
    """Index of the ``)`` closing the ``(`` just before ``i`` (quotes and nesting aware)."""
    depth = 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                raise Incomplete
            i = j
        elif c == '"':
            i += 1
            while i < len(s) and s[i] != '"':
                i += 2 if s[i] == "\\" else 1
            if i >= len(s):
                raise Incomplete
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise Incomplete


class _Lexer:
    def __init__(self, src: str) -> None:
        self.s = src
        self.tokens: list[Token] = []
        self.parts: list[Part] = []
        self.buf: list[str] = []
        self.start = 0
        self.in_word = False

    def flush(self) -> None:
        if self.buf:
            self.parts.append(("lit", "".join(self.buf), False))
            self.buf = []

    def end_word(self, i: int) -> None:
        self.flush()
        if self.in_word:
            self.tokens.append(Token("word", self.s[self.start:i], tuple(self.parts)))
        self.parts, self.in_word = [], False

    def begin(self, i: int) -> None:
        if not self.in_word:
            self.in_word, self.start = True, i

    def run(self) -> list[Token]:
        s, i = self.s, 0
        while i < len(s):
            c = s[i]
            if c in " \t":
                self.end_word(i)
                i += 1
            elif c == "\n":
                self.end_word(i)
                self.tokens.append(Token("newline", "\n"))
                i += 1
            elif c == "#" and not self.in_word:
                while i < len(s) and s[i] != "\n":
                    i += 1
            elif c in "|&;<>()":
                i = self.operator(i)
            else:
                self.begin(i)
                i = self.word_char(i, quoted=False)
        self.end_word(len(s))
        return self.tokens

    def operator(self, i: int) -> int:
        s = self.s
        fd = None
        if s[i] in "<>" and self.in_word and not self.parts and "".join(self.buf).isdecimal():
            fd, self.buf, self.in_word = int("".join(self.buf)), [], False
        self.end_word(i)
        op = next(o for o in OPERATORS if s.startswith(o, i))
        if op == "<<":
            raise BashSyntaxError("here-documents are not supported")
        self.tokens.append(Token("op", op, fd=fd))
        return i + len(op)

    def word_char(self, i: int, quoted: bool) -> int:
        """Consume one unit of a word at ``i`` (outside double quotes); return the next index."""
        s, c = self.s, self.s[i]
        if c == "\\":
            if i + 1 >= len(s):
                raise Incomplete
            if s[i + 1] == "\n":
                return i + 2
            self.flush()
            self.parts.append(("lit", s[i + 1], True))
            return i + 2
        if c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                raise Incomplete
            self.flush()
            self.parts.append(("lit", s[i + 1:j], True))
            return j + 1
        if c == '"':
            return self.dquote(i + 1)
        if c == "$":
            return self.dollar(i, False)
        if c == "`":
            return self.backtick(i, False)
        if c == "~" and not self.parts and not self.buf:
            j = i + 1
            while j < len(s) and (s[j] in _NAME_CHARS or s[j] in "-."):
                j += 1
            if j >= len(s) or s[j] in "/ \t\n;|&<>()":
                self.parts.append(("tilde", s[i + 1:j], False))
                return j
        self.buf.append(c)
        return i + 1

    def dquote(self, i: int) -> int:
        s = self.s
        self.flush()
        lit: list[str] = []
        had_part = False

        def push() -> None:
            nonlocal had_part
            if lit:
                self.parts.append(("lit", "".join(lit), True))
                lit.clear()
                had_part = True

        while True:
            if i >= len(s):
                raise Incomplete
            c = s[i]
            if c == '"':
                break
            if c == "\\" and i + 1 < len(s) and s[i + 1] in '$`"\\\n':
                if s[i + 1] != "\n":
                    lit.append(s[i + 1])
                i += 2
            elif c in "$`":
                push()
                n = len(self.parts)
                i = self.dollar(i, True) if c == "$" else self.backtick(i, True)
                had_part = had_part or len(self.parts) > n
                self.flush()
            else:
                lit.append(c)
                i += 1
        push()
        if not had_part:
            self.parts.append(("lit", "", True))
        return i + 1

    def dollar(self, i: int, quoted: bool) -> int:
        s = self.s
        nxt = s[i + 1] if i + 1 < len(s) else ""
        part: Part | None = None
        end = i + 1
        if nxt == "(" and s.startswith("((", i + 1):
            j = _matching_paren(s, i + 3)
            if j + 1 >= len(s) or s[j + 1] != ")":
                raise BashSyntaxError("unexpected `)' in arithmetic expansion")
            part, end = ("arith", s[i + 3:j], quoted), j + 2
        elif nxt == "(":
            j = _matching_paren(s, i + 2)
            part, end = ("cmd", s[i + 2:j], quoted), j + 1
        elif nxt == "{":
            j = s.find("}", i + 2)
            if j < 0:
                raise Incomplete
            part, end = ("var", s[i + 2:j], quoted), j + 1
        elif nxt and nxt in _NAME_START:
            j = i + 1
            while j < len(s) and s[j] in _NAME_CHARS:
                j += 1
            part, end = ("var", s[i + 1:j], quoted), j
        elif nxt and nxt in _SPECIAL_PARAMS:
            part, end = ("var", nxt, quoted), i + 2
        if part is None:
            if quoted:
                self.parts.append(("lit", "$", True))
            else:
                self.buf.append("$")
            return i + 1
        self.flush()
        self.parts.append(part)
        return end

    def backtick(self, i: int, quoted: bool) -> int:
        j = self.s.find("`", i + 1)
        if j < 0:
            raise Incomplete
        self.flush()
        self.parts.append(("cmd", self.s[i + 1:j], quoted))
        return j + 1


def tokenize(src: str) -> list[Token]:
    """Split ``src`` into tokens; raises `Incomplete` when a quote or substitution is open."""
    return _Lexer(src).run()


def word_from(text: str) -> Word:
    """A word holding ``text`` literally (quoted: no further expansion)."""
    return (("lit", text, True),)

"""A recursive-descent parser for the subset of bash the terminal runs.

Grammar: lists (``;``, ``&``, newlines), ``&&``/``||``, pipelines (``|``, ``!``),
simple commands with assignments and redirections, ``for``, ``if``,
``while``/``until``, ``{ ...; }`` and ``( ... )``. Input that ends where more
is required raises `Incomplete` (the terminal then shows its ``> `` prompt).

>>> seq = parse("for d in a b; do cp f $d; done")
>>> seq.items[0].parts[0][1].commands[0].var
'd'
"""

from __future__ import annotations

from .lexer import BashSyntaxError, Incomplete, Token, tokenize
from .nodes import AndOr, Command, For, Group, If, Pipeline, Redirect, Seq, Simple, While, Word
from .nodes import word_text as _text

__all__ = ["MAX_NESTING", "parse"]

# How deep compound commands may nest in one parse (keeps Python's stack safe; the
# interpreter applies the same cap to substitutions, sourced files and scripts).
MAX_NESTING = 32

_REDIRECT_OPS = (">", ">>", "<", "&>", "&>>", ">&")
_STOP = frozenset({"do", "done", "then", "elif", "else", "fi", "}"})
_RESERVED = _STOP | {"for", "if", "while", "until", "{", "!", "in"}


def _is_name(s: str) -> bool:
    return bool(s) and (s[0].isalpha() or s[0] == "_") and all(
        c.isalnum() or c == "_" for c in s)


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0
        self.depth = 0

    # -- token helpers ----------------------------------------------------
    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def keyword(self) -> str | None:
        t = self.peek()
        return _text(t.word) if t is not None and t.kind == "word" else None

    def is_op(self, *ops: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "op" and t.value in ops

    def take(self) -> Token:
        t = self.peek()
        if t is None:
            raise Incomplete
        self.i += 1
        return t

    def unexpected(self, t: Token | None = None) -> BashSyntaxError:
        t = t if t is not None else self.peek()
        if t is None:
            return BashSyntaxError("syntax error: unexpected end of file")
        value = "newline" if t.kind == "newline" else t.value
        return BashSyntaxError(f"syntax error near unexpected token `{value}'")

    def skip_newlines(self) -> None:
        while (t := self.peek()) is not None and t.kind == "newline":
            self.i += 1

    def expect_keyword(self, word: str) -> None:
        self.skip_newlines()
        if self.peek() is None:
            raise Incomplete
        if self.keyword() != word:
            raise self.unexpected()
        self.i += 1

    # -- grammar ----------------------------------------------------------
    def parse_list(self, top: bool = False) -> Seq:
        items: list[AndOr] = []
        while True:
            self.skip_newlines()
            t = self.peek()
            if t is None:
                if not top:
                    raise Incomplete
                break
            if self.keyword() in _STOP or self.is_op(")"):
                if top:
                    raise self.unexpected()
                break
            items.append(self.parse_and_or())
            t = self.peek()
            if t is None:
                continue
            if t.kind == "newline" or (t.kind == "op" and t.value in (";", "&")):
                self.i += 1
            elif not (self.keyword() in _STOP or self.is_op(")")):
                raise self.unexpected()
        if not items and not top:
            raise self.unexpected()
        return Seq(tuple(items))

    def parse_and_or(self) -> AndOr:
        parts = [("", self.parse_pipeline())]
        while self.is_op("&&", "||"):
            op = self.take().value
            self.skip_newlines()
            if self.peek() is None:
                raise Incomplete
            parts.append((op, self.parse_pipeline()))
        return AndOr(tuple(parts))

    def parse_pipeline(self) -> Pipeline:
        negate = False
        if self.keyword() == "!":
            self.i += 1
            negate = True
        cmds = [self.parse_command()]
        while self.is_op("|"):
            self.i += 1
            self.skip_newlines()
            if self.peek() is None:
                raise Incomplete
            cmds.append(self.parse_command())
        return Pipeline(tuple(cmds), negate)

    def parse_command(self) -> Command:
        if self.keyword() not in ("for", "if", "while", "until", "{") and not self.is_op("("):
            return self.parse_simple()
        if self.depth >= MAX_NESTING:
            raise BashSyntaxError(f"maximum nesting level exceeded ({MAX_NESTING})")
        self.depth += 1
        try:
            return self._compound()
        finally:
            self.depth -= 1

    def _compound(self) -> Command:
        kw = self.keyword()
        if kw == "for":
            return self.parse_for()
        if kw == "if":
            return self.parse_if()
        if kw in ("while", "until"):
            self.i += 1
            cond = self.parse_list()
            self.expect_keyword("do")
            body = self.parse_list()
            self.expect_keyword("done")
            return While(cond, body, kw == "until", self.redirects())
        if kw == "{":
            self.i += 1
            body = self.parse_list()
            self.expect_keyword("}")
            return Group(body, False, self.redirects())
        if self.is_op("("):
            self.i += 1
            body = self.parse_list()
            self.skip_newlines()
            if not self.is_op(")"):
                raise Incomplete if self.peek() is None else self.unexpected()
            self.i += 1
            return Group(body, True, self.redirects())
        return self.parse_simple()

    def parse_for(self) -> For:
        self.i += 1
        t = self.take()
        name = _text(t.word) if t.kind == "word" else None
        if name is None or not _is_name(name):
            raise BashSyntaxError(f"`{t.value}': not a valid identifier")
        words: tuple[Word, ...] | None = None
        self.skip_newlines()
        if self.keyword() == "in":
            self.i += 1
            collected: list[Word] = []
            while (t2 := self.peek()) is not None and t2.kind == "word":
                collected.append(t2.word)
                self.i += 1
            words = tuple(collected)
            if self.peek() is None:
                raise Incomplete
            if not (self.is_op(";") or self.peek() is None or self.toks[self.i].kind == "newline"):
                raise self.unexpected()
            self.i += 1
        elif self.is_op(";"):
            self.i += 1
        self.expect_keyword("do")
        body = self.parse_list()
        self.expect_keyword("done")
        return For(name, words, body, self.redirects())

    def parse_if(self) -> If:
        clauses: list[tuple[Seq, Seq]] = []
        orelse = None
        self.i += 1
        while True:
            cond = self.parse_list()
            self.expect_keyword("then")
            clauses.append((cond, self.parse_list()))
            self.skip_newlines()
            kw = self.keyword()
            if kw == "elif":
                self.i += 1
                continue
            if kw == "else":
                self.i += 1
                orelse = self.parse_list()
            self.expect_keyword("fi")
            return If(tuple(clauses), orelse, self.redirects())

    def redirects(self) -> tuple[Redirect, ...]:
        out: list[Redirect] = []
        while self.is_op(*_REDIRECT_OPS):
            out.append(self.redirect())
        return tuple(out)

    def redirect(self) -> Redirect:
        op_tok = self.take()
        target = self.peek()
        if target is None or target.kind == "newline":
            raise self.unexpected(target if target is not None else Token("newline", "\n"))
        if target.kind != "word":
            raise self.unexpected()
        self.i += 1
        fd = op_tok.fd if op_tok.fd is not None else (0 if op_tok.value == "<" else 1)
        return Redirect(fd, op_tok.value, target.word)

    def parse_simple(self) -> Simple:
        assigns: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while (t := self.peek()) is not None:
            if t.kind == "op" and t.value in _REDIRECT_OPS:
                redirects.append(self.redirect())
            elif t.kind == "word":
                if not words and not assigns and _text(t.word) in _RESERVED - {"{", "!"}:
                    raise self.unexpected()
                assign = self._assignment(t) if not words else None
                if assign is not None:
                    assigns.append(assign)
                else:
                    words.append(t.word)
                self.i += 1
            else:
                break
        if not (assigns or words or redirects):
            raise self.unexpected()
        return Simple(tuple(assigns), tuple(words), tuple(redirects))

    @staticmethod
    def _assignment(t: Token) -> tuple[str, Word] | None:
        first = t.word[0]
        if first[0] != "lit" or first[2] or "=" not in first[1]:
            return None
        name, _, rest = first[1].partition("=")
        if not _is_name(name):
            return None
        value = ((("lit", rest, False),) if rest else ()) + t.word[1:]
        return name, value


def parse(src: str) -> Seq:
    """Parse a (possibly multi-line) command line. Raises `Incomplete` or `BashSyntaxError`."""
    p = _Parser(tokenize(src))
    seq = p.parse_list(top=True)
    if p.peek() is not None:
        raise p.unexpected()
    return seq

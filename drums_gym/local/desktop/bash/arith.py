"""Shell arithmetic (``$(( ))``) as bash computes it: 64-bit two's complement integers.

Every operation wraps at 64 bits as bash's ``intmax_t`` does; ``**`` is computed by
repeated squaring modulo 2**64 (never a big integer), ``INT_MIN / -1`` is ``INT_MIN``;
errors carry bash's text (``1/0: division by 0 (error token is "0")``).

>>> evaluate("2**63"), evaluate("-9223372036854775808 / -1"), evaluate("1 << 65")
(-9223372036854775808, -9223372036854775808, 2)
>>> evaluate("x * 2", {"x": "1+2"}.get)
6
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...budget import charge

__all__ = ["MAX_DEPTH", "ArithError", "evaluate", "wrap64"]

MAX_DEPTH = 32  # nesting of parentheses, ?: and variables holding expressions
_MASK = (1 << 64) - 1
_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9A-Fa-f]*|[0-9]+#[0-9A-Za-z@_]*|[0-9][0-9A-Za-z_]*)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><<=|>>=|\*\*|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|[-+*/%<>=!~&^|?:(),]))")
_PARAM = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9?#$])\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9?#$])")
_BINARY = {  # operator -> precedence (higher binds tighter); all left-associative
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
    "*": 10, "/": 10, "%": 10,
}
_ASSIGN = ("=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=")


class ArithError(Exception):
    """A failed evaluation; ``str()`` is bash's message without the ``bash: `` prefix."""


def wrap64(n: int) -> int:
    """``n`` as a signed 64-bit integer (two's complement wraparound)."""
    n &= _MASK
    return n - (1 << 64) if n >> 63 else n


def _pow(base: int, exp: int) -> int:
    result, base = 1, base & _MASK
    while exp:
        if exp & 1:
            result = (result * base) & _MASK
        base = (base * base) & _MASK
        exp >>= 1
    return wrap64(result)


def _div(a: int, b: int, op: str) -> int:
    q = abs(a) // abs(b)
    q = -q if (a < 0) != (b < 0) else q
    if op == "/":
        return wrap64(q)
    return wrap64(a - b * q)


def _apply(op: str, a: int, b: int, where: str, noeval: bool) -> int:
    if op in ("/", "%"):
        if b == 0:
            if noeval:
                return 0
            raise _Fail("division by 0", where)
        return _div(a, b, op)
    if op == "**":
        if b < 0:
            if noeval:
                return 0
            raise _Fail("exponent less than 0", where)
        return _pow(a, b)
    if op == "<<":
        return wrap64(a << (b & 63))
    if op == ">>":
        return a >> (b & 63)
    table: dict[str, Callable[[int, int], int]] = {
        "+": int.__add__, "-": int.__sub__, "*": int.__mul__, "&": int.__and__,
        "|": int.__or__, "^": int.__xor__,
        "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
        "<": lambda x, y: int(x < y), ">": lambda x, y: int(x > y),
        "<=": lambda x, y: int(x <= y), ">=": lambda x, y: int(x >= y),
    }
    return wrap64(table[op](a, b))


class _Fail(Exception):
    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.message, self.token = message, token


def _number(text: str) -> int:
    if text[:2] in ("0x", "0X"):
        base, digits = 16, text[2:]
    elif "#" in text:
        raw_base, _, digits = text.partition("#")
        base = int(raw_base)
        if not 2 <= base <= 64:
            raise _Fail("invalid arithmetic base", text)
    elif len(text) > 1 and text[0] == "0":
        base, digits = 8, text[1:]
    else:
        base, digits = 10, text
    if not digits:
        raise _Fail("invalid integer constant", text)
    value = 0
    for c in digits:
        if c.isdecimal():
            d = ord(c) - 48
        elif "a" <= c <= "z":
            d = ord(c) - 87
        elif "A" <= c <= "Z":
            d = ord(c) - 29 if base > 36 else ord(c) - 55
        elif c == "@":
            d = 62
        elif c == "_":
            d = 63
        else:  # pragma: no cover - the token pattern admits nothing else
            d = 99
        if d >= base:
            raise _Fail("value too great for base", text)
        value = (value * base + d) & _MASK
    return wrap64(value)


class _Parser:
    def __init__(self, src: str, lookup: Callable[[str], str | None],
                 assign: Callable[[str, str], None] | None, depth: int) -> None:
        self.src, self.lookup, self.assign, self.depth = src, lookup, assign, depth
        self.toks: list[tuple[str, str, int]] = []  # (kind, text, start)
        pos = 0
        while pos < len(src):
            if src[pos:].strip() == "":
                break
            m = _TOKEN.match(src, pos)
            if m is None or m.end() == pos:
                start = pos + len(src[pos:]) - len(src[pos:].lstrip())
                raise _Fail("syntax error: invalid arithmetic operator", src[start:])
            kind = m.lastgroup or "op"
            self.toks.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
            charge()
        self.i = 0
        self.noeval = 0

    # -- helpers ------------------------------------------------------------
    def rest(self) -> str:
        """The text from the current token on (bash's "error token"; the last one at the end)."""
        if self.i < len(self.toks):
            return self.src[self.toks[self.i][2]:]
        return self.src[self.toks[-1][2]:] if self.toks else ""

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) and self.toks[self.i][0] == "op" \
            else None

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail("expression recursion level exceeded", self.rest())

    def variable(self, name: str) -> int:
        raw = self.lookup(name)
        if raw is None or not raw.strip():
            return 0
        raw = raw.strip()
        if re.fullmatch(r"-?[0-9]+", raw) and len(raw) < 20:
            return wrap64(int(raw))
        if self.depth + 1 > MAX_DEPTH:
            raise _Fail("expression recursion level exceeded", name)
        inner = _Parser(raw, self.lookup, self.assign, self.depth + 1)
        inner.noeval = self.noeval
        return inner.parse()

    def store(self, name: str, value: int) -> None:
        if not self.noeval and self.assign is not None:
            self.assign(name, str(value))

    # -- grammar --------------------------------------------------------------
    def parse(self) -> int:
        if not self.toks:
            return 0
        value = self.comma()
        if self.i < len(self.toks):
            raise _Fail("syntax error in expression", self.rest())
        return value

    def comma(self) -> int:
        value = self.assignment()
        while self.peek() == ",":
            self.i += 1
            value = self.assignment()
        return value

    def assignment(self) -> int:
        if (self.i + 1 < len(self.toks) and self.toks[self.i][0] == "name"
                and self.toks[self.i + 1][1] in _ASSIGN and self.toks[self.i + 1][0] == "op"):
            name, op = self.toks[self.i][1], self.toks[self.i + 1][1]
            where = self.rest()
            self.i += 2
            self.enter()
            rhs = self.assignment()
            self.depth -= 1
            value = rhs if op == "=" else _apply(op[:-1], self.variable(name), rhs, where,
                                                  bool(self.noeval))
            self.store(name, value)
            return value
        return self.ternary()

    def ternary(self) -> int:
        cond = self.binary(1)
        if self.peek() != "?":
            return cond
        self.i += 1
        self.enter()
        self.noeval += not cond
        yes = self.comma()
        self.noeval -= not cond
        if self.peek() != ":":
            raise _Fail("`:' expected for conditional expression", self.rest())
        self.i += 1
        self.noeval += bool(cond)
        no = self.ternary()
        self.noeval -= bool(cond)
        self.depth -= 1
        return yes if cond else no

    def binary(self, least: int) -> int:
        """Precedence climbing over the left-associative operators (iterative in length)."""
        value = self.power()
        while True:
            op = self.peek()
            prec = _BINARY.get(op or "")
            if op is None or prec is None or prec < least:
                return value
            where = self.rest()
            self.i += 1
            if op in ("&&", "||"):
                skip = (not value) if op == "&&" else bool(value)
                self.noeval += skip
                rhs = self.binary(prec + 1)
                self.noeval -= skip
                value = int(bool(value) and bool(rhs)) if op == "&&" else int(
                    bool(value) or bool(rhs))
                continue
            rhs = self.binary(prec + 1)
            value = _apply(op, value, rhs, where[len(op):].lstrip() or where,
                           bool(self.noeval))

    def power(self) -> int:
        """``a ** b ** c`` is right-associative: operands collected, folded from the right."""
        operands = [self.unary()]
        wheres: list[str] = []
        while self.peek() == "**":
            self.i += 1
            wheres.append(self.rest())
            operands.append(self.unary())
        value = operands[-1]
        for k in range(len(operands) - 2, -1, -1):
            value = _apply("**", operands[k], value, wheres[k], bool(self.noeval))
        return value

    def unary(self) -> int:
        ops: list[str] = []
        while self.peek() in ("-", "+", "!", "~", "++", "--"):
            ops.append(self.toks[self.i][1])
            self.i += 1
            charge()
        if ops and ops[-1] in ("++", "--") and self.i < len(self.toks) and \
                self.toks[self.i][0] == "name":
            name = self.toks[self.i][1]
            self.i += 1
            value = wrap64(self.variable(name) + (1 if ops.pop() == "++" else -1))
            self.store(name, value)
        else:
            value = self.postfix()
        for op in reversed(ops):
            if op in ("-", "--"):
                value = wrap64(-value) if op == "-" else value
            elif op == "!":
                value = int(not value)
            elif op == "~":
                value = ~value
        return value

    def postfix(self) -> int:
        if self.i >= len(self.toks):
            raise _Fail("syntax error: operand expected", self.rest())
        kind, text, _ = self.toks[self.i]
        if kind == "num":
            self.i += 1
            return _number(text)
        if kind == "name":
            self.i += 1
            value = self.variable(text)
            if self.peek() in ("++", "--"):
                self.store(text, wrap64(value + (1 if self.peek() == "++" else -1)))
                self.i += 1
            return value
        if text == "(":
            self.i += 1
            self.enter()
            value = self.comma()
            self.depth -= 1
            if self.peek() != ")":
                raise _Fail("missing `)'", self.rest())
            self.i += 1
            return value
        raise _Fail("syntax error: operand expected", self.rest())


def evaluate(src: str, lookup: Callable[[str], str | None] = lambda _: None,
             assign: Callable[[str, str], None] | None = None) -> int:
    """Evaluate ``src`` as bash's ``$(( ))`` does; raises `ArithError` with bash's text."""
    shown = src.lstrip()

    def param(m: re.Match[str]) -> str:
        return lookup(m.group(1) or m.group(2)) or ""

    try:
        text = _PARAM.sub(param, src)
        return _Parser(text, lookup, assign, 0).parse()
    except _Fail as exc:
        token = exc.token
        raise ArithError(f"{shown}: {exc.message} (error token is \"{token}\")") from None

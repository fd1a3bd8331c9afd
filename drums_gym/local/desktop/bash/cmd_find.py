"""``find PATH... EXPRESSION``: tests (-name -iname -path -type -empty -perm), options
(-maxdepth -mindepth), actions (-print -delete -exec CMD {} \\; and -exec CMD {} +),
operators (! -not -a -and -o -or, parentheses)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...budget import charge
from .context import Ctx
from .globbing import match
from .registry import command

__all__: list[str] = []

_TESTS_WITH_ARG = {"-name", "-iname", "-path", "-wholename", "-ipath", "-type", "-perm",
                   "-newer", "-user", "-group", "-size", "-mtime", "-mmin", "-atime", "-amin",
                   "-ctime", "-cmin"}
_NO_ARG = {"-print", "-delete", "-empty", "-true", "-false", "-print0", "-prune", "-quit"}


class _FindError(Exception):
    pass


@dataclass
class _Node:
    op: str
    args: tuple[str, ...] = ()
    kids: tuple[_Node, ...] = ()


@dataclass
class _Query:
    expr: _Node | None
    maxdepth: int = 1 << 30
    mindepth: int = 0
    has_action: bool = False
    depth_first: bool = False
    batches: dict[int, list[str]] = field(default_factory=dict)


class _Parser:
    def __init__(self, toks: list[str], q: _Query) -> None:
        self.toks, self.i, self.q = toks, 0, q

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse(self) -> _Node | None:
        if self.peek() is None:
            return None
        node = self.or_expr()
        if self.peek() is not None:
            raise _FindError(f"find: paths must precede expression: `{self.peek()}'")
        return node

    def or_expr(self) -> _Node:
        node = self.and_expr()
        while self.peek() in ("-o", "-or"):
            self.i += 1
            node = _Node("or", kids=(node, self.and_expr()))
        return node

    def and_expr(self) -> _Node:
        node = self.unary()
        while (t := self.peek()) is not None and t not in ("-o", "-or", ")"):
            if t in ("-a", "-and"):
                self.i += 1
            node = _Node("and", kids=(node, self.unary()))
        return node

    def unary(self) -> _Node:
        t = self.peek()
        if t is None:
            raise _FindError("find: expected an expression")
        self.i += 1
        if t in ("!", "-not"):
            return _Node("not", kids=(self.unary(),))
        if t == "(":
            node = self.or_expr()
            if self.peek() != ")":
                raise _FindError("find: invalid expression; I was expecting to find a ')' "
                                 "somewhere but did not see one.")
            self.i += 1
            return node
        return self.primary(t)

    def arg(self, t: str) -> str:
        a = self.peek()
        if a is None:
            raise _FindError(f"find: missing argument to `{t}'")
        self.i += 1
        return a

    def primary(self, t: str) -> _Node:
        if t in ("-maxdepth", "-mindepth"):
            raw = self.arg(t)
            if not raw.isdecimal():
                raise _FindError(f"find: Expected a positive decimal integer argument to {t}, "
                                 f"but got ‘{raw}’")
            setattr(self.q, t[1:], int(raw))
            return _Node("true")
        if t in ("-exec", "-ok", "-execdir"):
            cmd: list[str] = []
            while True:
                a = self.peek()
                if a is None:
                    raise _FindError(f"find: missing argument to `{t}'")
                self.i += 1
                if a == ";" or (a == "+" and cmd and cmd[-1] == "{}"):
                    break
                cmd.append(a)
            if not cmd:
                raise _FindError(f"find: missing argument to `{t}'")
            self.q.has_action = True
            if a == "+":
                key = len(self.q.batches)
                self.q.batches[key] = []
                return _Node("exec+", (str(key), *cmd[:-1]))
            return _Node("exec", tuple(cmd))
        if t in _TESTS_WITH_ARG:
            value = self.arg(t)
            if t == "-type" and value not in ("f", "d", "l", "b", "c", "p", "s"):
                raise _FindError(f"find: Unknown argument to -type: {value}")
            if t[2:] in ("time", "min") and not re.fullmatch(r"[-+]?\d+", value):
                raise _FindError(f"find: invalid argument `{value}' to `{t}'")
            return _Node(t, (value,))
        if t in _NO_ARG:
            if t in ("-print", "-delete", "-print0"):
                self.q.has_action = True
            if t == "-delete":
                self.q.depth_first = True
            return _Node(t)
        if t == "-depth":
            self.q.depth_first = True
            return _Node("true")
        if t.startswith("-"):
            raise _FindError(f"find: unknown predicate `{t}'")
        raise _FindError(f"find: paths must precede expression: `{t}'")


def _perm_ok(spec: str, mode: int) -> bool:
    kind = spec[0] if spec[:1] in ("-", "/") else ""
    digits = spec[len(kind):]
    if not digits or any(c not in "01234567" for c in digits):
        raise _FindError(f"find: invalid mode ‘{spec}’")
    want = int(digits, 8)
    if kind == "-":
        return mode & want == want
    if kind == "/":
        return want == 0 or bool(mode & want)
    return mode == want


class _Finder:
    def __init__(self, ctx: Ctx, q: _Query) -> None:
        self.ctx, self.q, self.status = ctx, q, 0

    def holds(self, node: _Node, shown: str, real: str) -> bool:
        fs, op = self.ctx.fs, node.op
        if op == "and":
            return self.holds(node.kids[0], shown, real) and self.holds(node.kids[1], shown, real)
        if op == "or":
            return self.holds(node.kids[0], shown, real) or self.holds(node.kids[1], shown, real)
        if op == "not":
            return not self.holds(node.kids[0], shown, real)
        name = real.rsplit("/", 1)[-1] or "/"
        if shown in (".", "..") or shown.endswith("/."):
            name = shown.rsplit("/", 1)[-1]
        if op in ("-name", "-iname"):
            return match(node.args[0], name, period=False, ignore_case=op == "-iname")
        if op in ("-path", "-wholename", "-ipath"):
            return match(node.args[0], shown, period=False, ignore_case=op == "-ipath")
        if op == "-type":
            return node.args[0] == ("d" if fs.is_dir(real) else "f")
        if op == "-empty":
            return not fs.listdir(real) if fs.is_dir(real) else not fs.read_file(real)
        if op == "-perm":
            return _perm_ok(node.args[0], self.ctx.mode(real))
        if op[2:] in ("time", "min"):  # -mtime N: N whole days old (+N more, -N less)
            unit = 86400 if op.endswith("time") else 60
            age = int((fs.clock.now() - fs.stat(real).st_mtime) // unit)
            spec = node.args[0]
            n = int(spec.lstrip("+-"))
            return age > n if spec[0] == "+" else age < n if spec[0] == "-" else age == n
        if op == "-newer":
            ref = self.ctx.path(node.args[0])
            if not fs.exists(ref):
                raise _FindError(f"find: ‘{node.args[0]}’: No such file or directory")
            return fs.stat(real).st_mtime > fs.stat(ref).st_mtime
        if op in ("-print", "-print0"):
            self.ctx.out(shown + ("\0" if op == "-print0" else "\n"))
            return True
        if op == "-delete":
            if fs.is_dir(real) and fs.listdir(real):
                self.ctx.err(f"find: cannot delete ‘{shown}’: Directory not empty")
                self.status = 1
                return False
            fs.remove(real)
            return True
        if op == "exec":
            argv = [a.replace("{}", shown) for a in node.args]
            return self.ctx.run(argv) == 0
        if op == "exec+":
            self.q.batches[int(node.args[0])].append(shown)
            return True
        return op in ("true", "-prune", "-user", "-group", "-size")

    def visit(self, shown: str, real: str, depth: int) -> None:
        """Walk the tree under ``real`` (iteratively: any depth; each entry is charged)."""
        fs = self.ctx.fs
        stack: list[tuple[str, str, int, bool]] = [(shown, real, depth, False)]
        while stack:
            shown, real, depth, after = stack.pop()
            charge()
            here = depth >= self.q.mindepth
            if after:  # -depth / -delete: the directory after its contents
                self.check(shown, real)
                continue
            if not fs.exists(real):
                continue
            if here and not self.q.depth_first:
                self.check(shown, real)
            if here and self.q.depth_first:
                stack.append((shown, real, depth, True))
            if fs.is_dir(real) and depth < self.q.maxdepth:
                if not self.ctx.may(real, "r"):
                    self.ctx.err(f"find: ‘{shown}’: Permission denied")
                    self.status = 1
                    continue
                sep = "" if shown.endswith("/") else "/"
                for name in reversed(fs.listdir(real)):
                    stack.append((f"{shown}{sep}{name}", f"{real.rstrip('/')}/{name}", depth + 1,
                                  False))

    def check(self, shown: str, real: str) -> None:
        expr = self.q.expr
        ok = True if expr is None else self.holds(expr, shown, real)
        if ok and not self.q.has_action:
            self.ctx.out(shown + "\n")


@command("find")
def find(ctx: Ctx, args: list[str]) -> int:
    k = 0
    while k < len(args) and args[k] in ("-H", "-L", "-P"):
        k += 1
    paths: list[str] = []
    while k < len(args) and not (args[k].startswith("-") or args[k] in ("(", "!")):
        paths.append(args[k])
        k += 1
    q = _Query(None)
    try:
        q.expr = _Parser(args[k:], q).parse()
    except _FindError as exc:
        ctx.err(str(exc))
        return 1
    finder = _Finder(ctx, q)
    try:
        for p in paths or ["."]:
            real = ctx.path(p)
            if not ctx.fs.exists(real):
                ctx.err(f"find: ‘{p}’: No such file or directory")
                finder.status = 1
                continue
            finder.visit(p, real, 0)
        if q.expr is not None:
            for node in _exec_batches(q.expr):
                batch = q.batches.get(int(node.args[0]), [])
                if batch and ctx.run(list(node.args[1:]) + batch) != 0:
                    finder.status = 1
    except _FindError as exc:
        ctx.err(str(exc))
        return 1
    return finder.status


def _exec_batches(node: _Node) -> list[_Node]:
    if node.op == "exec+":
        return [node]
    return [n for kid in node.kids for n in _exec_batches(kid)]



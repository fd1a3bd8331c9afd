"""The interpreter: runs parsed command lines against a `ShellState`.

Nothing here touches the real machine: commands are Python functions over the
simulated `FileSystem`, looked up in the interpreter's `registry.Registry`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ...budget import charge, charge_bytes
from .context import IO, Ctx
from .expand import Expander, ExpansionError
from .lexer import BashSyntaxError, Incomplete
from .nodes import AndOr, Command, For, If, Pipeline, Redirect, Seq, Simple, While
from .parser import MAX_NESTING, parse
from .registry import Registry
from .scripts import run_path
from .signals import BreakLoop, ExitShell
from .state import ShellState

__all__ = ["MAX_NESTING", "BreakLoop", "ExitShell", "Interpreter"]

# MAX_NESTING (from the parser): how deep compound commands, command substitutions, sourced
# files and scripts may nest (keeps Python's stack safe; the work budget bounds the rest).


class _RedirectError(Exception):
    pass


class Interpreter:
    """Runs commands for one line; ``state`` persists across lines."""

    def __init__(self, state: ShellState, commands: Registry) -> None:
        self.state = state
        self.commands = commands
        self.subst_status: int | None = None
        self.loops = 0  # loops being run (``break`` outside any is an error)
        self.depth = 0  # nesting of compound commands, substitutions, sources, scripts
        self.sources = 0  # nesting of ``source``

    # -- entry points -----------------------------------------------------
    def run_source(self, src: str, io: IO, where: str | None = None) -> int:
        """Parse and run ``src`` (scripts, ``bash -c``, command substitution); a syntax
        error's message names ``where`` as bash does (``command substitution: line 1``)."""
        charge(1 + len(src) // 4)  # the lexer reads character by character
        if self.depth >= MAX_NESTING:
            io.err.append(f"bash: maximum nesting level exceeded ({MAX_NESTING})\n")
            return 2
        try:
            seq = parse(src)
        except (BashSyntaxError, Incomplete) as exc:
            msg = str(exc) or "syntax error: unexpected end of file"
            io.err.append(f"bash: {where}: line 1: {msg}\n" if where else f"bash: {msg}\n")
            return 2
        self.depth += 1
        try:
            return self.run_seq(seq, io)
        finally:
            self.depth -= 1

    def run_seq(self, seq: Seq, io: IO) -> int:
        status = self.state.status
        for item in seq.items:
            charge()
            status = self.run_and_or(item, io)
        return status

    def run_and_or(self, node: AndOr, io: IO) -> int:
        status = self.state.status
        for j, (op, pipe) in enumerate(node.parts):
            if j and ((op == "&&" and status != 0) or (op == "||" and status == 0)):
                continue
            status = self.run_pipeline(pipe, io)
        return status

    def run_pipeline(self, pipe: Pipeline, io: IO) -> int:
        stdin, status = io.stdin, 0
        if len(pipe.commands) == 1:
            status = self.run_command(pipe.commands[0], io)
        for k, cmd in enumerate(pipe.commands if len(pipe.commands) > 1 else ()):
            if k == len(pipe.commands) - 1:
                status = self.run_command(cmd, IO(stdin, io.out, io.err, io.tty))
            else:
                buf: list[str] = []
                status = self.run_command(cmd, IO(stdin, buf, io.err, False))
                stdin = "".join(buf)
        if pipe.negate:
            status = int(status == 0)
        self.state.status = status
        return status

    def run_argv(self, argv: list[str], io: IO, root: bool = False) -> int:
        """Run one command by name (also what ``sudo``, ``xargs`` and ``find -exec`` use)."""
        charge()
        if not argv:
            return 0
        name = argv[0]
        ctx = Ctx(self, io, root)
        fn = self.commands.get(name)
        if fn is None and name.rsplit("/", 1)[0] in ("/bin", "/usr/bin", "/usr/local/bin"):
            fn = self.commands.get(name.rsplit("/", 1)[1])
        fs = self.state.fs
        creator = fs.creator
        if root:
            fs.creator = "root"  # what a command run by sudo creates is root's
        try:
            if fn is not None:
                return fn(ctx, argv[1:])
            if "/" in name:
                return run_path(ctx, name, argv[1:])
            installed = ctx.find_program(name)  # a program a package installed on $PATH
            if installed is not None:
                return run_path(ctx, installed, argv[1:])
        finally:
            fs.creator = creator
        io.err.append(f"bash: {name}: command not found\n")
        return 127

    # -- commands ---------------------------------------------------------
    def run_command(self, cmd: Command, io: IO) -> int:
        if isinstance(cmd, Simple):
            return self.run_simple(cmd, io)
        if self.depth >= MAX_NESTING:
            io.err.append(f"bash: maximum nesting level exceeded ({MAX_NESTING})\n")
            return 2
        try:
            io, finish = self.redirect(cmd.redirects, io)
        except _RedirectError:
            return 1
        self.depth += 1
        try:
            if isinstance(cmd, For):
                return self.run_for(cmd, io)
            if isinstance(cmd, If):
                for cond, body in cmd.clauses:
                    if self.run_seq(cond, io) == 0:
                        return self.run_seq(body, io)
                return self.run_seq(cmd.orelse, io) if cmd.orelse is not None else 0
            if isinstance(cmd, While):
                return self.run_while(cmd, io)
            if cmd.subshell:
                return self.subshell(lambda: self.run_seq(cmd.body, io))
            return self.run_seq(cmd.body, io)
        finally:
            self.depth -= 1
            finish()

    def subshell(self, body: Callable[[], int]) -> int:
        st = self.state
        charge(1 + (len(st.vars) + len(st.exported)) // 16)
        saved = (st.cwd, dict(st.vars), set(st.exported), st.positional)
        try:
            return body()
        except ExitShell as exc:
            return exc.status
        except BreakLoop:  # ``(break)`` leaves the subshell, not the loop around it
            return 0
        finally:
            st.cwd, st.vars, st.exported, st.positional = saved

    def loop_body(self, body: Seq, io: IO) -> tuple[int, bool]:
        """Run a loop body; returns (status, stop)."""
        charge()
        try:
            return self.run_seq(body, io), False
        except BreakLoop as exc:
            return 0, self._unwind(exc)

    def _unwind(self, exc: BreakLoop) -> bool:
        """Whether ``break``/``continue`` stops the innermost loop (re-raised for outer ones;
        more levels than loops: ``break`` leaves them all, ``continue`` resumes the last)."""
        if exc.levels > 1 and self.loops > 1:
            raise BreakLoop(exc.levels - 1, exc.cont) from None
        return not exc.cont

    def run_for(self, cmd: For, io: IO) -> int:
        if cmd.words is None:
            values = list(self.state.positional)
        else:
            try:
                values = self.expander(io).words(cmd.words)
            except ExpansionError as exc:
                io.err.append(f"bash: {exc}\n")
                return 1
        status = 0
        self.loops += 1
        try:
            for value in values:
                self.state.vars[cmd.var] = value
                status, stop = self.loop_body(cmd.body, io)
                if stop:
                    break
        finally:
            self.loops -= 1
        return status

    def run_while(self, cmd: While, io: IO) -> int:
        """``while``/``until``: each iteration charges the work budget (which ends it)."""
        status = 0
        self.loops += 1
        try:
            while True:
                charge()
                try:
                    done = (self.run_seq(cmd.cond, io) == 0) == cmd.until
                except BreakLoop as exc:
                    if self._unwind(exc):
                        return 0
                    continue
                if done:
                    return status
                status, stop = self.loop_body(cmd.body, io)
                if stop:
                    return status
        finally:
            self.loops -= 1

    def run_simple(self, cmd: Simple, io: IO) -> int:
        exp = self.expander(io)
        self.subst_status = None
        try:
            argv = exp.words(cmd.words)
            values = [(name, exp.single(w)) for name, w in cmd.assigns]
        except ExpansionError as exc:
            io.err.append(f"bash: {exc}\n")
            return 1
        try:
            rio, finish = self.redirect(cmd.redirects, io)
        except _RedirectError:
            return 1
        try:
            if not argv:
                for name, value in values:
                    charge()
                    charge_bytes(len(name) + len(value))
                    self.state.vars[name] = value
                return self.subst_status or 0
            return self.run_argv(argv, rio)
        finally:
            finish()

    # -- expansion and redirection ----------------------------------------
    def lookup(self, name: str) -> str | None:
        st = self.state
        if name == "?":
            return str(st.status)
        if name == "$":
            return "4242"
        if name == "#":
            return str(len(st.positional))
        if name in ("@", "*"):
            return " ".join(st.positional)
        if name == "0":
            return "bash"
        if name.isdecimal():
            k = int(name)
            return st.positional[k - 1] if k <= len(st.positional) else None
        if name == "RANDOM":
            return "17"
        if name == "COLUMNS":
            return str(st.columns)
        return st.vars.get(name)

    def expander(self, io: IO) -> Expander:
        def capture(src: str) -> str:
            buf: list[str] = []
            self.subst_status = self.subshell(
                lambda: self.run_source(src, IO("", buf, io.err, False), "command substitution"))
            return "".join(buf)

        def assign(name: str, value: str) -> None:
            charge_bytes(len(value))
            self.state.vars[name] = value

        return Expander(self.state.fs, self.state.cwd, self.lookup, capture,
                        self.state.positional, assign)

    def redirect(self, redirects: tuple[Redirect, ...], io: IO) -> tuple[IO, Callable[[], None]]:
        """Apply redirections; returns the new streams and a function that flushes files."""
        if not redirects:
            return io, _nothing
        new = copy.copy(io)
        flushes: list[tuple[str, list[str]]] = []
        ctx = Ctx(self, io)
        for r in redirects:
            words = self.expander(io).words([r.target])
            if r.op == ">&" and len(words) == 1 and (words[0].isdecimal() or words[0] == "-"):
                src = new.out if words[0] == "1" else new.err
                if r.fd == 2:
                    new.err = src if words[0] != "-" else []
                else:
                    new.out, new.tty = src, False
                continue
            if len(words) != 1:
                io.err.append(f"bash: {self.raw(r)}: ambiguous redirect\n")
                raise _RedirectError
            target = words[0]
            if r.op == "<":
                new.stdin = self.read_input(ctx, target, io)
                continue
            opened = self.open_output(ctx, target, r.op.endswith(">>"), io)
            sink: list[str] = []
            if opened is not None:
                flushes.append(opened)
                sink = opened[1]
            if r.op in ("&>", "&>>", ">&") or r.fd == 1:
                new.out, new.tty = sink, False
            if r.op in ("&>", "&>>", ">&") or r.fd == 2:
                new.err = sink

        def finish() -> None:
            for path, buf in flushes:
                data = "".join(buf).encode()
                charge_bytes(len(data))
                old = self.state.fs.read_file(path) if self.state.fs.is_file(path) else b""
                self.state.fs.write_file(path, old + data)

        return new, finish

    @staticmethod
    def raw(r: Redirect) -> str:
        return "".join(("$" + t) if k == "var" else t for k, t, _ in r.target)

    def read_input(self, ctx: Ctx, target: str, io: IO) -> str:
        if target in ("/dev/null", "/dev/stdin"):
            return "" if target == "/dev/null" else io.stdin
        path = ctx.path(target)
        fs = self.state.fs
        if not fs.exists(path):
            io.err.append(f"bash: {target}: No such file or directory\n")
            raise _RedirectError
        if fs.is_dir(path):
            io.err.append(f"bash: {target}: Is a directory\n")
            raise _RedirectError
        if not ctx.may(path, "r"):
            io.err.append(f"bash: {target}: Permission denied\n")
            raise _RedirectError
        return fs.read_file(path).decode(errors="replace")

    def open_output(self, ctx: Ctx, target: str, append: bool,
                    io: IO) -> tuple[str, list[str]] | None:
        """Create/truncate ``target``; None for /dev/null. Raises on errors (reported)."""
        if target == "/dev/null":
            return None
        fs = self.state.fs
        path = ctx.path(target)
        parent = path.rsplit("/", 1)[0] or "/"
        problem = None
        if fs.is_dir(path):
            problem = "Is a directory"
        elif not fs.is_dir(parent):
            problem = "Not a directory" if fs.exists(parent) else "No such file or directory"
        elif (fs.exists(path) and not ctx.may(path, "w")) or (
                not fs.exists(path) and not ctx.may_change(path)):
            problem = "Permission denied"
        if problem:
            io.err.append(f"bash: {target}: {problem}\n")
            raise _RedirectError
        if not append or not fs.exists(path):
            fs.write_file(path, b"")
        return path, []


def _nothing() -> None:
    return None

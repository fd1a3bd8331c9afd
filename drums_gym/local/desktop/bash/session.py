"""`BashSession`: the interactive bash a terminal talks to, one submitted line at a time.

It keeps the prompt state (``$ `` prompt, ``> `` continuation, sudo's password
prompt), the history, and pauses a line before a ``sudo`` that needs a
password, resuming it once the password is typed. Everything it holds is plain
data, so a desktop (and its terminals) can be deep-copied at any moment.

>>> from drums_gym.local.desktop.fs import FileSystem
>>> sh = BashSession(FileSystem())
>>> sh.submit("mkdir -p a/b && cd a && pwd").output
'/home/user/a\\n'
>>> sh.title()
'user@ubuntu: ~/a'
"""

from __future__ import annotations

from dataclasses import dataclass

from ...budget import Budget, BudgetExceeded, Limits, current, running
from ..fs import HOME, FileSystem
from .cmd_core import reads_itself
from .commands import standard_commands
from .context import HOST, IO, USER
from .interp import Interpreter
from .lexer import BashSyntaxError, Incomplete, tokenize
from .nodes import Command, For, Group, If, Pipeline, Seq, Simple, While, word_text
from .parser import parse
from .signals import ExitShell
from .state import ShellState

__all__ = ["LINE_LIMITS", "PASSWORD", "BashSession", "Reply"]

PASSWORD = "password"
LINE_LIMITS = Limits()  # a line's budget when no unit of work set one (the host always does)
_JOIN_BARE = ("do", "then", "else", "{", "|", "&&", "||", "in")


@dataclass(frozen=True)
class Reply:
    """What one submitted line produced: terminal output (with SGR codes), whether the
    shell exited."""

    output: str
    exited: bool = False


@dataclass
class _Paused:
    seq: Seq
    item: int
    part: int
    tries: int = 0


def _needs_sudo(node: Pipeline | Seq | Command) -> bool:
    if isinstance(node, Pipeline):
        return any(_needs_sudo(c) for c in node.commands)
    if isinstance(node, Seq):
        return any(_needs_sudo(p) for item in node.items for _, p in item.parts)
    if isinstance(node, Simple):
        first = word_text(node.words[0]) if node.words else None
        rest = [word_text(w) for w in node.words[1:]]
        return first == "sudo" and rest[:1] not in (["-k"], ["-K"]) and not reads_itself(
            [r or "" for r in rest])
    if isinstance(node, For):
        return _needs_sudo(node.body)
    if isinstance(node, While):
        return _needs_sudo(node.cond) or _needs_sudo(node.body)
    if isinstance(node, If):
        return any(_needs_sudo(c) or _needs_sudo(b) for c, b in node.clauses) or (
            node.orelse is not None and _needs_sudo(node.orelse))
    if isinstance(node, Group):
        return _needs_sudo(node.body)
    return False


class BashSession:
    """An interactive bash over ``fs`` (user ``user``, host ``ubuntu``)."""

    def __init__(self, fs: FileSystem, cwd: str = HOME) -> None:
        self.state = ShellState(fs, asks_password=True)
        if fs.is_dir(cwd):
            self.state.set_cwd(fs.normpath(cwd))
            self.state.vars.pop("OLDPWD", None)
        self.pending: list[str] = []  # lines of an unfinished command (``> `` prompt)
        self.paused: _Paused | None = None  # a line waiting for the sudo password
        self.stopped_output = ""  # what a line printed before its budget ran out

    # -- what the terminal shows ------------------------------------------
    @property
    def mode(self) -> str:
        """``"command"``, ``"more"`` (continuation) or ``"password"``."""
        if self.paused is not None:
            return "password"
        return "more" if self.pending else "command"

    @property
    def echo(self) -> bool:
        """Whether typed characters are shown (not while typing a password)."""
        return self.paused is None

    def prompt(self) -> str:
        """The prompt for the current mode (Ubuntu's coloured PS1, PS2, or sudo's)."""
        if self.paused is not None:
            return f"[sudo] password for {USER}: "
        if self.pending:
            return "> "
        where = self.state.tilde(self.state.cwd)
        return f"\x1b[01;32m{USER}@{HOST}\x1b[00m:\x1b[01;34m{where}\x1b[00m$ "

    def title(self) -> str:
        """The window title Ubuntu's bash sets: ``user@ubuntu: ~/dir``."""
        return f"{USER}@{HOST}: {self.state.tilde(self.state.cwd)}"

    @property
    def history(self) -> list[str]:
        return self.state.history

    # -- input ------------------------------------------------------------
    def interrupt(self) -> None:
        """Ctrl+C: drop a half-typed multi-line command or a pending sudo."""
        if self.pending or self.paused is not None:
            self.state.status = 130 if self.pending else 1
        self.pending, self.paused = [], None

    def submit(self, line: str, columns: int = 80) -> Reply:
        """Run a line typed at the prompt (or the password sudo asked for).

        The line runs under the work budget in force (`drums_gym.local.budget`), or its own
        `LINE_LIMITS` when there is none. When the budget runs out, `BudgetExceeded`
        propagates as after Ctrl+C: the shell is back at its prompt with status 130, and
        what the line printed until then is in ``stopped_output``."""
        if current() is None:
            with running(Budget(LINE_LIMITS)):
                return self._submit(line, columns)
        return self._submit(line, columns)

    def _submit(self, line: str, columns: int) -> Reply:
        self.stopped_output = ""
        self.state.columns = max(10, columns)
        if self.paused is not None:
            return self._password(line)
        self.pending.append(line)
        src = "\n".join(self.pending)
        try:
            seq = parse(src)
        except Incomplete:
            return Reply("")
        except BashSyntaxError as exc:
            self._remember()
            self.state.status = 2
            return Reply(f"bash: {exc}\n")
        self._remember()
        return self._run(seq, 0, 0)

    def _remember(self) -> None:
        lines, self.pending = self.pending, []
        text = lines[0]
        for nxt in lines[1:]:
            try:
                tokenize(text)
            except Incomplete:
                text = f"{text}\n{nxt}"  # inside quotes: the newline is data
                continue
            bare = text.rstrip().endswith(_JOIN_BARE) or not text.strip()
            text = f"{text} {nxt.strip()}" if bare else f"{text}; {nxt.strip()}"
        if text.strip() and not text.startswith(" ") and (
                not self.state.history or self.state.history[-1] != text):
            self.state.history.append(text)
            del self.state.history[:-1000]

    def _password(self, typed: str) -> Reply:
        paused = self.paused
        if paused is None:  # pragma: no cover - guarded by the caller
            return Reply("")
        if typed == PASSWORD:
            self.paused = None
            self.state.sudo_until = self.state.fs.clock.now() + 15 * 60
            return self._run(paused.seq, paused.item, paused.part)
        paused.tries += 1
        if paused.tries < 3:
            return Reply("Sorry, try again.\n")
        self.paused = None
        self.state.status = 1
        out = "sudo: 3 incorrect password attempts\n"
        reply = self._run(paused.seq, paused.item, paused.part + 1, status=1)
        return Reply(out + reply.output, reply.exited)

    def _run(self, seq: Seq, item: int, part: int, status: int | None = None) -> Reply:
        sink: list[str] = []
        io = IO("", sink, sink, True)
        interp = Interpreter(self.state, standard_commands())
        st = self.state
        if status is not None:
            st.status = status
        try:
            while item < len(seq.items):
                parts = seq.items[item].parts
                while part < len(parts):
                    op, pipe = parts[part]
                    failed = st.status != 0
                    if part and ((op == "&&" and failed) or (op == "||" and not failed)):
                        part += 1
                        continue
                    if _needs_sudo(pipe) and st.sudo_until < st.fs.clock.now():
                        self.paused = _Paused(seq, item, part)
                        return Reply("".join(sink))
                    interp.run_pipeline(pipe, io)
                    part += 1
                item, part = item + 1, 0
        except ExitShell as exc:
            st.status = exc.status
            return Reply("".join(sink), exited=True)
        except BudgetExceeded:
            self.stopped_output = "".join(sink)
            self.pending, self.paused = [], None
            st.status = 130
            raise
        return Reply("".join(sink))

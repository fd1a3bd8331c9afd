"""The one place task files reach the simulated shell: `run_command` (and `missing_commands`,
which tells on load whether a task file's command lines need commands the shell lacks).

OSWorld runs a config's ``execute`` command and the ``vm_command_line`` getter's command in
the VM, non-interactively, in the home folder, and keeps stdout, stderr and the exit status.
Here the command runs in a fresh non-interactive session of the desktop's simulated bash
(`drums_gym.local.desktop.bash`) over the desktop's filesystem: nothing runs on the real
machine. ``sudo`` needs no password there, as with ``echo password | sudo -S``.

A few commands OSWorld's setups use are not (yet) commands of the simulated bash; they are
bridged here, on a line that is that one simple command (`BRIDGED`): ``gio trash FILE...``.

>>> from drums_gym.local.desktop import Desktop
>>> d = Desktop()
>>> run_command(d, "mkdir -p ~/a && cd ~/a && pwd")
Result(stdout='/home/user/a\\n', stderr='', status=0)
>>> run_command(d, "nosuchcmd").status
127
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..desktop import Desktop
from ..desktop.bash.commands import standard_commands
from ..desktop.bash.context import IO
from ..desktop.bash.interp import ExitShell, Interpreter
from ..desktop.bash.lexer import BashSyntaxError, Incomplete
from ..desktop.bash.nodes import Command, For, Group, If, Seq, Simple, While, Word, word_text
from ..desktop.bash.parser import parse
from ..desktop.bash.state import ShellState
from ..desktop.fs import HOME

__all__ = ["BRIDGED", "Result", "missing_commands", "run_command"]


@dataclass(frozen=True)
class Result:
    """What a command line produced: its standard output and error, and its exit status."""

    stdout: str
    stderr: str
    status: int


def _gio(desktop: Desktop, args: list[str]) -> Result:
    """``gio trash FILE...``: move files to the Trash (with their .trashinfo)."""
    if not args or args[0] != "trash":
        return Result("", f"gio: unsupported command {' '.join(args[:1])!r}\n", 1)
    errors, status = [], 0
    for name in args[1:]:
        path = desktop.fs.normpath(name if name.startswith("/") else f"{HOME}/{name}")
        try:
            desktop.fs.trash(path)
        except OSError:
            errors.append(f"gio: file://{path}: Error trashing file {path}: "
                          "No such file or directory\n")
            status = 1
    return Result("", "".join(errors), status)


#: Commands of setups the simulated bash does not have, run when a line is just that command.
BRIDGED: dict[str, Callable[[Desktop, list[str]], Result]] = {"gio": _gio}
_OPERATORS = frozenset(";|&<>()$`\n")


def _bridged(desktop: Desktop, command: str) -> Result | None:
    if any(c in _OPERATORS for c in command):
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    fn = BRIDGED.get(argv[0]) if argv else None
    return fn(desktop, argv[1:]) if fn is not None else None


def run_command(desktop: Desktop, command: str) -> Result:
    """Run one bash command line on ``desktop``, non-interactively, in the home folder.

    Failing commands are data (a status and stderr), never an exception; only the work
    budget (`drums_gym.local.budget.BudgetExceeded`) propagates: the unit of work (a setup
    step, a getter) stops there and the host reports it as cut."""
    bridged = _bridged(desktop, command)
    if bridged is not None:
        return bridged
    state = ShellState(desktop.fs)
    out: list[str] = []
    err: list[str] = []
    try:
        status = Interpreter(state, standard_commands()).run_source(
            command, IO("", out, err, False))
    except ExitShell as exc:
        status = exc.status
    return Result("".join(out), "".join(err), status)


def _words_commands(words: tuple[Word, ...]) -> Iterator[str]:
    """Command names inside ``$(...)`` substitutions of ``words``."""
    for word in words:
        for kind, text, _ in word:
            if kind == "cmd":
                yield from _seq_commands(text)


def _command_names(node: Command | Seq) -> Iterator[str]:
    if isinstance(node, Seq):
        for item in node.items:
            for _, pipe in item.parts:
                for cmd in pipe.commands:
                    yield from _command_names(cmd)
    elif isinstance(node, Simple):
        yield from _words_commands(node.words)
        yield from _words_commands(tuple(w for _, w in node.assigns))
        names = [word_text(w) for w in node.words]
        while names and names[0] == "sudo":
            names = names[1:]
            while names and names[0] is not None and names[0].startswith("-"):
                names = names[1:]
        if names and names[0] is not None:
            yield names[0]
    elif isinstance(node, For):
        yield from _words_commands(node.words or ())
        yield from _command_names(node.body)
    elif isinstance(node, If):
        for cond, body in node.clauses:
            yield from _command_names(cond)
            yield from _command_names(body)
        if node.orelse is not None:
            yield from _command_names(node.orelse)
    elif isinstance(node, While):
        yield from _command_names(node.cond)
        yield from _command_names(node.body)
    elif isinstance(node, Group):
        yield from _command_names(node.body)


def _seq_commands(source: str) -> Iterator[str]:
    try:
        seq = parse(source)
    except (BashSyntaxError, Incomplete):
        return
    yield from _command_names(seq)


def missing_commands(command: str) -> list[str]:
    """The commands of the line ``command`` that neither the simulated bash nor `BRIDGED`
    has (in order, once each); paths such as ``./setup.sh`` are scripts, never missing.

    >>> missing_commands("dpkg -l | grep mahjongg; echo $(lsb_release -a) && sudo -S apt-mark x")
    ['dpkg', 'lsb_release', 'apt-mark']
    """
    out: list[str] = []
    for name in _seq_commands(command):
        if "/" in name or name in standard_commands() or name in BRIDGED or name in out:
            continue
        out.append(name)
    return out

"""The one place task files reach the desktop's shell: `run_command` (and `missing_commands`,
which tells on load whether a task file's command lines need commands the simulated shell
lacks: a task file must run on both backends).

OSWorld runs a config's ``execute`` command and the ``vm_command_line`` getter's command in
the VM, non-interactively, in the home folder, and keeps stdout, stderr and the exit status.
Here the command runs as the user in the home folder of the desktop's backend: the real bash
in its sandbox (`drums_gym.local.sandbox`, the sandbox backend), or a fresh non-interactive
session of the simulated bash (`drums_gym.local.desktop.bash`) over the desktop's simulated
filesystem, where ``sudo`` needs no password, as with ``echo password | sudo -S``.

>>> from drums_gym.local.desktop import Desktop
>>> d = Desktop()
>>> run_command(d, "mkdir -p ~/a && cd ~/a && pwd")
Result(stdout='/home/user/a\\n', stderr='', status=0)
>>> run_command(d, "nosuchcmd").status
127
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..desktop import Desktop
from ..desktop.bash.commands import standard_commands
from ..desktop.bash.context import IO
from ..desktop.bash.interp import ExitShell, Interpreter
from ..desktop.bash.lexer import BashSyntaxError, Incomplete
from ..desktop.bash.nodes import Command, For, Group, If, Seq, Simple, While, Word, word_text
from ..desktop.bash.parser import parse
from ..desktop.bash.state import ShellState

__all__ = ["Result", "command_names", "missing_commands", "run_command"]


@dataclass(frozen=True)
class Result:
    """What a command line produced: its standard output and error, and its exit status."""

    stdout: str
    stderr: str
    status: int


def run_command(desktop: Desktop, command: str) -> Result:
    """Run one bash command line on ``desktop``, non-interactively, in the home folder.

    Failing commands are data (a status and stderr), never an exception; only the work
    budget (`drums_gym.local.budget.BudgetExceeded`) propagates: the unit of work (a setup
    step, a getter) stops there and the host reports it as cut."""
    if desktop.sandbox is not None:
        done = desktop.sandbox.run(command)
        touched = getattr(desktop.fs, "touched", None)
        if touched is not None:
            touched()  # the program may have changed the tree
        return Result(done.stdout, done.stderr, done.status)
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


def command_names(source: str) -> list[str]:
    """The command names a bash source runs (``sudo``'s command included), in order, once
    each; empty when it does not parse.

    >>> command_names("sudo -S chmod 644 f && getent passwd u | cut -d: -f6")
    ['chmod', 'getent', 'cut']
    """
    out: list[str] = []
    for name in _seq_commands(source):
        if name not in out:
            out.append(name)
    return out


def missing_commands(command: str) -> list[str]:
    """The commands of the line ``command`` that the simulated bash does not have (in
    order, once each); paths such as ``./setup.sh`` are scripts, never missing.

    >>> missing_commands("dpkg -l | grep mahjongg; echo $(lsb_release -a) && sudo -S apt-mark x")
    ['dpkg', 'lsb_release', 'apt-mark']
    """
    out: list[str] = []
    for name in _seq_commands(command):
        if "/" in name or name in standard_commands() or name in out:
            continue
        out.append(name)
    return out

"""The one place task files reach the simulated shell: `run_command`.

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
from collections.abc import Callable
from dataclasses import dataclass

from ..desktop import Desktop
from ..desktop.bash.context import IO
from ..desktop.bash.interp import CommandLimit, ExitShell, Interpreter
from ..desktop.bash.state import ShellState
from ..desktop.fs import HOME

__all__ = ["BRIDGED", "Result", "run_command"]


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
    budget (`drums_gym.local.budget.BudgetExceeded`) propagates."""
    bridged = _bridged(desktop, command)
    if bridged is not None:
        return bridged
    state = ShellState(desktop.fs)
    out: list[str] = []
    err: list[str] = []
    try:
        status = Interpreter(state).run_source(command, IO("", out, err, False))
    except ExitShell as exc:
        status = exc.status
    except CommandLimit:
        err.append("bash: too many commands in one line; interrupted\n")
        status = 130
    return Result("".join(out), "".join(err), status)

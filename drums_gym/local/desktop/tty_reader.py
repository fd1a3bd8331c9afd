"""Whether a process waits for the keyboard: asleep in a ``read`` of a terminal.

A Terminal's settle (`terminal_pty`) asks it of the pty's foreground process group:
``sudo`` at its password prompt, ``cat``, ``nano``, bash's own ``read`` sleep in ``read(2)``
on the tty until a key comes, and readline (bash's prompts, the secondary ``> `` included,
``python3``'s ``>>>``) in a ``select`` over standard input alone; the action that started
them has finished its part. Anything else (a computing program, a ``sleep``, a program
waiting on a pipe or in ``poll``) is still at work, as far as the caller can tell. Read
from ``/proc/<pid>/syscall`` (the syscall a sleeping process is in and its arguments) and
the descriptor's target; where the kernel does not show them (another user's process, no
ptrace access) the answer is False: the caller then waits as for a running program.

>>> waits_for_keys(os.getpid())  # this process is running, not reading
False
"""

from __future__ import annotations

import os
import platform

__all__ = ["waits_for_keys"]

_MACHINE = platform.machine().lower()
#: ``read``'s syscall number, and those of ``select``/``pselect6``, on the machines the
#: sandbox runs on
_READ = {"x86_64": 0, "amd64": 0, "aarch64": 63, "arm64": 63}.get(_MACHINE)
_SELECT = {"x86_64": (23, 270), "amd64": (23, 270), "aarch64": (72,), "arm64": (72,)}.get(
    _MACHINE, ())
_TERMINALS = ("/dev/pts/", "/dev/tty")


def _is_terminal(pid: int, fd: int) -> bool:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}").startswith(_TERMINALS)
    except OSError:
        return False


def waits_for_keys(pid: int) -> bool:
    """Is process ``pid`` asleep reading a terminal: in ``read`` of one, or in a
    ``select`` over standard input alone (readline's wait: bash's prompt, python3's) with
    standard input a terminal? False when it is not or when the kernel will not say."""
    try:
        with open(f"/proc/{pid}/syscall", encoding="ascii") as f:
            fields = f.read().split()
    except OSError:
        return False
    if len(fields) < 2 or not fields[0].isdigit():
        return False  # "running", or no syscall
    try:
        number, first = int(fields[0]), int(fields[1], 16)
    except ValueError:
        return False
    if number == _READ:
        return _is_terminal(pid, first)
    if number in _SELECT:  # nfds == 1: the set can only hold descriptor 0
        return first == 1 and _is_terminal(pid, 0)
    return False

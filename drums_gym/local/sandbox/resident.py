"""`Resident`: a long-lived program of a desktop's sandbox, talked to over a pipe each way.

`Sandbox.resident` starts one by name the first time it is asked for, and again when the
one it had has ended (a crash, or a kill after its work was cut); `Sandbox.close` ends it
with the desktop. The program runs as the user, started by the sandbox's broker like the
desktop's other programs (same namespaces, seccomp filter, cgroup and rlimits), with the
pipes as its stdin and stdout and /dev/null as its stderr. A fork's sandbox starts with
none: a resident program is never copied.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sandbox import Process, Sandbox

__all__ = ["Resident"]


def _close_fds(fds: list[int]) -> None:
    while fds:
        fd = fds.pop()
        if fd >= 0:
            os.close(fd)


class Resident:
    """A running resident program: ``to_fd`` writes its stdin, ``from_fd`` reads its
    stdout (both the owner's ends); `close` kills its process group and closes them."""

    def __init__(self, proc: Process, to_fd: int, from_fd: int) -> None:
        self.proc, self.to_fd, self.from_fd = proc, to_fd, from_fd
        self._fds = [to_fd, from_fd]
        self._finalizer = weakref.finalize(self, _close_fds, self._fds)

    @classmethod
    def start(cls, box: Sandbox, argv: Sequence[str]) -> Resident:
        """Start ``argv`` in ``box`` with a pipe each way (raises `SandboxError`)."""
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            proc = box.spawn(argv, (in_r, out_w, null))
        except BaseException:
            os.close(in_w)
            os.close(out_r)
            raise
        finally:
            for fd in (in_r, out_w, null):
                os.close(fd)
        return cls(proc, in_w, out_r)

    @property
    def alive(self) -> bool:
        """Whether the program is still running and its pipes open."""
        return bool(self._fds) and self.proc.poll() is None

    def close(self) -> None:
        """Kill the program's process group and wait until it is gone (bounded: what it
        forked no longer counts against the desktop's limits), then close the owner's ends
        of the pipes (idempotent)."""
        self.proc.stop()
        self._finalizer()

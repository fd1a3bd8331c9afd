"""The zygote: a process that imported the simulator once and forks desktop workers.

Started by the host (:mod:`.pool`) as ``python -m drums_gym.local.workers.zygote FD``, it
warms the simulator (imports, fonts, one rendered desktop) so that every worker it forks
shares those pages copy-on-write and starts in milliseconds. It is the sub-reaper of its
workers (a fork child of a worker is re-parented to it) and reaps them as they end. It
serves one request, ``("spawn", WorkerLimits)``, answered with the new worker's socket;
when the host's end closes (the host stopped or died) it exits, and the kernel ends its
workers with it (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import socket
import sys
import time

__all__ = ["main"]

_PR_SET_CHILD_SUBREAPER = 36
#: how long the zygote, its host gone, waits for the workers it killed to be gone
_END_WAIT_S = 5.0


def _warm() -> None:
    from ..desktop import Desktop
    from ..sandbox.bwrap import bwrap_path
    from ..sandbox.tree import template

    desktop = Desktop(seed=0)
    desktop.render()
    desktop.accessibility()
    if bwrap_path() is not None:  # the desktops' template tree, which every worker copies
        with contextlib.suppress(OSError):  # (not root: no sandbox, no tree to copy)
            template()


def _exit() -> None:
    """Exit once the host is gone: first kill the workers still alive (a host killed hard
    ended none of them; each is a child of this process, a worker's orphans included, as
    their sub-reaper), wait until they are gone (bounded), and remove their folders of
    trees and this process's (the template), which no one else would."""
    from ..sandbox.tree import remove_tree, tree_base

    kids = _children()
    for pid in kids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + _END_WAIT_S
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in kids):
        time.sleep(0.01)  # SIGCHLD is ignored: the kernel reaps them as they end
    for pid in (*kids, os.getpid()):
        remove_tree(tree_base(pid))
    os._exit(0)


def _children() -> list[int]:
    """This process's children (Linux's /proc; elsewhere none are known)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as f:
                found += [int(pid) for pid in f.read().split()]
    return found


def _subreaper() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def main(fd: int) -> None:
    """Serve spawn requests on the socket ``fd`` until the host closes it."""
    from . import rpc
    from .station import Station
    from .worker import apply_limits, prctl_parent_death, serve

    control = socket.socket(fileno=fd)
    _warm()
    gc.collect()
    gc.freeze()  # the workers share these pages: keep their collectors off them
    _subreaper()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped as they end
    me = os.getpid()
    try:
        rpc.send(control, ("ready", me))
    except rpc.Lost:  # the host went while we warmed up
        _exit()
    while True:
        try:
            (op, limits), _ = rpc.recv(control, trusted=True)
        except rpc.Lost:
            _exit()
        if op != "spawn":
            continue
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            control.close()
            ours.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            prctl_parent_death()
            if os.getppid() != me:
                os._exit(1)
            apply_limits(limits)
            serve(theirs, Station(limits.windows), me)
        theirs.close()
        try:
            rpc.send(control, ("spawned", pid), [ours.fileno()])
        except rpc.Lost:
            _exit()
        finally:
            ours.close()


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(int(sys.argv[1]))

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

import gc
import os
import signal
import socket
import sys

__all__ = ["main"]

_PR_SET_CHILD_SUBREAPER = 36


def _warm() -> None:
    from ..desktop import Desktop

    desktop = Desktop(seed=0)
    desktop.render()
    desktop.accessibility()


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
        os._exit(0)
    while True:
        try:
            (op, limits), _ = rpc.recv(control, trusted=True)
        except rpc.Lost:
            os._exit(0)
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
            os._exit(0)
        finally:
            ours.close()


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(int(sys.argv[1]))

"""A desktop worker's side: the loop that serves one :class:`Station` over its socket.

Each request is ``(op, args, limits)``: the station's method ``op`` runs under a budget of
``limits`` when given (:mod:`drums_gym.local.budget`), and the reply is ``("ok", value)``,
``("action_error", message, construct, line)`` or ``("bug", traceback)``. ``fork`` makes
``n`` copies of this worker (copy-on-write, ``os.fork``), each handed back as a socket;
every copy is re-parented to the zygote, so a fork child outlives its parent, and takes
its own copy of the desktop (``forked``: its files, a sandbox of its own) when the host asks,
once the host has put it in its own cgroups, so the copy is charged to it. The loop
ends when the host closes its end or sends SIGTERM (the desktop was deleted, the host
stops): the station is closed first, so the desktop's sandbox and files go with it. The
kernel ends a worker whose zygote died (``PR_SET_PDEATHSIG``). Out of memory, the worker
exits with :data:`MEMORY_EXIT` rather than answer from a broken heap.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import socket
import sys
import traceback
from dataclasses import dataclass
from typing import Any

from ...actions import ActionError
from ..budget import Budget, running
from ..sandbox.tree import tree_base
from . import rpc
from .station import Station

__all__ = ["MEMORY_EXIT", "WorkerLimits", "prctl_parent_death", "serve"]

MEMORY_EXIT = 70
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class WorkerLimits:
    """The limits a worker applies to itself (the cgroup ones are the host's to set)."""

    memory_bytes: int
    files: int
    windows: int
    rlimit_memory: bool  # no writable cgroup: cap the address space instead


def prctl_parent_death() -> None:
    """Be killed when the parent (the zygote) dies (Linux; elsewhere socket EOF alone)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def apply_limits(limits: WorkerLimits) -> None:
    """The rlimits of a new worker: open files, no core dumps, and (fallback) memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.files, limits.files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.rlimit_memory:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))


class _Terminated(BaseException):
    """SIGTERM: the host ended this desktop (the work in progress stops where it is)."""


def _on_term(signum: int, frame: Any) -> None:
    raise _Terminated


def _handle(station: Station, op: str, args: tuple[Any, ...], limits: Any) -> Any:
    method = getattr(station, op)
    if limits is None:
        return method(*args)
    with running(Budget(limits)):
        return method(*args)


def serve(sock: socket.socket, station: Station, zygote_pid: int) -> None:
    """Answer the host until it closes the socket; never returns (``os._exit``)."""
    code = 0
    try:
        signal.signal(signal.SIGTERM, _on_term)
        rpc.send(sock, ("hello", os.getpid()))
        while True:
            try:
                (op, args, limits), _ = rpc.recv(sock, trusted=True)
            except rpc.Lost:
                break
            if op == "fork":
                _fork(sock, station, int(args[0]), zygote_pid)
                continue
            if op == "forked":  # a fork child, now in its own cgroups, takes its copy
                args = (sock.fileno(),)
            try:
                reply: tuple[Any, ...] = ("ok", _handle(station, op, args, limits))
            except ActionError as exc:
                reply = ("action_error", str(exc), exc.construct, exc.lineno)
            except MemoryError:
                code = MEMORY_EXIT
                break
            except Exception:  # a simulator bug: the host answers it as a logged 500
                reply = ("bug", traceback.format_exc(limit=20))
            try:
                rpc.send(sock, reply)
            except rpc.Lost:
                break
    except MemoryError:
        code = MEMORY_EXIT
    except _Terminated:
        pass
    finally:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # closing is not interrupted
            station.close()
            with contextlib.suppress(OSError):  # its folder of trees, now empty (the host
                os.rmdir(tree_base(os.getpid()))  # may stop before it would release it)
        finally:
            os._exit(code)


def _fork(sock: socket.socket, station: Station, n: int, zygote_pid: int) -> None:
    """Make ``n`` copies of this worker; reply with their sockets (pids come in their hello).

    One middle process forks the ``n`` copies and exits, so each is re-parented to the
    zygote (its sub-reaper); a copy waits for that on a pipe the middle holds open."""
    gc.freeze()  # the heap is shared with the copies: keep the collector off its pages
    pairs = [socket.socketpair() for _ in range(n)]
    gate_r, gate_w = os.pipe()
    middle = os.fork()
    if middle == 0:  # never returns: this process must not run the parent's loop
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            sock.close()
            me = os.getpid()
            for i in range(n):
                if os.fork() == 0:
                    os.close(gate_w)
                    for j, (ours, theirs) in enumerate(pairs):
                        ours.close()
                        if j != i:
                            theirs.close()
                    _become_child(pairs[i][1], station, me, zygote_pid, gate_r)
        finally:
            os._exit(0)
    os.close(gate_r)
    os.close(gate_w)
    os.waitpid(middle, 0)
    for _, theirs in pairs:
        theirs.close()
    try:
        rpc.send(sock, ("ok", n), [ours.fileno() for ours, _ in pairs])
    finally:
        for ours, _ in pairs:
            ours.close()


def _become_child(
    sock: socket.socket, station: Station, middle: int, zygote_pid: int, gate: int
) -> None:
    try:
        _await_adoption(sock, station, middle, zygote_pid, gate)
    except BaseException:
        os._exit(1)  # never unwind into the parent's loop (it would close the parent's desktop)
    serve(sock, station, zygote_pid)


def _await_adoption(
    sock: socket.socket, station: Station, middle: int, zygote_pid: int, gate: int
) -> None:
    os.read(gate, 1)  # EOF once the middle process exited
    os.close(gate)
    while os.getppid() == middle:  # its exit is re-parenting us
        os.sched_yield()
    prctl_parent_death()
    if os.getppid() != zygote_pid:  # not adopted by the zygote: it is gone, so are we
        os._exit(1)

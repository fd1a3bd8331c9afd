"""The host's side of its desktop workers: the zygote, worker handles, and the pool.

:class:`Zygote` is the fork server (one per host process, like the standard library's
``forkserver``; started on first use, ended when the last host using it closes).
:class:`Worker` is one worker seen from the host: :meth:`Worker.call` sends a request and
waits for the reply until a deadline, and at the deadline kills the worker (the watchdog:
the host never trusts the work to stop itself). :class:`Pool` is one host's workers: it
spawns them from the zygote into their OS limits (:mod:`.confine`), forks them, and ends
them all on :meth:`Pool.close`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio.to_thread

from ...actions import ActionError
from ..budget import Limits
from ..sandbox.limits import remove_cgroups_of, remove_orphaned_cgroups
from ..sandbox.tree import remove_tree, tree_base
from ..within import within
from . import rpc
from .confine import Cell, Confinement
from .worker import WorkerLimits

__all__ = ["Pool", "Worker", "WorkerLost", "WorkerTimeout", "Zygote", "zygote"]

log = logging.getLogger("drums_gym.local")

#: how long the zygote may take to import and warm the simulator
ZYGOTE_START_S = 60.0
#: how long a spawn or a fork may take
SPAWN_S = 30.0
#: how long an ended worker has to close its desktop before it is killed
END_GRACE_S = 2.0


class WorkerLost(Exception):
    """The worker died or was killed (``cause``: what the host knows of why)."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"the desktop's worker is gone ({cause})")
        self.cause = cause


class WorkerTimeout(WorkerLost):
    """The worker did not answer before its deadline and was killed by the host."""


class WorkerBug(RuntimeError):
    """The simulator raised in the worker (the traceback is the message)."""


class Zygote:
    """The fork server: a ``python -m drums_gym.local.workers.zygote`` child process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._users = 0
        self.pid: int | None = None

    def acquire(self) -> Zygote:
        """One more user (a host); the zygote starts in the background if it is not up."""
        with self._lock:
            self._users += 1
            if self._proc is None or self._proc.poll() is not None:
                self._start()
        return self

    def release(self) -> None:
        """One user fewer; the last one ends the zygote."""
        with self._lock:
            self._users -= 1
            if self._users <= 0:
                self._users = 0
                self._stop()

    def _start(self) -> None:
        if self._proc is not None:  # one that died (a crash, a kill): its template tree
            remove_tree(tree_base(self._proc.pid))
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "drums_gym.local.workers.zygote", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        self._sock = ours
        self.pid = None  # known once it says "ready"

    def _stop(self) -> None:
        if self._sock is not None:
            self._sock.close()  # EOF: the zygote exits, and its workers with it
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            remove_tree(tree_base(self._proc.pid))  # its template tree, if it was killed
        self._proc = self._sock = None
        self.pid = None

    def spawn(self, limits: WorkerLimits) -> socket.socket:
        """A new worker's socket (its hello, with its pid, is the first message on it)."""
        with self._lock:
            if self._sock is None or self._proc is None or self._proc.poll() is not None:
                self._start()
            sock = self._sock
            assert sock is not None
            try:
                if self.pid is None:
                    (_, pid), _ = rpc.recv(sock, time.monotonic() + ZYGOTE_START_S)
                    self.pid = pid
                rpc.send(sock, ("spawn", limits))
                _, fds = rpc.recv(sock, time.monotonic() + SPAWN_S)
            except (rpc.Lost, rpc.Deadline) as exc:
                self._stop()
                raise WorkerLost(f"the zygote did not spawn a worker: {exc}") from None
        if len(fds) != 1:
            raise WorkerLost(f"the zygote answered {len(fds)} sockets, not 1")
        return socket.socket(fileno=fds[0])


_zygote = Zygote()


def _result(reply: Any) -> Any:
    """What a worker's reply means: its value, or the ActionError / WorkerBug it raised."""
    kind = reply[0]
    if kind == "ok":
        return reply[1]
    if kind == "action_error":
        raise ActionError(reply[1], reply[2], reply[3])
    raise WorkerBug(f"the desktop's worker raised:\n{reply[1]}")


def _retrieved(exchange: asyncio.Future[Any]) -> None:
    """(an exchange's callback) Its outcome is read, also when no request awaits it any
    more, so a failure of a cancelled request is not reported as never retrieved."""
    if not exchange.cancelled():
        exchange.exception()


def zygote() -> Zygote:
    """This process's zygote (shared by its hosts)."""
    return _zygote


class Worker:
    """One desktop worker seen from the host."""

    def __init__(self, sock: socket.socket, pid: int, cell: Cell, pool: Pool) -> None:
        self.sock, self.pid, self.cell, self.pool = sock, pid, cell, pool
        self.killed: str | None = None  # why the host killed (or ended) it
        self.ended_at: float | None = None  # when `end` asked it to exit
        self._calling = threading.Lock()  # held while a request is out (the socket's user)
        self._pidfd: int | None = None
        self._pidfd_lock = threading.Lock()  # `close` closes it while `exited` may wait on it
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(pid)

    def __repr__(self) -> str:
        return f"Worker(pid={self.pid}{', killed' if self.killed else ''})"

    def call(
        self, op: str, args: tuple[Any, ...] = (), limits: Limits | None = None,
        deadline_s: float | None = None,
    ) -> Any:
        """Run ``op`` in the worker; raises :class:`WorkerTimeout` at the deadline (the
        worker is then killed), :class:`WorkerLost` if it died, ActionError as raised."""
        if self.killed is not None:
            raise WorkerLost(self.killed)
        deadline = None if deadline_s is None else time.monotonic() + deadline_s
        with self._failures(op, deadline_s), self._calling:
            if self.killed is not None:
                raise WorkerLost(self.killed)
            rpc.send(self.sock, (op, args, limits))
            reply, fds = rpc.recv(self.sock, deadline, self.pool.max_reply_bytes)
        if op == "fork":
            return fds
        return _result(reply)

    async def acall(
        self, op: str, args: tuple[Any, ...] = (), limits: Limits | None = None,
        deadline_s: float | None = None,
    ) -> Any:
        """:meth:`call` on the running event loop: no thread waits on the worker, and the
        deadline is the same watchdog. The exchange is shielded: a request cancelled
        meanwhile (the host stopping) still reads the reply it asked for, so the socket's
        next reply is never an earlier request's. Not for ``fork`` (its sockets come as
        descriptors)."""
        if self.killed is not None:
            raise WorkerLost(self.killed)
        if not self._calling.acquire(blocking=False):  # a thread has it: wait as threads do
            return await anyio.to_thread.run_sync(self.call, op, args, limits, deadline_s)
        exchange = asyncio.ensure_future(self._exchange(op, args, limits, deadline_s))
        exchange.add_done_callback(_retrieved)
        return await asyncio.shield(exchange)

    async def _exchange(
        self, op: str, args: tuple[Any, ...], limits: Limits | None, deadline_s: float | None
    ) -> Any:
        """(holding ``_calling``, which it releases) One request and its reply."""
        try:
            with self._failures(op, deadline_s):
                if self.killed is not None:
                    raise WorkerLost(self.killed)
                self.sock.setblocking(False)
                try:
                    reply = await within(self._ask(op, args, limits), deadline_s)
                finally:
                    with contextlib.suppress(OSError):
                        self.sock.setblocking(True)
        finally:
            self._calling.release()
        return _result(reply)

    @contextlib.contextmanager
    def _failures(self, op: str, deadline_s: float | None) -> Iterator[None]:
        """An exchange's failures as the host reads them (both ways of waiting): past the
        deadline, or a reply over the cap, the worker is killed."""
        try:
            yield
        except (rpc.Deadline, asyncio.TimeoutError):
            self.kill(f"{op} past its {deadline_s:g} s deadline")
            raise WorkerTimeout(self.killed or "deadline") from None
        except rpc.TooLarge as exc:
            self.kill(f"{op} reply over the limit ({exc})")
            raise WorkerLost(self.killed or "reply too large") from None
        except rpc.Lost:
            raise WorkerLost(self.cause()) from None

    async def _ask(self, op: str, args: tuple[Any, ...], limits: Limits | None) -> Any:
        await rpc.asend(self.sock, (op, args, limits))
        return await rpc.arecv(self.sock, self.pool.max_reply_bytes)

    def cause(self) -> str:
        """Why the worker is gone, as far as the host can tell."""
        if self.killed is not None:
            return self.killed
        if self.cell.oom_killed():
            return "memory limit"
        return "the worker exited"

    def kill(self, reason: str) -> None:
        """SIGKILL the worker (thread-safe; a call waiting on it ends with WorkerLost)."""
        if self.killed is None:
            self.killed = reason
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        try:
            with self._pidfd_lock:  # not a number `close` freed (another worker's, reused)
                if self._pidfd is not None:
                    signal.pidfd_send_signal(self._pidfd, sig)
                    return
            os.kill(self.pid, sig)
        except (ProcessLookupError, OSError):
            pass

    def end(self, reason: str) -> None:
        """End the worker: SIGTERM (it closes its desktop, its sandbox's programs and files
        with it, and exits), SIGKILL at the pool's :meth:`Pool.sweep` past
        :data:`END_GRACE_S`; the remains (socket, cgroups) are the sweep's to release.
        Cheap enough to call under the host lock; a call waiting on it ends with WorkerLost."""
        if self.killed is None:
            self.killed = reason
        self.ended_at = time.monotonic()
        if self._calling.acquire(blocking=False):  # idle: the socket's EOF is enough
            self._calling.release()
        else:  # busy: the work stops where it is
            self._signal(signal.SIGTERM)
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # a call waiting on it returns now
        self.pool.bury(self)

    def finish(self) -> None:
        """(after `end`) Wait until the worker has exited, closing its desktop; SIGKILL it
        past :data:`END_GRACE_S`."""
        if not self.exited(END_GRACE_S):
            self.kill(self.killed or "ended")

    def exited(self, wait_s: float = 0.0) -> bool:
        """Whether the worker process is gone, waiting up to ``wait_s`` (no pidfd: assumed
        so)."""
        with self._pidfd_lock:  # a copy of our own to wait on: `close` may close the pidfd
            if self._pidfd is None:  # meanwhile (the reaper's sweep while a delete waits)
                return True
            pidfd = os.dup(self._pidfd)
        try:
            ready, _, _ = select.select([pidfd], [], [], wait_s)
        finally:
            os.close(pidfd)
        return bool(ready)

    def close(self, wait_s: float = 1.0) -> bool:
        """Release a killed worker's socket, pidfd and cgroups (its cgroups' processes
        are killed too, and its desktops' folder removed); False while a request is still
        out on it (try again later)."""
        if not self._calling.acquire(timeout=wait_s):
            return False
        try:
            if self._pidfd is not None:
                select.select([self._pidfd], [], [], wait_s)  # readable once it is gone
                with self._pidfd_lock:
                    os.close(self._pidfd)
                    self._pidfd = None
            self.sock.close()
        finally:
            self._calling.release()
        self.pool.retire(self)
        return True


def _take_copy(worker: Worker) -> Worker | WorkerLost:
    """A fork child's own copy of the desktop (`Pool.fork`), or why it failed: the child
    is then killed and released."""
    try:
        worker.call("forked", deadline_s=SPAWN_S)
        return worker
    except WorkerLost as exc:
        lost = exc
    except (WorkerBug, ActionError) as exc:
        lost = WorkerLost(f"its copy of the desktop failed: {str(exc).splitlines()[-1]}")
    worker.kill(worker.killed or lost.cause)
    worker.close()
    return lost


class Pool:
    """One host's workers, spawned from the zygote into their limits."""

    def __init__(
        self, limits: WorkerLimits, processes: int, max_reply_bytes: int,
    ) -> None:
        remove_orphaned_cgroups()  # a killed host's desktops' (its own: `Confinement`)
        self.confinement = Confinement(limits.memory_bytes, processes)
        self.limits = WorkerLimits(
            limits.memory_bytes, limits.files, limits.windows,
            rlimit_memory=self.confinement.mode != "cgroup",
        )
        self.max_reply_bytes = max_reply_bytes
        self.zygote = zygote().acquire()
        self._lock = threading.Lock()
        self._workers: set[Worker] = set()
        self._dead: list[Worker] = []  # killed, not yet released
        self._closed = False

    @property
    def isolation(self) -> str:
        """``"cgroup"`` or ``"rlimit"``: what enforces the workers' memory limit."""
        return self.confinement.mode

    def _admit(self, sock: socket.socket, workspace: str) -> Worker:
        try:
            (_, pid), _ = rpc.recv(sock, time.monotonic() + SPAWN_S)
        except (rpc.Lost, rpc.Deadline) as exc:
            sock.close()
            raise WorkerLost(f"a new worker did not say hello: {exc}") from None
        try:
            cell = self.confinement.admit(pid, workspace, "w" + secrets.token_hex(6))
        except OSError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            sock.close()
            raise
        worker = Worker(sock, pid, cell, self)
        with self._lock:
            if self._closed:
                worker.kill("the host stopped")
            self._workers.add(worker)
        return worker

    def spawn(self, workspace: str) -> Worker:
        """A fresh worker (no desktop yet) for ``workspace``."""
        return self._admit(self.zygote.spawn(self.limits), workspace)

    def fork(self, parent: Worker, n: int, workspace: str) -> list[Worker | WorkerLost]:
        """``n`` copy-on-write copies of ``parent``'s worker (its desktop as it is now), or
        for a copy that did not come up, why (it is killed, the others carry on). Raises
        WorkerLost when the parent itself failed.

        Each copy is admitted into its own cgroups before it copies the desktop's files and
        starts its sandbox (``forked``, all copies at once), so that memory is charged to
        it: charged to the parent, 8 copies of a desktop holding a 150 MB file took the
        parent past its 1 GiB limit, and the parent was lost."""
        fds = parent.call("fork", (n,), deadline_s=SPAWN_S)
        socks = [socket.socket(fileno=fd) for fd in fds]
        copying: list[concurrent.futures.Future[Worker | WorkerLost] | WorkerLost] = []
        with concurrent.futures.ThreadPoolExecutor(max(1, n)) as threads:
            for sock in socks:  # each copies as soon as it is admitted, beside the next
                try:
                    copying.append(threads.submit(_take_copy, self._admit(sock, workspace)))
                except WorkerLost as exc:
                    copying.append(exc)
                except OSError as exc:
                    copying.append(WorkerLost(str(exc)))
        out = [c if isinstance(c, WorkerLost) else c.result() for c in copying]
        for failed in out:
            if isinstance(failed, WorkerLost):
                log.warning("drums-gym: a fork child of desktop worker %d did not come up: "
                            "%s", parent.pid, failed.cause)
        return out

    def bury(self, worker: Worker) -> None:
        """A killed worker to release at the next :meth:`sweep`."""
        with self._lock:
            self._dead.append(worker)

    def sweep(self) -> None:
        """Release the ended workers that exited (SIGKILL those past their grace) and
        whose last request has ended (no lock held)."""
        with self._lock:
            dead, self._dead = self._dead, []
        now, left = time.monotonic(), []
        for worker in dead:
            if not worker.exited():
                if worker.ended_at is not None and now - worker.ended_at < END_GRACE_S:
                    left.append(worker)
                    continue
                worker.kill(worker.killed or "ended")
            if not worker.close(wait_s=0):
                left.append(worker)
        with self._lock:
            self._dead.extend(left)

    def retire(self, worker: Worker) -> None:
        with self._lock:
            self._workers.discard(worker)
        self.confinement.retire(worker.cell)
        remove_cgroups_of(worker.pid)  # a killed one's sandbox: its cgroups,
        remove_tree(tree_base(worker.pid))  # and its trees (any depth an agent nested)

    def pids(self) -> list[int]:
        """The live workers' pids (benchmarks pin them; tests look for orphans)."""
        with self._lock:
            return [w.pid for w in self._workers]

    def close(self) -> None:
        """End every worker (SIGTERM, then SIGKILL past :data:`END_GRACE_S`), then this
        host's use of the zygote (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers = list(self._workers)
        for worker in workers:
            worker.end("the host stopped")
        deadline = time.monotonic() + END_GRACE_S
        for worker in workers:
            if not worker.exited(max(0.0, deadline - time.monotonic())):
                worker.kill("the host stopped")
        with self._lock:
            dead, self._dead = self._dead, []
        for worker in dead:
            worker.close()
        self.confinement.close()
        self.zygote.release()

"""`Sandbox`: one desktop's bubblewrap sandbox, started lazily, closed by `close`.

The sandbox runs one long-lived root broker (``inside/broker.py``, by the machine's python3)
with a reduced capability set; the host asks it over a SOCK_SEQPACKET socket to start
programs (as the user, uid 1000, unless said otherwise) with the host's file descriptors
as their stdio: pipes for `run`, a pty's slave for a terminal (`spawn`). It belongs to one
desktop and assumes nothing of the process it lives in: `close` (or the garbage collector,
or the owner process's death: bwrap's ``--die-with-parent``) ends every program in it.

>>> from drums_gym.local.sandbox import Sandbox, available
>>> from drums_gym.local.sandbox.tree import new_tree, remove_tree
>>> if available():
...     tree = new_tree()
...     box = Sandbox(tree)
...     print(box.run("id -un; hostname; echo $HOME").stdout, end="")
...     box.close(); remove_tree(tree)
... else:
...     print("user\\nubuntu\\n/home/user")
user
ubuntu
/home/user
"""

from __future__ import annotations

import array
import contextlib
import copy
import json
import os
import selectors
import socket
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..budget import BudgetExceeded, charge_bytes, current
from . import seccomp
from .bwrap import CAPS, ENV, bwrap_argv, join_cgroup
from .limits import Cgroup, SandboxLimits, cgroup_name
from .resident import Resident
from .services import Handler, HostDoor

__all__ = ["Process", "Result", "Sandbox", "SandboxError"]

HOME = "/home/user"
START_TIMEOUT_S = 10.0
RUN_TIMEOUT_S = 60.0  # a command run outside any work budget
_POLL_S = 0.02
#: how long stopping a program waits for its process group to be gone (512 processes of a
#: fork bomb take 1-2 s to exit under the sandbox's CPU quota); the host's watchdog grace
#: is longer
STOP_WAIT_S = 2.0


class SandboxError(RuntimeError):
    """The sandbox could not start (bwrap's own message is in the text)."""


@dataclass(frozen=True)
class Result:
    """What a command line produced: its standard output and error, and its exit status."""

    stdout: str
    stderr: str
    status: int


class Process:
    """A program started in the sandbox: ``pid`` (in the sandbox's PID namespace), its
    exit ``status`` once known; `kill` (closing the channel) stops its process group."""

    def __init__(self, conn: socket.socket, pid: int) -> None:
        self.conn, self.pid = conn, pid
        self.status: int | None = None

    def poll(self, timeout: float = 0.0) -> int | None:
        """The exit status if the program ended (waiting up to ``timeout`` seconds)."""
        if self.status is not None or self.conn.fileno() < 0:
            return self.status
        self.conn.settimeout(timeout if timeout > 0 else 0.0)
        try:
            data = self.conn.recv(4096)
        except (BlockingIOError, TimeoutError):
            return None
        except OSError:
            data = b""
        self.status = json.loads(data).get("status", 1) if data else -1
        return self.status

    def kill(self) -> None:
        """Stop the program and its process group (the broker sees the channel close)."""
        with contextlib.suppress(OSError):
            self.conn.close()

    def stop(self, timeout: float = STOP_WAIT_S) -> int | None:
        """Stop the program and its process group and wait (up to ``timeout`` seconds)
        until none of the group is left; the exit status, or None if it did not come."""
        if self.status is None and self.conn.fileno() >= 0:
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_WR)
            self.poll(timeout)
        self.kill()
        return self.status


def _stop(proc: subprocess.Popen[bytes] | None, control: socket.socket | None,
          cgroup: Cgroup | None, door: HostDoor | None = None) -> None:
    """End a sandbox: close the owner's door and the broker's socket, kill everything in the
    cgroup but the outer bwrap (which reaps the sandbox's init, so no zombie is left to a
    machine init that may not reap), then wait for bwrap (killing it if it lingers)."""
    if door is not None:
        door.close()
    if control is not None:
        with contextlib.suppress(OSError):
            control.close()
    outer = proc.pid if proc is not None else None
    if cgroup is not None:
        cgroup.kill_all(spare=outer)
    if proc is not None:
        try:
            proc.wait(2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2.0)
    if cgroup is not None:
        cgroup.remove()


class Sandbox:
    """The sandbox of the desktop whose tree is ``tree`` (see `tree.new_tree`)."""

    def __init__(self, tree: str, limits: SandboxLimits | None = None,
                 commands: Handler | None = None) -> None:
        self.tree = tree
        self.limits = limits if limits is not None else SandboxLimits()
        #: answers the shims of the desktop's own commands (`services.HostDoor`)
        self.commands = commands
        self._door: HostDoor | None = None
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._cgroup: Cgroup | None = None
        self._finalizer: weakref.finalize | None = None
        self._closed = False
        self._residents: dict[str, Resident] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> Sandbox:
        """A fork's sandbox: not started, same limits; its owner points it at the copied
        tree (`Desktop.__deepcopy__`)."""
        new = Sandbox(self.tree, self.limits)
        memo[id(self)] = new
        new.commands = copy.deepcopy(self.commands, memo)  # bound to the copy's files
        return new

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("running" if self.running else "not started")
        return f"<Sandbox {self.tree} {state}>"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def cgroup(self) -> Cgroup | None:
        """The desktop's cgroup (None before the start, or where the machine has none)."""
        return self._cgroup

    # -- life --------------------------------------------------------------
    def start(self) -> None:
        """Start bwrap and the broker (done by the first `spawn`; idempotent)."""
        with self._lock:
            if self._closed:
                raise SandboxError("the sandbox was closed")
            if self.running:
                return
            _stop(self._proc, self._control, None)
            self._proc = self._control = None
            if self._cgroup is None:
                self._cgroup = Cgroup.create(cgroup_name(os.getpid()), self.limits)
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            spec = json.dumps({"rlimits": self.limits.rlimits(self._cgroup is not None),
                               "control_fd": theirs.fileno()})
            inner = ["/usr/bin/python3", "-I", "-S", "/run/drums/broker.py", spec]
            if self.commands is not None and self._door is None:
                self._door = HostDoor(self._sock_path(), self.commands)
            argv = bwrap_argv(self.tree, inner, caps=CAPS,
                              host_sock=self._door.path if self._door else None)
            argv = join_cgroup(self._cgroup.procs if self._cgroup else (), argv)
            # bwrap reads its options from a pipe (the sandbox's /proc shows no host path)
            # and the seccomp filter from another; it hands the control socket down to the
            # broker, which is told its number
            argv, pipes = _with_pipes(argv)
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    pass_fds=(theirs.fileno(), *pipes), start_new_session=True)
            finally:
                theirs.close()
                for fd in pipes:
                    os.close(fd)
            assert proc.stdout is not None
            ready = _read_line(proc.stdout, START_TIMEOUT_S)
            if ready != b"ready\n":
                err = b""
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    _, err = proc.communicate(timeout=2.0)
                ours.close()
                raise SandboxError("bwrap did not start the sandbox: "
                                   + (err.decode(errors="replace").strip() or "no output"))
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            self._proc, self._control = proc, ours
            if self._finalizer is not None:
                self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _stop, proc, ours, self._cgroup,
                                               self._door)

    def resident(self, name: str, argv: Sequence[str]) -> Resident:
        """The resident program ``name`` (see `resident`), started as ``argv`` when there is
        none running (raises `SandboxError`). Its user serialises its use."""
        current = self._residents.get(name)
        if current is not None and current.alive:
            return current
        if current is not None:
            current.close()
        new = self._residents[name] = Resident.start(self, argv)
        return new

    def close(self) -> None:
        """Stop every program of the sandbox and remove its cgroup (idempotent)."""
        for program in list(self._residents.values()):
            program.close()
        self._residents.clear()
        with self._lock:
            self._closed = True
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
            _stop(self._proc, self._control, self._cgroup, self._door)
            self._proc = self._control = self._cgroup = self._door = None

    def _sock_path(self) -> str:
        return self.tree.rstrip("/") + ".sock"  # beside the tree, in the 0700 base folder

    # -- programs ----------------------------------------------------------
    def spawn(self, argv: Sequence[str], stdio: tuple[int, int, int], *, uid: int = 1000,
              cwd: str = HOME, env: Mapping[str, str] | None = None,
              tty: bool = False, sudo_cached: bool = False) -> Process:
        """Start ``argv`` in the sandbox with ``stdio`` (host fds, duplicated to it) as its
        fds 0, 1, 2, in a new session (``tty``: fd 0 becomes its controlling terminal;
        ``sudo_cached``: sudo in that session needs no password, its credential cached)."""
        proc, _ = self._request(argv, list(stdio), uid=uid, cwd=cwd, env=env, tty=tty,
                                sudo_cached=sudo_cached)
        return proc

    def spawn_pty(self, argv: Sequence[str], size: tuple[int, int], *, uid: int = 1000,
                  cwd: str = HOME, env: Mapping[str, str] | None = None
                  ) -> tuple[Process, int]:
        """Start ``argv`` on a new pty of the sandbox (``size``: rows, columns), as its
        controlling terminal; returns the process and the pty's master fd (the caller's)."""
        proc, master = self._request(argv, [], uid=uid, cwd=cwd, env=env, tty=True,
                                     pty=size)
        if master is None:
            proc.kill()
            raise SandboxError("the broker sent no pty")
        return proc, master

    def _request(self, argv: Sequence[str], stdio: list[int], *, uid: int, cwd: str,
                 env: Mapping[str, str] | None, tty: bool,
                 pty: tuple[int, int] | None = None,
                 sudo_cached: bool = False) -> tuple[Process, int | None]:
        if any("\0" in a for a in argv) or any("\0" in f"{k}{v}" for k, v in (env or {}).items()):
            raise ValueError("a program's argv and environment cannot hold a NUL byte")
        self.start()
        mine, broker = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        req: dict[str, object] = {"argv": list(argv), "env": dict(ENV if env is None else env),
                                  "cwd": cwd, "uid": uid, "tty": tty}
        if pty is not None:
            req["pty"], req["size"] = True, list(pty)
        if sudo_cached:
            req["sudo_cached"] = True
        fds = array.array("i", [broker.fileno(), *stdio])
        control = self._control
        if control is None:
            raise SandboxError("the sandbox is not running")
        try:
            control.sendmsg([json.dumps(req).encode()],
                            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        except OSError as exc:
            mine.close()
            raise SandboxError(f"the sandbox's broker is gone: {exc}") from None
        finally:
            broker.close()
        mine.settimeout(START_TIMEOUT_S)
        got = array.array("i")
        try:
            data, anc, _, _ = mine.recvmsg(4096, socket.CMSG_LEN(4 * got.itemsize))
        except TimeoutError:
            data, anc = b"", []
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                got.frombytes(raw[: len(raw) - len(raw) % got.itemsize])
        if not data:
            mine.close()
            for fd in got:
                os.close(fd)
            raise SandboxError(f"the broker did not start {argv[0]!r}")
        return Process(mine, int(json.loads(data)["pid"])), (got[0] if got else None)

    def run(self, command: str, cwd: str = HOME, uid: int = 1000, stdin: bytes = b"",
            env: Mapping[str, str] | None = None, sudo_cached: bool = False) -> Result:
        """Run one bash command line non-interactively; failing commands are data.

        Output and time are charged to the work budget in force (or bounded by
        `RUN_TIMEOUT_S` outside one); when it runs out the command's process group is
        killed and `BudgetExceeded` propagates."""
        if "\0" in command:  # bash cannot be given one: as a real shell refuses the line
            return Result("", "bash: the command line holds a NUL byte\n", 2)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            proc = self.spawn(["/bin/bash", "-c", command], (in_r, out_w, err_w), uid=uid,
                              cwd=cwd, env=env, sudo_cached=sudo_cached)
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        try:
            with contextlib.suppress(BrokenPipeError):
                if stdin:
                    os.write(in_w, stdin[:65536])
            os.close(in_w)
            in_w = -1
            out, err = self._collect(proc, out_r, err_r)
        finally:
            proc.kill()
            for fd in (in_w, out_r, err_r):
                if fd >= 0:
                    os.close(fd)
        status = proc.status if proc.status is not None and proc.status >= 0 else 1
        return Result(out.decode(errors="replace"), err.decode(errors="replace"), status)

    def _collect(self, proc: Process, out_r: int, err_r: int) -> tuple[bytes, bytes]:
        bufs: dict[int, bytearray] = {out_r: bytearray(), err_r: bytearray()}
        sel = selectors.DefaultSelector()
        for fd in bufs:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        sel.register(proc.conn, selectors.EVENT_READ)
        budget = current()
        deadline = time.monotonic() + RUN_TIMEOUT_S
        open_fds = set(bufs)
        try:
            while open_fds or proc.status is None:
                if budget is not None:
                    budget.check()
                elif time.monotonic() > deadline:
                    raise BudgetExceeded("time", f"more than {RUN_TIMEOUT_S:g} s of work")
                events = sel.select(_POLL_S)
                for key, _ in events:
                    if key.fileobj is proc.conn:
                        sel.unregister(proc.conn)
                        proc.poll()
                        continue
                    fd = int(key.fd)
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        sel.unregister(fd)
                        open_fds.discard(fd)
                        continue
                    charge_bytes(len(chunk))
                    bufs[fd] += chunk
                if proc.status is not None and open_fds and not events:
                    break  # exited; what is left open belongs to a background program
        finally:
            sel.close()
        return bytes(bufs[out_r]), bytes(bufs[err_r])


def _pipe_with(data: bytes) -> int:
    """The read end of a pipe already holding ``data`` (small: within the pipe's buffer)."""
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r


def _with_pipes(argv: list[str]) -> tuple[list[str], tuple[int, ...]]:
    """``argv`` (after an optional cgroup-joining prefix, up to bwrap) with bwrap's options
    and the seccomp filter moved into pipes: ``(new argv, fds to pass)``."""
    k = next(i for i, a in enumerate(argv) if a == "--unshare-net") - 1
    head, bwrap, rest = argv[:k], argv[k], argv[k + 1:]
    filt = seccomp.program()
    fds: list[int] = []
    if filt is not None:
        fds.append(_pipe_with(filt))
        rest = ["--seccomp", str(fds[-1]), *rest]
    end = rest.index("--")
    options, command = rest[:end], rest[end:]
    fds.append(_pipe_with(b"\0".join(a.encode() for a in options) + b"\0"))
    return [*head, bwrap, "--args", str(fds[-1]), *command], tuple(fds)


def _read_line(stream: object, timeout: float) -> bytes:
    """One line from a pipe, or b"" after ``timeout`` seconds."""
    fd = stream.fileno()  # type: ignore[attr-defined]
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    out = b""
    end = time.monotonic() + timeout
    try:
        while not out.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0 or not sel.select(left):
                return out
            chunk = os.read(fd, 1)
            if not chunk:
                return out
            out += chunk
    finally:
        sel.close()
    return out

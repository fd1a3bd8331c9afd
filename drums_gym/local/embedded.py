"""The embedded local host: what `drums_gym.client.connect()` talks to when no DRUMS_URL is set.

It is a child process of the user's program (``python -m drums_gym.local.child``), never a
thread in it: its own interpreter lock, its own heap, and a crash of either side is not a
crash of the other. :class:`EmbeddedHost` is one such child: started on a free loopback
port, ready when the child says which port it listens on (a line on its stdout, written
once it listens: nothing races for the port), and tied to the parent's life: it stops when
the parent exits or dies, however it dies (the end of file of its stdin pipe, which only
the parent holds; and on Linux ``PR_SET_PDEATHSIG`` too). Its stderr is kept (the last
lines) for the error when it fails to start or dies, and forwarded to the
``drums_gym.local`` logger once it runs.

Because the host lives until the parent process is gone, clients still delete what they own
at interpreter exit (their finalizers run while it serves), in any order of atexit hooks.

``ensure_embedded_host()`` is the process's shared host, started on first use (one per
process: a forked process starts its own). The child reads its environment:

- ``DRUMS_LOCAL_FAULTS``: a fault spec (see :mod:`drums_gym.local.faults`), e.g.
  ``gate_fail=0.1,latency_ms=50``.
- ``DRUMS_LOCAL_SEED``: the seed of its fault rolls (default 0).
- ``DRUMS_LOCAL_TASKS``: users' OSWorld task files and folders, added to its catalog.
- every limit of :data:`drums_gym.local.config.KNOBS`, e.g. ``DRUMS_LOCAL_LIVE_DESKTOPS``,
  ``DRUMS_LOCAL_GATE_DELAY``, ``DRUMS_LOCAL_FORK_LIMIT``, ``DRUMS_LOCAL_ACTION_SECONDS``,
  ... (the ``drums-gym serve`` flag of the same name sets it for a served host).

The environment is read when the host starts; later changes need a new host
(``EmbeddedHost().start()``, or an explicit :class:`drums_gym.local.LocalHost`).
"""

from __future__ import annotations

import collections
import importlib.util
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from . import SERVER_STACK
from .child import ENV_PARENT, PORT_LINE

__all__ = [
    "EmbeddedHost",
    "EmbeddedHostError",
    "embedded_host",
    "ensure_embedded_host",
]

log = logging.getLogger("drums_gym.local")

#: seconds a child may take to listen (generous: a loaded machine; typically < 1.5 s)
STARTUP_TIMEOUT_S = 60.0
#: seconds `stop` waits for the child to stop by itself before it is killed
STOP_TIMEOUT_S = 10.0
#: the child's stderr kept for error messages: its last lines, each cut to a length
TAIL_LINES = 40
TAIL_LINE_CHARS = 1000
#: the folder holding the ``drums_gym`` package the parent runs: the child imports the same
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class EmbeddedHostError(RuntimeError):
    """The embedded host did not start, or is gone; the message ends with its stderr."""


def _spawn(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """`Popen` from a thread that lives as long as the process: Linux's parent-death signal
    follows the *thread* that forked the child, so a worker thread that ends (an async
    client's, a pool's) must not be that thread."""
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(argv, **kwargs)
    made: list[subprocess.Popen[bytes] | BaseException] = []
    ready = threading.Event()

    def spawn_and_park() -> None:
        try:
            made.append(subprocess.Popen(argv, **kwargs))
        except BaseException as exc:  # handed to the caller, raised there
            made.append(exc)
        ready.set()
        threading.Event().wait()  # parked for the process's life (a daemon thread)

    threading.Thread(target=spawn_and_park, name="drums-embedded-host", daemon=True).start()
    ready.wait()
    if isinstance(made[0], BaseException):
        raise made[0]
    return made[0]


class EmbeddedHost:
    """A local Drums host in a child process, tied to this process's life.

    >>> from drums_gym.local.embedded import EmbeddedHost
    >>> with EmbeddedHost().start() as host:             # doctest: +SKIP
    ...     print(host.url)                               # http://127.0.0.1:<free port>

    Args:
        env: the child's environment (default: this process's, with its ``DRUMS_LOCAL_*``).
        startup_timeout: seconds to wait for the child to listen.
    """

    def __init__(
        self, env: Mapping[str, str] | None = None, *, startup_timeout: float = STARTUP_TIMEOUT_S
    ) -> None:
        self._env = dict(os.environ if env is None else env)
        self._startup_timeout = float(startup_timeout)
        self._proc: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        self._owner = os.getpid()
        self._tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._forward = False  # the child's stderr goes to the log once it serves
        self._drain: threading.Thread | None = None

    # ------------------------------------------------------------------ state
    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``; set once started."""
        if self._url is None:
            raise RuntimeError("the embedded host is not started; call start()")
        return self._url

    @property
    def pid(self) -> int | None:
        """The child's process id (None before `start`)."""
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        """Started, not stopped, and its process still runs (in the process that started it)."""
        return (
            self._proc is not None
            and self._url is not None
            and os.getpid() == self._owner
            and self._proc.poll() is None
        )

    def stderr_tail(self) -> str:
        """The child's last lines of stderr (at most `TAIL_LINES`), oldest first."""
        return "\n".join(self._tail)

    # ------------------------------------------------------------------ life
    def start(self) -> EmbeddedHost:
        """Start the child and return once it listens; `EmbeddedHostError` (with its
        stderr) if it exits first or does not listen within ``startup_timeout``."""
        if self._proc is not None:
            return self
        if not sys.executable:
            raise EmbeddedHostError("the embedded host needs a Python interpreter (sys.executable)")
        env = dict(self._env)
        env[ENV_PARENT] = str(os.getpid())
        path = env.get("PYTHONPATH")
        env["PYTHONPATH"] = _PACKAGE_ROOT + (os.pathsep + path if path else "")
        proc = _spawn(
            [sys.executable, "-m", "drums_gym.local.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )
        self._proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        self._drain = threading.Thread(
            target=self._drain_stderr, args=(proc.stderr,), name="drums-embedded-stderr",
            daemon=True,
        )
        self._drain.start()
        port = self._read_port(proc.stdout)
        if port is None:
            self._fail_to_start()
        self._url = f"http://127.0.0.1:{port}"
        self._forward = True
        for line in self._tail:
            log.warning("embedded host: %s", line)
        return self

    def _read_port(self, stdout: IO[bytes]) -> int | None:
        """The port of the child's announcement line, or None (it exited, or timed out)."""
        found: list[int] = []
        done = threading.Event()

        def read() -> None:
            for raw in stdout:
                line = raw.decode("utf-8", "replace").strip()
                if line.startswith(PORT_LINE) and line[len(PORT_LINE):].strip().isdigit():
                    found.append(int(line[len(PORT_LINE):]))
                    break
                self._keep(line)
            done.set()

        threading.Thread(target=read, name="drums-embedded-port", daemon=True).start()
        done.wait(self._startup_timeout)
        return found[0] if found else None

    def _fail_to_start(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            code: int | None = proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            code = None
            self.stop()
        if self._drain is not None:
            self._drain.join(timeout=5.0)  # the whole of its stderr, up to its exit
        self._proc = None
        how = (f"exited with status {code}" if code is not None
               else f"did not listen within {self._startup_timeout:g} s")
        tail = self.stderr_tail() or "(no output)"
        raise EmbeddedHostError(f"the embedded local Drums host {how}; its stderr:\n{tail}")

    def _keep(self, line: str) -> None:
        line = line[:TAIL_LINE_CHARS]
        self._tail.append(line)
        if self._forward:
            log.warning("embedded host: %s", line)

    def _drain_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._keep(raw.decode("utf-8", "replace").rstrip("\n"))

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Stop the child (idempotent): close its stdin, wait ``timeout`` seconds for it to
        stop serving, then kill it."""
        proc, self._proc, self._url = self._proc, None, None
        if proc is None or os.getpid() != self._owner:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> EmbeddedHost:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        if self._url is None:
            return "EmbeddedHost(stopped)"
        return f"EmbeddedHost({self._url}, pid {self.pid}{'' if self.alive else ', exited'})"


_lock = threading.Lock()
_shared: EmbeddedHost | None = None


def ensure_embedded_host() -> str:
    """The base URL of this process's embedded local host, starting it on first use (and
    again if it died, with a warning carrying the old one's stderr)."""
    global _shared
    with _lock:
        host = _shared
        if host is not None and not host.alive:
            if os.getpid() == host._owner:
                log.warning("drums-gym: the embedded local Drums host %s exited; starting a "
                            "new one. Its stderr:\n%s", host, host.stderr_tail())
            host = None
        if host is None:
            for module in SERVER_STACK:
                if importlib.util.find_spec(module) is None:
                    raise ModuleNotFoundError(
                        "no DRUMS_URL is set, and the embedded local Drums host needs its "
                        f"server stack ({module} is missing): pip install 'drums-gym[local]', "
                        "or set DRUMS_URL to a Drums host",
                        name=module,
                    )
            host = EmbeddedHost().start()
            _shared = host
            faults = os.environ.get("DRUMS_LOCAL_FAULTS") or "none"
            message = (f"drums-gym: no DRUMS_URL set; using the embedded local Drums host at "
                       f"{host.url} (pid {host.pid}; faults: {faults})")
            if log.isEnabledFor(logging.INFO) and logging.getLogger().handlers:
                log.info(message)
            else:
                print(message, file=sys.stderr)
        return host.url


def embedded_host() -> EmbeddedHost | None:
    """This process's shared embedded host, if one was started (for tests and diagnostics)."""
    return _shared

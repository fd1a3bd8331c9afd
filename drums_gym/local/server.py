"""Running the local host: in a background thread (embedded, tests) or in the foreground.

>>> from drums_gym.local import LocalHost
>>> with LocalHost() as server:                     # doctest: +SKIP
...     print(server.url)                            # http://127.0.0.1:<free port>
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from types import TracebackType

from .app import create_app
from .faults import Faults, FaultSpec
from .guards import guarded_http
from .host import Host, HostConfig
from .tasks import Task

__all__ = ["LocalHost", "is_loopback"]

log = logging.getLogger("drums_gym.local")

STARTUP_TIMEOUT_S = 30.0
#: an idle keep-alive connection is closed after this many seconds (uvicorn's setting)
KEEP_ALIVE_S = 30
#: the largest request head (request line and headers), bytes
MAX_HEAD_BYTES = 16 * 1024


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class LocalHost:
    """A local Drums-compatible host served over HTTP on a background thread.

    Args:
        config: limits and timings (:class:`HostConfig`).
        host: address to bind; loopback by default.
        port: port to bind; 0 picks a free one (see :attr:`url`).
        tokens: bearer tokens accepted; none means any (no token is workspace ``default``).
        faults: a fault spec string or :class:`FaultSpec` (see :mod:`drums_gym.local.faults`).
        seed: seed of the fault rolls and desktops.
        in_process: keep the desktops in this process instead of one worker process each
            (for tests that reach into a desktop's objects; no OS isolation).
    """

    def __init__(
        self,
        config: HostConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tokens: Iterable[str] = (),
        faults: FaultSpec | str | None = None,
        seed: int = 0,
        catalog: Mapping[str, Task] | None = None,
        in_process: bool = False,
    ) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an int in [0, 65535], got {port!r}")
        if not isinstance(host, str) or not host:
            raise ValueError(f"host must be an address string, got {host!r}")
        if config is not None and not isinstance(config, HostConfig):
            raise ValueError(f"config must be a HostConfig or None, got {config!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        if isinstance(tokens, (str, bytes)):
            raise ValueError("tokens must be an iterable of token strings, not one string")
        tokens = tuple(tokens)
        if not all(isinstance(t, str) and t for t in tokens):
            raise ValueError("tokens must be non-empty strings")  # never echo a token
        self.model = Host(
            config, Faults(faults, seed=seed), seed=seed, catalog=catalog, in_process=in_process
        )
        self.app = create_app(self.model, tokens)
        self.bind_host = host
        self._port = port
        self._server: object | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:PORT``); set once started."""
        if self._url is None:
            raise RuntimeError("LocalHost is not started; call start() or use it in a with block")
        return self._url

    def start(self) -> LocalHost:
        """Bind and serve on a daemon thread; returns once the host answers."""
        import uvicorn

        if self._thread is not None:
            return self
        self.model.start_workers()  # the zygote warms up while the server starts
        family = socket.AF_INET6 if ":" in self.bind_host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted connections inherit it: no Nagle delay between a reply's head and body
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((self.bind_host, self._port))
        sock.listen(2048)
        self._socket = sock
        limits = self.model.config
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            # no proxy in front: X-Forwarded-For is the client's claim, not its address
            # (and a middleware fewer on every request)
            proxy_headers=False,
            lifespan="on",
            timeout_keep_alive=KEEP_ALIVE_S,
            limit_concurrency=limits.max_connections,
            # uvloop where it is installed (the [local] extra, but for Windows)
            loop="auto",
            http=guarded_http(limits.header_timeout_s, limits.max_connections,
                              limits.max_client_connections, MAX_HEAD_BYTES),
        )
        # uvicorn (>= 0.29) installs its signal handlers only on the main thread: not here
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="drums-local-host", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)  # uvicorn exposes no start event; poll its flag with a deadline
        if not server.started:
            self.stop()
            raise RuntimeError(f"the local Drums host did not start on {self.bind_host}")
        address, bound = sock.getsockname()[:2]
        if not is_loopback(self.bind_host):
            log.warning(
                "drums-gym: the local Drums host is bound to %s, reachable beyond this "
                "machine%s; bind 127.0.0.1 to keep it local",
                self.bind_host,
                "" if self.app.state.tokens else " with no token required",
            )
        shown = f"[{address}]" if ":" in address else address
        self._url = f"http://{shown}:{bound}"
        return self

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        server, thread = self._server, self._thread
        if server is not None:
            server.should_exit = True  # type: ignore[attr-defined]
        if thread is not None:
            thread.join(timeout=STARTUP_TIMEOUT_S)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None
        self.model.close()

    def __enter__(self) -> LocalHost:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self._url if self._thread is not None else "stopped"
        return f"LocalHost({where})"

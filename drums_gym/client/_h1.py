"""An httpx transport for plain HTTP/1.1 (``http://``), its replies parsed by httptools.

The sync client's requests to a local host (``drums-gym serve``, the embedded host) go
through it when httptools is installed (the ``[local]`` extra installs it, for the host's
own parser). httpx's default transport (httpcore over h11, both pure Python) spent more
of the client's interpreter time than anything else in a vector step: about 0.3 ms of CPU
per request against 0.05 ms here, two requests per child step, every child's under one
lock. It is a plain `httpx.BaseTransport`, so `httpx.Client` does the rest (headers,
timeouts, errors) as before, and it raises httpx's own errors, so retries are unchanged.

What it does: a few idle keep-alive connections reused newest first (one per thread in
flight at most), a connection dropped when the server closed it while idle, when the reply
says ``Connection: close``, or after ``keepalive_expiry`` idle; the request's connect,
write and read timeouts; whole replies (the client streams none). No TLS, no proxy, no
HTTP/2: `use_for` says when it applies.

>>> import httpx
>>> with httpx.Client(transport=H1Transport()) as http:
...     http.get("http://127.0.0.1:9/").status_code  # nothing listens on port 9
Traceback (most recent call last):
    ...
httpx.ConnectError: [Errno 111] Connection refused
"""

from __future__ import annotations

import contextlib
import json as _json
import os
import re
import select
import socket
import struct
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import httpx

from ._request import on_loopback

__all__ = ["H1Client", "H1Transport", "available", "use_for"]

#: ``DRUMS_CLIENT_HTTP=httpx``: always httpx's default transport (httpcore)
ENV_CHOICE = "DRUMS_CLIENT_HTTP"
_CHOICES = ("auto", "httpx")
_RECV_BYTES = 1 << 18
#: a path the client writes as it is (the protocol's own paths and ids); any other (a
#: space, a percent sign, anything outside ASCII) goes through httpx's URL, which encodes it
_PLAIN_PATH = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=:@/-]*(\?[A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?")
_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_BODIED = frozenset({"POST", "PUT", "PATCH"})


def available() -> bool:
    """True when httptools is importable."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return False
    return True


def use_for(base_url: str) -> bool:
    """Whether the sync client talks to ``base_url`` through `H1Transport`: a plain
    ``http://`` URL, httptools installed, ``DRUMS_CLIENT_HTTP`` not ``httpx``, and no
    HTTP proxy in the environment for it (a loopback host never goes through one)."""
    choice = os.environ.get(ENV_CHOICE, "auto").strip().lower() or "auto"
    if choice not in _CHOICES:
        raise ValueError(f"{ENV_CHOICE} must be one of {', '.join(_CHOICES)}, got {choice!r}")
    url = httpx.URL(base_url)
    if choice == "httpx" or url.scheme != "http" or not available():
        return False
    if on_loopback(base_url):
        return True
    proxies = urllib.request.getproxies()
    return not (proxies.get("http") or proxies.get("all"))


class _Reply:
    """httptools' callbacks for one reply."""

    __slots__ = ("body", "complete", "headers", "headers_done", "keep_alive", "parser",
                 "reason")

    def __init__(self) -> None:
        self.parser: Any = None
        self.keep_alive = False
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.headers_done = False
        self.complete = False
        self.reason = b""

    def on_status(self, status: bytes) -> None:
        self.reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True
        # asked now: once the reply is complete, httptools answers False
        self.keep_alive = bool(self.parser.should_keep_alive())

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.complete = True

    def delimited(self) -> bool:
        """True when the reply says where its body ends (a length or chunks)."""
        names = {name.lower() for name, _ in self.headers}
        return b"content-length" in names or b"transfer-encoding" in names


class _Stream:
    """What ``response.extensions["network_stream"]`` offers (as httpcore's does)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def get_extra_info(self, info: str) -> Any:
        with contextlib.suppress(OSError):
            if info == "client_addr":
                return self._sock.getsockname()
            if info == "server_addr":
                return self._sock.getpeername()
            if info == "socket":
                return self._sock
        return None


#: the kernel's own timeouts on a blocking socket: no poll() before each send and recv, as
#: Python's ``settimeout`` makes (POSIX; Windows takes ``settimeout``)
_KERNEL_TIMEOUTS = sys.platform != "win32"
_TIMED_OUT = (TimeoutError, BlockingIOError)


class _Connection:
    __slots__ = ("idle_since", "origin", "sock", "timeouts")

    def __init__(self, sock: socket.socket, origin: tuple[str, int]) -> None:
        self.sock = sock
        self.origin = origin
        self.idle_since = time.monotonic()
        self.timeouts: dict[int, float | None] = {}

    def timeout(self, option: int, seconds: float | None) -> None:
        """The send (``SO_SNDTIMEO``) or receive (``SO_RCVTIMEO``) timeout; None: none."""
        if self.timeouts.get(option, -1.0) == seconds:
            return
        if not _KERNEL_TIMEOUTS:
            self.sock.settimeout(seconds)
        else:
            whole = 0.0 if seconds is None else max(seconds, 1e-3)  # 0 is no timeout
            sec, usec = divmod(round(whole * 1e6), 1_000_000)  # 39.9999996 s: 40 s, 0 us
            self.sock.setsockopt(socket.SOL_SOCKET, option, struct.pack("ll", sec, usec))
        self.timeouts[option] = seconds

    def usable(self, expiry: float) -> bool:
        """Idle, not expired, and not closed (or written to) by the server meanwhile."""
        if time.monotonic() - self.idle_since > expiry:
            return False
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def _timeouts(timeout: dict[str, float | None]) -> tuple[float | None, float | None, float | None]:
    return timeout.get("connect"), timeout.get("write"), timeout.get("read")


class _Response(httpx.Response):
    """An `httpx.Response` whose ``.request`` is made the first time it is asked for
    (building an `httpx.Request`, its URL parsed and checked, was a third of the client's
    own CPU per request, for an object a successful step never looks at)."""

    make_request: Callable[[], httpx.Request] | None = None

    @property
    def request(self) -> httpx.Request:
        if self._request is None and self.make_request is not None:
            self._request = self.make_request()
        return super().request

    @request.setter
    def request(self, value: httpx.Request) -> None:
        self._request = value

    def raise_for_status(self) -> httpx.Response:
        self.request  # noqa: B018 - made now: httpx reads it directly
        return super().raise_for_status()


class H1Transport(httpx.BaseTransport):
    """Plain HTTP/1.1 with keep-alive: at most ``max_idle`` idle connections kept (the
    newest reused first), each dropped after ``keepalive_expiry`` seconds idle."""

    def __init__(self, max_idle: int = 64, keepalive_expiry: float = 30.0) -> None:
        self._max_idle = max_idle
        self._expiry = keepalive_expiry
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol(
                f"this transport speaks plain http://, not {request.url.scheme}://",
                request=request)
        url = request.url
        lines = [request.method.encode("ascii"), b" ", url.raw_path, b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            lines += [name, b": ", value, b"\r\n"]
        lines.append(b"\r\n")
        response = self.exchange(
            (url.host, url.port or 80), b"".join(lines), request.read(), request.method,
            _timeouts(request.extensions.get("timeout", {})), lambda: request)
        response.request = request
        return response

    def exchange(
        self, origin: tuple[str, int], head: bytes, body: bytes, method: str,
        timeouts: tuple[float | None, float | None, float | None],
        request: Callable[[], httpx.Request],
    ) -> httpx.Response:
        """Send a request already in wire form (``head`` ends with its blank line) to
        ``origin`` and read its reply. ``timeouts``: connect, write, read. ``request``
        makes the `httpx.Request` an error (or the reply's ``.request``) refers to, only
        when one is asked for."""
        import httptools

        connect_s, write_s, read_s = timeouts
        conn = self._connection(origin, connect_s, request)
        try:
            self._send(conn, head, body, write_s, request)
            reply = _Reply()
            parser = reply.parser = httptools.HttpResponseParser(reply)
            head_only = method == "HEAD"
            conn.timeout(socket.SO_RCVTIMEO, read_s)
            while not (reply.complete or (head_only and reply.headers_done)):
                data = self._recv(conn, request)
                if not data:
                    if reply.headers_done and not reply.delimited():
                        break  # a body that ends with the connection
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response."
                        if not reply.headers_done else "the server closed the connection "
                        "before the end of the reply", request=request())
                try:
                    parser.feed_data(data)
                except httptools.HttpParserUpgrade:  # pragma: no cover - never asked for
                    raise httpx.RemoteProtocolError("an unexpected upgrade",
                                                    request=request()) from None
                except httptools.HttpParserError as exc:
                    raise httpx.RemoteProtocolError(f"a malformed reply: {exc}",
                                                    request=request()) from None
            keep = reply.complete and not head_only and reply.keep_alive
        except BaseException:
            conn.close()
            raise
        self._release(conn, keep)
        response = _Response(
            parser.get_status_code(),
            headers=reply.headers,
            stream=httpx.ByteStream(b"".join(reply.body)),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reply.reason.strip(),
                        "network_stream": _Stream(conn.sock)},
        )
        response.make_request = request
        return response

    def _connection(self, origin: tuple[str, int], connect_s: float | None,
                    request: Callable[[], httpx.Request]) -> _Connection:
        with self._lock:
            stale = []
            conn = None
            while self._idle:
                candidate = self._idle.pop()
                if candidate.origin == origin and candidate.usable(self._expiry):
                    conn = candidate
                    break
                stale.append(candidate)
        for old in stale:
            old.close()
        if conn is not None:
            return conn
        try:
            sock = socket.create_connection(origin, timeout=connect_s)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(str(exc) or "timed out", request=request()) from exc
        except OSError as exc:
            raise httpx.ConnectError(str(exc), request=request()) from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if _KERNEL_TIMEOUTS:
            sock.settimeout(None)  # blocking: the kernel times sends and receives
        return _Connection(sock, origin)

    @staticmethod
    def _send(conn: _Connection, head: bytes, body: bytes, write_s: float | None,
              request: Callable[[], httpx.Request]) -> None:
        conn.timeout(socket.SO_SNDTIMEO, write_s)
        try:
            if len(body) < 65536:  # one write; a large body is not copied to join it
                conn.sock.sendall(head + body)
            else:
                conn.sock.sendall(head)
                conn.sock.sendall(body)
        except _TIMED_OUT as exc:
            raise httpx.WriteTimeout(str(exc) or "timed out", request=request()) from exc
        except OSError as exc:
            raise httpx.WriteError(str(exc), request=request()) from exc

    @staticmethod
    def _recv(conn: _Connection, request: Callable[[], httpx.Request]) -> bytes:
        try:
            return conn.sock.recv(_RECV_BYTES)
        except _TIMED_OUT as exc:
            raise httpx.ReadTimeout(str(exc) or "timed out", request=request()) from exc
        except OSError as exc:
            raise httpx.ReadError(str(exc), request=request()) from exc

    def _release(self, conn: _Connection, keep: bool) -> None:
        if keep:
            conn.idle_since = time.monotonic()
            with self._lock:
                if not self._closed and len(self._idle) < self._max_idle:
                    self._idle.append(conn)
                    return
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class H1Client:
    """The part of `httpx.Client` the sync transport uses (``request``, ``close``,
    ``is_closed``), over one `H1Transport`: a base URL and default headers merged in,
    the default timeout, httpx's own `Request` and `Response`. ``httpx.Client.request``
    costs about 0.25 ms of CPU per request before the transport's own work (merging the
    URL three times over, cookie bookkeeping for a protocol that sets none, redirect and
    auth machinery the client does not use).

    >>> http = H1Client("http://127.0.0.1:9", {"user-agent": "x"}, httpx.Timeout(1.0))
    >>> http.is_closed, http.close(), http.is_closed
    (False, None, True)
    """

    def __init__(self, base_url: str, headers: dict[str, str], timeout: httpx.Timeout,
                 transport: H1Transport | None = None) -> None:
        url = httpx.URL(base_url)
        base = str(url)
        self._base = base if base.endswith("/") else base + "/"
        self._headers = dict(headers)
        self._timeout = timeout
        self._transport = transport or H1Transport()
        self.is_closed = False
        # what every request in wire form starts from: checked once, by httpx
        path = url.raw_path.decode("ascii")
        self._direct = url.scheme == "http" and not url.query and not url.fragment
        self._path = path if path.endswith("/") else path + "/"
        self._origin = (url.host, url.port or 80)
        self._names = {name.lower() for name in self._headers}
        self._head = b"".join(
            b"%s: %s\r\n" % pair for pair in [(b"Host", url.netloc),
                                                 *httpx.Headers(self._headers).raw])

    def request(
        self,
        method: str,
        url: str,
        *,
        json: Any = None,
        params: Any = None,
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> httpx.Response:
        if self.is_closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        path = url.lstrip("/")
        plain = _PLAIN_PATH.fullmatch(path) is not None  # the query below is encoded
        query = str(httpx.QueryParams(params)) if params else ""
        if query:
            path += ("&" if "?" in path else "?") + query
        extra = {k: v for k, v in headers.items() if v is not None} if headers else {}
        timeouts = (timeout or self._timeout).as_dict()

        def request() -> httpx.Request:
            return httpx.Request(method, self._base + path, json=json,
                                 headers={**self._headers, **extra},
                                 extensions={"timeout": timeouts})

        if not (self._direct and plain and method in _METHODS
                and self._names.isdisjoint(k.lower() for k in extra)):
            sent = request()  # anything unusual: httpx builds (and checks) the request
            response = self._transport.handle_request(sent)
            response.request = sent
            response.read()
            return response
        lines = [f"{method} {self._path}{path} HTTP/1.1\r\n".encode("ascii"), self._head]
        for name, value in httpx.Headers(extra).raw if extra else ():
            lines += [name, b": ", value, b"\r\n"]
        body = b""
        if json is not None:
            body = _json.dumps(json, ensure_ascii=False, separators=(",", ":"),
                               allow_nan=False).encode("utf-8")
            lines.append(b"Content-Length: %d\r\nContent-Type: application/json\r\n"
                         % len(body))
        elif method in _BODIED:
            lines.append(b"Content-Length: 0\r\n")
        lines.append(b"\r\n")
        response = self._transport.exchange(self._origin, b"".join(lines), body, method,
                                            _timeouts(timeouts), request)
        response.read()
        return response

    def close(self) -> None:
        self.is_closed = True
        self._transport.close()

"""HTTP limits for slow or oversized clients, where uvicorn has no setting of its own.

- :class:`BodyLimit` (ASGI middleware): a body larger than ``max_bytes`` answers 413 as
  soon as its ``Content-Length`` says so or, when it lies or is chunked, as soon as that
  many bytes arrived, before any parsing; a body that stops arriving for ``timeout_s``
  answers 408 and the connection closes (a lying ``Content-Length`` is not held open).
- :func:`guarded_http`: uvicorn's httptools protocol (a C parser: a fifth less of the
  host's CPU per request than h11, docs/performance.md) with a header read timeout (a
  connection that has not sent a whole request head within ``header_timeout_s`` is
  closed), a cap on the request head's size (a 400, closed), and connection caps, global
  and per client address (connections beyond ``max_connections``, or beyond
  ``max_client_connections`` from one address, are closed as they arrive: one client
  holding sockets open leaves room for the others).

uvicorn's own settings do the rest (``drums_gym.local.server``): ``limit_concurrency`` and
``timeout_keep_alive``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .. import protocol as P
from .errors import error_json
from .within import within

__all__ = ["BodyLimit", "HostBugs", "HttpMiddleware", "guarded_http", "host_bug", "read_body",
           "replayed"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("drums_gym.local")


async def _reply(
    send: Send, status: int, code: str, message: str, details: P.ErrorDetails
) -> None:
    body = error_json(code, message, details)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HttpMiddleware:
    """ASGI middleware of HTTP requests (anything else passes through): a subclass says
    what it does to one in :meth:`http`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


async def host_bug(scope: Scope, send: Send, exc: Exception, started: bool) -> None:
    """A 5xx is a host bug: log ``exc`` with its traceback and, unless the reply has
    ``started``, answer the JSON error shape."""
    log.error(
        "drums-gym local host bug on %s %s", scope.get("method"), scope.get("path"),
        exc_info=exc,
    )
    if not started:
        message = f"internal error: {type(exc).__name__}"
        await _reply(send, 500, P.CODE_INTERNAL, message, P.ErrorDetails())


class HostBugs(HttpMiddleware):
    """A 5xx is a host bug: log it with its traceback and answer the JSON error shape."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:  # the boundary: log the host bug, answer its shape
            await host_bug(scope, send, exc, started)


async def read_body(
    scope: Scope, receive: Receive, send: Send, max_bytes: int, timeout_s: float
) -> bytes | None:
    """The request's whole body, bounded in size (``max_bytes``: 413) and in time (a body
    that stops arriving for ``timeout_s``: 408, closed); None when it answered so, or the
    client left."""
    too_large = (
        413,
        P.CODE_TOO_LARGE,
        f"the request body is larger than {max_bytes} bytes",
        P.ErrorDetails(max_bytes=max_bytes),
    )
    for name, value in scope.get("headers", ()):
        length = value.strip()
        if name == b"content-length" and length.isdigit() and int(length) > max_bytes:
            await _reply(send, *too_large)
            return None
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            message = await within(receive(), timeout_s)
        except TimeoutError:
            await _reply(
                send,
                408,
                P.CODE_TIMEOUT,
                f"the request body did not arrive within {timeout_s:g} s",
                P.ErrorDetails(),
            )
            return None
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            await _reply(send, *too_large)
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the ``body`` already read from it given first, whole."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class BodyLimit(HttpMiddleware):
    """Read each request body whole, bounded in size and in time (:func:`read_body`),
    before the app sees it."""

    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        super().__init__(app)
        self.max_bytes, self.timeout_s = max_bytes, timeout_s

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(scope, receive, send, self.max_bytes, self.timeout_s)
        if body is not None:
            await self.app(scope, replayed(body, receive), send)


class HeadTooLarge(Exception):
    """A request head over the limit (raised in the parser's callback: a 400, closed)."""


def guarded_http(
    header_timeout_s: float, max_connections: int, max_client_connections: int | None = None,
    max_head_bytes: int = 16 * 1024,
) -> type:
    """uvicorn's httptools protocol with a header read timeout, a cap on the request head's
    size (``max_head_bytes``: a larger head is a 400 and the connection closes) and
    connection caps (global, and per client address when ``max_client_connections`` is
    given)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    per_client = max_client_connections or max_connections
    open_by_client: dict[str, int] = {}  # one server's connections (its event loop's)

    class GuardedHttpProtocol(HttpToolsProtocol):
        _head_timer: asyncio.TimerHandle | None = None
        _counted: str | None = None  # the client address this connection is counted for
        # the head being read: its bytes so far (the parser's pieces; and every chunk that
        # arrived while it was incomplete, as the parser buffers a piece it has not ended)
        _in_head = True
        _head_bytes = 0
        _head_seen = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
            if (len(self.connections) > max_connections
                    or open_by_client.get(client, 0) >= per_client):
                transport.close()  # shed at once: an open fd per idle client is the attack
                # and out of the count now (not when the loop gets to connection_lost), so
                # that a burst of shed connections does not shed a bystander's too
                self.connections.discard(self)
                return
            open_by_client[client] = open_by_client.get(client, 0) + 1
            self._counted = client
            self._arm()

        def _idle(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_timeout_s, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self._idle() and not self.transport.is_closing():
                self.transport.close()

        def _grow_head(self, size: int) -> None:
            self._head_bytes += size
            if self._head_bytes > max_head_bytes:
                raise HeadTooLarge(f"request head over {max_head_bytes} bytes")

        def data_received(self, data: bytes) -> None:
            if self._idle():
                self._arm()  # a new request head starts: it has header_timeout_s to arrive
            if self._in_head:
                self._head_seen += len(data)
            super().data_received(data)
            if self._in_head and self._head_seen > max_head_bytes:
                # a piece of the head that never ends (the parser holds it whole)
                if not self.transport.is_closing():
                    self.send_400_response("Invalid HTTP request received.")
                return
            if not self._idle():
                self._disarm()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head, self._head_bytes = True, 0

        def on_url(self, url: bytes) -> None:
            self._grow_head(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._grow_head(len(name) + len(value) + 4)  # ": " and CRLF
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._in_head, self._head_seen = False, 0
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()  # between requests, uvicorn's keep-alive timeout applies

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted is not None:
                left = open_by_client[self._counted] - 1
                if left:
                    open_by_client[self._counted] = left
                else:
                    del open_by_client[self._counted]
                self._counted = None
            super().connection_lost(exc)

    return GuardedHttpProtocol

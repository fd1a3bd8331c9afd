"""The two requests of every env step, served without FastAPI's per-request machinery.

A vector step makes two requests per child, an action and the screenshot after it; the
HTTP front is one Python process for all of them, and FastAPI's own work for one of these
(routing, solving the dependencies, validating and serializing, its middleware) was more
than half of the front's CPU. :class:`HotRoutes` answers exactly these two, on their
usual path, before the request enters FastAPI's app at all (the app calls it first,
``local.app``), with the same code the FastAPI routes and their middleware run: the same
body limit (`read_body`), `admit` (auth, injected latency, load shedding), the same body
model, the same host calls and replies (`take_action`, `screenshot_response`), the
reply's half of the latency (`reply_delay`) and a host bug's log and 500 (`host_bug`).
Anything else, and anything off that path (a body that does not validate, a query FastAPI
would refuse, a content type other than JSON), goes to FastAPI as it came, body and all,
and gets the reply it always did. The OpenAPI document still comes from the FastAPI
routes, and ``tests/local/test_hot_routes.py`` checks that both answer alike.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from pydantic import ValidationError
from starlette.responses import Response

from ... import protocol as P
from ..bodies import ActionBody
from ..errors import HostError
from ..guards import ASGIApp, Receive, Scope, Send, host_bug, read_body, replayed
from .common import admit, error_response, reply_delay
from .episodes import take_action
from .screen import screenshot_response

__all__ = ["HotRoutes"]

_SLOT = re.escape(P.SLOTS) + r"/(?P<slot>[^/]+)"
_ACTION = re.compile(_SLOT + re.escape(P.ACTIONS_SUFFIX))
_SCREENSHOT = re.compile(_SLOT + re.escape(P.SCREENSHOT_SUFFIX))
_FORMATS = frozenset({P.FORMAT_PNG, P.FORMAT_RAW})


def _header(scope: Scope, name: bytes) -> bytes | None:
    found = None
    for key, value in scope["headers"]:
        if key == name:
            if found is not None:  # said twice: FastAPI decides what that means
                raise _Elsewhere
            found = value
    return found


class _Elsewhere(Exception):
    """Not on the hot path: FastAPI answers it (the body read so far is replayed)."""


#: what answers a request on the hot path: ``serve(app_state, workspace)``
Serve = Callable[[Any, str], Awaitable[Response]]


class HotRoutes:
    """``POST /v1/slots/{id}/actions`` and ``GET /v1/slots/{id}/screenshot`` on their
    usual path; everything else to the ``app`` it is called with (FastAPI's own call).

    ``state`` is the app's (host, tokens, threads); a body is bounded by
    ``max_body_bytes`` and ``body_timeout_s`` as :class:`~..guards.BodyLimit` bounds
    every other request's."""

    def __init__(self, state: Any, max_body_bytes: int, body_timeout_s: float) -> None:
        self.state, self.max_body_bytes, self.body_timeout_s = (
            state, max_body_bytes, body_timeout_s)

    async def __call__(self, scope: Scope, receive: Receive, send: Send, app: ASGIApp
                       ) -> None:
        method, path = scope["method"], scope["path"]
        if method == "POST" and (match := _ACTION.fullmatch(path)):
            route = self._action
        elif method == "GET" and (match := _SCREENSHOT.fullmatch(path)):
            route = self._screenshot
        else:
            await app(scope, receive, send)
            return
        body = await read_body(scope, receive, send, self.max_body_bytes, self.body_timeout_s)
        if body is None:  # answered (413, 408), or the client left
            return
        try:
            serve, authorization = route(scope, body, match["slot"])
        except _Elsewhere:
            await app(scope, replayed(body, receive), send)
            return
        await self._answer(scope, send, authorization, serve)

    async def _answer(self, scope: Scope, send: Send, authorization: bytes | None,
                      serve: Serve) -> None:
        """Admit the request (as every v1 route does), then ``serve`` it; a `HostError`
        of either is its error reply, any other exception a host bug."""
        started = False
        try:
            try:
                ws = await admit(self.state, scope.setdefault("state", {}), authorization)
                response = await serve(self.state, ws)
            except HostError as exc:
                response = error_response(exc)
            await reply_delay(scope)
            started = True
            await response(scope, None, send)  # type: ignore[arg-type]
        except Exception as exc:  # the boundary, as HostBugs is for FastAPI's routes
            await host_bug(scope, send, exc, started)

    @staticmethod
    def _action(scope: Scope, body: bytes, slot_id: str) -> tuple[Serve, bytes | None]:
        content_type = _header(scope, b"content-type")
        if content_type is None or content_type.split(b";")[0].strip() != b"application/json":
            raise _Elsewhere
        authorization = _header(scope, b"authorization")
        try:
            parsed = ActionBody.model_validate_json(body)
        except ValidationError:
            raise _Elsewhere from None
        return (lambda state, ws: take_action(state.host, ws, state.threads, slot_id, parsed),
                authorization)

    @staticmethod
    def _screenshot(scope: Scope, body: bytes, slot_id: str) -> tuple[Serve, bytes | None]:
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"),
                               keep_blank_values=True))
        fmt = query.get("format", P.FORMAT_PNG)
        if fmt not in _FORMATS:
            raise _Elsewhere
        since = query.get("since")
        authorization = _header(scope, b"authorization")
        return (lambda state, ws: screenshot_response(
            state.host, ws, state.threads, slot_id, fmt, since), authorization)

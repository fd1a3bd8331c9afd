"""The two requests of every env step, served without FastAPI's per-request machinery.

A vector step makes two requests per child, an action and the screenshot after it; the
HTTP front is one Python process for all of them, and FastAPI's own work for one of these
(routing, solving the dependencies, validating and serializing, its middleware) was more
than half of the front's CPU. :class:`HotRoutes` (ASGI middleware, innermost of the
app's) answers exactly these two, on their usual path, with the same code the FastAPI
routes call: `admit` (auth, injected latency, load shedding), the same body model, the
same host calls and replies (`take_action`, `screenshot_response`). Anything else, and
anything off that path (a body that does not validate, a query FastAPI would refuse, a
content type other than JSON), goes to FastAPI as it came, body and all, and gets the
reply it always did. The OpenAPI document still comes from the FastAPI routes, and
``tests/local/test_hot_routes.py`` checks that both answer alike.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from pydantic import ValidationError

from ... import protocol as P
from ..bodies import ActionBody
from ..errors import HostError
from ..guards import HttpMiddleware, Message, Receive, Scope, Send
from .common import admit, error_response
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
    """Not on the hot path: FastAPI answers it (``receive`` replays what was read)."""

    def __init__(self, receive: Receive | None = None) -> None:
        super().__init__()
        self.receive = receive


async def _body(receive: Receive) -> tuple[bytes, list[Message]]:
    """The whole body (BodyLimit has bounded it) and the messages it came in."""
    messages, chunks = [], []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks), messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def again() -> Message:
        return pending.pop(0) if pending else await receive()

    return again


class HotRoutes(HttpMiddleware):
    """``POST /v1/slots/{id}/actions`` and ``GET /v1/slots/{id}/screenshot`` on their
    usual path; everything else to ``app`` (FastAPI)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        method, path = scope["method"], scope["path"]
        try:
            if method == "POST" and (match := _ACTION.fullmatch(path)):
                await self._action(scope, receive, send, match["slot"])
                return
            if method == "GET" and (match := _SCREENSHOT.fullmatch(path)):
                await self._screenshot(scope, send, match["slot"])
                return
        except _Elsewhere as elsewhere:
            receive = elsewhere.receive or receive
        await self.app(scope, receive, send)

    @staticmethod
    async def _answer(scope: Scope, send: Send, authorization: bytes | None,
                      serve: Callable[[Any, str], Awaitable[Any]]) -> None:
        """Admit the request (as every v1 route does), then ``serve(app_state, workspace)``;
        a `HostError` of either is its error reply."""
        state = scope["app"].state
        try:
            ws = await admit(state, scope.setdefault("state", {}), authorization)
            response = await serve(state, ws)
        except HostError as exc:
            response = error_response(exc)
        await response(scope, None, send)

    async def _action(self, scope: Scope, receive: Receive, send: Send, slot_id: str) -> None:
        content_type = _header(scope, b"content-type")
        if content_type is None or content_type.split(b";")[0].strip() != b"application/json":
            raise _Elsewhere
        authorization = _header(scope, b"authorization")  # before the body is read
        body, messages = await _body(receive)
        try:
            parsed = ActionBody.model_validate_json(body)
        except ValidationError:
            raise _Elsewhere(_replay(messages, receive)) from None
        await self._answer(scope, send, authorization, lambda state, ws: take_action(
            state.host, ws, state.threads, slot_id, parsed))

    async def _screenshot(self, scope: Scope, send: Send, slot_id: str) -> None:
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"),
                               keep_blank_values=True))
        fmt = query.get("format", P.FORMAT_PNG)
        if fmt not in _FORMATS:
            raise _Elsewhere
        since = query.get("since")
        authorization = _header(scope, b"authorization")
        await self._answer(scope, send, authorization, lambda state, ws: screenshot_response(
            state.host, ws, state.threads, slot_id, fmt, since))

"""What every v1 route starts with: the host, and the caller's workspace (auth, injected
latency, load shedding); and :class:`ReplyLatency`, the other half of the injected latency.

The injected latency (the ``latency_ms`` fault) is a network's round trip: half of it
before the host works on a request (its way in), half before the reply starts (its way
out), so, as over a real network, the host can work on one request while another's reply
is still travelling.
"""

import asyncio
import hmac
import time
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse

from ... import protocol as P
from ..errors import HostError, json_bytes, overloaded
from ..fairness import WorkspaceThreads
from ..guards import HttpMiddleware, Message, Receive, Scope, Send
from ..host import Host, workspace_of

__all__ = ["HostDep", "ReplyLatency", "SafeJSONResponse", "Threads", "Workspace", "admit",
           "error_response", "reply_delay", "until_settled"]

#: ``request.state`` attribute: seconds the reply waits before it starts (the way out)
REPLY_DELAY = "drums_reply_delay_s"


class SafeJSONResponse(JSONResponse):
    """JSON whose text is always valid UTF-8 (lone surrogates escaped)."""

    def render(self, content: Any) -> bytes:
        return json_bytes(content)


def error_response(exc: HostError) -> JSONResponse:
    """The one place an error reply is built."""
    return SafeJSONResponse(exc.body(), status_code=exc.status, headers=exc.headers or None)


# The dependencies are ``async def`` though they never await: FastAPI runs a plain ``def``
# dependency on a thread of its pool, two thread hand-offs per request for an attribute read.
async def _host(request: Request) -> Host:
    host: Host = request.app.state.host
    return host


async def _threads(request: Request) -> WorkspaceThreads:
    """The app's threads for work that waits on a desktop (a share per workspace)."""
    threads: WorkspaceThreads = request.app.state.threads
    return threads


async def admit(state: Any, request_state: dict[str, Any], authorization: bytes | str | None
                ) -> str:
    """Auth, injected latency and load shedding, the start of every v1 request: the
    caller's workspace. ``state`` is the app's, ``request_state`` the request's
    (``scope["state"]``: where the reply's half of the latency is left for ReplyLatency)."""
    host: Host = state.host
    allowed: tuple[bytes, ...] = state.tokens
    if isinstance(authorization, bytes):
        authorization = authorization.decode("latin-1")
    token = None
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == P.BEARER.lower() and value.strip():
            token = value.strip()
    if allowed and (
        token is None or not any(hmac.compare_digest(token.encode(), a) for a in allowed)
    ):
        raise HostError(401, P.CODE_UNAUTHORIZED, "missing or unknown bearer token")
    spec = host.faults.spec
    if spec.latency_ms > 0:
        half = spec.latency_ms / 2000.0
        await asyncio.sleep(half)  # the way in; ReplyLatency sleeps the way out
        request_state[REPLY_DELAY] = half
    if host.faults.roll("overload", spec.overload):
        raise overloaded(
            "the host is shedding load (injected fault)", spec.retry_after_ms / 1000.0
        )
    return workspace_of(token)


async def _workspace(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> str:
    return await admit(request.app.state, request.scope.setdefault("state", {}), authorization)


async def reply_delay(scope: Scope) -> None:
    """Wait as long as the reply to ``scope``'s request waits before it starts (the way out
    of the injected latency, left by :func:`admit`; no wait without it)."""
    delay = scope.get("state", {}).get(REPLY_DELAY)
    if delay:
        await asyncio.sleep(delay)


class ReplyLatency(HttpMiddleware):
    """ASGI middleware: a reply whose request took the injected latency's way in
    (``_workspace``) waits the way out before it starts."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def delayed(message: Message) -> None:
            if message["type"] == "http.response.start":
                await reply_delay(scope)
            await send(message)

        await self.app(scope, receive, delayed)


HostDep = Annotated[Host, Depends(_host)]
Workspace = Annotated[str, Depends(_workspace)]
#: ``await threads.run(ws, fn, *args)``: a desktop call, off the event loop, on ``ws``'s share
Threads = Annotated[WorkspaceThreads, Depends(_threads)]


async def until_settled(host: Host, ws: str, slot_id: str, timeout_s: float) -> None:
    """Wait (on the event loop, no lock held) until the episode is not pending."""
    deadline = time.monotonic() + timeout_s
    while True:
        episode = host.episode(ws, slot_id)
        now = time.monotonic()
        if episode.status != P.EPISODE_PENDING or now >= deadline:
            return
        await asyncio.sleep(max(0.002, min(episode.resolve_at - now, deadline - now, 0.25)))

"""The local host's HTTP app: the v1 protocol of ``docs/http-api.md`` over :class:`Host`.

`create_app(host)` serves :class:`drums_gym.local.host.Host` through the routers of
:mod:`drums_gym.local.routes` (one per resource), validates every request with the models
of :mod:`drums_gym.local.bodies`, and documents every request and reply as OpenAPI
(``/openapi.json``, ``/docs``), with the shapes of :mod:`drums_gym.protocol`. Every error is
the JSON of :mod:`drums_gym.local.errors`; a 5xx is a host bug, logged with its traceback.
"""


import contextlib
import inspect
import os
from collections.abc import AsyncIterator, Iterable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import protocol as P
from .._version import __version__
from .bodies import body_models
from .errors import HostError
from .fairness import WorkspaceThreads
from .guards import BodyLimit, HostBugs, Receive, Scope, Send
from .host import Host
from .leases import Reaper
from .routes import routers
from .routes.common import ReplyLatency, SafeJSONResponse
from .routes.common import error_response as _error
from .routes.hot import HotRoutes
from .view import mount_view

__all__ = ["create_app"]

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"description": code, "model": P.ErrorReply}
    for status, code in (
        (401, P.CODE_UNAUTHORIZED),
        (403, P.CODE_QUOTA_EXCEEDED),
        (404, P.CODE_NOT_FOUND),
        (408, P.CODE_TIMEOUT),
        (409, P.CODE_CONFLICT),
        (413, P.CODE_TOO_LARGE),
        (422, f"{P.CODE_INVALID_REQUEST} / {P.CODE_INVALID_ACTION}"),
        (429, P.CODE_OVERLOADED),
    )
}


def _invalid(field: str, message: str) -> JSONResponse:
    """422 invalid_request naming the ``field``."""
    details = P.ErrorDetails(field=field)
    return _error(HostError(422, P.CODE_INVALID_REQUEST, message, details))


class _HostApp(FastAPI):
    """FastAPI, with the two hot routes answered before its own machinery (:mod:`.routes.hot`;
    ``hot`` None: by its routes too)."""

    hot: HotRoutes | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.hot is not None and scope["type"] == "http":
            await self.hot(scope, receive, send, super().__call__)
        else:
            await super().__call__(scope, receive, send)


def _telemetry() -> dict[str, Any]:
    """FastAPI's native OpenTelemetry off (where this FastAPI has it), unless asked for
    with ``FASTAPI_OTEL_AUTO_CONFIGURE=true``: it is on by default and, with nothing
    configured, asked OpenTelemetry for its providers on every request (a twentieth of
    the front's CPU). Nothing the user's program configures reaches the host's process."""
    if "telemetry" not in inspect.signature(FastAPI).parameters:
        return {}
    if os.environ.get("FASTAPI_OTEL_AUTO_CONFIGURE", "").strip().lower() == "true":
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


def create_app(host: Host, tokens: Iterable[str] = (), *, hot_routes: bool = True) -> FastAPI:
    """The FastAPI app serving ``host``. With ``tokens``, requests need one of them.
    ``hot_routes=False`` serves actions and screenshots through FastAPI's routes too, as
    everything else (:mod:`.routes.hot`; the tests compare both)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = Reaper(host.reap)  # its own thread: it never blocks the event loop
        reaper.start()
        try:
            yield
        finally:
            reaper.stop()

    app = _HostApp(
        title="Drums API (drums-gym local host)",
        version=__version__,
        description="A Drums-compatible host of simulated desktops. See docs/http-api.md.",
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
        default_response_class=SafeJSONResponse,
        **_telemetry(),
    )
    app.state.host = host
    app.state.tokens = tuple(t.encode() for t in tokens)
    app.state.shell = host.shell  # probed once: a bad DRUMS_LOCAL_SHELL fails here
    # work that waits on a desktop runs on a thread of its workspace's share
    app.state.threads = WorkspaceThreads(host.config.workspace_threads, host.config.max_workspaces)
    if hot_routes:  # an action and a screenshot without FastAPI's per-request work
        app.hot = HotRoutes(app.state, host.config.max_body_bytes, host.config.body_timeout_s)
    if host.faults.spec.latency_ms > 0:  # inside: delays only what a route answers
        app.add_middleware(ReplyLatency)  # (and only where there is latency to inject)
    app.add_middleware(HostBugs)  # inside BodyLimit: a bug's reply still goes out whole
    app.add_middleware(
        BodyLimit, max_bytes=host.config.max_body_bytes, timeout_s=host.config.body_timeout_s
    )

    @app.exception_handler(HostError)
    async def host_error(request: Request, exc: HostError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        # a JSON decode error's loc ends in a character position, not a field
        field = "body" if first.get("type") == "json_invalid" else ".".join(loc) or "body"
        return _invalid(field, f"{field}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # an unparseable body (e.g. not UTF-8): documented as 422
            return _invalid("body", f"body: {exc.detail}")
        codes = {404: P.CODE_NOT_FOUND, 405: P.CODE_METHOD_NOT_ALLOWED}
        code = codes.get(exc.status_code, P.CODE_INVALID_REQUEST)
        headers = getattr(exc, "headers", None)
        return _error(HostError(exc.status_code, code, str(exc.detail), headers=headers))

    for router in routers(body_models(host.config)):
        app.include_router(router)
    mount_view(app)  # GET /v1/slots/{id}/view: the live view page (no data, no token)
    return app

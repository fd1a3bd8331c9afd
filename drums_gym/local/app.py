"""The local host's HTTP app: the v1 protocol of ``docs/http-api.md`` over :class:`Host`.

`create_app(host)` serves :class:`drums_gym.local.host.Host` with the names of
:mod:`drums_gym.protocol`, validates every request with the models of
:mod:`drums_gym.local.bodies`, and documents it as OpenAPI (``/openapi.json``, ``/docs``).
Every error is the JSON of :mod:`drums_gym.local.errors`; a 5xx is a host bug, logged
with its traceback.
"""


import asyncio
import contextlib
import hmac
import time
from collections.abc import AsyncIterator, Iterable
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import protocol as P
from .._version import __version__
from .bodies import ActionBody, ResetBody, VerifyBody, body_models
from .errors import HostError, json_bytes, overloaded
from .fairness import WorkspaceThreads
from .guards import BodyLimit, HostBugs
from .host import Host, workspace_of
from .leases import Reaper
from .view import mount_view

__all__ = ["create_app"]

MAX_WAIT_S = P.MAX_WAIT_S

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"description": code}
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


class SafeJSONResponse(JSONResponse):
    """JSON whose text is always valid UTF-8 (lone surrogates escaped)."""

    def render(self, content: Any) -> bytes:
        return json_bytes(content)


def _error(exc: HostError) -> JSONResponse:
    """The one place an error reply is built."""
    return SafeJSONResponse(exc.body(), status_code=exc.status, headers=exc.headers or None)


async def _workspace(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> str:
    """Auth, injected latency and load shedding: the start of every v1 request."""
    host: Host = request.app.state.host
    allowed: tuple[bytes, ...] = request.app.state.tokens
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
        await asyncio.sleep(spec.latency_ms / 1000.0)
    if host.faults.roll("overload", spec.overload):
        raise overloaded(
            "the host is shedding load (injected fault)", spec.retry_after_ms / 1000.0
        )
    return workspace_of(token)


Workspace = Annotated[str, Depends(_workspace)]


async def _until_settled(host: Host, ws: str, slot_id: str, timeout_s: float) -> None:
    """Wait (on the event loop, no lock held) until the episode is not pending."""
    deadline = time.monotonic() + timeout_s
    while True:
        episode = host.episode(ws, slot_id)
        now = time.monotonic()
        if episode.status != P.EPISODE_PENDING or now >= deadline:
            return
        await asyncio.sleep(max(0.002, min(episode.resolve_at - now, deadline - now, 0.25)))


def create_app(host: Host, tokens: Iterable[str] = ()) -> FastAPI:
    """The FastAPI app serving ``host``. With ``tokens``, requests need one of them."""
    allowed = tuple(t.encode() for t in tokens)
    models = body_models(host.config)
    CreateSlot, Branch, LeaseBody = models.create, models.branch, models.lease
    shell = host.shell  # probed once: a bad DRUMS_LOCAL_SHELL fails here
    threads = WorkspaceThreads(host.config.workspace_threads, host.config.max_workspaces)
    desk = threads.run  # work that waits on a desktop: on a thread of its workspace's share

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = Reaper(host.reap)  # its own thread: it never blocks the event loop
        reaper.start()
        try:
            yield
        finally:
            reaper.stop()

    app = FastAPI(
        title="Drums API (drums-gym local host)",
        version=__version__,
        description="A Drums-compatible host of simulated desktops. See docs/http-api.md.",
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
        default_response_class=SafeJSONResponse,
    )
    app.state.host = host
    app.state.tokens = allowed
    app.state.threads = threads
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
        message = f"{field}: {first.get('msg', 'invalid')}"
        return _error(HostError(422, P.CODE_INVALID_REQUEST, message, {P.F_FIELD: field}))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # an unparseable body (e.g. not UTF-8): documented as 422
            return _error(
                HostError(422, P.CODE_INVALID_REQUEST, f"body: {exc.detail}", {P.F_FIELD: "body"})
            )
        codes = {404: P.CODE_NOT_FOUND, 405: P.CODE_METHOD_NOT_ALLOWED}
        code = codes.get(exc.status_code, P.CODE_INVALID_REQUEST)
        headers = getattr(exc, "headers", None)
        return _error(HostError(exc.status_code, code, str(exc.detail), headers=headers))

    @app.get(P.HEALTHZ, tags=["host"])
    async def healthz() -> dict[str, Any]:
        return {P.F_OK: True, P.F_SHELL: shell, P.F_ISOLATION: host.isolation}

    @app.get(P.HOST, tags=["host"])
    def host_info(ws: Workspace) -> dict[str, Any]:
        return host.info(ws)

    @app.get(P.TASKS, tags=["tasks"])
    def list_tasks(ws: Workspace) -> dict[str, Any]:
        return {P.F_TASKS: [t.public() for t in host.catalog.values()]}

    @app.get(P.TASK_ROUTE, tags=["tasks"])
    def get_task(task_id: str, ws: Workspace) -> dict[str, Any]:
        return host.task(task_id).public()

    @app.post(P.SLOTS, status_code=201, tags=["slots"])
    async def create_slot(
        body: CreateSlot,  # type: ignore[valid-type]
        ws: Workspace,
        idempotency_key: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        fields = body.fields()  # type: ignore[attr-defined]
        return await desk(ws, host.create_slot, ws, fields, idempotency_key)

    @app.get(P.SLOTS, tags=["slots"])
    def list_slots(ws: Workspace) -> dict[str, Any]:
        return {P.F_SLOTS: host.list_slots(ws)}

    @app.get(P.slot_route(), tags=["slots"])
    def get_slot(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.get_slot(ws, slot_id)

    @app.delete(P.slot_route(), tags=["slots"])
    def delete_slot(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.delete_slot(ws, slot_id)

    @app.post(P.slot_route(P.LEASE_SUFFIX), tags=["slots"])
    def extend_lease(
        slot_id: str, body: LeaseBody, ws: Workspace  # type: ignore[valid-type]
    ) -> dict[str, Any]:
        return host.extend_lease(ws, slot_id, body.fields())  # type: ignore[attr-defined]

    @app.get(P.slot_route(P.EPISODE_SUFFIX), tags=["episodes"])
    async def get_episode(
        slot_id: str,
        ws: Workspace,
        wait: bool = False,
        timeout_s: Annotated[float, Query(ge=0, le=MAX_WAIT_S)] = 30.0,
    ) -> dict[str, Any]:
        if wait:
            await _until_settled(host, ws, slot_id, timeout_s)
        return host.episode(ws, slot_id).public()

    @app.post(P.slot_route(P.ACTIONS_SUFFIX), tags=["episodes"])
    async def post_action(slot_id: str, body: ActionBody, ws: Workspace) -> dict[str, Any]:
        return await desk(ws, host.act, ws, slot_id, body.fields())

    @app.get(P.slot_route(P.ACTIONS_SUFFIX), tags=["episodes"])
    async def get_action_log(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return await desk(ws, host.action_log, ws, slot_id)

    @app.get(
        P.slot_route(P.SCREENSHOT_SUFFIX),
        tags=["episodes"],
        response_class=Response,
        responses={200: {"content": {"image/png": {}, "application/octet-stream": {}}}},
    )
    async def screenshot(
        slot_id: str,
        ws: Workspace,
        format: Literal["png", "raw"] = "png",
        since: str | None = None,
    ) -> Response:
        shot = await desk(ws, host.screenshot, ws, slot_id, format, since)
        headers = {
            P.H_SCREEN_WIDTH: str(shot.width),
            P.H_SCREEN_HEIGHT: str(shot.height),
            P.H_EPISODE_STATUS: shot.episode_status,
            P.H_FRAME: str(shot.frame),
            P.H_FRAME_TOKEN: shot.token,
        }
        if shot.delta_base is not None:
            headers[P.H_DELTA_BASE] = shot.delta_base
            headers[P.H_DELTA_BOXES] = ";".join(",".join(map(str, b)) for b in shot.boxes)
        media = "image/png" if format == P.FORMAT_PNG else "application/octet-stream"
        return Response(content=shot.data, media_type=media, headers=headers)

    @app.get(P.slot_route(P.ACCESSIBILITY_SUFFIX), tags=["episodes"])
    async def accessibility(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return await desk(ws, host.accessibility, ws, slot_id)

    @app.post(P.slot_route(P.VERIFY_SUFFIX), tags=["episodes"])
    async def verify(slot_id: str, ws: Workspace, body: VerifyBody | None = None) -> dict[str, Any]:
        fields = body.fields() if body else {}
        await _until_settled(host, ws, slot_id, fields.get(P.F_TIMEOUT_S, 30.0))
        return await desk(ws, host.verify, ws, slot_id, fields)

    @app.post(P.slot_route(P.RESET_SUFFIX), tags=["episodes"])
    async def reset(
        slot_id: str, ws: Workspace, body: ResetBody | None = None
    ) -> dict[str, Any]:
        return await desk(ws, host.reset, ws, slot_id, body.fields() if body else {})

    @app.post(P.slot_route(P.BRANCH_SUFFIX), tags=["fork"])
    async def branch(
        slot_id: str,
        body: Branch,  # type: ignore[valid-type]
        ws: Workspace,
        idempotency_key: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        fields = body.fields()  # type: ignore[attr-defined]
        return await desk(ws, host.branch, ws, slot_id, fields, idempotency_key)

    @app.get(P.STATES, tags=["states"])
    def list_states(ws: Workspace) -> dict[str, Any]:
        return {P.F_STATES: host.list_states(ws)}

    @app.get(P.STATE_ROUTE, tags=["states"])
    def get_state(state_id: str, ws: Workspace) -> dict[str, Any]:
        return host.get_state(ws, state_id)

    @app.delete(P.STATE_ROUTE, tags=["states"])
    def delete_state(state_id: str, ws: Workspace) -> dict[str, Any]:
        return host.delete_state(ws, state_id)

    mount_view(app)  # GET /v1/slots/{id}/view: the live view page (no data, no token)
    return app

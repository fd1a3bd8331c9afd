"""The local host's HTTP app: every wire path and field name of the host side lives here.

`create_app(host)` maps :class:`drums_gym.local.host.Host` onto the v1 protocol of
``docs/http-api.md`` and serves it as OpenAPI (``/openapi.json``, ``/docs``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import math
import time
from collections.abc import AsyncIterator, Iterable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from .episodes import HostError
from .host import Host, workspace_of
from .tasks import CATALOG

__all__ = ["create_app"]

REAP_INTERVAL_S = 0.5
MAX_WAIT_S = 60.0


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")

    def fields(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


class ScreenSize(_Body):
    width: StrictInt = Field(1920, description="Screen width in pixels (640 to 3840)")
    height: StrictInt = Field(1080, description="Screen height in pixels (480 to 2160)")


class CreateSlot(_Body):
    task: str = Field(
        ..., description="Task id, full or its first 8 characters", examples=["e0df059f"]
    )
    ttl_s: float | None = Field(None, description="Lease in seconds (default: the host's)")
    screen: ScreenSize | None = None


class Branch(_Body):
    n: StrictInt = Field(..., description="How many children (1 to the fork limit)")
    delete_state_with_children: StrictBool = Field(
        False, description="Delete the saved state when its last child is deleted"
    )
    ttl_s: float | None = Field(None, description="The children's lease in seconds")


class ActionBody(_Body):
    code: str = Field(..., description="pyautogui code", examples=["pyautogui.click(960, 540)"])


class VerifyBody(_Body):
    strict: StrictBool = Field(True, description="Answer 409 unless the episode is valid")


class LeaseBody(_Body):
    ttl_s: float = Field(..., description="The lease now ends ttl_s seconds from now")


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"description": code}
    for status, code in (
        (401, "unauthorized"),
        (403, "quota_exceeded"),
        (404, "not_found"),
        (409, "conflict"),
        (422, "invalid_request / invalid_action"),
        (429, "overloaded"),
    )
}


def _error(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message, "details": details or {}}},
        status_code=status,
        headers=headers,
    )


async def _workspace(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> str:
    """Auth, injected latency and load shedding: the start of every v1 request."""
    host: Host = request.app.state.host
    allowed: tuple[bytes, ...] = request.app.state.tokens
    token = None
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            token = value.strip()
    if allowed and (
        token is None or not any(hmac.compare_digest(token.encode(), a) for a in allowed)
    ):
        raise HostError(401, "unauthorized", "missing or unknown bearer token")
    spec = host.faults.spec
    if spec.latency_ms > 0:
        await asyncio.sleep(spec.latency_ms / 1000.0)
    if host.faults.roll("overload", spec.overload):
        retry_ms = int(spec.retry_after_ms)
        raise HostError(
            429,
            "overloaded",
            "the host is shedding load (injected fault)",
            {"retry_after_ms": retry_ms},
            {"Retry-After": str(max(0, math.ceil(retry_ms / 1000)))},
        )
    return workspace_of(token)


Workspace = Annotated[str, Depends(_workspace)]


def create_app(host: Host, tokens: Iterable[str] = ()) -> FastAPI:
    """The FastAPI app serving ``host``. With ``tokens``, requests need one of them."""
    allowed = tuple(t.encode() for t in tokens)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def reaper() -> None:
            while True:
                await asyncio.sleep(REAP_INTERVAL_S)
                host.reap()

        task = asyncio.create_task(reaper())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app = FastAPI(
        title="Drums API (drums-gym local host)",
        version=__version__,
        description="A Drums-compatible host of simulated desktops. See docs/http-api.md.",
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
    )
    app.state.host = host
    app.state.tokens = allowed

    @app.exception_handler(HostError)
    async def host_error(request: Request, exc: HostError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, exc.details, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        # a JSON decode error's loc ends in a character position, not a field
        field = "body" if first.get("type") == "json_invalid" else ".".join(loc) or "body"
        return _error(
            422, "invalid_request", f"{field}: {first.get('msg', 'invalid')}", {"field": field}
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # an unparseable body (e.g. not UTF-8): documented as 422
            return _error(422, "invalid_request", f"body: {exc.detail}", {"field": "body"})
        codes = {404: "not_found", 405: "method_not_allowed"}
        return _error(
            exc.status_code,
            codes.get(exc.status_code, "invalid_request"),
            str(exc.detail),
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        return _error(500, "internal", f"internal error: {type(exc).__name__}")

    @app.get("/healthz", tags=["host"])
    async def healthz() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/v1/host", tags=["host"])
    def host_info(ws: Workspace) -> dict[str, Any]:
        return host.info(ws)

    @app.get("/v1/tasks", tags=["tasks"])
    def list_tasks(ws: Workspace) -> dict[str, Any]:
        return {"tasks": [t.public() for t in CATALOG.values()]}

    @app.get("/v1/tasks/{task_id}", tags=["tasks"])
    def get_task(task_id: str, ws: Workspace) -> dict[str, Any]:
        return host._task(task_id).public()

    @app.post("/v1/slots", status_code=201, tags=["slots"])
    def create_slot(
        body: CreateSlot, ws: Workspace, idempotency_key: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        return host.create_slot(ws, body.fields(), idempotency_key)

    @app.get("/v1/slots", tags=["slots"])
    def list_slots(ws: Workspace) -> dict[str, Any]:
        return {"slots": host.list_slots(ws)}

    @app.get("/v1/slots/{slot_id}", tags=["slots"])
    def get_slot(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.get_slot(ws, slot_id)

    @app.delete("/v1/slots/{slot_id}", tags=["slots"])
    def delete_slot(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.delete_slot(ws, slot_id)

    @app.post("/v1/slots/{slot_id}/lease", tags=["slots"])
    def extend_lease(slot_id: str, body: LeaseBody, ws: Workspace) -> dict[str, Any]:
        return host.extend_lease(ws, slot_id, body.fields())

    @app.get("/v1/slots/{slot_id}/episode", tags=["episodes"])
    async def get_episode(
        slot_id: str,
        ws: Workspace,
        wait: bool = False,
        timeout_s: Annotated[float, Query(ge=0, le=MAX_WAIT_S)] = 30.0,
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while True:
            episode = host.episode(ws, slot_id)
            now = time.monotonic()
            if not wait or episode.status != "pending" or now >= deadline:
                return episode.public()
            await asyncio.sleep(max(0.002, min(episode.resolve_at - now, deadline - now, 0.25)))

    @app.post("/v1/slots/{slot_id}/actions", tags=["episodes"])
    def post_action(slot_id: str, body: ActionBody, ws: Workspace) -> dict[str, Any]:
        return host.act(ws, slot_id, body.fields())

    @app.get("/v1/slots/{slot_id}/actions", tags=["episodes"])
    def get_action_log(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.action_log(ws, slot_id)

    @app.get(
        "/v1/slots/{slot_id}/screenshot",
        tags=["episodes"],
        response_class=Response,
        responses={200: {"content": {"image/png": {}, "application/octet-stream": {}}}},
    )
    def screenshot(
        slot_id: str, ws: Workspace, format: str = "png", since: str | None = None
    ) -> Response:
        shot = host.screenshot(ws, slot_id, format, since)
        headers = {
            "X-Screen-Width": str(shot.width),
            "X-Screen-Height": str(shot.height),
            "X-Episode-Status": shot.episode_status,
            "X-Frame": str(shot.frame),
            "X-Frame-Token": shot.token,
        }
        if shot.delta_base is not None:
            headers["X-Delta-Base"] = shot.delta_base
            headers["X-Delta-Boxes"] = ";".join(",".join(map(str, b)) for b in shot.boxes)
        media = "image/png" if format == "png" else "application/octet-stream"
        return Response(content=shot.data, media_type=media, headers=headers)

    @app.get("/v1/slots/{slot_id}/accessibility", tags=["episodes"])
    def accessibility(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.accessibility(ws, slot_id)

    @app.post("/v1/slots/{slot_id}/verify", tags=["episodes"])
    def verify(slot_id: str, ws: Workspace, body: VerifyBody | None = None) -> dict[str, Any]:
        return host.verify(ws, slot_id, body.fields() if body else {})

    @app.post("/v1/slots/{slot_id}/reset", tags=["episodes"])
    def reset(slot_id: str, ws: Workspace) -> dict[str, Any]:
        return host.reset(ws, slot_id)

    @app.post("/v1/slots/{slot_id}/branch", tags=["fork"])
    def branch(
        slot_id: str,
        body: Branch,
        ws: Workspace,
        idempotency_key: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        return host.branch(ws, slot_id, body.fields(), idempotency_key)

    @app.get("/v1/states", tags=["states"])
    def list_states(ws: Workspace) -> dict[str, Any]:
        return {"states": host.list_states(ws)}

    @app.get("/v1/states/{state_id}", tags=["states"])
    def get_state(state_id: str, ws: Workspace) -> dict[str, Any]:
        return host.get_state(ws, state_id)

    @app.delete("/v1/states/{state_id}", tags=["states"])
    def delete_state(state_id: str, ws: Workspace) -> dict[str, Any]:
        return host.delete_state(ws, state_id)

    return app

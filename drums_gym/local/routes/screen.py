"""What is on a slot's screen: the screenshot (PNG, raw RGB or a raw delta) and the
accessibility tree."""

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import Response

from ... import protocol as P
from ..fairness import WorkspaceThreads
from ..host import Host
from .common import HostDep, Threads, Workspace

__all__ = ["router", "screenshot_response"]


async def screenshot_response(
    host: Host, ws: str, threads: WorkspaceThreads, slot_id: str, fmt: str, since: str | None
) -> Response:
    """What ``GET /v1/slots/{id}/screenshot`` answers (also on the hot path, `.hot`)."""
    shot = await threads.run_now(ws, lambda: host.screenshot_now(ws, slot_id, fmt, since),
                                 host.screenshot, ws, slot_id, fmt, since)
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
    media = "image/png" if fmt == P.FORMAT_PNG else "application/octet-stream"
    return Response(content=shot.data, media_type=media, headers=headers)


def router() -> APIRouter:
    routes = APIRouter(tags=["episodes"])

    @routes.get(
        P.slot_route(P.SCREENSHOT_SUFFIX),
        response_class=Response,
        responses={200: {"content": {"image/png": {}, "application/octet-stream": {}}}},
    )
    async def screenshot(
        slot_id: str,
        host: HostDep,
        ws: Workspace,
        threads: Threads,
        format: Literal["png", "raw"] = "png",
        since: str | None = None,
    ) -> Response:
        return await screenshot_response(host, ws, threads, slot_id, format, since)

    @routes.get(P.slot_route(P.ACCESSIBILITY_SUFFIX), response_model=P.AccessibilityReply)
    async def accessibility(
        slot_id: str, host: HostDep, ws: Workspace, threads: Threads
    ) -> P.AccessibilityReply:
        return await threads.run(ws, host.accessibility, ws, slot_id)

    return routes

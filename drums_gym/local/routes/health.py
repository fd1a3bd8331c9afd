"""``GET /healthz`` and ``GET /v1/host``."""

from fastapi import APIRouter, Request

from ... import protocol as P
from ..host import Host
from .common import HostDep, Workspace

__all__ = ["router"]


def router() -> APIRouter:
    routes = APIRouter(tags=["host"])

    @routes.get(P.HEALTHZ, response_model=P.HealthReply)
    async def healthz(request: Request) -> P.HealthReply:
        host: Host = request.app.state.host
        return P.HealthReply(ok=True, shell=request.app.state.shell, isolation=host.isolation)

    @routes.get(P.HOST, response_model=P.HostReply)
    def host_info(host: HostDep, ws: Workspace) -> P.HostReply:
        return host.info(ws)

    return routes

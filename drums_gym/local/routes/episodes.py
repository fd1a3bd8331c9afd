"""A slot's episode: read it (long-polling), act, read the action log, verify, reset."""

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ... import protocol as P
from ..bodies import ActionBody, ResetBody, VerifyBody
from ..fairness import WorkspaceThreads
from ..host import Host
from .common import HostDep, SafeJSONResponse, Threads, Workspace, until_settled

__all__ = ["router", "take_action"]


async def take_action(
    host: Host, ws: str, threads: WorkspaceThreads, slot_id: str, body: ActionBody
) -> Response:
    """What ``POST /v1/slots/{id}/actions`` answers (also on the hot path, `.hot`)."""
    wire = body.wire(P.ActionBody)
    reply = await threads.run_now(ws, lambda: host.act_now(ws, slot_id, wire),
                                  host.act, ws, slot_id, wire)
    return SafeJSONResponse(P.encode(reply))


def router() -> APIRouter:
    routes = APIRouter(tags=["episodes"])

    @routes.get(P.slot_route(P.EPISODE_SUFFIX), response_model=P.EpisodeReply)
    async def get_episode(
        slot_id: str,
        host: HostDep,
        ws: Workspace,
        wait: bool = False,
        timeout_s: Annotated[float, Query(ge=0, le=P.MAX_WAIT_S)] = 30.0,
    ) -> P.EpisodeReply:
        if wait:
            await until_settled(host, ws, slot_id, timeout_s)
        return host.episode(ws, slot_id).public()

    @routes.post(P.slot_route(P.ACTIONS_SUFFIX), response_model=P.ActionReply)
    async def post_action(
        slot_id: str, body: ActionBody, host: HostDep, ws: Workspace, threads: Threads
    ) -> Response:
        return await take_action(host, ws, threads, slot_id, body)

    # an entry leaves out what it does not have (a refused action has `error`, no runner)
    @routes.get(P.slot_route(P.ACTIONS_SUFFIX), response_model=P.ActionLog,
                response_model_exclude_none=True)
    async def get_action_log(
        slot_id: str, host: HostDep, ws: Workspace, threads: Threads
    ) -> P.ActionLog:
        return await threads.run(ws, host.action_log, ws, slot_id)

    @routes.post(P.slot_route(P.VERIFY_SUFFIX), response_model=P.VerifyReply)
    async def verify(
        slot_id: str,
        host: HostDep,
        ws: Workspace,
        threads: Threads,
        body: VerifyBody | None = None,
    ) -> P.VerifyReply:
        fields = body.wire(P.VerifyBody) if body else P.VerifyBody()
        await until_settled(host, ws, slot_id, fields.timeout_s)
        return await threads.run(ws, host.verify, ws, slot_id, fields)

    @routes.post(P.slot_route(P.RESET_SUFFIX), response_model=P.SlotReply)
    async def reset(
        slot_id: str,
        host: HostDep,
        ws: Workspace,
        threads: Threads,
        body: ResetBody | None = None,
    ) -> P.SlotReply:
        fields = body.wire(P.ResetBody) if body else None
        return await threads.run(ws, host.reset, ws, slot_id, fields)

    return routes

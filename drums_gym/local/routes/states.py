"""Fork (``POST /v1/slots/{id}/branch``) and the saved states it makes."""

from typing import Annotated

from fastapi import APIRouter, Header

from ... import protocol as P
from ..bodies import BodyModels
from .common import HostDep, Threads, Workspace

__all__ = ["router"]


def router(models: BodyModels) -> APIRouter:
    routes = APIRouter()
    Branch = models.branch

    # a running child is {"id", "state"}: its `error` is left out (the Drums docs' bytes)
    @routes.post(P.slot_route(P.BRANCH_SUFFIX), tags=["fork"], response_model=P.BranchReply,
                 response_model_exclude_none=True)
    async def branch(
        slot_id: str,
        body: Branch,  # type: ignore[valid-type]
        host: HostDep,
        ws: Workspace,
        threads: Threads,
        idempotency_key: Annotated[str | None, Header()] = None,
    ) -> P.BranchReply:
        fields = body.wire(P.BranchBody)  # type: ignore[attr-defined]
        return await threads.run(ws, host.branch, ws, slot_id, fields, idempotency_key)

    @routes.get(P.STATES, response_model=P.StateList, tags=["states"])
    def list_states(host: HostDep, ws: Workspace) -> P.StateList:
        return P.StateList(states=tuple(host.list_states(ws)))

    @routes.get(P.STATE_ROUTE, response_model=P.StateReply, tags=["states"])
    def get_state(state_id: str, host: HostDep, ws: Workspace) -> P.StateReply:
        return host.get_state(ws, state_id)

    @routes.delete(P.STATE_ROUTE, response_model=P.DeletedReply, tags=["states"])
    def delete_state(state_id: str, host: HostDep, ws: Workspace) -> P.DeletedReply:
        return host.delete_state(ws, state_id)

    return routes

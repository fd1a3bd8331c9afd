"""Slots: create, list, get, delete, and extend a slot's lease."""

from typing import Annotated

from fastapi import APIRouter, Header

from ... import protocol as P
from ..bodies import BodyModels
from .common import HostDep, Threads, Workspace

__all__ = ["router"]


def router(models: BodyModels) -> APIRouter:
    routes = APIRouter(tags=["slots"])
    CreateSlot, LeaseBody = models.create, models.lease

    @routes.post(P.SLOTS, status_code=201, response_model=P.SlotReply)
    async def create_slot(
        body: CreateSlot,  # type: ignore[valid-type]
        host: HostDep,
        ws: Workspace,
        threads: Threads,
        idempotency_key: Annotated[str | None, Header()] = None,
    ) -> P.SlotReply:
        fields = body.wire(P.CreateSlotBody)  # type: ignore[attr-defined]
        return await threads.run(ws, host.create_slot, ws, fields, idempotency_key)

    @routes.get(P.SLOTS, response_model=P.SlotList)
    def list_slots(host: HostDep, ws: Workspace) -> P.SlotList:
        return P.SlotList(slots=tuple(host.list_slots(ws)))

    @routes.get(P.slot_route(), response_model=P.SlotReply)
    def get_slot(slot_id: str, host: HostDep, ws: Workspace) -> P.SlotReply:
        return host.get_slot(ws, slot_id)

    @routes.delete(P.slot_route(), response_model=P.DeletedReply)
    def delete_slot(slot_id: str, host: HostDep, ws: Workspace) -> P.DeletedReply:
        return host.delete_slot(ws, slot_id)

    @routes.post(P.slot_route(P.LEASE_SUFFIX), response_model=P.SlotReply)
    def extend_lease(
        slot_id: str, body: LeaseBody, host: HostDep, ws: Workspace  # type: ignore[valid-type]
    ) -> P.SlotReply:
        return host.extend_lease(ws, slot_id, body.wire(P.LeaseBody))  # type: ignore[attr-defined]

    return routes

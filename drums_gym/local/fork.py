"""Fork and saved states: ``branch`` snapshots a slot and starts children from it.

The parent is cloned under its own lock (queued like any work on it), the children are
cloned from the snapshot with no lock held, and the host lock is taken only to reserve
quota and to record the state and children: a busy parent delays its own fork, nothing else.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import TYPE_CHECKING

from .. import protocol as P
from .errors import conflict, not_found
from .slots import SavedState, Slot

if TYPE_CHECKING:
    from .desktop import Desktop
    from .host import Host

__all__ = ["branch", "delete_state", "get_state", "list_states", "start_desktop"]


def branch(
    host: Host, workspace: str, slot_id: str, body: P.BranchBody, key: str | None = None
) -> P.BranchReply:
    """``POST /v1/slots/{id}/branch``: ``{"state", "children": [{"id", "state"}, ...]}``."""
    n = body.n
    delete_with_children = body.delete_state_with_children
    ttl = body.ttl_s or host.config.default_ttl_s
    fingerprint = json.dumps(["branch", slot_id, P.encode(body)], sort_keys=True, default=str)
    with host._lock:
        store = host.ensure_ws(workspace).idempotency

    def make() -> P.BranchReply:  # a replay answers the first reply, even once the parent went
        parent = host.slot(workspace, slot_id)
        with host._lock:
            ws = host.ensure_ws(workspace)
            host.workspaces.reserve(ws, n, states=1)
        try:
            with parent.work(host.config.slot_queue) as desktop:
                snapshot = desktop.clone()
            children: list[tuple[Slot | None, str]] = []
            for _ in range(n):
                child_id = "slot_" + secrets.token_hex(6)
                if host.faults.roll("fork_child_fail", host.faults.spec.fork_child_fail):
                    children.append((None, child_id))
                    continue
                child = host.new_slot(
                    workspace, parent.task, snapshot.clone(), ttl, parent=parent.id
                )
                children.append((child, child.id))
        finally:
            with host._lock:
                host.workspaces.release(ws, n)
        with host._lock:
            state = SavedState(
                id="st_" + secrets.token_hex(6),
                workspace=workspace,
                slot_id=parent.id,
                task=parent.task,
                desktop=snapshot,
                delete_with_children=delete_with_children,
                expires_at=time.time() + host.config.state_idle_ttl_s,
                idle_ttl_s=host.config.state_idle_ttl_s,
            )
            ws.states[state.id] = state
            replies: list[P.ChildReply] = []
            for slot, child_id in children:
                if slot is None:
                    error = P.ChildError(
                        code=P.CODE_CHILD_FAILED, message="the child desktop did not come up"
                    )
                    replies.append(P.ChildReply(id=child_id, state=P.CHILD_FAILED, error=error))
                    continue
                slot.saved_state = state.id
                host.workspaces.add(ws, slot)
                state.children.add(slot.id)
                replies.append(P.ChildReply(id=slot.id, state=P.CHILD_RUNNING))
            if delete_with_children and not state.children:
                del ws.states[state.id]
            return P.BranchReply(state=state.id, children=tuple(replies))

    reply: P.BranchReply = store.run(key, fingerprint, make)
    return reply


def start_desktop(host: Host, slot: Slot, state_id: str) -> Desktop:
    """The desktop of the saved state ``state_id`` that ``slot`` may reset to: 404 when the
    workspace has no such state, 409 when it was saved from another task or screen size."""
    with host._lock:
        ws = host.ws(slot.workspace)
        state = ws.states.get(state_id) if ws else None
        if state is None:
            raise not_found("state", state_id, P.ErrorDetails(state=state_id))
        if state.task.id != slot.task.id:
            raise conflict(
                f"state {state_id} was saved from task {state.task.id[:8]}, "
                f"not this slot's task {slot.task.id[:8]}",
                P.ErrorDetails(state=state_id),
            )
        state.touch()  # a state in use is not idle
        desktop = state.desktop
    size = (desktop.width, desktop.height)
    if size != (slot.desktop.width, slot.desktop.height):
        raise conflict(
            f"state {state_id} is a {size[0]}x{size[1]} desktop, this slot's is "
            f"{slot.desktop.width}x{slot.desktop.height}",
            P.ErrorDetails(state=state_id),
        )
    return desktop


def list_states(host: Host, workspace: str) -> list[P.StateReply]:
    with host._lock:
        ws = host.ws(workspace)
        return [s.public() for s in ws.states.values()] if ws else []


def get_state(host: Host, workspace: str, state_id: str) -> P.StateReply:
    with host._lock:
        ws = host.ws(workspace)
        state = ws.states.get(state_id) if ws else None
        if state is None:
            raise not_found("state", state_id, P.ErrorDetails(state=state_id))
        return state.public()


def delete_state(host: Host, workspace: str, state_id: str) -> P.DeletedReply:
    with host._lock:
        ws = host.ws(workspace)
        if ws is None or state_id not in ws.states:
            raise not_found("state", state_id, P.ErrorDetails(state=state_id))
        del ws.states[state_id]
    return P.DeletedReply(id=state_id, deleted=True)


"""Fork and saved states: ``branch`` snapshots a slot and starts children from it.

The parent is copied under its own lock (queued like any work on it) and the host lock is
taken only to reserve quota and to record the state and children: a busy parent delays its
own fork, nothing else. With desktop workers, the children are copy-on-write forks of the
parent's worker (``os.fork`` in the worker, each child re-parented to the zygote and put in
its own cgroups): no desktop is serialised, the children share the parent's pages until
they write. The saved state is one more such copy, kept idle in a worker of its own (its
keeper): reset from the state (start states) and a later branch copy it the same way.
In-process hosts clone the desktop (a deep copy) for the state and each child.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from .. import protocol as P
from . import work
from .errors import conflict, not_found
from .slots import SavedState, Slot
from .workers import Station, Worker, WorkerLost

if TYPE_CHECKING:
    from .host import Host

__all__ = ["branch", "delete_state", "get_state", "list_states", "restore", "start_state"]


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
            failed = [
                host.faults.roll("fork_child_fail", host.faults.spec.fork_child_fail)
                for _ in range(n)
            ]
            keeper, stations = _copies(host, parent, workspace, failed.count(False))
            children: list[tuple[Slot | None, str]] = []
            for fails in failed:
                child_id = "slot_" + secrets.token_hex(6)
                station = None if fails else stations.pop()
                if station is None:  # injected, or its copy of the desktop did not come up
                    children.append((None, child_id))
                    continue
                child = host.new_slot(
                    workspace, parent.task, station, (parent.width, parent.height), ttl,
                    parent=parent.id,
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
                size=(parent.width, parent.height),
                keeper=keeper,
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
                state.drop()
            return P.BranchReply(state=state.id, children=tuple(replies))

    reply: P.BranchReply = store.run(key, fingerprint, make)
    return reply


def start_state(host: Host, slot: Slot, state_id: str) -> SavedState:
    """The saved state ``state_id`` that ``slot`` may reset to: 404 when the workspace has
    no such state, 409 when it was saved from another task or screen size."""
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
    if state.size != (slot.width, slot.height):
        raise conflict(
            f"state {state_id} is a {state.size[0]}x{state.size[1]} desktop, this slot's is "
            f"{slot.width}x{slot.height}",
            P.ErrorDetails(state=state_id),
        )
    return state


def _copies(
    host: Host, parent: Slot, workspace: str, n: int
) -> tuple[Station | Worker, list[Station | Worker | None]]:
    """The saved state's keeper and ``n`` stations holding copies of the parent's desktop
    as it is now (with workers: ``n + 1`` forks of the parent's worker, the first kept; a
    child that did not come up is None, a keeper that did not is a 409, the parent kept)."""
    with parent.work(host.config.slot_queue) as station:
        if parent.lost is not None:
            raise conflict(
                f"slot {parent.id!r} lost its desktop ({parent.lost}); it cannot be forked",
                P.ErrorDetails(slot=parent.id, reason=parent.lost),
            )
        if isinstance(station, Worker):
            try:
                keeper, *children = host.pool.fork(station, n + 1, workspace)
            except WorkerLost as exc:
                work.lose(host, parent, exc, "fork")
                raise conflict(
                    f"slot {parent.id!r} lost its desktop while forking ({exc.cause})",
                    P.ErrorDetails(slot=parent.id, reason=parent.lost),
                ) from None
            if isinstance(keeper, WorkerLost):
                for child in children:
                    if isinstance(child, Worker):
                        child.end("the branch failed")
                raise conflict(
                    f"slot {parent.id!r} could not be saved: its copy did not come up "
                    f"({keeper.cause})",
                    P.ErrorDetails(slot=parent.id),
                )
            return keeper, [c if isinstance(c, Worker) else None for c in children]
        snapshot = station.snapshot()
    return _station(host, snapshot, parent), [
        _station(host, snapshot.clone(), parent) for _ in range(n)
    ]


def _station(host: Host, desktop: Any, parent: Slot) -> Station:
    out = Station(host.config.desktop_windows)
    out.adopt(desktop, parent.task)
    return out


def restore(host: Host, state: SavedState, workspace: str) -> Station | Worker:
    """A new station holding a copy of ``state``'s desktop (a fork of its keeper's worker,
    or a clone in-process); 409 when the state's worker is gone."""
    keeper = state.keeper
    if isinstance(keeper, Worker):
        try:
            [copy] = host.pool.fork(keeper, 1, workspace)
        except WorkerLost as exc:
            raise conflict(
                f"state {state.id} lost its desktop ({exc.cause}); delete it",
                P.ErrorDetails(state=state.id),
            ) from None
        if isinstance(copy, WorkerLost):
            raise conflict(
                f"a copy of state {state.id} did not come up ({copy.cause})",
                P.ErrorDetails(state=state.id),
            )
        return copy
    out = Station(host.config.desktop_windows)
    out.adopt(keeper.snapshot(), state.task)
    return out


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
        ws.states.pop(state_id).drop()
    return P.DeletedReply(id=state_id, deleted=True)


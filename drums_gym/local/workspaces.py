"""Workspaces and quotas: what each workspace holds and what the host may still start.

A workspace is named by its bearer token's hash (the token itself is never kept). On a
tokenless host any token makes a workspace, so :class:`Workspaces` caps their number and
forgets empty ones (the oldest first, and any empty longer than ``workspace_idle_s``).
Live desktops are counted as they come and go: no request sums over all workspaces.
All of it runs under the host lock; none of it touches a desktop.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import protocol as P
from .config import HostConfig
from .errors import HostError, overloaded
from .idempotency import IdempotencyStore
from .slots import Gone, SavedState, Slot

__all__ = ["GONE_KEEP_S", "IDEMPOTENCY_KEEP_S", "Workspace", "Workspaces", "workspace_of"]

#: how long a deleted slot still answers ``state: deleted`` before it is forgotten
GONE_KEEP_S = 600.0
IDEMPOTENCY_KEEP_S = 24 * 3600.0


def workspace_of(token: str | None) -> str:
    """The workspace a token names; the token itself is never stored or shown."""
    if not token:
        return "default"
    return "ws_" + hashlib.sha256(token.encode()).hexdigest()[:16]


@dataclass
class Workspace:
    """One workspace's slots, saved states, deleted-slot records and idempotency store."""

    idempotency: IdempotencyStore
    deleted_records: int
    slots: dict[str, Slot] = field(default_factory=dict)
    gone: OrderedDict[str, tuple[float, Gone]] = field(default_factory=OrderedDict)
    states: dict[str, SavedState] = field(default_factory=dict)
    reserved: int = 0  # desktops being built outside the host lock
    used_at: float = field(default_factory=time.time)

    @property
    def empty(self) -> bool:
        return not self.slots and not self.states and not self.reserved

    def remember_gone(self, slot: Slot) -> None:
        self.gone[slot.id] = (time.time(), Gone(slot.public(), slot.deleted_reason))
        while len(self.gone) > self.deleted_records:
            self.gone.popitem(last=False)


class Workspaces:
    """Every workspace of the host, the live-desktop count and the quota checks."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._all: OrderedDict[str, Workspace] = OrderedDict()  # least recently used first
        self.live = 0  # desktops running or being built, over all workspaces

    def __iter__(self) -> Iterator[Workspace]:
        return iter(list(self._all.values()))

    def __len__(self) -> int:
        return len(self._all)

    def by_name(self) -> dict[str, Workspace]:
        """A snapshot of the workspaces by name (for tests and diagnostics)."""
        return dict(self._all)

    def get(self, name: str) -> Workspace | None:
        """The workspace, if it exists (reads never create one)."""
        ws = self._all.get(name)
        if ws is not None:
            ws.used_at = time.time()
            self._all.move_to_end(name)
        return ws

    def ensure(self, name: str) -> Workspace:
        """The workspace, created if new (forgetting the oldest empty one beyond the cap)."""
        ws = self.get(name)
        if ws is not None:
            return ws
        if len(self._all) >= self.config.max_workspaces:
            oldest = next((k for k, w in self._all.items() if w.empty), None)
            if oldest is None:
                raise overloaded(
                    f"the host holds {len(self._all)} busy workspaces",
                    self.config.capacity_retry_after_s,
                )
            del self._all[oldest]
        ws = self._all[name] = Workspace(
            IdempotencyStore(self.config.idempotency_keys, IDEMPOTENCY_KEEP_S),
            self.config.deleted_records,
        )
        return ws

    def forget_idle(self, now: float) -> None:
        """Drop workspaces empty for longer than ``workspace_idle_s`` (oldest first)."""
        for name, ws in list(self._all.items()):
            if ws.used_at + self.config.workspace_idle_s > now:
                break
            if ws.empty:
                del self._all[name]

    def add(self, ws: Workspace, slot: Slot) -> None:
        ws.slots[slot.id] = slot
        self.live += 1

    def drop(self, ws: Workspace, slot: Slot, reason: str) -> None:
        """Remove a slot: stop its work, remember it as deleted, release its saved state."""
        del ws.slots[slot.id]
        self.live -= 1
        slot.stop(reason)
        ws.remember_gone(slot)
        state = ws.states.get(slot.saved_state) if slot.saved_state else None
        if state is not None:
            state.children.discard(slot.id)
            if state.delete_with_children and not state.children:
                ws.states.pop(state.id).drop()

    def reserve(self, ws: Workspace, desktops: int, states: int = 0) -> None:
        """Check the quotas for ``desktops`` more (and ``states`` more saved states) and hold
        room for them; :meth:`release` gives it back."""
        cfg = self.config
        live = len(ws.slots) + ws.reserved
        if live + desktops > cfg.live_desktops:
            raise HostError(
                403,
                P.CODE_QUOTA_EXCEEDED,
                f"live desktop limit reached: {live} running + {desktops} requested "
                f"> {cfg.live_desktops}",
                P.ErrorDetails(limit=cfg.live_desktops, live=live, requested=desktops),
            )
        if states and len(ws.states) + states > cfg.saved_states:
            raise HostError(
                403,
                P.CODE_QUOTA_EXCEEDED,
                f"saved state limit reached: {len(ws.states)} of {cfg.saved_states}",
                P.ErrorDetails(limit=cfg.saved_states, saved_states=len(ws.states)),
            )
        if self.live + desktops > cfg.host_desktops:
            raise overloaded(
                f"the host is full ({self.live} of {cfg.host_desktops} desktops)",
                cfg.capacity_retry_after_s,
            )
        ws.reserved += desktops
        self.live += desktops

    def release(self, ws: Workspace, desktops: int) -> None:
        ws.reserved -= desktops
        self.live -= desktops

"""A slot (a live desktop with its episode), saved states, and deleted slots' traces.

A slot serialises the work on its desktop: :meth:`Slot.work` queues a request for the
slot's lock (at most ``slot_queue`` waiting, then 429), refuses it once the slot is deleted
(409, also for requests that were queued behind the deletion), and :meth:`Slot.budgeted`
runs the work under a budget that deleting the slot cancels.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import protocol as P
from .budget import Budget, Limits, running
from .desktop import Desktop
from .episodes import Episode
from .errors import conflict, overloaded
from .frames import FrameCache
from .tasks import Task

__all__ = ["STATE_SIZE_BYTES", "Gone", "SavedState", "Slot"]

#: what one saved state costs the host (the Drums docs: about 0.6 GB)
STATE_SIZE_BYTES = 644_245_094
#: Retry-After of a request refused because its desktop's queue is full
BUSY_RETRY_S = 1.0


@dataclass
class Slot:
    """A live desktop in a workspace, with its current episode."""

    id: str
    workspace: str
    task: Task
    desktop: Desktop
    episode: Episode
    ttl_s: float
    expires_at: float
    parent: str | None = None
    saved_state: str | None = None
    created_at: float = field(default_factory=time.time)
    state: str = P.SLOT_RUNNING  # running | deleted
    deleted_reason: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    epoch: int = 0  # bumped when reset replaces the desktop: frame tokens never repeat
    frames: FrameCache = field(default_factory=FrameCache, repr=False)
    budget: Budget | None = field(default=None, repr=False)
    _waiting: int = field(default=0, repr=False)
    _queue: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def deleted_error(self) -> Exception:
        """409: the slot is deleted (and why)."""
        return conflict(
            f"slot {self.id!r} is deleted ({self.deleted_reason})",
            P.ErrorDetails(slot=self.id, reason=self.deleted_reason),
        )

    @contextmanager
    def work(self, max_queued: int) -> Iterator[Desktop]:
        """Hold the slot's lock for one request's work on its desktop."""
        with self._queue:
            if self._waiting >= max_queued:
                raise overloaded(
                    f"slot {self.id!r} is busy: {self._waiting} requests are waiting for it",
                    BUSY_RETRY_S,
                )
            self._waiting += 1
        try:
            self.lock.acquire()
        finally:
            with self._queue:
                self._waiting -= 1
        try:
            if self.state != P.SLOT_RUNNING:
                raise self.deleted_error()
            yield self.desktop
        finally:
            if self.state != P.SLOT_RUNNING:
                self.desktop.close()  # deleted while this work ran: its programs end now
            self.lock.release()

    @contextmanager
    def budgeted(self, limits: Limits) -> Iterator[Budget]:
        """Run the work inside under one budget, cancelled if the slot goes meanwhile."""
        budget = self.budget = Budget(limits)
        if self.state != P.SLOT_RUNNING:
            budget.cancel()
        try:
            with running(budget):
                yield budget
        finally:
            self.budget = None

    def stop(self, reason: str) -> None:
        """Mark the slot deleted and stop its running work at the next budget check."""
        self.state, self.deleted_reason = P.SLOT_DELETED, reason
        budget = self.budget
        if budget is not None:
            budget.cancel()
        if self.lock.acquire(blocking=False):  # else the running work closes it as it ends
            try:
                self.desktop.close()  # the sandbox's programs and files go with the slot
            finally:
                self.lock.release()

    def public(self) -> P.SlotReply:
        self.episode.refresh()
        return P.SlotReply(
            id=self.id,
            task=self.task.id,
            state=self.state,
            created_at=self.created_at,
            expires_at=self.expires_at,
            ttl_s=self.ttl_s,
            screen=P.ScreenSize(width=self.desktop.width, height=self.desktop.height),
            parent=self.parent,
            saved_state=self.saved_state,
            episode=self.episode.public(),
        )


@dataclass
class SavedState:
    """A snapshot of a desktop that fork children are restored from."""

    id: str
    workspace: str
    slot_id: str
    task: Task
    desktop: Desktop
    delete_with_children: bool
    expires_at: float
    idle_ttl_s: float
    children: set[str] = field(default_factory=set)
    created_at: float = field(default_factory=time.time)

    def touch(self) -> None:
        self.expires_at = time.time() + self.idle_ttl_s

    def public(self) -> P.StateReply:
        return P.StateReply(
            id=self.id,
            slot=self.slot_id,
            children=tuple(sorted(self.children)),
            delete_with_children=self.delete_with_children,
            created_at=self.created_at,
            expires_at=self.expires_at,
            size_bytes=STATE_SIZE_BYTES,
        )


@dataclass(frozen=True)
class Gone:
    """What a deleted slot still answers for a while: its last public form and why it
    went. The desktop itself is not kept (tens of MB with its frame caches)."""

    last: P.SlotReply
    deleted_reason: str | None

    def public(self) -> P.SlotReply:
        return self.last

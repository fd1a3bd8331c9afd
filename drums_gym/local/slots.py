"""A slot (a live desktop with its episode), saved states, and deleted slots' traces.

A slot serialises the work on its desktop: :meth:`Slot.work` queues a request for the
slot's lock (at most ``slot_queue`` waiting, then 429), refuses it once the slot is deleted
(409, also for requests that were queued behind the deletion), and :meth:`Slot.run` runs one
operation of its :class:`~drums_gym.local.workers.Station`: in the slot's worker process
(a :class:`~drums_gym.local.workers.Worker`, with a deadline), or in this process under a
budget that deleting the slot cancels (``in_process`` hosts). Deleting a slot kills its
worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as P
from .budget import Budget, Limits, running
from .episodes import Episode
from .errors import conflict, overloaded
from .tasks import Task
from .workers import Station, Worker

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
    station: Station | Worker  # where the desktop is: this process, or its worker
    width: int
    height: int
    episode: Episode
    ttl_s: float
    expires_at: float
    parent: str | None = None
    saved_state: str | None = None
    created_at: float = field(default_factory=time.time)
    state: str = P.SLOT_RUNNING  # running | deleted
    deleted_reason: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    lost: str | None = None  # why the desktop is gone while the slot is not (worker died)
    budget: Budget | None = field(default=None, repr=False)
    _waiting: int = field(default=0, repr=False)
    _queue: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def desktop(self) -> Any:
        """The desktop's Python object, in in-process hosts only (a worker's desktop is in
        another process: :meth:`Host.inspect_desktop` gives a copy of it)."""
        if isinstance(self.station, Worker):
            raise AttributeError(
                f"slot {self.id!r}'s desktop is in its worker process (pid "
                f"{self.station.pid}); Host.inspect_desktop gives a copy"
            )
        return self.station.desktop

    def deleted_error(self) -> Exception:
        """409: the slot is deleted (and why)."""
        return conflict(
            f"slot {self.id!r} is deleted ({self.deleted_reason})",
            P.ErrorDetails(slot=self.id, reason=self.deleted_reason),
        )

    @contextmanager
    def work(self, max_queued: int) -> Iterator[Station | Worker]:
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
            yield self.station
        finally:
            if self.state != P.SLOT_RUNNING and isinstance(self.station, Station):
                self.station.close()  # deleted while this work ran: its programs end now
            self.lock.release()

    def work_now(self) -> bool:
        """(the event loop's way in, in place of :meth:`work`) Take the slot's lock only if
        its desktop is in a worker (a desktop in this process works on a thread) and nobody
        holds it, this thread included (a coroutine holding it across an ``await`` owns it
        for the loop's thread): never waits. False: take :meth:`work` on a thread. The
        caller releases ``lock``."""
        if not isinstance(self.station, Worker) or self.lock._is_owned():  # type: ignore[attr-defined]
            return False
        if not self.lock.acquire(blocking=False):
            return False
        if self.state != P.SLOT_RUNNING:
            self.lock.release()
            raise self.deleted_error()
        return True

    async def arun(
        self, op: str, *args: Any, limits: Limits | None = None, deadline_s: float | None = None
    ) -> Any:
        """:meth:`run` on the event loop (a worker's slot only)."""
        station = self.station
        assert isinstance(station, Worker), "only a worker's slot runs on the event loop"
        return await station.acall(op, args, limits, deadline_s)

    def run(
        self, op: str, *args: Any, limits: Limits | None = None, deadline_s: float | None = None
    ) -> Any:
        """Run the station's ``op`` (held under :meth:`work`): budgeted by ``limits``; in a
        worker, killed at ``deadline_s`` (:class:`~drums_gym.local.workers.WorkerTimeout`)."""
        station = self.station
        if isinstance(station, Worker):
            return station.call(op, args, limits, deadline_s)
        method = getattr(station, op)
        if limits is None:
            return method(*args)
        with self.budgeted(limits):
            return method(*args)

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
        """Mark the slot deleted and stop its running work: kill its worker, or (in this
        process) cancel the budget at its next check."""
        self.state, self.deleted_reason = P.SLOT_DELETED, reason
        budget = self.budget
        if budget is not None:
            budget.cancel()
        if isinstance(self.station, Worker):
            self.station.end(reason)  # its desktop closes in the worker, or the worker dies
        elif self.lock.acquire(blocking=False):  # else the running work closes it as it ends
            try:
                self.station.close()  # the sandbox's programs and files go with the slot
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
            screen=P.ScreenSize(width=self.width, height=self.height),
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
    size: tuple[int, int]  # the desktop's screen (width, height)
    #: where the snapshot lives: a worker of its own (a fork of the parent's, idle), or a
    #: Station in in-process hosts; reset from this state and branch copy it
    keeper: Station | Worker
    delete_with_children: bool
    expires_at: float
    idle_ttl_s: float
    children: set[str] = field(default_factory=set)
    created_at: float = field(default_factory=time.time)

    def touch(self) -> None:
        self.expires_at = time.time() + self.idle_ttl_s

    def drop(self) -> None:
        """The state is deleted: its snapshot's worker ends (cheap: under the host lock)."""
        if isinstance(self.keeper, Worker):
            self.keeper.end("the saved state was deleted")
        else:
            self.keeper.close()

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

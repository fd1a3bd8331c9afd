"""The local host's model: workspaces, slots (desktops), episodes, saved states, quotas.

Everything here is plain Python and thread-safe; `drums_gym.local.app` maps it onto HTTP
(and validates every request before it gets here). The host lock guards only bookkeeping
(which workspaces, slots and states exist, and the quotas); it is never held while waiting
for a slot or doing desktop work. Work on one desktop holds that slot's lock and runs
under a work budget (:mod:`drums_gym.local.work`); fork and saved states are in
:mod:`drums_gym.local.fork`.

Each desktop lives in its own worker process (:mod:`drums_gym.local.workers`), forked
from a pre-loaded zygote and confined by OS limits; this process keeps only the model.
``in_process=True`` keeps the desktops in this process instead (unit tests that reach into
a desktop's Python objects; no OS isolation).
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

from .. import protocol as P
from . import fork, work
from .config import HostConfig
from .desktop import Desktop
from .episodes import Episode
from .errors import HostError, not_found, overloaded
from .faults import Faults
from .frames import Frame
from .leases import reap_all, sweep
from .slots import Gone, SavedState, Slot
from .tasks import Task, UnknownTask, default_catalog, get_task
from .workers import Pool, Station, Worker, WorkerLimits
from .workspaces import Workspace, Workspaces, workspace_of

__all__ = ["Host", "HostConfig", "SavedState", "Slot", "workspace_of"]


class Host:
    """The local Drums host model.

    >>> from drums_gym.protocol import CreateSlotBody
    >>> host = Host(HostConfig(gate_delay_s=0))
    >>> slot = host.create_slot("default", CreateSlotBody(task="e0df059f"))
    >>> host.wait_episode_now("default", slot.id).status
    'valid'
    >>> host.delete_slot("default", slot.id).deleted
    True
    >>> host.close()
    """

    def __init__(
        self,
        config: HostConfig | None = None,
        faults: Faults | None = None,
        seed: int = 0,
        catalog: Mapping[str, Task] | None = None,
        in_process: bool = False,
    ) -> None:
        self.config = config or HostConfig()
        #: no os.fork (Windows): the desktops stay in this process (no OS isolation)
        self.in_process = in_process or not hasattr(os, "fork")
        #: the tasks this host serves (default: the bundled ones and ``$DRUMS_LOCAL_TASKS``)
        self.catalog: Mapping[str, Task] = default_catalog() if catalog is None else catalog
        self.faults = faults or Faults(seed=seed)
        self._lock = threading.RLock()
        self.workspaces = Workspaces(self.config)
        self._pool: Pool | None = None
        self._closed = False

    # ------------------------------------------------------------------ workers
    @property
    def pool(self) -> Pool:
        """This host's desktop workers (started with the first desktop)."""
        with self._lock:
            if self._closed:
                raise overloaded("the host is stopping", self.config.capacity_retry_after_s)
            if self._pool is None:
                cfg = self.config
                self._pool = Pool(
                    WorkerLimits(cfg.desktop_memory_bytes, cfg.desktop_files,
                                 cfg.desktop_windows, rlimit_memory=False),
                    cfg.desktop_processes,
                    cfg.desktop_reply_bytes,
                )
            return self._pool

    @functools.cached_property
    def shell(self) -> str:
        """The shell backend of this host's desktops, ``sandbox`` or ``simulated`` (resolved
        once: ``auto`` probes the machine)."""
        return self.config.shell_backend()

    @property
    def isolation(self) -> str:
        """What isolates desktops: ``in_process`` (none), or worker processes limited by
        ``cgroup`` or ``rlimit`` (never starts anything)."""
        if self.in_process:
            return "in_process"
        pool = self._pool
        return pool.isolation if pool is not None else "pending"

    def start_workers(self) -> None:
        """Start the worker pool (and the zygote, warming in the background) now rather
        than with the first desktop; nothing for in-process hosts."""
        if not self.in_process:
            self.pool  # noqa: B018  (the property starts it)

    def new_station(self, workspace: str) -> Station | Worker:
        """Where a new desktop will live: a fresh worker (or a Station in this process)."""
        if self.in_process:
            return Station(self.config.desktop_windows)
        return self.pool.spawn(workspace)

    def close(self) -> None:
        """End every desktop's worker and this host's use of the zygote (idempotent)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def inspect_desktop(self, workspace: str, slot_id: str) -> Desktop:
        """A copy of a slot's desktop as Python objects (tests, debugging; slow in a worker;
        the simulated shell backend only: a sandbox desktop holds its programs' sockets)."""
        slot = self.slot(workspace, slot_id)
        with slot.work(self.config.slot_queue):
            if isinstance(slot.station, Worker):
                return pickle.loads(slot.run("pickled", deadline_s=60.0))
            return slot.run("snapshot")

    @property
    def _workspaces(self) -> dict[str, Workspace]:
        """The workspaces by name (a snapshot; tests read it)."""
        with self._lock:
            return self.workspaces.by_name()

    # ------------------------------------------------------------------ lookups
    def ws(self, workspace: str) -> Workspace | None:
        """A workspace if it exists, swept of what expired (under the host lock)."""
        ws = self.workspaces.get(workspace)
        if ws is not None:
            sweep(self.workspaces, ws)
        return ws

    def ensure_ws(self, workspace: str) -> Workspace:
        """A workspace, created if new, swept of what expired (under the host lock)."""
        ws = self.workspaces.ensure(workspace)
        sweep(self.workspaces, ws)
        return ws

    def slot(self, workspace: str, slot_id: str) -> Slot:
        """A running slot, or 404 (unknown) / 409 (deleted)."""
        with self._lock:
            ws = self.ws(workspace)
            slot = ws.slots.get(slot_id) if ws else None
            if slot is not None:
                return slot
            if ws is not None and slot_id in ws.gone:
                reason = ws.gone[slot_id][1].deleted_reason
                raise HostError(
                    409,
                    P.CODE_CONFLICT,
                    f"slot {slot_id!r} is deleted ({reason})",
                    P.ErrorDetails(slot=slot_id, reason=reason),
                )
        raise not_found("slot", slot_id, P.ErrorDetails(slot=slot_id))

    def task(self, task_id: str) -> Task:
        try:
            return get_task(task_id, self.catalog)
        except UnknownTask as exc:
            raise HostError(404, P.CODE_NOT_FOUND, str(exc), P.ErrorDetails(task=task_id)) from None

    def new_episode(self, task: Task, number: int) -> Episode:
        return Episode.start(number, task.gates, self.config.gate_delay_s, self.faults)

    def new_slot(
        self, workspace: str, task: Task, station: Station | Worker, size: tuple[int, int],
        ttl: float, **kw: Any,
    ) -> Slot:
        return Slot(
            id="slot_" + secrets.token_hex(6),
            workspace=workspace,
            task=task,
            station=station,
            width=size[0],
            height=size[1],
            episode=self.new_episode(task, 1),
            ttl_s=ttl,
            expires_at=time.time() + ttl,
            **kw,
        )

    def reap(self) -> None:
        """Expire leases over every workspace (the reaper thread calls this)."""
        with self._lock:
            reap_all(self.workspaces)
            pool = self._pool
        if pool is not None:
            pool.sweep()  # killed workers' remains, outside the host lock

    # ------------------------------------------------------------------ host
    def info(self, workspace: str) -> P.HostReply:
        with self._lock:
            ws = self.ws(workspace)
            return P.HostReply(
                api=P.API_VERSION,
                name="drums-gym local host",
                limits=self.config.public(),
                usage=P.HostUsage(
                    live_desktops=len(ws.slots) if ws else 0,
                    host_desktops=self.workspaces.live,
                    saved_states=len(ws.states) if ws else 0,
                ),
                screenshot_formats=P.SCREENSHOT_FORMATS,
            )

    def counts(self) -> dict[str, int]:
        """Live desktops and saved states over all workspaces (for tests and monitoring)."""
        self.reap()
        with self._lock:
            return {
                "live_desktops": self.workspaces.live,
                "saved_states": sum(len(ws.states) for ws in self.workspaces),
            }

    # ------------------------------------------------------------------ slots
    def create_slot(
        self, workspace: str, body: P.CreateSlotBody, idempotency_key: str | None = None
    ) -> P.SlotReply:
        task = self.task(body.task)
        ttl = body.ttl_s or self.config.default_ttl_s
        width, height = (body.screen.width, body.screen.height) if body.screen else task.screen
        fingerprint = json.dumps(["create", P.encode(body)], sort_keys=True, default=str)
        with self._lock:
            store = self.ensure_ws(workspace).idempotency

        def make() -> P.SlotReply:
            with self._lock:
                ws = self.ensure_ws(workspace)
                self.workspaces.reserve(ws, 1)
            try:  # the desktop is built outside the host lock
                station = work.fresh_station(self, workspace)
                slot = self.new_slot(workspace, task, station, (width, height), ttl)
                try:
                    work.setup(self, slot, body.randomize)
                except BaseException:
                    slot.stop("setup failed")
                    raise
            finally:
                with self._lock:
                    self.workspaces.release(ws, 1)
            with self._lock:
                self.workspaces.add(ws, slot)
            return slot.public()

        reply: P.SlotReply = store.run(idempotency_key, fingerprint, make)
        return reply

    def list_slots(self, workspace: str) -> list[P.SlotReply]:
        with self._lock:
            ws = self.ws(workspace)
            slots = list(ws.slots.values()) if ws else []
        return [s.public() for s in slots]

    def get_slot(self, workspace: str, slot_id: str) -> P.SlotReply:
        with self._lock:
            ws = self.ws(workspace)
            slot: Slot | Gone | None = None
            if ws is not None:
                gone = ws.gone.get(slot_id)
                slot = ws.slots.get(slot_id) or (gone[1] if gone else None)
        if slot is None:
            raise not_found("slot", slot_id, P.ErrorDetails(slot=slot_id))
        return slot.public()

    def delete_slot(self, workspace: str, slot_id: str) -> P.DeletedReply:
        """Delete a slot: work running on it stops, and the reply waits (a bounded time)
        until its worker has closed the desktop, so no program of it is left."""
        with self._lock:
            ws = self.ws(workspace)
            slot = ws.slots.get(slot_id) if ws else None
            if ws is None or slot is None:
                raise not_found("slot", slot_id, P.ErrorDetails(slot=slot_id))
            self.workspaces.drop(ws, slot, P.SLOT_DELETED)
        if isinstance(slot.station, Worker):
            slot.station.finish()  # outside the host lock
        return P.DeletedReply(id=slot_id, deleted=True)

    def extend_lease(self, workspace: str, slot_id: str, body: P.LeaseBody) -> P.SlotReply:
        ttl = float(body.ttl_s)
        slot = self.slot(workspace, slot_id)
        with self._lock:
            slot.ttl_s, slot.expires_at = ttl, time.time() + ttl
        return slot.public()

    # ------------------------------------------------------------------ episodes
    def episode(self, workspace: str, slot_id: str) -> Episode:
        """The slot's current episode, refreshed (for long-polling by the app)."""
        slot = self.slot(workspace, slot_id)
        slot.episode.refresh()
        return slot.episode

    def wait_episode_now(self, workspace: str, slot_id: str) -> P.EpisodeReply:
        """Block (in this thread) until the episode is not pending; for non-HTTP callers."""
        while True:
            episode = self.episode(workspace, slot_id)
            if episode.status != P.EPISODE_PENDING:
                return episode.public()
            time.sleep(max(0.0, min(0.05, episode.resolve_at - time.monotonic())))

    def act(self, workspace: str, slot_id: str, body: P.ActionBody) -> P.ActionReply:
        return work.act(self, self.slot(workspace, slot_id), body.code)

    async def act_now(self, workspace: str, slot_id: str, body: P.ActionBody
                      ) -> P.ActionReply | None:
        """:meth:`act` on the event loop when it needs no thread (`work.act_now`); None:
        call :meth:`act` on a thread."""
        return await work.act_now(self, self.slot(workspace, slot_id), body.code)

    def action_log(self, workspace: str, slot_id: str) -> P.ActionLog:
        return work.action_log(self, self.slot(workspace, slot_id))

    def screenshot(self, workspace: str, slot_id: str, fmt: str, since: str | None = None) -> Frame:
        return work.screenshot(self, self.slot(workspace, slot_id), fmt, since)

    async def screenshot_now(self, workspace: str, slot_id: str, fmt: str,
                             since: str | None = None) -> Frame | None:
        """:meth:`screenshot` on the event loop when it needs no thread; None: call
        :meth:`screenshot` on a thread."""
        return await work.screenshot_now(self, self.slot(workspace, slot_id), fmt, since)

    def accessibility(self, workspace: str, slot_id: str) -> P.AccessibilityReply:
        return work.accessibility(self, self.slot(workspace, slot_id))

    def verify(self, workspace: str, slot_id: str, body: P.VerifyBody) -> P.VerifyReply:
        return work.verify(self, self.slot(workspace, slot_id), body.strict)

    def reset(
        self, workspace: str, slot_id: str, body: P.ResetBody | None = None
    ) -> P.SlotReply:
        body = body or P.ResetBody()
        randomize = body.randomize
        slot = self.slot(workspace, slot_id)
        state_id = body.state
        if state_id is None:
            return work.reset(self, slot, randomize)
        state = fork.start_state(self, slot, state_id)
        return work.reset(self, slot, randomize, start=fork.restore(self, state, workspace))

    # ------------------------------------------------------------------ fork, saved states
    def branch(
        self, workspace: str, slot_id: str, body: P.BranchBody, idempotency_key: str | None = None
    ) -> P.BranchReply:
        return fork.branch(self, workspace, slot_id, body, idempotency_key)

    def list_states(self, workspace: str) -> list[P.StateReply]:
        return fork.list_states(self, workspace)

    def get_state(self, workspace: str, state_id: str) -> P.StateReply:
        return fork.get_state(self, workspace, state_id)

    def delete_state(self, workspace: str, state_id: str) -> P.DeletedReply:
        return fork.delete_state(self, workspace, state_id)

"""Leases and the reaper: slots past their lease end invalid and deleted, idle saved states,
old deleted-slot records and idempotency records are forgotten.

:func:`sweep` expires one workspace (the calls that touch it run it: cost independent of
the number of workspaces); :class:`Reaper` sweeps them all on its own thread, never on the
server's event loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from .workspaces import GONE_KEEP_S, Workspace, Workspaces

__all__ = ["REAP_INTERVAL_S", "Reaper", "expire", "reap_all", "sweep"]

log = logging.getLogger("drums_gym.local")

REAP_INTERVAL_S = 0.5


def expire(workspaces: Workspaces, ws: Workspace, slot_id: str) -> None:
    """A slot whose lease ended: its episode is invalid, its work stopped, its desktop gone."""
    slot = ws.slots[slot_id]
    slot.episode.invalidate("lease_expired")
    workspaces.drop(ws, slot, "lease_expired")


def sweep(workspaces: Workspaces, ws: Workspace, now: float | None = None) -> None:
    """Expire what is due in one workspace (under the host lock)."""
    now = time.time() if now is None else now
    for slot in [s for s in ws.slots.values() if s.expires_at <= now]:
        expire(workspaces, ws, slot.id)
    for state in [s for s in ws.states.values() if s.expires_at <= now]:
        ws.states.pop(state.id).drop()
    while ws.gone:
        sid, (at, _) = next(iter(ws.gone.items()))
        if at + GONE_KEEP_S > now:
            break
        del ws.gone[sid]
    ws.idempotency.expire(now)


def reap_all(workspaces: Workspaces, now: float | None = None) -> None:
    """Sweep every workspace and forget the empty idle ones (under the host lock)."""
    now = time.time() if now is None else now
    for ws in workspaces:
        sweep(workspaces, ws, now)
    workspaces.forget_idle(now)


class Reaper:
    """Calls ``reap`` every ``interval_s`` on a daemon thread until :meth:`stop`."""

    def __init__(self, reap: Callable[[], None], interval_s: float = REAP_INTERVAL_S) -> None:
        self._reap, self._interval = reap, interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="drums-reaper", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._reap()
            except Exception:  # a host bug: log it with its traceback and keep reaping
                log.exception("drums-gym local host: the reaper failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

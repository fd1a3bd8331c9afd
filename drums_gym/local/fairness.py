"""Fairness per workspace: the server's threads that wait on desktops, shared per workspace.

A request that waits on a desktop (an action, a screenshot, verify, create, fork...) holds a
thread until its worker answers. Each workspace has its own :class:`anyio.CapacityLimiter`
of ``workspace_threads`` such threads: one workspace keeping all its desktops busy queues
its own requests (on the event loop, holding no thread) and never takes the threads
another workspace's requests need; ``/healthz`` waits on no desktop at all. The CPU the
desktops themselves use is shared per workspace by the OS (:mod:`.workers.confine`).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

__all__ = ["WorkspaceThreads"]

T = TypeVar("T")


class WorkspaceThreads:
    """A thread limiter per workspace (the least recently used forgotten past ``keep``)."""

    def __init__(self, per_workspace: int, keep: int) -> None:
        self.per_workspace, self.keep = per_workspace, keep
        self._limiters: OrderedDict[str, anyio.CapacityLimiter] = OrderedDict()
        self._lock = threading.Lock()

    def limiter(self, workspace: str) -> anyio.CapacityLimiter:
        with self._lock:
            limiter = self._limiters.get(workspace)
            if limiter is None:
                limiter = self._limiters[workspace] = anyio.CapacityLimiter(self.per_workspace)
                while len(self._limiters) > self.keep:
                    oldest, old = next(iter(self._limiters.items()))
                    if old.borrowed_tokens:  # in use: keep it (and stop forgetting)
                        break
                    del self._limiters[oldest]
            else:
                self._limiters.move_to_end(workspace)
            return limiter

    async def run(self, workspace: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread of ``workspace``'s share."""
        return await anyio.to_thread.run_sync(
            functools.partial(fn, *args), limiter=self.limiter(workspace)
        )

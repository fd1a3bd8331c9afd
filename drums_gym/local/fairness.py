"""Fairness per workspace: the server's capacity to wait on desktops, shared per workspace.

A request that waits on a desktop (an action, a screenshot, verify, create, fork...) holds
one of its workspace's ``workspace_threads`` shares (an :class:`anyio.CapacityLimiter`)
until its worker answers: a thread of the server's, or, for the two requests of an env step
(:meth:`WorkspaceThreads.run_now`), a place on the event loop, which awaits the worker's
reply with no thread at all. One workspace keeping all its desktops busy queues its own
requests (on the event loop, holding nothing) and never takes the shares another
workspace's requests need; ``/healthz`` waits on no desktop at all. The CPU the desktops
themselves use is shared per workspace by the OS (:mod:`.workers.confine`)."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
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

    async def run_now(
        self, workspace: str, now: Callable[[], Awaitable[T | None]],
        fn: Callable[..., T], *args: Any,
    ) -> T:
        """``await now()`` holding one of ``workspace``'s shares (no thread: it waits on the
        event loop); if it answers None (it cannot do without a thread), ``fn(*args)``
        on a thread of the share."""
        limiter = self.limiter(workspace)
        share = object()  # the borrower: a share is held by this request, not by its task
        try:  # a share free: taken without a trip through the event loop (the usual case)
            limiter.acquire_on_behalf_of_nowait(share)
        except anyio.WouldBlock:  # else in line behind the workspace's other requests
            await limiter.acquire_on_behalf_of(share)
        try:
            done = await now()
        finally:
            limiter.release_on_behalf_of(share)
        if done is not None:
            return done
        return await self.run(workspace, fn, *args)

    async def run(self, workspace: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread of ``workspace``'s share."""
        return await anyio.to_thread.run_sync(
            functools.partial(fn, *args), limiter=self.limiter(workspace)
        )

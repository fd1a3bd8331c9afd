"""`Client` and `connect`: the entry points of the Drums client."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import TypeVar

import httpx

from .. import protocol as W
from . import _ops
from ._http import Transport
from ._objects import ENV_TOKEN, ENV_URL, ClientBase, pick_format, resolve_host
from ._session import CLOSE_TIMEOUT_S, Session
from .models import HostInfo, Screen, SlotInfo, StateInfo, TaskInfo
from .slot import Slot

__all__ = ["ENV_TOKEN", "ENV_URL", "Client", "connect"]

T = TypeVar("T")
R = TypeVar("R")

_MAX_MAP_WORKERS = 64


def connect(
    url: str | None = None,
    token: str | None = None,
    *,
    timeout: float = 30.0,
    max_retries: int = 5,
    workers: int | None = None,
    transport: httpx.BaseTransport | None = None,
    retry_budget: float = 60.0,
    close_timeout: float = CLOSE_TIMEOUT_S,
) -> Client:
    """Connect to a Drums host and answer a `Client`.

    `url` defaults to `$DRUMS_URL` and `token` to `$DRUMS_TOKEN`. With no URL at all the
    embedded local host is used (a child process started on first use, on loopback).
    `timeout` bounds each request (connect 5 s), `max_retries` and `retry_budget` (seconds
    of sleeping) bound retries of transient failures, `workers` is `map`'s default pool
    size, `transport` replaces the network (e.g. `httpx.MockTransport` in tests),
    `close_timeout` bounds `close()` (seconds for every deletion together; leases bound
    what a host that is gone or hung keeps).

    Example:
        >>> from drums_gym import client as drums
        >>> with drums.connect() as client:                        # doctest: +SKIP
        ...     print([t.short_id for t in client.tasks()])
        ['e0df059f']
    """
    url, token = resolve_host(url, token)
    return Client(url, token, timeout=timeout, max_retries=max_retries, workers=workers,
                  transport=transport, retry_budget=retry_budget, close_timeout=close_timeout)


class Client(ClientBase[Transport, Session]):
    """A connection to a Drums host: create desktops, list tasks, map rollouts.

    Thread-safe. A context manager; `close()` (idempotent, also run at interpreter exit)
    deletes every desktop and saved state this client created that is still alive.

    Example:
        >>> from drums_gym import client as drums
        >>> with drums.connect() as client:                        # doctest: +SKIP
        ...     with client.create(task="e0df059f", ttl=900) as parent:
        ...         parent.wait_valid()
        ...         with parent.fork(2) as group:
        ...             rewards = client.map(lambda k: k.verify(strict=False), group)
        >>> [r.valid for r in rewards]                              # doctest: +SKIP
        [True, True]
    """

    _session: Session
    _transport_class = Transport
    _session_class = Session

    def preferred_screenshot_format(self) -> str:
        """``raw`` when the host serves it over loopback (no encode, no decode: the fastest
        frame), else ``png``, which every Drums host serves and which is 35x smaller."""
        on_loopback = self._on_loopback()
        return pick_format(on_loopback, self.host().screenshot_formats if on_loopback else ())

    # -- host and tasks ---------------------------------------------------------------------

    def host(self) -> HostInfo:
        """The host's limits and this workspace's usage."""
        return self._http.run(_ops.get(W.HOST, HostInfo.from_json))

    def tasks(self) -> list[TaskInfo]:
        """Every task the host serves."""
        return self._http.run(_ops.get(W.TASKS, TaskInfo.list_from_json))

    def task(self, task_id: str) -> TaskInfo:
        """One task, by full id or its first 8 characters (`NotFound` when unknown)."""
        _ops.check_task_id(task_id, "task_id")
        return self._http.run(_ops.get(W.task_path(task_id), TaskInfo.from_json))

    # -- slots ------------------------------------------------------------------------------

    def create(
        self,
        task: str,
        ttl: float = 900,
        screen: Screen | tuple[int, int] | Mapping[str, int] | None = None,
        randomize: int | None = None,
    ) -> Slot:
        """Create a desktop for `task` with a lease of `ttl` seconds; its episode starts pending.

        With ``randomize`` (a seed), the local host varies the desktop by it before the
        task's setup (see `Slot.reset`).

        Raises `QuotaExceeded` when the workspace has no live desktop left, `Overloaded`
        (after retries) when the host has none.
        """
        return Slot(
            self, self._http.run(_ops.create(self._session, task, ttl, screen, randomize))
        )

    def slot(self, slot_id: str) -> Slot:
        """Attach to an existing slot (`NotFound` if unknown). This client does not own it."""
        return Slot(self, self._http.run(_ops.slot_info(slot_id)))

    def slots(self) -> list[Slot]:
        """The workspace's running slots."""
        infos = self._http.run(_ops.get(W.SLOTS, SlotInfo.list_from_json))
        return [Slot(self, info) for info in infos]

    # -- saved states -----------------------------------------------------------------------

    def states(self) -> list[StateInfo]:
        """The workspace's saved states."""
        return self._http.run(_ops.get(W.STATES, StateInfo.list_from_json))

    def delete_state(self, state: str | StateInfo, timeout: float | None = None) -> bool:
        """Delete a saved state (live children keep running); False if it was already gone.

        `timeout` bounds the whole call (retries included) in seconds.
        """
        return self._http.run(_ops.delete_state_of(self._session, state, timeout))

    # -- concurrency ------------------------------------------------------------------------

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
    ) -> list[R | Exception]:
        """Run `fn` over `items` in threads; answer each result or the exception it raised.

        Results keep the order of `items`; one item's failure never hides the others.
        A `KeyboardInterrupt` (or any non-`Exception`) propagates and cancels pending items.
        """
        items = list(items)
        if not items:
            return []
        workers = _ops.check_workers(workers, self._workers, len(items), _MAX_MAP_WORKERS)
        pool = ThreadPoolExecutor(max_workers=min(workers, len(items)),
                                  thread_name_prefix="drums-map")
        futures: list[Future[R]] = []
        try:
            futures = [pool.submit(fn, item) for item in items]
            results: list[R | Exception] = []
            for future in futures:
                try:
                    results.append(future.result())
                except Exception as exc:  # the contract: each result or its exception
                    results.append(exc)
        except BaseException:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return results

    # -- lifetime ---------------------------------------------------------------------------

    def close(self, timeout: float | None = None) -> None:
        """Delete what this client created and is still alive, then close. Idempotent.

        Takes at most `timeout` seconds (default `close_timeout`) however the host answers;
        never raises because the host is gone: it logs one warning, and leases bound what
        is left.
        """
        if timeout is None:
            self._finalizer()
            return
        detached = self._finalizer.detach()
        if detached is not None:
            self._session.close(timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def _http(self) -> Transport:
        return self._session.http

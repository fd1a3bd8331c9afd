"""`AsyncClient`, `AsyncSlot`, `AsyncForkGroup` and `aconnect`: the client on asyncio.

The object model of the sync client (`Client`, `Slot`, `ForkGroup`), with coroutines for
everything that talks to the host and `gather` where the sync client has `map`. It runs
the very operations the sync client runs (`_ops`): the same requests, retries,
idempotency keys, errors (`drums_gym.client.errors`) and cleanup.

    >>> import asyncio
    >>> from drums_gym import client as drums
    >>> async def main():                                          # doctest: +SKIP
    ...     async with drums.aconnect() as client:
    ...         async with await client.create(task="e0df059f") as parent:
    ...             await parent.wait_valid()
    ...             async with await parent.fork(2) as group:
    ...                 return await client.gather(lambda k: k.verify(strict=False), group)
    >>> [r.valid for r in asyncio.run(main())]                     # doctest: +SKIP
    [True, True]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from .. import protocol as W
from . import _ops
from . import models as M
from ._async import AsyncSession, AsyncTransport
from ._objects import ClientBase, GroupBase, SlotBase, close_quietly_if_raising, pick_format
from ._objects import resolve_host as _resolve_host
from .errors import DrumsError
from .models import SlotInfo

__all__ = ["AsyncClient", "AsyncForkGroup", "AsyncSlot", "aconnect"]

T = TypeVar("T")
R = TypeVar("R")

_MAX_GATHER = 64



class _Connecting:
    """What `aconnect` answers: await it for the client, or use it as ``async with``."""

    def __init__(self, url: str | None, token: str | None, options: dict[str, Any]) -> None:
        self._where = (url, token)
        self._options = options
        self._client: AsyncClient | None = None

    async def _open(self) -> AsyncClient:
        # the embedded host's child process starts (once) off the loop: never block it
        url, token = await asyncio.to_thread(_resolve_host, *self._where)
        self._client = AsyncClient(url, token, **self._options)
        return self._client

    def __await__(self) -> Generator[Any, None, AsyncClient]:
        return self._open().__await__()

    async def __aenter__(self) -> AsyncClient:
        return await self._open()

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.aclose()

    def __repr__(self) -> str:
        return "<drums aconnect (await it, or async with)>"


def aconnect(url: str | None = None, token: str | None = None, **options: Any) -> _Connecting:
    """Connect to a Drums host: ``async with aconnect() as client`` (or ``await``).

    The arguments are `connect`'s (`timeout`, `max_retries`, `workers`, `transport`,
    `retry_budget`, `close_timeout`); `workers` is `gather`'s default concurrency,
    `transport` an `httpx.AsyncBaseTransport`. With no URL (`DRUMS_URL` unset) it uses the
    embedded local host, the same one the sync client uses.
    """
    return _Connecting(url, token, options)


class AsyncClient(ClientBase[AsyncTransport, AsyncSession]):
    """`Client` on asyncio: create desktops, list tasks, `gather` rollouts.

    An async context manager; `aclose()` (idempotent) deletes every desktop and saved
    state this client created that is still alive, within `close_timeout`. What is left
    when the interpreter exits (a client never closed) is deleted then, best effort and
    synchronously (an embedded host serves until this process is gone).
    """

    _session: AsyncSession
    _transport_class = AsyncTransport
    _session_class = AsyncSession

    async def preferred_screenshot_format(self) -> str:
        """``raw`` on loopback when the host serves it, else ``png`` (see `Client`)."""
        on_loopback = self._on_loopback()
        formats = (await self.host()).screenshot_formats if on_loopback else ()
        return pick_format(on_loopback, formats)

    # -- host and tasks ---------------------------------------------------------------------

    async def host(self) -> M.HostInfo:
        """The host's limits and this workspace's usage."""
        return await self._http.run(_ops.get(W.HOST, M.HostInfo.from_json))

    async def tasks(self) -> list[M.TaskInfo]:
        """Every task the host serves."""
        return await self._http.run(_ops.get(W.TASKS, M.TaskInfo.list_from_json))

    async def task(self, task_id: str) -> M.TaskInfo:
        """One task, by full id or its first 8 characters (`NotFound` when unknown)."""
        _ops.check_task_id(task_id, "task_id")
        return await self._http.run(_ops.get(W.task_path(task_id), M.TaskInfo.from_json))

    # -- slots and saved states -------------------------------------------------------------

    async def create(
        self,
        task: str,
        ttl: float = 900,
        screen: M.Screen | tuple[int, int] | Mapping[str, int] | None = None,
        randomize: int | None = None,
    ) -> AsyncSlot:
        """Create a desktop (`Client.create`; ``randomize``: a seed that varies it on a host
        that offers it); under an idempotency key, owned."""
        info = await self._http.run(_ops.create(self._session, task, ttl, screen, randomize))
        return AsyncSlot(self, info)

    async def slot(self, slot_id: str) -> AsyncSlot:
        """Attach to an existing slot (`NotFound` if unknown). This client does not own it."""
        return AsyncSlot(self, await self._http.run(_ops.slot_info(slot_id)))

    async def slots(self) -> list[AsyncSlot]:
        """The workspace's running slots."""
        listed = _ops.get(W.SLOTS, SlotInfo.list_from_json)
        return [AsyncSlot(self, info) for info in await self._http.run(listed)]

    async def states(self) -> list[M.StateInfo]:
        """The workspace's saved states."""
        return await self._http.run(_ops.get(W.STATES, M.StateInfo.list_from_json))

    async def delete_state(self, state: str | M.StateInfo, timeout: float | None = None) -> bool:
        """Delete a saved state (live children keep running); False if it was already gone."""
        return await self._http.run(_ops.delete_state_of(self._session, state, timeout))

    # -- concurrency ------------------------------------------------------------------------

    async def gather(
        self,
        fn: Callable[[T], Awaitable[R]],
        items: Iterable[T],
        workers: int | None = None,
    ) -> list[R | Exception]:
        """Run the coroutine function `fn` over `items` concurrently (at most `workers` at
        a time); answer each result or the exception it raised, in the order of `items`.

        One item's failure never hides the others; cancellation (or any non-`Exception`)
        cancels the pending items and propagates.
        """
        items = list(items)
        if not items:
            return []
        limit = asyncio.Semaphore(
            _ops.check_workers(workers, self._workers, len(items), _MAX_GATHER)
        )

        async def one(item: T) -> R:
            async with limit:
                return await fn(item)

        return await self._http.concurrently(one, items)

    # -- lifetime ---------------------------------------------------------------------------

    async def aclose(self, timeout: float | None = None) -> None:
        """Delete what this client created and is still alive, then close. Idempotent.

        Takes at most `timeout` seconds (default `close_timeout`); never raises because
        the host is gone: it logs one warning, and leases bound what is left.
        """
        self._finalizer.detach()
        await self._session.aclose(timeout)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    @property
    def _http(self) -> AsyncTransport:
        return self._session.http


class AsyncSlot(SlotBase):
    """`Slot` on asyncio: a Drums desktop. ``async with`` deletes it on the way out."""

    _client: AsyncClient
    _session: AsyncSession

    def __init__(self, client: AsyncClient, info: SlotInfo) -> None:
        super().__init__(client, info)
        self._raw_base: tuple[str, np.ndarray] | None = None  # last raw frame: token, pixels
        self._raw_lock = asyncio.Lock()

    @property
    def client(self) -> AsyncClient:
        return self._client

    async def info(self) -> SlotInfo:
        """The slot as the host describes it now."""
        self._info = await self._http.run(_ops.slot_info(self.id))
        return self._info

    async def episode(self, wait: bool = False, timeout_s: float = 30.0) -> M.Episode:
        """The current episode (`Slot.episode`)."""
        return await self._http.run(_ops.episode(self.id, wait, timeout_s))

    async def wait_episode(self, timeout: float = 120.0) -> M.Episode:
        """Wait until the episode is no longer pending (`Slot.wait_episode`)."""
        return await self._http.run(_ops.wait_episode(self.id, timeout))

    async def wait_valid(self, timeout: float = 120.0) -> M.Episode:
        """Wait until the episode is valid (`InvalidEpisode`, `DrumsTimeout` otherwise)."""
        return await self._http.run(_ops.wait_valid(self.id, timeout))

    async def observe(
        self,
        format: str = W.FORMAT_PNG,
        *,
        out: np.ndarray | None = None,
        out_holds: str | None = None,
    ) -> M.Observation:
        """A screenshot now (`Slot.observe`: `png` or `raw`, deltas, `out=`, `out_holds=`)."""
        _ops.check_out(out, format)
        if format != W.FORMAT_RAW:
            return (await self._http.run(_ops.observe(self.id, format, out, self.screen, None)))[0]
        async with self._raw_lock:
            observation, self._raw_base = await self._http.run(
                _ops.observe(self.id, format, out, self.screen, self._raw_base, out_holds)
            )
        return observation

    async def copy_frame(self, out: np.ndarray) -> str | None:
        """Copy the last raw frame into `out`; answer its token (`Slot.copy_frame`)."""
        async with self._raw_lock:
            return _ops.copy_base(self._raw_base, out)

    async def accessibility(self) -> dict[str, Any]:
        """The accessibility tree of what is on screen (`{"format", "tree"}`)."""
        return M.accessibility_of(await self._http.json("GET", W.slot_accessibility_path(self.id)))

    async def step(self, code: str) -> M.StepResult:
        """Run pyautogui `code` or a control word (`Slot.step`); never replayed."""
        return await self._http.run(_ops.step(self.id, code))

    async def verify(self, strict: bool = True, timeout: float = 120.0) -> M.Reward:
        """Judge the episode, waiting for a pending one's gates first (`Slot.verify`)."""
        return await self._http.run(_ops.verify(self.id, strict, timeout))

    async def reset(self, randomize: int | None = None, state: str | None = None) -> M.Episode:
        """Start a new episode from the task's image, or from the saved state ``state``
        (`Slot.reset`); answers it (pending: `wait_valid`)."""
        self._info, episode = await self._http.run(_ops.reset(self.id, randomize, state))
        return episode

    async def save_state(self) -> str:
        """Save this desktop as a state with no children (`Slot.save_state`); its id."""
        return await self._http.run(_ops.save_state(self._session, self.id))

    async def extend(self, ttl: float) -> SlotInfo:
        """Make the lease end `ttl` seconds from now; answers the updated slot."""
        self._info = await self._http.run(_ops.extend(self.id, ttl))
        return self._info

    async def fork(
        self,
        n: int,
        keep_state: bool = False,
        strict: bool = True,
        ttl: float | None = None,
    ) -> AsyncForkGroup:
        """Save this desktop and restore `n` children (`Slot.fork`; `ForkError` with
        `strict` when some did not come up, its `.ok` an `AsyncForkGroup` to close)."""
        client = self._client

        def group(slots: list[AsyncSlot], state: str, failed: list[Any]) -> AsyncForkGroup:
            return AsyncForkGroup(client, slots, state=state, failed=failed,
                                  keep_state=keep_state)

        return await self._http.run(_ops.fork(
            self._session, self._info, n, keep_state, strict, ttl,
            lambda info: AsyncSlot(client, info), group,
        ))

    async def delete(self, timeout: float | None = None) -> bool:
        """Delete the desktop. Idempotent: False when it was already gone."""
        return await self._http.run(_ops.delete_desktop(self, _ops.deadline_in(timeout)))

    async def aclose(self) -> None:
        """Delete the desktop (idempotent)."""
        await self.delete()

    async def __aenter__(self) -> AsyncSlot:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await _aclose_quietly(self.aclose, exc[1])

    @property
    def _http(self) -> AsyncTransport:
        return self._session.http


class AsyncForkGroup(GroupBase[AsyncSlot]):
    """`ForkGroup` on asyncio: ``async with`` deletes the children (concurrently) and,
    unless `keep_state`, the saved state."""

    async def aclose(self) -> None:
        """Delete the children and (unless `keep_state`) the saved state. Idempotent."""
        await self._client._session.http.run(_ops.close_group(self))

    async def __aenter__(self) -> AsyncForkGroup:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await _aclose_quietly(self.aclose, exc[1])


async def _aclose_quietly(aclose: Callable[[], Awaitable[None]], exc: Any) -> None:
    try:
        await aclose()
    except DrumsError as error:
        close_quietly_if_raising(exc, error)

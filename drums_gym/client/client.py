"""`Client` and `connect`: the entry points of the Drums client."""

from __future__ import annotations

import ipaddress
import math
import os
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import _exit
from . import _wire as W
from ._http import Transport
from ._session import CLOSE_TIMEOUT_S, Session
from .errors import ProtocolError
from .models import HostInfo, Screen, SlotInfo, StateInfo, TaskInfo
from .slot import Slot, _check_ttl, _randomize, _wire_seconds

__all__ = ["Client", "connect"]

T = TypeVar("T")
R = TypeVar("R")

ENV_URL = "DRUMS_URL"
ENV_TOKEN = "DRUMS_TOKEN"
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
    embedded local host is used (started in-process on first use, on loopback).
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
    if url is None:
        url = os.environ.get(ENV_URL) or None
    if token is None:
        token = os.environ.get(ENV_TOKEN) or None
    if not url:
        from drums_gym.local.embedded import ensure_embedded_host

        url = ensure_embedded_host()
    return Client(url, token, timeout=timeout, max_retries=max_retries, workers=workers,
                  transport=transport, retry_budget=retry_budget, close_timeout=close_timeout)


class Client:
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

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        workers: int | None = None,
        transport: httpx.BaseTransport | None = None,
        retry_budget: float = 60.0,
        close_timeout: float = CLOSE_TIMEOUT_S,
    ) -> None:
        if not isinstance(url, str) or not url:
            raise ValueError(f"url must be a non-empty string, got {url!r}")
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be an int >= 1 or None, got {workers!r}")
        if (
            isinstance(close_timeout, bool)
            or not isinstance(close_timeout, (int, float))
            or not math.isfinite(close_timeout)
            or close_timeout < 0
        ):
            raise ValueError(
                f"close_timeout must be a finite number of seconds >= 0, got {close_timeout!r}"
            )
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as exc:
            raise ValueError(f"url must be an http:// or https:// URL: {exc}") from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            shown = url.rpartition("@")[2]  # never echo credentials
            raise ValueError(f"url must be an http:// or https:// URL, got {shown!r}")
        self._url = str(parsed.copy_with(username=None, password=None)).rstrip("/")
        self._authenticated = bool(token)
        self._workers = workers
        http = Transport(
            url, token, timeout=timeout, max_retries=max_retries, retry_budget=retry_budget,
            pool_size=max(64, 2 * (workers or 0)), transport=transport,
        )
        self._session = Session(http, float(close_timeout))
        # Runs at close() or interpreter exit; holds the session only, never `self`.
        self._finalizer = weakref.finalize(self, self._session.close)
        _exit.track(self._session)  # at exit: before the embedded host stops

    @property
    def url(self) -> str:
        """The host's base URL (without credentials)."""
        return self._url

    @property
    def closed(self) -> bool:
        return self._session.closed

    @property
    def close_timeout(self) -> float:
        """Seconds `close()` may spend deleting what this client owns (all together)."""
        return self._session.close_timeout

    @property
    def has_token(self) -> bool:
        """Whether this client sends a token (never the token itself)."""
        return self._authenticated

    def __repr__(self) -> str:
        slots, states = self._session.owned()
        auth = "token" if self._authenticated else "no token"
        closed = " closed" if self.closed else ""
        return (f"<drums Client {self._url} ({auth}) owns {len(slots)} slots, "
                f"{len(states)} states{closed}>")

    def preferred_screenshot_format(self) -> str:
        """``raw`` when the host serves it over loopback (no encode, no decode: the fastest
        frame), else ``png``, which every Drums host serves and which is 35x smaller."""
        host = httpx.URL(self._url).host
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback and W.FORMAT_RAW in self.host().screenshot_formats:
            return W.FORMAT_RAW
        return W.FORMAT_PNG

    # -- host and tasks ---------------------------------------------------------------------

    def host(self) -> HostInfo:
        """The host's limits and this workspace's usage."""
        return HostInfo.from_json(self._http.json("GET", W.HOST))

    def tasks(self) -> list[TaskInfo]:
        """Every task the host serves."""
        body = self._http.json("GET", W.TASKS)
        return [TaskInfo.from_json(t) for t in _list(body, W.F_TASKS, W.TASKS)]

    def task(self, task_id: str) -> TaskInfo:
        """One task, by full id or its first 8 characters (`NotFound` when unknown)."""
        _check_task_id(task_id, "task_id")
        return TaskInfo.from_json(self._http.json("GET", W.task_path(task_id)))

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
        _check_task_id(task, "task")
        body: dict[str, Any] = {W.F_TASK: task, W.F_TTL_S: _wire_seconds(_check_ttl(ttl))}
        if screen is not None:
            body[W.F_SCREEN] = _screen(screen).to_json()
        if randomize is not None:
            body[W.F_RANDOMIZE] = _randomize(randomize)
        key = uuid.uuid4().hex
        try:
            info = SlotInfo.from_json(
                self._http.json("POST", W.SLOTS, json=body, idempotency_key=key)
            )
            self._session.own_slot(info.id)
        except BaseException as exc:  # interrupted or unknown: close() settles it by its key
            self._session.unsettled("slot", W.SLOTS, body, key, exc)
            raise
        return Slot(self, info)

    def slot(self, slot_id: str) -> Slot:
        """Attach to an existing slot (`NotFound` if unknown). This client does not own it."""
        return Slot(self, SlotInfo.from_json(self._http.json("GET", W.slot_path(slot_id))))

    def slots(self) -> list[Slot]:
        """The workspace's running slots."""
        body = self._http.json("GET", W.SLOTS)
        return [Slot(self, SlotInfo.from_json(s)) for s in _list(body, W.F_SLOTS, W.SLOTS)]

    # -- saved states -----------------------------------------------------------------------

    def states(self) -> list[StateInfo]:
        """The workspace's saved states."""
        body = self._http.json("GET", W.STATES)
        return [StateInfo.from_json(s) for s in _list(body, W.F_STATES, W.STATES)]

    def delete_state(self, state: str | StateInfo, timeout: float | None = None) -> bool:
        """Delete a saved state (live children keep running); False if it was already gone.

        `timeout` bounds the whole call (retries included) in seconds.
        """
        state_id = state.id if isinstance(state, StateInfo) else state
        if not isinstance(state_id, str) or not state_id:
            raise ValueError(f"state must be a state id or a StateInfo, got {state!r}")
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))
        return self._session.delete_state(state_id, deadline)

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
        if workers is None:
            workers = self._workers or min(len(items), _MAX_MAP_WORKERS)
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
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


def _check_task_id(task: Any, name: str) -> None:
    if not isinstance(task, str) or not task:
        raise ValueError(f"{name} must be a non-empty task id, got {task!r}")
    try:
        task.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} must be UTF-8 text (a task id), got {task!r}") from None


def _list(body: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = body.get(key)
    if not isinstance(value, list):
        raise ProtocolError(f"GET {path}: the reply has no {key!r} list")
    return value


def _screen(screen: Screen | tuple[int, int] | Mapping[str, int]) -> Screen:
    if isinstance(screen, Screen):
        return screen
    if isinstance(screen, Mapping):
        parsed = Screen.from_json(screen)
    elif isinstance(screen, tuple) and len(screen) == 2:
        parsed = Screen(*screen)
    else:
        parsed = None
    if parsed is None or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0
        for v in (parsed.width, parsed.height)
    ):
        raise ValueError(f"screen must be (width, height) in positive pixels, got {screen!r}")
    return parsed

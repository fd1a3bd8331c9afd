"""What the sync and the async object model share: the client's settings and where it
connects, a slot's identity, a fork group's sequence behaviour, the reprs. Their requests
are `_ops` operations."""

from __future__ import annotations

import logging
import math
import os
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

import httpx

from .. import protocol as W
from ._request import Policy, on_loopback
from ._session import CLOSE_TIMEOUT_S
from .errors import DrumsError
from .models import Screen, SlotInfo

if TYPE_CHECKING:  # pragma: no cover
    from ._async import AsyncSession
    from ._session import Session

__all__ = [
    "ENV_TOKEN",
    "ENV_URL",
    "ClientBase",
    "GroupBase",
    "SlotBase",
    "close_quietly_if_raising",
    "pick_format",
    "resolve_host",
]

logger = logging.getLogger("drums_gym.client")

S = TypeVar("S", bound="SlotBase")
P = TypeVar("P", bound=Policy)
L = TypeVar("L", bound="Session | AsyncSession")


class SlotBase:
    """A desktop's identity as last heard from the host."""

    def __init__(self, client: Any, info: SlotInfo) -> None:
        self._client = client
        self._session = client._session
        self._info = info
        self._deleted = False

    @property
    def id(self) -> str:
        return self._info.id

    @property
    def task(self) -> str:
        return self._info.task

    @property
    def screen(self) -> Screen | None:
        return self._info.screen

    @property
    def parent(self) -> str | None:
        """The slot this one was forked from (fork children), else None."""
        return self._info.parent

    @property
    def saved_state(self) -> str | None:
        """The saved state this slot was restored from (fork children), else None."""
        return self._info.saved_state

    @property
    def expires_at(self) -> float | None:
        """When the lease ends (Unix seconds), as last heard from the host."""
        return self._info.expires_at

    @property
    def closed(self) -> bool:
        return self._deleted

    def __repr__(self) -> str:
        screen = f" {self.screen.width}x{self.screen.height}" if self.screen else ""
        state = " deleted" if self._deleted else ""
        return f"<{type(self).__name__} {self.id} task={self.task}{screen}{state}>"


class GroupBase(Generic[S]):
    """The running children of one fork: iterate, index, `len`.

    `state` is the saved state's id, `failed` the children that did not come up as
    `(child_id, error_dict)`.
    """

    def __init__(
        self,
        client: Any,
        slots: list[S],
        *,
        state: str,
        failed: list[tuple[str, dict[str, Any]]] | None = None,
        keep_state: bool = False,
    ) -> None:
        self._client = client
        self._slots = list(slots)
        self.state = state
        self.failed: list[tuple[str, dict[str, Any]]] = list(failed or [])
        self.keep_state = keep_state
        self._closed = False

    @property
    def slots(self) -> list[S]:
        return list(self._slots)

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[S]:
        return iter(list(self._slots))

    @overload
    def __getitem__(self, index: int) -> S: ...
    @overload
    def __getitem__(self, index: slice) -> list[S]: ...
    def __getitem__(self, index: int | slice) -> S | list[S]:
        return self._slots[index]

    def __repr__(self) -> str:
        ids = ", ".join(s.id for s in self._slots)
        failed = f" failed={len(self.failed)}" if self.failed else ""
        closed = " closed" if self._closed else ""
        return f"<{type(self).__name__} state={self.state} [{ids}]{failed}{closed}>"


def close_quietly_if_raising(exc: BaseException | None, cleanup_error: DrumsError) -> None:
    """After a cleanup failed: raise it, unless an exception is already on its way out
    (then log the cleanup failure instead)."""
    if exc is None:
        raise cleanup_error
    logger.warning("cleanup failed while handling %s: %s", type(exc).__name__, cleanup_error)


ENV_URL = "DRUMS_URL"
ENV_TOKEN = "DRUMS_TOKEN"


def resolve_host(url: str | None, token: str | None) -> tuple[str, str | None]:
    """`url` (default `$DRUMS_URL`) and `token` (default `$DRUMS_TOKEN`); with no URL at
    all, the embedded local host's (a child process started on first use, on loopback)."""
    if url is None:
        url = os.environ.get(ENV_URL) or None
    if token is None:
        token = os.environ.get(ENV_TOKEN) or None
    if not url:
        from drums_gym.local.embedded import ensure_embedded_host

        url = ensure_embedded_host()
    return url, token


class ClientBase(Generic[P, L]):
    """A connection's settings, checked, and its session: what `Client` and
    `AsyncClient` share. A subclass names its `_transport_class` (``P``) and its
    `_session_class` (``L``, made from a ``P`` and the close timeout)."""

    _session: L
    _transport_class: type[P]
    _session_class: Callable[[P, float], L]

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        workers: int | None = None,
        transport: Any = None,
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
        http = self._transport_class(
            url, token, timeout=timeout, max_retries=max_retries, retry_budget=retry_budget,
            pool_size=max(64, 2 * (workers or 0)), transport=transport,
        )
        self._session = self._session_class(http, float(close_timeout))
        # At close or interpreter exit (for an async client never closed: a best-effort
        # sync cleanup), bounded by the close timeout. Holds the session only, never `self`.
        # An embedded host outlives every atexit hook (it stops when this process is gone).
        self._finalizer = weakref.finalize(self, self._session.close)

    @property
    def url(self) -> str:
        """The host's base URL (without credentials)."""
        return self._url

    @property
    def closed(self) -> bool:
        return self._session.closed

    @property
    def close_timeout(self) -> float:
        """Seconds closing may spend deleting what this client owns (all together)."""
        return self._session.close_timeout

    @property
    def has_token(self) -> bool:
        """Whether this client sends a token (never the token itself)."""
        return self._authenticated

    def __repr__(self) -> str:
        slots, states = self._session.owned()
        auth = "token" if self._authenticated else "no token"
        closed = " closed" if self.closed else ""
        return (f"<drums {type(self).__name__} {self._url} ({auth}) owns {len(slots)} slots, "
                f"{len(states)} states{closed}>")

    def _on_loopback(self) -> bool:
        return on_loopback(self._url)


def pick_format(on_loopback: bool, formats: tuple[str, ...]) -> str:
    """``raw`` when the host serves it over loopback, else ``png``."""
    return W.FORMAT_RAW if on_loopback and W.FORMAT_RAW in formats else W.FORMAT_PNG

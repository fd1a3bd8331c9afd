"""What a client owns: the slots and saved states it created (`Ledger`), and the sync
`Session` (a `Ledger` with its transport).

Also the creates and forks whose outcome is unknown (interrupted, or out of retries after
the request may have reached the host): closing replays each with its idempotency key,
which answers what the host made (or makes it), and deletes that too.

Kept apart from `Client` so that the exit-time finalizer holds this object only, never the
`Client` itself (a finalizer that referenced the client would keep it alive forever).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from . import _ops
from ._http import Transport
from .errors import APIError, DrumsError

__all__ = ["CLOSE_TIMEOUT_S", "Ledger", "Session"]

T = TypeVar("T")

#: seconds `close()` may spend deleting what is left, all requests and retries together
CLOSE_TIMEOUT_S = 5.0
#: error replies after which a keyed create or fork surely made nothing under its key
_REFUSED_STATUS = frozenset({401, 403, 404, 409, 422})


class Ledger:
    """The ids of every slot and saved state created through one client (thread-safe)."""

    def __init__(self, close_timeout: float = CLOSE_TIMEOUT_S) -> None:
        self.close_timeout = close_timeout
        self._lock = threading.Lock()
        self._slots: dict[str, str | None] = {}  # slot -> its state, if deleted with children
        self._states: dict[str, None] = {}  # insertion-ordered set
        self._children: dict[str, set[str]] = {}  # state deleted with children -> owned ones
        self._unsettled: list[tuple[str, str, Any, str]] = []  # (kind, path, body, key)
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def own_slot(self, slot_id: str, state: str | None = None) -> None:
        """Own a slot; ``state`` is the saved state it was forked from, if any."""
        with self._lock:
            children = self._children.get(state) if state is not None else None
            if children is not None:
                children.add(slot_id)
            self._slots[slot_id] = state if children is not None else None

    def own_state(self, state_id: str, with_children: bool = False) -> None:
        """Own a saved state; ``with_children``: the host deletes it with its last child, so
        it is forgotten once this session has deleted its last owned child."""
        with self._lock:
            self._states[state_id] = None
            if with_children:
                self._children.setdefault(state_id, set())

    def forget_state_if_childless(self, state_id: str) -> None:
        """A state deleted with its children that got none: the host has deleted it."""
        with self._lock:
            if state_id in self._children and not self._children[state_id]:
                del self._children[state_id]
                self._states.pop(state_id, None)

    def unsettled(self, kind: str, path: str, body: Any, key: str, exc: BaseException) -> None:
        """Remember a keyed create (``kind="slot"``) or fork (``"branch"``) that raised
        ``exc``, unless the host surely refused it; closing settles it."""
        if isinstance(exc, APIError) and exc.status in _REFUSED_STATUS:
            return
        with self._lock:
            self._unsettled.append((kind, path, body, key))

    def take_unsettled(self) -> list[tuple[str, str, Any, str]]:
        """The unsettled creates and forks, forgotten here (settling owns what they made)."""
        with self._lock:
            unsettled, self._unsettled = self._unsettled, []
        return unsettled

    def has_unsettled(self) -> bool:
        with self._lock:
            return bool(self._unsettled)

    def forget_slot(self, slot_id: str) -> None:
        """Drop a deleted slot, and its state once that state's last owned child is gone
        (the host deleted it with that child)."""
        with self._lock:
            state = self._slots.pop(slot_id, None)
            if state is None:  # not forked from a state deleted with its children
                return
            children = self._children.get(state)
            if children is not None:
                children.discard(slot_id)
                if not children:
                    del self._children[state]
                    self._states.pop(state, None)

    def forget_state(self, state_id: str) -> None:
        """Drop a deleted saved state."""
        with self._lock:
            self._states.pop(state_id, None)
            self._children.pop(state_id, None)

    def owns_slot(self, slot_id: str) -> bool:
        with self._lock:
            return slot_id in self._slots

    def owned(self) -> tuple[list[str], list[str]]:
        """The ids of the live slots and saved states this session created."""
        with self._lock:
            return list(self._slots), list(self._states)

    def begin_close(self, timeout: float | None) -> float | None:
        """Mark closed; the deadline of the cleanup (None: it was closed already)."""
        with self._lock:
            if self._closed:
                return None
            self._closed = True
        budget = self.close_timeout if timeout is None else max(0.0, float(timeout))
        return time.monotonic() + budget


class Session(Ledger):
    """A `Ledger` with the sync transport it talks through."""

    def __init__(self, http: Transport, close_timeout: float = CLOSE_TIMEOUT_S) -> None:
        super().__init__(close_timeout)
        self.http = http

    def delete_slot(self, slot_id: str, deadline: float | None = None) -> bool:
        """Delete a slot; False when it was already gone (404). ``deadline`` (monotonic)
        bounds the whole call."""
        return self.http.run(_ops.delete_slot(self, slot_id, deadline))

    def delete_state(self, state_id: str, deadline: float | None = None) -> bool:
        """Delete a saved state; False when it was already gone (404). ``deadline``
        (monotonic) bounds the whole call."""
        return self.http.run(_ops.delete_state(self, state_id, deadline))

    def delete_many(self, delete: Callable[[T], Any], items: Iterable[T]) -> list[DrumsError]:
        """Run `delete` over `items` concurrently; answer the errors (every item is tried)."""
        return _ops.errors_of(self.http.concurrently(delete, list(items)))

    def close(self, timeout: float | None = None) -> None:
        """Delete every slot and saved state still owned, then close the transport. Idempotent.

        Bounded: everything together takes at most ``timeout`` seconds (default
        `close_timeout`), however the host answers or does not. Failures are logged once
        (a lease bounds what is left behind), never raised: this also runs at interpreter
        exit.
        """
        deadline = self.begin_close(timeout)
        if deadline is None:
            return
        try:
            if not self.http.closed:
                self.http.run(_ops.close_session(self, self.http, deadline))
        finally:
            self.http.close()

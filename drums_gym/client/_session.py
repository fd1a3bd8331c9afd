"""What a `Client` owns: its transport and the slots and saved states it created.

Kept apart from `Client` so that the exit-time finalizer holds this object only, never the
`Client` itself (a finalizer that referenced the client would keep it alive forever).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from . import _wire as W
from ._http import Transport
from .errors import DrumsError, NotFound

__all__ = ["Session"]

logger = logging.getLogger("drums_gym.client")

T = TypeVar("T")

_CLOSE_MAX_RETRIES = 2
_CLOSE_RETRY_BUDGET_S = 1.0


class Session:
    """A transport plus the ids of every slot and saved state created through it."""

    def __init__(self, http: Transport) -> None:
        self.http = http
        self._lock = threading.Lock()
        self._slots: dict[str, None] = {}  # insertion-ordered set
        self._states: dict[str, None] = {}
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    # -- ownership --------------------------------------------------------------------------

    def own_slot(self, slot_id: str) -> None:
        with self._lock:
            self._slots[slot_id] = None

    def own_state(self, state_id: str) -> None:
        with self._lock:
            self._states[state_id] = None

    def owns_slot(self, slot_id: str) -> bool:
        with self._lock:
            return slot_id in self._slots

    def owned(self) -> tuple[list[str], list[str]]:
        """The ids of the live slots and saved states this session created."""
        with self._lock:
            return list(self._slots), list(self._states)

    # -- deletion ---------------------------------------------------------------------------

    def delete_slot(self, slot_id: str) -> bool:
        """Delete a slot; False when it was already gone (404)."""
        try:
            self.http.request("DELETE", W.slot_path(slot_id))
        except NotFound:
            deleted = False
        else:
            deleted = True
        with self._lock:
            self._slots.pop(slot_id, None)
        return deleted

    def delete_state(self, state_id: str) -> bool:
        """Delete a saved state; False when it was already gone (404)."""
        try:
            self.http.request("DELETE", W.state_path(state_id))
        except NotFound:
            deleted = False
        else:
            deleted = True
        with self._lock:
            self._states.pop(state_id, None)
        return deleted

    def delete_many(self, delete: Callable[[T], Any], items: Iterable[T]) -> list[DrumsError]:
        """Run `delete` over `items` concurrently; answer the errors (every item is tried)."""
        ids = list(items)
        if not ids:
            return []
        errors: list[DrumsError] = []

        def one(item: T) -> None:
            try:
                delete(item)
            except DrumsError as exc:
                errors.append(exc)

        if len(ids) == 1:
            one(ids[0])
            return errors
        try:
            pool = ThreadPoolExecutor(max_workers=min(16, len(ids)),
                                      thread_name_prefix="drums-delete")
        except RuntimeError:  # pragma: no cover - interpreter shutting down
            pool = None
        if pool is None:
            for item in ids:
                one(item)
            return errors
        try:
            futures = []
            for item in ids:
                try:
                    futures.append(pool.submit(one, item))
                except RuntimeError:  # interpreter shutdown: no new threads
                    one(item)
            for future in futures:
                future.result()
        finally:
            pool.shutdown(wait=True)
        return errors

    def close(self) -> None:
        """Delete every slot and saved state still owned, then close the transport. Idempotent.

        Failures are logged (a lease bounds what is left behind), never raised: this also
        runs at interpreter exit.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            if not self.http.closed:
                # Cleanup must not hang (it may run at interpreter exit, after the host is
                # gone): a short retry budget, then leases bound what is left.
                self.http.max_retries = min(self.http.max_retries, _CLOSE_MAX_RETRIES)
                self.http.retry_budget = min(self.http.retry_budget, _CLOSE_RETRY_BUDGET_S)
                slots, states = self.owned()
                errors = self.delete_many(self.delete_slot, slots)
                errors += self.delete_many(self.delete_state, states)
                for error in errors:
                    logger.warning("drums client close: cleanup failed: %s", error)
        finally:
            self.http.close()

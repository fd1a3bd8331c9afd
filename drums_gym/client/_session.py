"""What a `Client` owns: its transport and the slots and saved states it created.

Also the creates and forks whose outcome is unknown (interrupted, or out of retries after
the request may have reached the host): `close()` replays each with its idempotency key,
which answers what the host made (or makes it), and deletes that too.

Kept apart from `Client` so that the exit-time finalizer holds this object only, never the
`Client` itself (a finalizer that referenced the client would keep it alive forever).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from . import _wire as W
from ._http import Transport
from .errors import APIError, DrumsError, NotFound

__all__ = ["Session"]

logger = logging.getLogger("drums_gym.client")

T = TypeVar("T")

_CLOSE_MAX_RETRIES = 2
_CLOSE_RETRY_BUDGET_S = 1.0
#: seconds `close()` may spend deleting what is left, all requests and retries together
CLOSE_TIMEOUT_S = 5.0
#: error replies after which a keyed create or fork surely made nothing under its key
_REFUSED_STATUS = frozenset({401, 403, 404, 409, 422})


class Session:
    """A transport plus the ids of every slot and saved state created through it."""

    def __init__(self, http: Transport, close_timeout: float = CLOSE_TIMEOUT_S) -> None:
        self.http = http
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

    # -- ownership --------------------------------------------------------------------------

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
        ``exc``, unless the host surely refused it; `close` settles it."""
        if isinstance(exc, APIError) and exc.status in _REFUSED_STATUS:
            return
        with self._lock:
            self._unsettled.append((kind, path, body, key))

    def _forget_slot(self, slot_id: str) -> None:
        """Drop a deleted slot, and its state once that state's last owned child is gone
        (the host deleted it with that child). Holds the lock."""
        state = self._slots.pop(slot_id, None)
        children = self._children.get(state) if state is not None else None
        if state is not None and children is not None:
            children.discard(slot_id)
            if not children:
                del self._children[state]
                self._states.pop(state, None)

    def owns_slot(self, slot_id: str) -> bool:
        with self._lock:
            return slot_id in self._slots

    def owned(self) -> tuple[list[str], list[str]]:
        """The ids of the live slots and saved states this session created."""
        with self._lock:
            return list(self._slots), list(self._states)

    # -- deletion ---------------------------------------------------------------------------

    def delete_slot(self, slot_id: str, deadline: float | None = None) -> bool:
        """Delete a slot; False when it was already gone (404). ``deadline`` (monotonic)
        bounds the whole call."""
        try:
            self.http.request("DELETE", W.slot_path(slot_id), deadline=deadline)
        except NotFound:
            deleted = False
        else:
            deleted = True
        with self._lock:
            self._forget_slot(slot_id)
        return deleted

    def delete_state(self, state_id: str, deadline: float | None = None) -> bool:
        """Delete a saved state; False when it was already gone (404). ``deadline``
        (monotonic) bounds the whole call."""
        try:
            self.http.request("DELETE", W.state_path(state_id), deadline=deadline)
        except NotFound:
            deleted = False
        else:
            deleted = True
        with self._lock:
            self._states.pop(state_id, None)
            self._children.pop(state_id, None)
        return deleted

    def _settle(self, deadline: float | None = None) -> list[DrumsError]:
        """Replay each unsettled create or fork with its key and own what the host made."""
        with self._lock:
            unsettled, self._unsettled = self._unsettled, []
        errors: list[DrumsError] = []
        for kind, path, body, key in unsettled:
            try:
                reply = self.http.json(
                    "POST", path, json=body, idempotency_key=key, deadline=deadline
                )
            except DrumsError as exc:
                errors.append(exc)
                continue
            if kind == "slot":
                if isinstance(reply.get(W.F_ID), str):
                    self.own_slot(reply[W.F_ID])
                continue
            state, children = reply.get(W.F_STATE), reply.get(W.F_CHILDREN)
            if isinstance(state, str):
                self.own_state(state)
            for child in children if isinstance(children, list) else []:
                if (
                    isinstance(child, dict)
                    and isinstance(child.get(W.F_ID), str)
                    and child.get(W.F_STATE, W.CHILD_RUNNING) == W.CHILD_RUNNING
                ):
                    self.own_slot(child[W.F_ID])
        return errors

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

    def close(self, timeout: float | None = None) -> None:
        """Delete every slot and saved state still owned, then close the transport. Idempotent.

        Bounded: everything together takes at most ``timeout`` seconds (default
        `close_timeout`), however the host answers or does not. Failures are logged once
        (a lease bounds what is left behind), never raised: this also runs at interpreter
        exit.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        budget = self.close_timeout if timeout is None else max(0.0, float(timeout))
        deadline = time.monotonic() + budget
        try:
            if not self.http.closed:
                # Cleanup must not hang (it may run at interpreter exit, after the host is
                # gone): a short retry budget within a deadline, then leases bound the rest.
                self.http.max_retries = min(self.http.max_retries, _CLOSE_MAX_RETRIES)
                self.http.retry_budget = min(self.http.retry_budget, _CLOSE_RETRY_BUDGET_S)
                errors = self._settle(deadline)
                slots, states = self.owned()
                errors += self.delete_many(lambda s: self.delete_slot(s, deadline), slots)
                errors += self.delete_many(lambda s: self.delete_state(s, deadline), states)
                if errors:
                    logger.warning(
                        "drums client close: cleanup failed: %d of %d deletions at %s did not "
                        "go through (first: %s); their leases bound what is left",
                        len(errors), len(slots) + len(states), self.http.where, errors[0],
                    )
        finally:
            self.http.close()

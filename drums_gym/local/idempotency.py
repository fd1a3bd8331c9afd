"""The idempotency store of a workspace: one result per ``Idempotency-Key``.

A retry with the same key and request answers the first result (waiting if the first is
still running); the same key with a different request is 409. Records are kept
``keep_s`` seconds and at most ``cap`` of them (the oldest forgotten first). No lock of
the host is held while the work runs: only the key's own.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import protocol as P
from .errors import conflict

__all__ = ["IdempotencyStore"]


@dataclass
class _Record:
    fingerprint: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: bool = False
    result: Any = None
    at: float = field(default_factory=time.time)


class IdempotencyStore:
    """Results by idempotency key, bounded in number and age."""

    def __init__(self, cap: int, keep_s: float) -> None:
        self.cap, self.keep_s = cap, keep_s
        self._lock = threading.Lock()
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def __len__(self) -> int:
        return len(self._records)

    def run(self, key: str | None, fingerprint: str, make: Callable[[], Any]) -> Any:
        """``make()`` once per key; a retry with the key answers the first result."""
        if not key:
            return make()
        with self._lock:
            record = self._records.get(key)
            if record is None:
                record = self._records[key] = _Record(fingerprint)
                while len(self._records) > self.cap:
                    self._records.popitem(last=False)
        if record.fingerprint != fingerprint:
            raise conflict(
                "Idempotency-Key was already used with a different request",
                P.ErrorDetails(idempotency_key=key),
            )
        with record.lock:
            if record.done:
                return record.result
            try:
                record.result = make()
            except BaseException:
                with self._lock:
                    if self._records.get(key) is record:
                        del self._records[key]  # a failed request may be retried afresh
                raise
            record.done, record.at = True, time.time()
            return record.result

    def expire(self, now: float) -> None:
        """Forget records older than ``keep_s`` (oldest first: stops at the first young one)."""
        with self._lock:
            while self._records:
                key, record = next(iter(self._records.items()))
                if not record.done or record.at + self.keep_s > now:
                    break
                del self._records[key]

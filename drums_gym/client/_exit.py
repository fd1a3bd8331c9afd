"""Interpreter exit: every client cleans up before anything it talks to stops.

Each `Client` deletes what it owns at exit (its `weakref.finalize`). But weakref runs all
finalizers from one atexit hook, registered when the process made its *first* finalizer:
if a library imported earlier (torch, transformers) did, that hook runs after the embedded
local host's own atexit hook has stopped the host, and cleanup finds nothing to talk to.
So this module keeps one atexit hook that closes every live session, and re-registers it
each time a client is made: atexit runs hooks last-in first-out, so it runs before any hook
registered earlier, the embedded host's included.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ._async import AsyncSession
    from ._session import Session

__all__ = ["close_all", "track"]

logger = logging.getLogger("drums_gym.client")

_lock = threading.Lock()
_live: weakref.WeakSet[Session | AsyncSession] = weakref.WeakSet()


def track(session: Session | AsyncSession) -> None:
    """Close ``session`` at exit, before whatever was registered with atexit until now."""
    with _lock:
        _live.add(session)
        atexit.unregister(close_all)
        atexit.register(close_all)


def close_all() -> None:
    """Close every live session (each bounded by its close timeout; never raises). An
    async client's session closes through a sync transport: no event loop runs now."""
    with _lock:
        sessions = list(_live)
        _live.clear()
    for session in sessions:
        try:
            session.close()
        except Exception:  # a bug at the exit boundary: log it, close the others
            logger.exception("drums client: cleanup at exit failed")

"""An awaitable bounded in time on the task that awaits it.

``asyncio.wait_for`` (before Python 3.12) runs what it waits for as a task of its own: one
more task, and one more turn of the event loop, for every request the HTTP front reads or
sends to a worker. :func:`within` puts the timer on the awaiting task instead
(``asyncio.timeout``, Python 3.11+), with the same answer: the result, or TimeoutError
once ``timeout_s`` has passed (None: no limit).

>>> import asyncio
>>> asyncio.run(within(asyncio.sleep(0, "done"), 1.0))
'done'
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["within"]

T = TypeVar("T")

if sys.version_info >= (3, 11):

    async def within(awaitable: Awaitable[T], timeout_s: float | None) -> T:
        """``await awaitable``, or TimeoutError after ``timeout_s`` seconds."""
        async with asyncio.timeout(timeout_s):
            return await awaitable

else:  # pragma: no cover - Python 3.10

    async def within(awaitable: Awaitable[T], timeout_s: float | None) -> T:
        """``await awaitable``, or TimeoutError after ``timeout_s`` seconds."""
        return await asyncio.wait_for(awaitable, timeout_s)

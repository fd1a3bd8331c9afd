"""The async transport (one `httpx.AsyncClient`) and the async client's session.

Runs the same operations (`_ops`) and the same retry loop (`_request.exchange`) as the
sync transport, on the event loop: requests awaited, waits with `asyncio.sleep`, the
`Parallel` parts of an operation (cleanup) with `asyncio.gather`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import httpx

from . import _ops
from ._http import Transport
from ._ops import Op, Parallel, Runner, expand, response, single
from ._request import Call, Policy, Send, Sleep, default_timeout
from ._session import CLOSE_TIMEOUT_S, Ledger
from .errors import DrumsError

__all__ = ["AsyncSession", "AsyncTransport"]

logger = logging.getLogger("drums_gym.client")

T = TypeVar("T")
R = TypeVar("R")


class AsyncTransport(Policy):
    """One `httpx.AsyncClient` with auth, user agent, timeouts, retries and error
    translation. Use it from one event loop."""

    _default_sleep = staticmethod(asyncio.sleep)
    _client: httpx.AsyncClient

    def _open(
        self, transport: httpx.AsyncBaseTransport | None, options: dict[str, Any]
    ) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=default_timeout(self.timeout), transport=transport,
                                 **options)

    @property
    def closed(self) -> bool:
        return self._client.is_closed

    async def aclose(self) -> None:
        await self._client.aclose()

    def sync_twin(self) -> Transport | None:
        """A sync transport to the same host with the same credentials and limits (for
        cleanup where no event loop runs: interpreter exit); None over a custom transport."""
        if self._twin is None:
            return None
        base_url, token, pool_size = self._twin
        return Transport(base_url, token, timeout=self.timeout, max_retries=self.max_retries,
                         retry_budget=self.retry_budget, pool_size=pool_size)

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send a request (see `Call` for the keywords); answer a 2xx/3xx reply or raise."""
        return await self.run(response(Call(method, path, raw=True, **kwargs)))

    async def json(
        self, method: str, path: str, *, params: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """`request`, then the reply's JSON object (`ProtocolError` if it is not one)."""
        return await self.run(single(Call(method, path, params=params, **kwargs)))

    async def run(self, op: Op[R]) -> R:
        """Run an operation on the event loop (its `Parallel` parts concurrently)."""
        runner = Runner(expand(self, op))
        while runner.step is not None:
            try:
                result = await self._carry_out(runner.step)
            except BaseException as exc:  # into the operation, which may handle it
                runner.fail(exc)
            else:
                runner.give(result)
        return runner.value

    async def _carry_out(self, step: Send | Sleep | Parallel) -> Any:
        if isinstance(step, Sleep):
            return await self._sleep(step.seconds)
        if isinstance(step, Parallel):
            return await self.concurrently(self.run, list(step.ops))
        if self.closed:
            raise DrumsError("the client is closed")
        return await self._client.request(**step.kwargs)

    async def concurrently(
        self, fn: Callable[[T], Awaitable[Any]], items: list[T]
    ) -> list[Any]:
        """``fn`` over ``items`` concurrently: each result, or the `Exception` it raised.

        Anything else (cancellation, `KeyboardInterrupt`) cancels the rest and propagates.
        """
        tasks = [asyncio.ensure_future(fn(item)) for item in items]
        try:
            results = await asyncio.gather(*tasks, return_exceptions=True)
        except BaseException:
            for task in tasks:
                task.cancel()
            raise
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, Exception):
                raise result
        return list(results)


class AsyncSession(Ledger):
    """A `Ledger` with the async transport it talks through."""

    def __init__(self, http: AsyncTransport, close_timeout: float = CLOSE_TIMEOUT_S) -> None:
        super().__init__(close_timeout)
        self.http = http

    async def aclose(self, timeout: float | None = None) -> None:
        """Delete every slot and saved state still owned, then close the transport.

        Idempotent; bounded by ``timeout`` seconds (default `close_timeout`) for
        everything together; failures are logged once, never raised.
        """
        deadline = self.begin_close(timeout)
        if deadline is None:
            return
        try:
            if not self.http.closed:
                await self.http.run(_ops.close_session(self, self.http, deadline))
        finally:
            await self.http.aclose()

    def close(self, timeout: float | None = None) -> None:
        """Best-effort cleanup without an event loop (interpreter exit, garbage
        collection): the same deletions through a sync twin of the transport."""
        deadline = self.begin_close(timeout)
        if deadline is None:
            return
        slots, states = self.owned()
        if not (slots or states or self.has_unsettled()):
            return
        twin = self.http.sync_twin()
        if twin is None:
            logger.warning("drums async client was not closed (aclose): %d slots and %d "
                           "states left to their leases", len(slots), len(states))
            return
        try:
            twin.run(_ops.close_session(self, twin, deadline))
        finally:
            twin.close()

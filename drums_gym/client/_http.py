"""The sync transport: thread-safe `httpx.Client`s (a few pools, `Pools`), its retry loop,
and a runner for the client's operations (`_ops`), with threads for their concurrent parts.

This is the sync client's boundary with httpx; what a request is, how a reply becomes a
model or an error and when to retry live in `_request` (shared with the async client).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import httpx

from ._h1 import H1Client, H1Transport, use_for
from ._ops import Op, Parallel, Runner, expand, response, single
from ._request import Call, Policy, Send, Sleep, default_timeout, user_agent
from .errors import DrumsError

__all__ = ["Transport", "user_agent"]

T = TypeVar("T")
R = TypeVar("R")

_MAX_PARALLEL = 16
#: connection pools of one transport; a thread keeps the one it was dealt
POOLS = 8


class Pools:
    """A few `httpx.Client`s alike, each thread dealt one in turn and keeping it.

    One httpx pool serves one request at a time under its lock, and scans every connection
    it holds for each request: with 64 threads stepping 64 children through one pool, the
    client spent an eighth of its time waiting for that lock. A thread keeps its pool, so
    one thread (an env) uses one connection, and 64 threads share 8 pools of 8. Each pool
    has the transport's limits.

    >>> pools = Pools(httpx.Client, 2)
    >>> pools.is_closed, pools.close(), pools.is_closed
    (False, None, True)
    """

    def __init__(self, make: Callable[[], httpx.Client | H1Client], count: int) -> None:
        self._clients = [make() for _ in range(count)]
        self._next = itertools.count()
        self._mine = threading.local()

    def _client(self) -> httpx.Client | H1Client:
        client: httpx.Client | H1Client | None = getattr(self._mine, "client", None)
        if client is None:
            client = self._clients[next(self._next) % len(self._clients)]
            self._mine.client = client
        return client

    def request(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self._client().request(*args, **kwargs)

    @property
    def is_closed(self) -> bool:
        return all(c.is_closed for c in self._clients)

    def close(self) -> None:
        for client in self._clients:
            client.close()


class Transport(Policy):
    """`httpx.Client`s (`Pools`) with auth, user agent, timeouts, retries and error
    translation.

    Thread-safe: many threads (vector envs, `Client.map`) share it and its pools.
    """

    _default_sleep = staticmethod(time.sleep)
    _client: Pools

    def _open(self, transport: httpx.BaseTransport | None, options: dict[str, Any]) -> Pools:
        def make() -> httpx.Client:
            return httpx.Client(timeout=default_timeout(self.timeout), transport=transport,
                                **options)

        if transport is None and use_for(str(options["base_url"])):
            # plain HTTP (a local host): httptools' parser, one connection per thread in
            # flight and no pool lock, so one client serves every thread
            h1 = H1Transport(max_idle=options["limits"].max_keepalive_connections)
            lean = H1Client(str(options["base_url"]), options["headers"],
                            default_timeout(self.timeout), h1)
            return Pools(lambda: lean, 1)
        # a transport of the caller's (a mock, a proxy) is one object: one client over it
        return Pools(make, POOLS if transport is None else 1)

    @property
    def closed(self) -> bool:
        return self._client.is_closed

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send a request (see `Call` for the keywords); answer a 2xx/3xx reply or raise."""
        return self.run(response(Call(method, path, raw=True, **kwargs)))

    def json(
        self, method: str, path: str, *, params: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """`request`, then the reply's JSON object (`ProtocolError` if it is not one)."""
        return self.run(single(Call(method, path, params=params, **kwargs)))

    def run(self, op: Op[R]) -> R:
        """Run an operation: its requests and waits in this thread, its `Parallel` parts in
        threads."""
        runner = Runner(expand(self, op))
        while runner.step is not None:
            try:
                result = self._carry_out(runner.step)
            except BaseException as exc:  # into the operation, which may handle it
                runner.fail(exc)
            else:
                runner.give(result)
        return runner.value

    def _carry_out(self, step: Send | Sleep | Parallel) -> Any:
        if isinstance(step, Sleep):
            return self._sleep(step.seconds)
        if isinstance(step, Parallel):
            return self.concurrently(self.run, list(step.ops))
        if self.closed:
            raise DrumsError("the client is closed")
        try:
            return self._client.request(**step.kwargs)
        except RuntimeError as exc:  # httpx: "the client has been closed"
            if self.closed:
                raise DrumsError("the client is closed") from exc
            raise

    def concurrently(self, fn: Callable[[T], Any], items: list[T]) -> list[Any]:
        """``fn`` over ``items`` in threads: each result, or the `Exception` it raised."""

        def one(item: T) -> Any:
            try:
                return fn(item)
            except Exception as exc:  # the contract: each result or its exception
                return exc

        if len(items) <= 1:
            return [one(item) for item in items]
        try:
            pool = ThreadPoolExecutor(max_workers=min(_MAX_PARALLEL, len(items)),
                                      thread_name_prefix="drums-delete")
        except RuntimeError:  # pragma: no cover - interpreter shutting down
            return [one(item) for item in items]
        try:
            futures: list[Future[Any] | None] = []  # None: run in this thread
            for item in items:
                try:
                    futures.append(pool.submit(one, item))
                except RuntimeError:  # interpreter shutdown: no new threads
                    futures.append(None)
            pairs = zip(items, futures, strict=True)
            return [one(item) if f is None else f.result() for item, f in pairs]
        finally:
            pool.shutdown(wait=True)

"""The transport: one thread-safe `httpx.Client`, retries, and error translation.

This is the client's boundary with httpx: httpx exceptions and error replies are turned
into `drums_gym.client.errors` here, once. Retries cover known-transient failures only:
429, 503, connection errors (the request never reached the host), and for requests that are
safe to replay (GET, DELETE, keyed POSTs, and POSTs marked replayable) also 502, 504, read
timeouts and dropped connections. Backoff is exponential with full jitter unless the host
says how long to wait (`details.retry_after_ms`, else `Retry-After`); every call has a
retry count (`max_retries`) and a total sleep budget (`retry_budget`).
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from . import _wire as W
from .errors import (
    APIError,
    ConnectError,
    DrumsError,
    DrumsTimeout,
    ProtocolError,
    TransportError,
    error_for_status,
)

__all__ = ["Transport", "user_agent"]

logger = logging.getLogger("drums_gym.client")

_REPLAYABLE_METHODS = frozenset({"GET", "HEAD", "DELETE"})
_ALWAYS_RETRY_STATUS = frozenset({429, 503})  # the host refused before doing anything
_REPLAY_RETRY_STATUS = frozenset({502, 504})  # a proxy failed: the host may have acted
_CONNECT_TIMEOUT_S = 5.0
_BACKOFF_BASE_S = 0.25
_BACKOFF_CAP_S = 8.0


def user_agent() -> str:
    """`drums-gym/<version>` (the installed distribution's, else the package's)."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"drums-gym/{version('drums-gym')}"
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    import sys

    pkg = sys.modules.get("drums_gym")
    return f"drums-gym/{getattr(pkg, '__version__', '0+unknown')}"


def _parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` as seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Transport:
    """One `httpx.Client` with auth, user agent, timeouts, retries and error translation.

    Thread-safe: many threads (vector envs, `Client.map`) share it and its pool.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_budget: float = 60.0,
        pool_size: int = 64,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ValueError(
                f"timeout must be a positive, finite number of seconds, got {timeout!r}"
            )
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        if (
            isinstance(retry_budget, bool)
            or not isinstance(retry_budget, (int, float))
            or not math.isfinite(retry_budget)
            or retry_budget < 0
        ):
            raise ValueError(
                f"retry_budget must be a finite number of seconds >= 0, got {retry_budget!r}"
            )
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.retry_budget = float(retry_budget)
        self._token = token
        try:  # for messages: where we connect, never with credentials
            self.where = str(httpx.URL(base_url).copy_with(username=None, password=None))
        except (httpx.InvalidURL, TypeError):
            self.where = "the host"
        self.where = self.where.rstrip("/")
        self._sleep = sleep
        self._rand = rand
        headers = {W.H_USER_AGENT: user_agent(), W.H_ACCEPT: "application/json"}
        if token:
            headers[W.H_AUTHORIZATION] = f"{W.BEARER} {token}"
        self._client = httpx.Client(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(self.timeout, connect=min(_CONNECT_TIMEOUT_S, self.timeout)),
            limits=httpx.Limits(
                max_connections=pool_size,
                max_keepalive_connections=pool_size,
                keepalive_expiry=30.0,
            ),
            transport=transport,
            follow_redirects=False,
        )

    @property
    def closed(self) -> bool:
        return self._client.is_closed

    def close(self) -> None:
        self._client.close()

    # -- requests -------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        replayable: bool | None = None,
        read_timeout: float | None = None,
        deadline: float | None = None,
    ) -> httpx.Response:
        """Send a request, retrying what is transient; answer a 2xx/3xx response or raise.

        `replayable` says the request may be sent twice without harm (defaults to True for
        GET/DELETE and for requests with an `idempotency_key`). `deadline` (a
        `time.monotonic()` instant) bounds the whole call, retries and waits included: past
        it the call raises the last error, or `DrumsTimeout`.
        """
        if self.closed:
            raise DrumsError("the client is closed")
        method = method.upper()
        if replayable is None:
            replayable = method in _REPLAYABLE_METHODS or idempotency_key is not None
        headers = {W.H_IDEMPOTENCY_KEY: idempotency_key} if idempotency_key else None
        timeout = None
        if read_timeout is not None:
            timeout = httpx.Timeout(
                max(self.timeout, read_timeout), connect=min(_CONNECT_TIMEOUT_S, self.timeout)
            )
        attempt = 0
        slept = 0.0
        while True:
            started = time.monotonic()
            try:
                kwargs: dict[str, Any] = {"json": json, "params": params, "headers": headers}
                if deadline is not None:
                    left = deadline - started
                    if left <= 0:
                        raise DrumsTimeout(f"{method} {path}: out of time (deadline passed)")
                    base = timeout or httpx.Timeout(
                        self.timeout, connect=min(_CONNECT_TIMEOUT_S, self.timeout)
                    )
                    timeout = httpx.Timeout(
                        min(base.read or self.timeout, left),
                        connect=min(base.connect or _CONNECT_TIMEOUT_S, left),
                    )
                if timeout is not None:
                    kwargs["timeout"] = timeout
                response = self._client.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                error, retryable = self._translate(exc, method, path, replayable)
                cause: BaseException | None = exc
                hint = None
            except RuntimeError as exc:  # httpx: "the client has been closed"
                if self.closed:
                    raise DrumsError("the client is closed") from exc
                raise
            else:
                elapsed_ms = (time.monotonic() - started) * 1000
                logger.debug("%s %s -> %d (%.0f ms)", method, path, response.status_code,
                             elapsed_ms)
                if response.status_code < 400:
                    return response
                error = self._api_error(response, method, path)
                retryable = response.status_code in _ALWAYS_RETRY_STATUS or (
                    replayable and response.status_code in _REPLAY_RETRY_STATUS
                )
                hint = error.retry_after
                cause = None
            if not retryable or attempt >= self.max_retries:
                raise error from cause
            delay = self._delay(attempt, hint)
            if deadline is not None and time.monotonic() + delay >= deadline:
                logger.info("%s %s: not retrying %s, the deadline comes first", method, path,
                            _short(error))
                raise error from cause
            if slept + delay > self.retry_budget:
                logger.info("%s %s: not retrying %s, the wait (%.2f s) exceeds the retry "
                            "budget", method, path, _short(error), delay)
                raise error from cause
            attempt += 1
            logger.info("%s %s: %s; retry %d/%d in %.3f s", method, path, _short(error),
                        attempt, self.max_retries, delay)
            self._sleep(delay)
            slept += delay

    def json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """`request`, then the reply's JSON object (`ProtocolError` if it is not one)."""
        response = self.request(method, path, **kwargs)
        try:
            body = response.json()
        except ValueError as exc:
            raise ProtocolError(
                f"{method} {path}: the reply is not JSON ({response.status_code}, "
                f"{response.headers.get('content-type', 'no content type')})"
            ) from exc
        if not isinstance(body, dict):
            raise ProtocolError(f"{method} {path}: the reply is not a JSON object")
        return body

    # -- helpers ----------------------------------------------------------------------------

    def _delay(self, attempt: int, hint: float | None) -> float:
        if hint is not None:
            return hint * (1.0 + 0.1 * self._rand())  # a little spread against herds
        return self._rand() * min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * (2.0**attempt))

    def _redact(self, text: str) -> str:
        if self._token and self._token in text:
            return text.replace(self._token, "***")
        return text

    def _api_error(self, response: httpx.Response, method: str, path: str) -> APIError:
        try:
            body = response.json()
        except ValueError:
            body = None
        error = error_for_status(
            response.status_code,
            body,
            reason=response.reason_phrase,
            retry_after_header=_parse_retry_after(response.headers.get(W.H_RETRY_AFTER)),
            method=method,
            path=path,
        )
        error.message = self._redact(error.message)
        error.args = (str(error),)
        return error

    def _translate(
        self, exc: httpx.TransportError, method: str, path: str, replayable: bool
    ) -> tuple[DrumsError, bool]:
        """An httpx failure as our error, and whether it may be retried."""
        what = self._redact(str(exc) or type(exc).__name__)
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            # The request never reached the host: always safe to send again.
            return ConnectError(
                f"cannot connect to {self.where} for {method} {path}: {what}; is a Drums host "
                "running there? (the URL is DRUMS_URL, or url=)"
            ), True
        if isinstance(exc, httpx.PoolTimeout):
            return DrumsTimeout(f"{method} {path}: no free connection in the pool"), True
        if isinstance(exc, httpx.TimeoutException):
            return DrumsTimeout(f"{method} {path} timed out: {what}"), replayable
        if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
            return TransportError(f"{method} {path}: connection lost: {what}"), replayable
        return TransportError(f"{method} {path}: {type(exc).__name__}: {what}"), False


def _short(error: DrumsError) -> str:
    if isinstance(error, APIError):
        return f"{error.status} {error.code}"
    return type(error).__name__

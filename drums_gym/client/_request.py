"""The transport's sans-IO half, shared by the sync and the async client.

What a request is (`Call`), how httpx is configured (`client_options`), and one request's
retry loop as a state machine (`Attempts`): the httpx keyword arguments of the next try,
a response or an httpx failure turned into our error, and whether (and how long) to wait
before the next try. Nothing here sends or sleeps: `exchange` describes
the loop as `Send` and `Sleep` steps, which `_http.Transport` and `_async.AsyncTransport`
carry out.

Retries cover known-transient failures only: 429, 503, connection errors (the request never
reached the host), and for requests that are safe to replay (GET, DELETE, keyed POSTs, and
POSTs marked replayable) also 502, 504, read timeouts and dropped connections. Backoff is
exponential with full jitter unless the host says how long to wait
(`details.retry_after_ms`, else `Retry-After`); every call has a retry count
(`max_retries`) and a total sleep budget (`retry_budget`).
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import math
import os
import random
import ssl
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from .. import protocol as W
from .errors import (
    APIError,
    ConnectError,
    DrumsError,
    DrumsTimeout,
    ProtocolError,
    TransportError,
    error_for_status,
)

__all__ = [
    "Attempts",
    "Call",
    "Policy",
    "Send",
    "Sleep",
    "client_options",
    "default_timeout",
    "exchange",
    "parse_json",
    "user_agent",
]

logger = logging.getLogger("drums_gym.client")

_REPLAYABLE_METHODS = frozenset({"GET", "HEAD", "DELETE"})
_ALWAYS_RETRY_STATUS = frozenset({429, 503})  # the host refused before doing anything
_REPLAY_RETRY_STATUS = frozenset({502, 504})  # a proxy failed: the host may have acted
CONNECT_TIMEOUT_S = 5.0
_BACKOFF_BASE_S = 0.25
_BACKOFF_CAP_S = 8.0


@dataclass(frozen=True)
class Call:
    """One request as the client's operations describe it (see `_ops`).

    `raw` asks for the `httpx.Response` itself (screenshots) instead of its JSON object.
    `replayable` says the request may be sent twice without harm (None: True for
    GET/DELETE and for requests with an `idempotency_key`). `deadline` (a
    `time.monotonic()` instant) bounds the whole call, retries and waits included.
    """

    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    idempotency_key: str | None = None
    replayable: bool | None = None
    read_timeout: float | None = None
    deadline: float | None = None
    raw: bool = False


def on_loopback(url: str) -> bool:
    """True when ``url``'s host is ``localhost`` or a loopback address."""
    host = httpx.URL(url).host
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


def _check_seconds(value: Any, name: str, *, positive: bool) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or (value <= 0 if positive else value < 0)
    ):
        what = "a positive, finite number" if positive else "a finite number"
        raise ValueError(f"{name} must be {what} of seconds{'' if positive else ' >= 0'}, "
                         f"got {value!r}")
    return float(value)


def default_timeout(timeout: float) -> httpx.Timeout:
    """Each request's timeout: ``timeout`` seconds, and at most 5 to connect."""
    return httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT_S, timeout))


@functools.lru_cache(maxsize=4)
def _tls(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()  # reads the two variables of the key itself


def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (its CA bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``),
    made once per process and shared: httpx builds one per client otherwise, loading the
    CA bundle each time (about 20 ms of CPU for every env, even over plain HTTP)."""
    return _tls(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


def client_options(base_url: str, token: str | None, pool_size: int) -> dict[str, Any]:
    """The keyword arguments of `httpx.Client` and `httpx.AsyncClient` alike (but the
    timeout, `default_timeout`, which each passes itself)."""
    headers = {W.H_USER_AGENT: user_agent(), W.H_ACCEPT: "application/json"}
    if token:
        headers[W.H_AUTHORIZATION] = f"{W.BEARER} {token}"
    return {
        "base_url": base_url,
        "headers": headers,
        "verify": tls_context(),
        "limits": httpx.Limits(
            max_connections=pool_size, max_keepalive_connections=pool_size, keepalive_expiry=30.0
        ),
        "follow_redirects": False,
    }


def parse_json(response: httpx.Response, method: str, path: str) -> dict[str, Any]:
    """A reply's JSON object (`ProtocolError` if it is not one)."""
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


class Policy:
    """Timeouts, retry limits, jitter and redaction: what both transports decide alike.

    A transport subclasses it with `_open` (its httpx client) and `_default_sleep`.
    """

    _default_sleep: Callable[[float], Any]

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_budget: float = 60.0,
        pool_size: int = 64,
        transport: Any = None,
        sleep: Callable[[float], Any] | None = None,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.timeout = _check_seconds(timeout, "timeout", positive=True)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self.max_retries = max_retries
        self.retry_budget = _check_seconds(retry_budget, "retry_budget", positive=False)
        self._token = token
        self._rand = rand
        try:  # for messages: where we connect, never with credentials
            where = str(httpx.URL(base_url).copy_with(username=None, password=None))
        except (httpx.InvalidURL, TypeError):
            where = "the host"
        self.where = where.rstrip("/")
        self._sleep = sleep or type(self)._default_sleep
        #: what a sync twin of this transport needs (None over a custom transport)
        self._twin = None if transport is not None else (base_url, token, pool_size)
        self._client = self._open(transport, client_options(base_url, token, pool_size))

    def _open(self, transport: Any, options: dict[str, Any]) -> Any:  # pragma: no cover
        raise NotImplementedError

    def start(self, call: Call) -> Attempts:
        """The retry state of one call."""
        return Attempts(self, call)

    def delay(self, attempt: int, hint: float | None) -> float:
        """Seconds before retry ``attempt + 1``: the host's hint (a little spread against
        herds), else exponential backoff with full jitter."""
        if hint is not None:
            return hint * (1.0 + 0.1 * self._rand())
        return self._rand() * min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2.0 ** min(attempt, 64))

    def redact(self, text: str) -> str:
        """``text`` without the token."""
        if self._token and self._token in text:
            return text.replace(self._token, "***")
        return text

    def api_error(self, response: httpx.Response, method: str, path: str) -> APIError:
        """An error reply as the `APIError` of its status (token-free)."""
        try:
            body = response.json()
        except ValueError:
            body = None
        error = error_for_status(
            response.status_code,
            body,
            reason=response.reason_phrase,
            retry_after_header=W.parse_retry_after(response.headers.get(W.H_RETRY_AFTER)),
            method=method,
            path=path,
        )
        error.message = self.redact(error.message)
        error.args = (str(error),)
        return error

    def translate(
        self, exc: httpx.TransportError, method: str, path: str, replayable: bool
    ) -> tuple[DrumsError, bool]:
        """An httpx failure as our error, and whether it may be retried."""
        what = self.redact(str(exc) or type(exc).__name__)
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


@dataclass(frozen=True)
class Send:
    """Send one request (`httpx` keyword arguments); answered with the `httpx.Response`,
    or the `httpx.TransportError` thrown in."""

    kwargs: dict[str, Any]


@dataclass(frozen=True)
class Sleep:
    """Wait this many seconds before the next try."""

    seconds: float


def exchange(policy: Policy, call: Call) -> Generator[Send | Sleep, Any, Any]:
    """One call with its retries, as `Send` and `Sleep` steps; returns the call's result
    (its JSON object, or the response for a ``raw`` call) or raises its error."""
    attempts = policy.start(call)
    while True:
        try:
            response = yield Send(attempts.kwargs())
        except httpx.TransportError as exc:
            attempts.failed(exc)
        else:
            if attempts.answered(response):
                return attempts.result(response)
        yield Sleep(attempts.wait())  # raises the error when it is not retried


class Attempts:
    """One call's tries: `kwargs` for the next, then `answered` or `failed`, then `wait`
    (the loop is `exchange`)."""

    def __init__(self, policy: Policy, call: Call) -> None:
        self.policy = policy
        self.call = call
        self.method = call.method.upper()
        replayable = call.replayable
        if replayable is None:
            replayable = self.method in _REPLAYABLE_METHODS or call.idempotency_key is not None
        self.replayable = replayable
        self._attempt = 0
        self._slept = 0.0
        self._started = 0.0
        self._error: DrumsError | None = None
        self._cause: BaseException | None = None
        self._retryable = False
        self._hint: float | None = None

    def kwargs(self) -> dict[str, Any]:
        """`httpx` request arguments for the next try (`DrumsTimeout` past the deadline)."""
        call, policy = self.call, self.policy
        self._started = time.monotonic()
        kwargs: dict[str, Any] = {
            "method": self.method,
            "url": call.path,
            "json": call.json,
            "params": call.params,
            "headers": {W.H_IDEMPOTENCY_KEY: call.idempotency_key}
            if call.idempotency_key else None,
        }
        connect = min(CONNECT_TIMEOUT_S, policy.timeout)
        read = None if call.read_timeout is None else max(policy.timeout, call.read_timeout)
        if call.deadline is not None:
            left = call.deadline - self._started
            if left <= 0:
                raise DrumsTimeout(f"{self.method} {call.path}: out of time (deadline passed)")
            read, connect = min(read or policy.timeout, left), min(connect, left)
        if read is not None:
            kwargs["timeout"] = httpx.Timeout(read, connect=connect)
        return kwargs

    def answered(self, response: httpx.Response) -> bool:
        """True for a 2xx/3xx reply (the answer); else remember its error."""
        logger.debug("%s %s -> %d (%.0f ms)", self.method, self.call.path,
                     response.status_code, (time.monotonic() - self._started) * 1000)
        if response.status_code < 400:
            return True
        error = self.policy.api_error(response, self.method, self.call.path)
        self._error, self._cause, self._hint = error, None, error.retry_after
        self._retryable = response.status_code in _ALWAYS_RETRY_STATUS or (
            self.replayable and response.status_code in _REPLAY_RETRY_STATUS
        )
        return False

    def failed(self, exc: httpx.TransportError) -> None:
        """Remember an httpx failure as our error."""
        self._error, self._retryable = self.policy.translate(
            exc, self.method, self.call.path, self.replayable
        )
        self._cause, self._hint = exc, None

    def wait(self) -> float:
        """Seconds to sleep before the next try; raises the error when it is not retried
        (not transient, out of retries, past the deadline or the retry budget)."""
        error, cause, policy = self._error, self._cause, self.policy
        if error is None:  # pragma: no cover - a transport bug
            raise RuntimeError("Attempts.wait() before a failed try")
        method, path = self.method, self.call.path
        if not self._retryable or self._attempt >= policy.max_retries:
            raise error from cause
        delay = policy.delay(self._attempt, self._hint)
        deadline = self.call.deadline
        if deadline is not None and time.monotonic() + delay >= deadline:
            logger.info("%s %s: not retrying %s, the deadline comes first", method, path,
                        _short(error))
            raise error from cause
        if self._slept + delay > policy.retry_budget:
            logger.info("%s %s: not retrying %s, the wait (%.2f s) exceeds the retry "
                        "budget", method, path, _short(error), delay)
            raise error from cause
        self._attempt += 1
        logger.info("%s %s: %s; retry %d/%d in %.3f s", method, path, _short(error),
                    self._attempt, policy.max_retries, delay)
        self._slept += delay
        return delay

    def result(self, response: httpx.Response) -> Any:
        """What the call asked for: the response itself (`raw`), else its JSON object."""
        if self.call.raw:
            return response
        return parse_json(response, self.method, self.call.path)


def _short(error: DrumsError) -> str:
    if isinstance(error, APIError):
        return f"{error.status} {error.code}"
    return type(error).__name__

"""Exceptions raised by `drums_gym.client`: one tree.

```
DrumsError                      anything this client raises on purpose
├── TransportError              no usable answer from the host
│   ├── ConnectError            could not connect (refused, unreachable) after retries
│   └── DrumsTimeout            a request or a wait ran out of time (also a TimeoutError)
├── ProtocolError               the host answered something the protocol does not allow
├── APIError                    the host answered with an error body: .status .code .message
│   │                           .details .method .path
│   ├── Unauthorized            401 unauthorized
│   ├── QuotaExceeded           403 quota_exceeded
│   ├── NotFound                404 not_found
│   ├── Conflict                409 conflict
│   ├── InvalidRequest          422 invalid_request
│   │   └── ActionError         422 invalid_action
│   ├── Overloaded              429 overloaded (.retry_after, seconds)
│   └── ServerError             5xx
├── ForkError                   fork(strict=True) had failed children (.ok .state .failed)
└── InvalidEpisode              wait_valid() found the episode invalid (.episode .reason)
```

httpx exceptions are translated once, in the transport (`raise ConnectError(...) from exc`).
No exception carries the token: messages name the method and the path only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import protocol as W

if TYPE_CHECKING:  # pragma: no cover
    from .models import Episode
    from .slot import ForkGroup

__all__ = [
    "APIError",
    "ActionError",
    "Conflict",
    "ConnectError",
    "DrumsError",
    "DrumsTimeout",
    "ForkError",
    "InvalidEpisode",
    "InvalidRequest",
    "NotFound",
    "Overloaded",
    "ProtocolError",
    "QuotaExceeded",
    "ServerError",
    "TransportError",
    "Unauthorized",
    "error_for_status",
    "retry_after_seconds",
]


class DrumsError(Exception):
    """Base class of every exception this client raises on purpose."""


class TransportError(DrumsError):
    """The request got no usable answer (connection refused or dropped, timeout)."""


class ConnectError(TransportError):
    """Could not connect to the host, after the retries the budget allowed."""


class DrumsTimeout(TransportError, TimeoutError):
    """A request timed out, or a wait (`Slot.wait_valid`) ran out of time."""


class ProtocolError(DrumsError):
    """The host's reply does not fit the wire protocol (not JSON, a field missing...)."""


class APIError(DrumsError):
    """The host answered with an error: `status`, machine `code`, `message`, `details`.

    `method` and `path` name the request (never its headers, so never the token).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        *,
        method: str = "",
        path: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.status = int(status)
        self.code = str(code)
        self.message = str(message)
        self.details: dict[str, Any] = dict(details or {})
        self.method = method
        self.path = path
        #: Seconds the host asked the client to wait before retrying (429, 503), or None.
        self.retry_after = retry_after
        super().__init__(self.__str__())

    @property
    def invalid_reason(self) -> str | None:
        """Why the host says the episode is invalid or the slot is gone, when its details
        say (the episode's ``invalid_reason``, else the ``reason``); None otherwise."""
        try:
            details = W.decode(W.ErrorDetails, self.details, "an error's details")
        except W.WireError:
            return None
        episode = details.episode
        return (episode.invalid_reason if episode else None) or details.reason or None

    def __str__(self) -> str:
        where = f" ({self.method} {self.path})" if self.method or self.path else ""
        return f"{self.status} {self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, code={self.code!r}, "
            f"message={self.message!r}, details={self.details!r}, "
            f"method={self.method!r}, path={self.path!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild_api_error,
            (type(self), self.status, self.code, self.message, self.details, self.method,
             self.path, self.retry_after),
        )


def _rebuild_api_error(
    cls: type[APIError], status: int, code: str, message: str, details: dict[str, Any],
    method: str, path: str, retry_after: float | None,
) -> APIError:
    return cls(status, code, message, details, method=method, path=path, retry_after=retry_after)


class Unauthorized(APIError):
    """401 `unauthorized`: the token is missing or unknown to the host."""


class QuotaExceeded(APIError):
    """403 `quota_exceeded`: the workspace's live-desktop or saved-state limit is reached."""


class NotFound(APIError):
    """404 `not_found`: no such slot, state, task or path in this workspace."""


class Conflict(APIError):
    """409 `conflict`: the operation does not fit the object's state (see `details`)."""


class InvalidRequest(APIError):
    """422 `invalid_request`: a malformed body or parameter (`details["field"]`)."""


class ActionError(InvalidRequest):
    """422 `invalid_action`: the action code is outside the action language.

    Nothing was applied; `details["construct"]` names what was refused.
    """


class Overloaded(APIError):
    """429 `overloaded`: the host is full or shedding load; retry after `retry_after` s."""


class ServerError(APIError):
    """5xx: the host (or a proxy in front of it) failed."""


class ForkError(DrumsError):
    """`Slot.fork(strict=True)` had children that did not come up.

    `ok` is a `ForkGroup` of the children that did come up (close it, or use it as a
    context manager), `state` the saved state's id, `failed` a list of
    `(child_id, error_dict)`.
    """

    def __init__(
        self,
        message: str,
        *,
        ok: ForkGroup,
        state: str,
        failed: list[tuple[str, dict[str, Any]]],
    ) -> None:
        super().__init__(message)
        self.ok = ok
        self.state = state
        self.failed = list(failed)


class InvalidEpisode(DrumsError):
    """The episode became invalid (`reason`: `gate_failed`, `app_crash`, ...). Final."""

    def __init__(self, message: str, *, episode: Episode) -> None:
        super().__init__(message)
        self.episode = episode

    @property
    def reason(self) -> str | None:
        return self.episode.invalid_reason


_BY_STATUS: dict[int, type[APIError]] = {
    401: Unauthorized,
    403: QuotaExceeded,
    404: NotFound,
    409: Conflict,
    422: InvalidRequest,
    429: Overloaded,
}

_DEFAULT_CODE: dict[int, str] = {
    401: W.CODE_UNAUTHORIZED,
    403: W.CODE_QUOTA_EXCEEDED,
    404: W.CODE_NOT_FOUND,
    409: W.CODE_CONFLICT,
    422: W.CODE_INVALID_REQUEST,
    429: W.CODE_OVERLOADED,
}


def error_for_status(
    status: int,
    body: Any,
    *,
    reason: str = "",
    retry_after_header: float | None = None,
    method: str = "",
    path: str = "",
) -> APIError:
    """Build the `APIError` subclass for an error reply (`body` is the parsed JSON or None)."""
    try:  # a proxy's or a foreign server's error body is not the protocol's: still an error
        err: W.ErrorBody | None = W.decode(W.ErrorReply, body, "an error reply").error
    except W.WireError:
        err = None
    code = err.code if err is not None and err.code else (
        _DEFAULT_CODE.get(status, W.CODE_INTERNAL if status == 500 else f"http_{status}")
    )
    message = err.message if err is not None and err.message else (reason or f"HTTP {status}")
    details = {} if err is None else err.details
    if status >= 500:
        cls: type[APIError] = ServerError
    elif status == 422 and code == W.CODE_INVALID_ACTION:
        cls = ActionError
    else:
        cls = _BY_STATUS.get(status, APIError)
    return cls(
        status, code, message, details, method=method, path=path,
        retry_after=retry_after_seconds(details, retry_after_header),
    )


def retry_after_seconds(details: Mapping[str, Any], header_s: float | None) -> float | None:
    """The wait the host asked for: `details.retry_after_ms`, else the `Retry-After` header."""
    try:
        ms = W.decode(W.ErrorDetails, details, "an error's details").retry_after_ms
    except W.WireError:
        ms = None
    if ms is not None and ms >= 0:
        return ms / 1000.0
    return header_s

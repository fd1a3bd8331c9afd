"""The host's API errors and the one place their JSON is built.

Every error the host answers is ``{"error": {"code", "message", "details"}}`` with an HTTP
status (docs/http-api.md); :func:`error_json` renders it (and every other reply) so that
text an agent sent (a lone surrogate, say) is escaped, never echoed raw or crashing the reply.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .. import protocol as P

__all__ = [
    "HostError",
    "conflict",
    "error_body",
    "error_json",
    "json_bytes",
    "not_found",
    "overloaded",
]


class HostError(Exception):
    """An API error the host answers with: HTTP status, machine code, message, details."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: P.ErrorDetails | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or P.ErrorDetails()
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        """The JSON object of this error."""
        return error_body(self.code, self.message, self.details)


def error_body(code: str, message: str, details: P.ErrorDetails | None = None) -> dict[str, Any]:
    """``{"error": {"code", "message", "details"}}`` (the details that are set)."""
    sent = P.encode(details or P.ErrorDetails(), drop_none=True)
    reply: dict[str, Any] = P.encode(
        P.ErrorReply(error=P.ErrorBody(code=code, message=message, details=sent))
    )
    return reply


def json_bytes(value: Any) -> bytes:
    """JSON as UTF-8; a lone surrogate in any string is written as its ``\\uXXXX`` escape."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")


def error_json(code: str, message: str, details: P.ErrorDetails | None = None) -> bytes:
    """The bytes of an error reply."""
    return json_bytes(error_body(code, message, details))


def not_found(kind: str, ident: str, details: P.ErrorDetails) -> HostError:
    """404: nothing of ``kind`` with this id in the caller's workspace."""
    return HostError(404, P.CODE_NOT_FOUND, f"no {kind} {ident!r} in this workspace", details)


def conflict(message: str, details: P.ErrorDetails | None = None) -> HostError:
    """409: the request does not fit the resource's state."""
    return HostError(409, P.CODE_CONFLICT, message, details)


def overloaded(message: str, retry_after_s: float) -> HostError:
    """429 with ``Retry-After`` (whole seconds, at least 1) and ``retry_after_ms``."""
    return HostError(
        429,
        P.CODE_OVERLOADED,
        message,
        P.ErrorDetails(retry_after_ms=int(retry_after_s * 1000)),
        {P.H_RETRY_AFTER: str(max(1, math.ceil(retry_after_s)))},
    )

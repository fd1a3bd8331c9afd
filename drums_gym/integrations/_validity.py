"""How an integration reads an episode's validity from a Drums env's ``info``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["UNKNOWN_REASON", "validity"]

#: the reason counted for an invalid episode whose info names none
UNKNOWN_REASON = "unknown"


def validity(info: Mapping[str, Any]) -> tuple[bool, str | None]:
    """``(valid, invalid_reason)`` of one step's info; an info without ``"valid"`` is valid.

    >>> validity({"valid": False, "invalid_reason": "app_crash"})
    (False, 'app_crash')
    >>> validity({"valid": True, "invalid_reason": None})
    (True, None)
    """
    valid = bool(info.get("valid", True))
    if valid:
        return True, None
    reason = info.get("invalid_reason")
    return False, str(reason) if reason else UNKNOWN_REASON

"""`json_safe`: turn an info dict (numpy values, nested dicts) into plain JSON values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_safe"]

#: arrays with more elements than this are summarised (shape, dtype), not written out
MAX_ARRAY_ITEMS = 256


def json_safe(value: Any, *, depth: int = 0) -> Any:
    """A JSON-ready copy of ``value``: numpy scalars and small arrays become Python values,
    big arrays a ``{"shape", "dtype"}`` summary, non-finite floats None, other objects their
    ``repr`` (their type name when the repr mentions a token); mapping keys containing
    ``"token"`` are dropped at every level, except counts of a model's tokens (a key
    ending in ``_tokens`` whose value is an int or None: ``prompt_tokens``)."""
    if depth > 16:
        return _text(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return json_safe(value.item(), depth=depth + 1)
    if isinstance(value, np.ndarray):
        if value.size > MAX_ARRAY_ITEMS:
            return {"shape": list(value.shape), "dtype": str(value.dtype)}
        return json_safe(value.tolist(), depth=depth + 1)
    if isinstance(value, Mapping):
        return {
            str(key): json_safe(item, depth=depth + 1)
            for key, item in value.items()
            if "token" not in str(key).lower() or _token_count(str(key), item)
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(item, depth=depth + 1) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": len(value)}
    return _text(value)


def _token_count(key: str, value: Any) -> bool:
    """Whether ``key: value`` counts a model's tokens (``completion_tokens: 7``), no secret."""
    counted = value is None or (isinstance(value, int) and not isinstance(value, bool))
    return key.lower().endswith("_tokens") and counted


def _text(value: Any) -> str:
    text = repr(value)
    return f"<{type(value).__name__}>" if "token" in text.lower() else text

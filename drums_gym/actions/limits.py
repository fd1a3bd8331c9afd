"""Limits of the action language; code beyond them is refused with an `ActionError`."""

from __future__ import annotations

__all__ = [
    "MAX_CLICKS",
    "MAX_CODE_CHARS",
    "MAX_COORDINATE",
    "MAX_EVENTS",
    "MAX_PRESSES",
    "MAX_SCROLL",
    "MAX_SECONDS",
    "MAX_STATEMENTS",
]

MAX_CODE_CHARS = 100_000
"""Longest code string accepted (characters)."""

MAX_STATEMENTS = 1000
"""Most top-level statements in one code string."""

MAX_EVENTS = 20_000
"""Most primitive events one code string may expand to."""

MAX_CLICKS = 100
"""Largest ``clicks`` of a click."""

MAX_PRESSES = 100
"""Largest ``presses`` of ``press``."""

MAX_SECONDS = 60.0
"""Longest ``time.sleep``, and largest ``interval``/``duration``, in seconds."""

MAX_SCROLL = 10_000
"""Largest absolute number of wheel clicks in one scroll."""

MAX_COORDINATE = 1_000_000
"""Largest absolute coordinate or offset (the desktop clamps to its screen; this only keeps
numbers sane)."""

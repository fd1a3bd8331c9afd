"""The ``state`` option of ``reset``: a saved state's id, from a string or a start state."""

from __future__ import annotations

from typing import Any

__all__ = ["start_state_id"]


def start_state_id(value: Any) -> str | None:
    """The state id of ``reset(options={"state": value})``: None (the task's initial
    desktop), a non-empty string, or an object with a string ``id`` (a ``StartState``);
    else ValueError naming the value."""
    if value is None:
        return None
    state = value if isinstance(value, str) else getattr(value, "id", None)
    if not isinstance(state, str) or not state:
        raise ValueError(
            f"options['state'] must be a saved state's id or a StartState, got {value!r}"
        )
    return state

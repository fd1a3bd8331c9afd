"""Limits and timings of a local host."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["HostConfig"]


@dataclass(frozen=True)
class HostConfig:
    """Limits and timings of a local host (``drums-gym serve`` flags set them)."""

    live_desktops: int = 16  # per workspace
    host_desktops: int = 32  # the whole host
    fork_limit: int = 8
    saved_states: int = 8  # per workspace
    default_ttl_s: float = 900.0
    max_ttl_s: float = 86400.0
    state_idle_ttl_s: float = 1800.0
    gate_delay_s: float = 0.2
    capacity_retry_after_s: float = 2.0

    def __post_init__(self) -> None:
        for name in ("live_desktops", "host_desktops", "fork_limit", "saved_states"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"HostConfig.{name} must be an int >= 1, got {value!r}")
        for name in (
            "default_ttl_s",
            "max_ttl_s",
            "state_idle_ttl_s",
            "gate_delay_s",
            "capacity_retry_after_s",
        ):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise ValueError(f"HostConfig.{name} must be a finite number >= 0, got {value!r}")
        if self.default_ttl_s > self.max_ttl_s:
            raise ValueError(
                f"HostConfig.default_ttl_s ({self.default_ttl_s}) exceeds max_ttl_s "
                f"({self.max_ttl_s})"
            )

    def public(self) -> dict[str, Any]:
        return {
            "live_desktops": self.live_desktops,
            "host_desktops": self.host_desktops,
            "fork_limit": self.fork_limit,
            "saved_states": self.saved_states,
            "default_ttl_s": self.default_ttl_s,
            "max_ttl_s": self.max_ttl_s,
            "state_idle_ttl_s": self.state_idle_ttl_s,
        }

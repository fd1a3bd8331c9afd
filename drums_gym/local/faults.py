"""Injectable faults for the local host: what a real Drums host does on a bad day.

A fault spec is a comma-separated list of ``kind=value`` pairs, e.g.
``"gate_fail=0.1,fork_child_fail=0.2,latency_ms=50"``:

=================  =====================================================================
``gate_fail``      rate: a new episode's gate fails (episode invalid, ``gate_failed``)
``crash``          rate: the task's app crashes soon after the gates pass (``app_crash``)
``oom``            rate: the desktop is OOM-killed soon after the gates pass (``oom_killed``)
``quarantine``     rate: the host quarantines the episode (``quarantined``)
``fork_child_fail`` rate: a fork child does not come up (``"state": "failed"``)
``overload``       rate: a request is shed with 429 ``overloaded`` and ``Retry-After``
``latency_ms``     milliseconds of round trip added to every API request (half before the
                   host works on it, half before its reply starts, as over a network)
``retry_after_ms`` the retry hint sent with an injected 429 (default 50)
=================  =====================================================================

Rates are probabilities in [0, 1]. Rolls are seeded: the n-th episode (or fork child,
or request) of a host started with the same seed rolls the same way, so a sequential run
is reproducible.

>>> spec = FaultSpec.parse("gate_fail=0.5,latency_ms=20")
>>> spec.gate_fail, spec.latency_ms
(0.5, 20.0)
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, fields

__all__ = ["EPISODE_FAULTS", "FaultSpec", "Faults"]

#: episode faults that strike after the gates pass, and the invalid reason each gives
EPISODE_FAULTS: dict[str, str] = {
    "crash": "app_crash",
    "oom": "oom_killed",
    "quarantine": "quarantined",
}

_RATES = ("gate_fail", "crash", "oom", "quarantine", "fork_child_fail", "overload")


@dataclass(frozen=True)
class FaultSpec:
    """Parsed fault rates; all zero by default (a healthy host)."""

    gate_fail: float = 0.0
    crash: float = 0.0
    oom: float = 0.0
    quarantine: float = 0.0
    fork_child_fail: float = 0.0
    overload: float = 0.0
    latency_ms: float = 0.0
    retry_after_ms: float = 50.0

    @classmethod
    def parse(cls, spec: str | None) -> FaultSpec:
        """Parse ``"kind=value,..."``; an empty or ``None`` spec is a healthy host.

        Raises ValueError naming the bad kind or value.
        """
        if spec is None or not spec.strip():
            return cls()
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            kind, sep, raw = part.partition("=")
            kind = kind.strip()
            if not sep:
                raise ValueError(f"fault spec item {part!r} is not kind=value")
            if kind not in known:
                raise ValueError(
                    f"unknown fault kind {kind!r} in fault spec; known: {', '.join(sorted(known))}"
                )
            try:
                value = float(raw)
            except ValueError:
                raise ValueError(
                    f"fault {kind!r} has a non-numeric value {raw.strip()!r}"
                ) from None
            if value != value or value in (float("inf"), float("-inf")) or value < 0:
                raise ValueError(
                    f"fault {kind!r} must be a finite number >= 0, got {raw.strip()!r}"
                )
            if kind in _RATES and value > 1:
                raise ValueError(f"fault rate {kind!r} must be in [0, 1], got {value}")
            values[kind] = value
        return cls(**values)

    def __str__(self) -> str:
        parts = [
            f"{f.name}={getattr(self, f.name):g}"
            for f in fields(self)
            if getattr(self, f.name) != f.default
        ]
        return ",".join(parts) or "none"


class Faults:
    """Seeded fault rolls. Each stream (episodes, fork children, requests) counts its own
    draws, so the n-th draw of a stream is the same for the same seed."""

    def __init__(self, spec: FaultSpec | str | None = None, seed: int = 0) -> None:
        self.spec = spec if isinstance(spec, FaultSpec) else FaultSpec.parse(spec)
        self.seed = seed
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def rng(self, stream: str) -> random.Random:
        """A fresh generator for the next draw of ``stream``."""
        with self._lock:
            n = self._counters.get(stream, 0)
            self._counters[stream] = n + 1
        return random.Random(f"{self.seed}:{stream}:{n}")

    def roll(self, stream: str, rate: float) -> bool:
        """True with probability ``rate`` (no draw is consumed when the rate is 0)."""
        if rate <= 0:
            return False
        return self.rng(stream).random() < rate

"""How an episode ended, and the rates over many: defined once for every loop and wrapper.

An episode ends valid (its score counts) or invalid (a failed gate, a crash, a failed fork
child...: its reward is a placeholder no statistic may use). Everything that reads an
episode's end (the statistics wrappers, the GRPO group loop, the evaluation loop) reads it
with :func:`info_validity` and :func:`info_score`, counts invalid ones under
:data:`UNKNOWN_REASON` when they give no reason, and computes rates with :func:`rate` and
:func:`wilson_interval`.

>>> outcome = EpisodeOutcome.from_info({"valid": True, "score": 1.0}, reward=1.0)
>>> outcome.valid, outcome.score, outcome.reason
(True, 1.0, None)
>>> EpisodeOutcome.from_info({"valid": False}, reward=0.0)
EpisodeOutcome(valid=False, score=None, reason='unknown')
>>> rate(3, 4), rate(0, 0) is None
(0.75, True)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "UNKNOWN_REASON",
    "Z95",
    "EpisodeOutcome",
    "info_score",
    "info_validity",
    "rate",
    "wilson_interval",
]

#: the reason counted for an invalid episode (or group member) that gives none
UNKNOWN_REASON = "unknown"
#: z of a two-sided 95% interval
Z95 = 1.959963984540054


def info_validity(info: Mapping[str, Any]) -> tuple[bool, str | None]:
    """``(valid, invalid_reason)`` of one env's info; an info without ``"valid"`` is valid.

    >>> info_validity({}), info_validity({"valid": False, "invalid_reason": "gate_failed"})
    ((True, None), (False, 'gate_failed'))
    """
    valid = bool(info.get("valid", True))
    reason = info.get("invalid_reason")
    return valid, (None if valid or reason is None else str(reason))


def info_score(info: Mapping[str, Any]) -> float | None:
    """The checker's score in an episode-end info, if it has a finite one."""
    score = info.get("score")
    if isinstance(score, bool) or not isinstance(score, numbers.Real):
        return None
    value = float(score)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class EpisodeOutcome:
    """How one episode ended: valid with a score, or invalid with a reason."""

    valid: bool
    score: float | None
    reason: str | None

    @classmethod
    def from_info(cls, info: Mapping[str, Any], reward: float = 0.0) -> EpisodeOutcome:
        """The outcome an episode-end ``info`` (one env's, not a vector dict) reports:
        the checker's score (else ``reward``) when valid; the reason (else
        :data:`UNKNOWN_REASON`) when not."""
        valid, reason = info_validity(info)
        if not valid:
            return cls(False, None, reason or UNKNOWN_REASON)
        score = info_score(info)
        return cls(True, float(reward) if score is None else score, None)


def rate(part: int, whole: int) -> float | None:
    """``part / whole``; None when ``whole`` is 0 (no episode to take a rate over)."""
    return part / whole if whole else None


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a binomial proportion; None when ``n == 0``.

    >>> lo, hi = wilson_interval(3, 18)
    >>> round(lo, 3), round(hi, 3)
    (0.058, 0.392)
    >>> wilson_interval(0, 0) is None
    True
    """
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n={n}], got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)

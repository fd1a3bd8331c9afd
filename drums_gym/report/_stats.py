"""The report's statistics, computed from the counted rows of ``episodes.jsonl``.

Success is over VALID episodes only, with a 95% Wilson interval; an invalid episode is
counted by its reason and never scored 0.

>>> rows = [{"valid": True, "success": True, "steps": 4, "step_latency_s": 0.02},
...         {"valid": True, "success": False, "steps": 6, "step_latency_s": 0.03},
...         {"valid": False, "success": None, "invalid_reason": "gate_failed", "steps": 0}]
>>> s = stats_of(rows)
>>> s.valid, s.success, s.success_rate, s.invalid, s.mean_steps
(2, 1, 0.5, {'gate_failed': 1}, 5.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..outcomes import UNKNOWN_REASON, wilson_interval

__all__ = ["Stats", "stats_of"]


@dataclass
class Stats:
    """The figures of one task (or of the whole run)."""

    episodes: int = 0
    valid: int = 0
    success: int = 0
    success_rate: float | None = None
    ci95: tuple[float, float] | None = None
    invalid: dict[str, int] = field(default_factory=dict)
    mean_steps: float | None = None
    #: seconds of action + observe per step, over the valid episodes' steps (from each
    #: row's ``timings``, else its ``step_latency_s``), as the suite runner's summary
    mean_step_latency_s: float | None = None

    @property
    def invalid_count(self) -> int:
        return sum(self.invalid.values())


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def stats_of(rows: Iterable[Mapping[str, Any]]) -> Stats:
    """The statistics of the counted episodes ``rows``."""
    out = Stats()
    steps: list[float] = []
    latency_total = latency_steps = 0.0
    for row in rows:
        out.episodes += 1
        if not row.get("valid"):
            reason = row.get("invalid_reason") or UNKNOWN_REASON
            out.invalid[str(reason)] = out.invalid.get(str(reason), 0) + 1
            continue
        out.valid += 1
        out.success += bool(row.get("success"))
        n = _num(row.get("steps"))
        if n is not None:
            steps.append(n)
        if n:  # seconds of action + observe, over the steps of valid episodes
            timings = row.get("timings")
            spent = None
            if isinstance(timings, Mapping):
                parts = [_num(timings.get("action")), _num(timings.get("observe"))]
                if any(p is not None for p in parts):
                    spent = sum(p for p in parts if p is not None)
            if spent is None and (latency := _num(row.get("step_latency_s"))) is not None:
                spent = latency * n
            if spent is not None:
                latency_total += spent
                latency_steps += n
    if out.valid:
        out.success_rate = out.success / out.valid
        out.ci95 = wilson_interval(out.success, out.valid)
    if steps:
        out.mean_steps = sum(steps) / len(steps)
    if latency_steps:
        out.mean_step_latency_s = latency_total / latency_steps
    return out

"""A suite's statistics (``summary.json``), from the final record of each episode.

STATS (per task and overall): ``episodes`` (counted), ``valid``, ``success`` (valid with
``success``), ``success_rate`` (over valid, or None), ``ci95`` (its Wilson interval, or
None), ``invalid`` (``{reason: count}``), ``invalid_rate`` (over counted episodes),
``mean_steps`` (valid episodes), ``mean_step_latency_s`` (seconds of action + observe
per step, over the steps of valid episodes). Invalid episodes are counted, never scored.

>>> records = [
...     {"task": "a" * 36, "valid": True, "success": True, "steps": 2,
...      "timings": {"action": 0.1, "observe": 0.1, "verify": 0.0}, "final": True},
...     {"task": "a" * 36, "valid": False, "success": None, "steps": 0,
...      "invalid_reason": "gate_failed", "timings": {}, "final": True}]
>>> s = suite_stats(records)
>>> s["episodes"], s["valid"], s["success"], s["success_rate"], s["invalid"]
(2, 1, 1, 1.0, {'gate_failed': 1})
>>> s["mean_steps"], s["mean_step_latency_s"]
(2.0, 0.1)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..outcomes import UNKNOWN_REASON, rate, wilson_interval

__all__ = ["suite_stats", "suite_summary"]


def suite_stats(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The STATS of final records (see the module docstring)."""
    done = list(records)
    valid = [r for r in done if r.get("valid")]
    successes = sum(bool(r.get("success")) for r in valid)
    reasons = Counter(
        str(r.get("invalid_reason") or UNKNOWN_REASON) for r in done if not r.get("valid")
    )
    steps = sum(int(r.get("steps") or 0) for r in valid)
    step_time = math.fsum(
        float((r.get("timings") or {}).get("action") or 0.0)
        + float((r.get("timings") or {}).get("observe") or 0.0)
        for r in valid
    )
    ci = wilson_interval(successes, len(valid))
    return {
        "episodes": len(done),
        "valid": len(valid),
        "success": successes,
        "success_rate": rate(successes, len(valid)),
        "ci95": [round(x, 6) for x in ci] if ci is not None else None,  # no 2.8e-17
        "invalid": dict(sorted(reasons.items())),
        "invalid_rate": rate(len(done) - len(valid), len(done)),
        "mean_steps": rate(steps, len(valid)),
        "mean_step_latency_s": round(step_time / steps, 6) if steps else None,
    }


def suite_summary(
    args: Mapping[str, Any],
    tasks: Sequence[str],
    total: int,
    finals: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    """``summary.json``: ``{"args", "done", "total", "overall", "tasks": {short: STATS}}``
    with one entry per task of the plan (in plan order), from the final records."""
    done = list(finals)
    by_task: dict[str, list[Mapping[str, Any]]] = {t: [] for t in tasks}
    for record in done:
        by_task.setdefault(str(record["task"]), []).append(record)
    return {
        "args": dict(args),
        "done": len(done),
        "total": total,
        "overall": suite_stats(done),
        "tasks": {task[:8]: suite_stats(rs) for task, rs in by_task.items()},
    }

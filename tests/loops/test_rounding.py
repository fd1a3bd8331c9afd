"""Wilson bounds are written rounded (issue 22, item 3): a bound of 0 computes as
2.8e-17 in floating point, and ``--json``, ``summary.json`` and the suite summary say 0.0."""

from __future__ import annotations

from drums_gym.evaluation import EpisodeResult, EvalSummary, suite_stats
from drums_gym.outcomes import wilson_interval


def test_the_bounds_are_rounded_in_every_summary() -> None:
    lo, _ = wilson_interval(0, 6)
    assert lo == 2.7755575615628914e-17  # the premise: the raw bound is not 0.0
    results = [EpisodeResult(env_index=0, valid=True, score=0.0, success=False, length=1)] * 6
    assert EvalSummary.from_results(results).to_json()["success_ci95"][0] == 0.0
    rows = [{"valid": True, "success": False, "steps": 1}] * 6
    ci = suite_stats(rows)["ci95"]
    assert ci[0] == 0.0 and ci[1] == round(ci[1], 6)

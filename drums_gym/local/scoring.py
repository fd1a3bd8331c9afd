"""OSWorld's scoring rule, in one function (``../shared/osworld/README.md``).

A task whose evaluator is ``infeasible`` scores 1 exactly when the episode's last action
was FAIL; any other task scores 0 when its last action was FAIL, else its own check.

>>> from types import SimpleNamespace
>>> task = SimpleNamespace(infeasible=False, check=lambda desktop: 1.0)
>>> score_episode(task, None, "DONE"), score_episode(task, None, "FAIL")
(1.0, 0.0)
>>> score_episode(SimpleNamespace(infeasible=True, check=task.check), None, "FAIL")
1.0
"""

from __future__ import annotations

from typing import Any

from .. import protocol as P

__all__ = ["score_episode"]


def score_episode(task: Any, desktop: Any, last_action: str | None) -> float:
    """The episode's score from its task, final desktop and last action."""
    if getattr(task, "infeasible", False):
        return 1.0 if last_action == P.FAIL else 0.0
    if last_action == P.FAIL:
        return 0.0
    return float(task.check(desktop))

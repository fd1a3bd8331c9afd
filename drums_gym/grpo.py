"""Group-relative advantages (GRPO) from valid rewards only.

A group is several rollouts from one shared state (``env.fork_vector(n)``, or
``parent.fork(n)`` with the client). Each rollout ends with a score and a validity flag;
an invalid rollout (a failed gate, a quarantine, an OOM kill, an app crash) says nothing
about the policy, so it is left out: it gets no advantage (``None``) and never moves the
mean or the standard deviation of the valid ones.

>>> group_advantages([1.0, 0.0, 0.5], [True, True, False], eps=0.0)
[1.0, -1.0, None]

Inputs are duck-typed: floats with a separate ``valid`` list, ``Reward``-like objects (with
``.valid`` and ``.score``; an exception in their place, as ``client.map`` returns for a
failed rollout, counts as invalid), or the arrays a vector env returns
(:func:`advantages_from_vector`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .outcomes import UNKNOWN_REASON

__all__ = [
    "GroupResult",
    "advantages_from_vector",
    "group_advantages",
    "summarize",
    "vector_valid",
]


@dataclass(frozen=True)
class GroupResult:
    """One group's outcome: valid scores, their advantages, and why the others were left out.

    ``scores[i]`` and ``advantages[i]`` are None for invalid members.

    >>> result = GroupResult.from_scores([0.0, 1.0, 0.5], [True, True, False],
    ...                                  reasons=[None, None, "gate_failed"])
    >>> result.n, result.n_valid, result.mean_score, result.invalid_reasons
    (3, 2, 0.5, {'gate_failed': 1})
    """

    scores: tuple[float | None, ...]
    advantages: tuple[float | None, ...]
    invalid_reasons: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_scores(
        cls,
        scores: Any,
        valid: Any = None,
        reasons: Any = None,
        *,
        eps: float = 1e-6,
    ) -> GroupResult:
        """Build a result from the same inputs as :func:`group_advantages`.

        ``reasons`` (one per member, None where unknown) names why members are invalid;
        ``Reward``-like members give their own ``.reason``.
        """
        members = _members(scores, valid)
        reason_list = _reasons(reasons, members, len(members))
        advantages = _advantages([score for score, _ in members], eps)
        counted: Counter[str] = Counter(
            reason_list[i] or UNKNOWN_REASON
            for i, (score, _) in enumerate(members)
            if score is None
        )
        return cls(
            scores=tuple(score for score, _ in members),
            advantages=tuple(advantages),
            invalid_reasons=dict(counted),
        )

    @property
    def n(self) -> int:
        """Members in the group."""
        return len(self.scores)

    @property
    def n_valid(self) -> int:
        """Members with a valid score."""
        return sum(score is not None for score in self.scores)

    @property
    def valid_scores(self) -> list[float]:
        """The valid members' scores, in order."""
        return [score for score in self.scores if score is not None]

    @property
    def mean_score(self) -> float | None:
        """Mean score over valid members; None when there is none."""
        valid = self.valid_scores
        if not valid:
            return None
        origin, mean, _ = _centred_stats(valid)
        return origin + mean

    @property
    def std_score(self) -> float | None:
        """Population standard deviation over valid members; None when there is none."""
        valid = self.valid_scores
        return _centred_stats(valid)[2] if valid else None

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (what :func:`summarize` returns)."""
        valid = self.valid_scores
        return {
            "n": self.n,
            "valid": len(valid),
            "invalid": self.n - len(valid),
            "mean_score": self.mean_score,
            "std_score": self.std_score,
            "successes": sum(score >= 1.0 for score in valid),
            "invalid_reasons": dict(self.invalid_reasons),
        }


def group_advantages(scores: Any, valid: Any = None, *, eps: float = 1e-6) -> list[float | None]:
    """Advantages ``(s - mean) / (std + eps)`` over the valid members of one group.

    Args:
        scores: one item per member: a float, a ``Reward``-like object (``.valid``,
            ``.score``), an exception (a failed rollout: invalid) or None (invalid); or a
            1-d numpy array of floats.
        valid: optional, one bool per member (a list or a numpy array). A member is valid
            when this flag and its own ``.valid`` (if it has one) are both true.
        eps: added to the population standard deviation; a finite number ``>= 0``.

    Returns:
        One entry per member: the advantage of a valid member, None for an invalid one.
        Mean and population std are taken over valid members only; a group without a
        valid member gives all None.

    >>> group_advantages([0.0, 1.0], eps=0.0)
    [-1.0, 1.0]
    >>> group_advantages([0.0, 1.0], [False, False])
    [None, None]
    """
    return _advantages([score for score, _ in _members(scores, valid)], eps)


def advantages_from_vector(
    rewards: Any, infos: Mapping[str, Any], *, eps: float = 1e-6
) -> list[float | None]:
    """Advantages for a group run as a vector env, from its final step.

    ``rewards`` is the reward array of the step where the group's episodes ended and
    ``infos`` that step's info dict in Gymnasium's vector convention: ``infos["valid"]``
    with its mask ``infos["_valid"]``. A sub-env whose mask is false (it reported no
    validity) counts as invalid. When sub-envs end at different steps, keep each one's
    final reward and validity and call :func:`group_advantages`.

    >>> import numpy as np
    >>> infos = {"valid": np.array([True, True, False]), "_valid": np.array([True] * 3)}
    >>> advantages_from_vector(np.array([1.0, 0.0, 0.0]), infos, eps=0.0)
    [1.0, -1.0, None]
    """
    values = np.asarray(rewards, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"rewards must be a 1-d array, got shape {values.shape}")
    flags = vector_valid(infos, len(values))
    scores = [float(s) if ok else None for s, ok in zip(values, flags, strict=True)]
    return _advantages(scores, eps)


def vector_valid(infos: Mapping[str, Any], n: int) -> list[bool]:
    """Per sub-env validity from vector ``infos``: ``infos["valid"]`` where ``infos["_valid"]``."""
    if not isinstance(infos, Mapping) or "valid" not in infos:
        raise ValueError(f"infos must be a vector info dict with a 'valid' key, got {infos!r}")
    flags = np.asarray(infos["valid"])
    mask = np.asarray(infos.get("_valid", np.ones(n, dtype=bool)), dtype=bool)
    if flags.shape != (n,) or mask.shape != (n,):
        raise ValueError(
            f"infos['valid'] and infos['_valid'] must have shape ({n},), "
            f"got {flags.shape} and {mask.shape}"
        )
    return [bool(m) and bool(f) for f, m in zip(flags, mask, strict=True)]


def summarize(scores: Any, valid: Any = None, reasons: Any = None) -> dict[str, Any]:
    """A JSON-ready summary of rollouts, for CLIs: counts, mean valid score, invalid reasons.

    >>> summarize([1.0, 0.0, 0.0], [True, True, False], [None, None, "oom_killed"])
    {'n': 3, 'valid': 2, 'invalid': 1, 'mean_score': 0.5, 'std_score': 0.5, \
'successes': 1, 'invalid_reasons': {'oom_killed': 1}}
    """
    return GroupResult.from_scores(scores, valid, reasons).summary()


# --- internals --------------------------------------------------------------------------------


def _members(scores: Any, valid: Any) -> list[tuple[float | None, Any]]:
    """(score or None when invalid, the original item) for each member."""
    if isinstance(scores, np.ndarray):
        if scores.ndim != 1:
            raise ValueError(f"scores must be 1-d, got an array of shape {scores.shape}")
        items: list[Any] = scores.tolist()
    elif isinstance(scores, (str, bytes)) or not isinstance(scores, Sequence):
        raise ValueError(f"scores must be a sequence or a 1-d array, got {scores!r}")
    else:
        items = list(scores)
    flags = _flags(valid, len(items))
    members: list[tuple[float | None, Any]] = []
    for i, item in enumerate(items):
        score = _score(item, i) if flags[i] else None
        members.append((score, item))
    return members


def _flags(valid: Any, n: int) -> list[bool]:
    if valid is None:
        return [True] * n
    if isinstance(valid, (str, bytes)) or not isinstance(valid, (Sequence, np.ndarray)):
        raise ValueError(f"valid must be a sequence of bools, got {valid!r}")
    flags = np.asarray(valid)
    if flags.shape != (n,):
        raise ValueError(f"valid must have one flag per score ({n}), got {valid!r}")
    if flags.dtype != np.bool_ and not all(
        isinstance(f, (bool, np.bool_, int, np.integer)) and f in (0, 1) for f in flags.tolist()
    ):
        raise ValueError(f"valid must hold bools, got {valid!r}")
    return [bool(f) for f in flags.tolist()]


def _score(item: Any, index: int) -> float | None:
    """A member's score, or None when it is invalid."""
    if item is None or isinstance(item, BaseException):
        return None
    if hasattr(item, "valid") and hasattr(item, "score"):
        if not item.valid:
            return None
        item = item.score
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, float, np.number)):
        raise ValueError(f"scores[{index}] must be a number or Reward-like, got {item!r}")
    value = float(item)
    if not math.isfinite(value):
        raise ValueError(f"scores[{index}] of a valid member must be finite, got {value!r}")
    return value


def _reasons(reasons: Any, members: list[tuple[float | None, Any]], n: int) -> list[str | None]:
    if reasons is None:
        given: list[Any] = [None] * n
    elif isinstance(reasons, (str, bytes)) or not isinstance(reasons, (Sequence, np.ndarray)):
        raise ValueError(f"reasons must be a sequence of str or None, got {reasons!r}")
    else:
        given = list(reasons)
        if len(given) != n:
            raise ValueError(f"reasons must have one entry per score ({n}), got {reasons!r}")
    out: list[str | None] = []
    for reason, (_, item) in zip(given, members, strict=True):
        if reason is None:
            if isinstance(item, BaseException):
                reason = f"error: {type(item).__name__}"
            else:
                reason = getattr(item, "reason", None)
        out.append(None if reason is None else str(reason))
    return out


def _advantages(scores: list[float | None], eps: float) -> list[float | None]:
    if (
        isinstance(eps, bool)
        or not isinstance(eps, (int, float, np.floating))
        or not math.isfinite(eps)
        or eps < 0
    ):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    valid = [s for s in scores if s is not None]
    if not valid:
        return [None] * len(scores)
    origin, mean, std = _centred_stats(valid)
    denom = std + float(eps)
    if denom == 0.0:  # eps=0 and all valid scores equal: no preference among them
        return [None if s is None else 0.0 for s in scores]
    return [None if s is None else ((s - origin) - mean) / denom for s in scores]


def _centred_stats(values: list[float]) -> tuple[float, float, float]:
    """``(origin, mean, pstdev)`` with ``mean`` relative to ``origin`` (the first value):
    centring first keeps equal scores exact and close large ones accurate."""
    origin = values[0]
    centred = [v - origin for v in values]
    mean = math.fsum(centred) / len(centred)
    return origin, mean, math.sqrt(math.fsum((c - mean) ** 2 for c in centred) / len(centred))

"""`EpisodeTally`: the validity-aware counters shared by the episode-statistics wrappers."""

from __future__ import annotations

import math
from collections import Counter, deque

from ..outcomes import UNKNOWN_REASON, info_score, info_validity, rate

__all__ = ["EpisodeTally", "info_score", "info_validity"]


class EpisodeTally:
    """Counts finished episodes; only valid ones enter returns, lengths and success.

    Attributes:
        return_queue, length_queue, time_queue: the last ``buffer_length`` VALID episodes.
        episode_count: finished episodes, valid or not.
        valid_count, invalid_count: finished episodes by validity.
        success_count: valid episodes that succeeded (score, or else the return,
            ``>= success_threshold``).
        invalid_reasons: how many invalid episodes ended for each reason.
    """

    return_queue: deque[float]
    length_queue: deque[int]
    time_queue: deque[float]
    invalid_reasons: Counter[str]

    def _init_tally(self, buffer_length: int, success_threshold: float) -> None:
        if (
            isinstance(buffer_length, bool)
            or not isinstance(buffer_length, int)
            or (buffer_length < 1)
        ):
            raise ValueError(f"buffer_length must be an int >= 1, got {buffer_length!r}")
        if (
            isinstance(success_threshold, bool)
            or not isinstance(success_threshold, (int, float))
            or not math.isfinite(success_threshold)
        ):
            raise ValueError(
                f"success_threshold must be a finite number, got {success_threshold!r}"
            )
        self.success_threshold = float(success_threshold)
        self.return_queue = deque(maxlen=buffer_length)
        self.length_queue = deque(maxlen=buffer_length)
        self.time_queue = deque(maxlen=buffer_length)
        self.invalid_reasons = Counter()
        self.episode_count = 0
        self.valid_count = 0
        self.success_count = 0

    @property
    def invalid_count(self) -> int:
        """Finished episodes that were invalid."""
        return self.episode_count - self.valid_count

    @property
    def success_rate(self) -> float | None:
        """Successes over valid episodes; None before the first valid episode ends."""
        return rate(self.success_count, self.valid_count)

    @property
    def invalid_rate(self) -> float | None:
        """Invalid over all finished episodes; None before the first episode ends."""
        return rate(self.invalid_count, self.episode_count)

    def _record(
        self,
        *,
        episode_return: float,
        length: int,
        elapsed: float,
        valid: bool,
        reason: str | None,
        score: float | None,
    ) -> bool:
        """Count one finished episode; returns whether it succeeded (False when invalid)."""
        self.episode_count += 1
        if not valid:
            self.invalid_reasons[reason or UNKNOWN_REASON] += 1
            return False
        self.valid_count += 1
        self.return_queue.append(float(episode_return))
        self.length_queue.append(int(length))
        self.time_queue.append(float(elapsed))
        value = episode_return if score is None else score
        success = bool(value >= self.success_threshold)
        self.success_count += success
        return success


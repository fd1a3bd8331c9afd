"""`DrumsEpisodeStatistics`: episode return, length and time, with validity."""

from __future__ import annotations

import time
from typing import Any, SupportsFloat

import gymnasium as gym
from gymnasium.core import ActType, ObsType

from ._tally import EpisodeTally, info_score, info_validity

__all__ = ["DrumsEpisodeStatistics"]


class DrumsEpisodeStatistics(
    gym.Wrapper[ObsType, ActType, ObsType, ActType],
    gym.utils.RecordConstructorArgs,
    EpisodeTally,
):
    """Like Gymnasium's ``RecordEpisodeStatistics``, but invalid episodes are left out.

    When an episode ends, ``info[stats_key]`` holds ``{"r": return, "l": length, "t":
    seconds, "valid": bool, "invalid_reason": str | None}``. Only VALID episodes enter
    ``return_queue``, ``length_queue``, ``time_queue`` and :attr:`success_rate`; invalid ones
    are counted in :attr:`invalid_rate` and ``invalid_reasons``. An episode is valid when no
    step (nor the reset) reported ``info["valid"] == False``.

    Args:
        env: the environment to wrap.
        buffer_length: how many recent valid episodes the queues keep.
        stats_key: the info key for the episode statistics.
        success_threshold: a valid episode succeeded when its ``info["score"]`` (or, without
            one, its return) is at least this.

    Example:
        >>> import gymnasium as gym
        >>> env = DrumsEpisodeStatistics(gym.make("Drums/e0df059f"))  # doctest: +SKIP
        >>> _ = env.reset(seed=0)                                     # doctest: +SKIP
        >>> *_, info = env.step("DONE")                               # doctest: +SKIP
        >>> info["episode"]["valid"], env.success_rate, env.invalid_rate  # doctest: +SKIP
        (True, 0.0, 0.0)
        >>> env.close()                                               # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env[ObsType, ActType],
        buffer_length: int = 100,
        stats_key: str = "episode",
        success_threshold: float = 1.0,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, buffer_length=buffer_length, stats_key=stats_key,
            success_threshold=success_threshold,
        )
        gym.Wrapper.__init__(self, env)
        self._init_tally(buffer_length, success_threshold)
        self._stats_key = stats_key
        self._start = time.perf_counter()
        self._return = 0.0
        self._length = 0
        self._valid = True
        self._reason: str | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env and start counting a new episode."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._start = time.perf_counter()
        self._return = 0.0
        self._length = 0
        self._valid, self._reason = info_validity(info)
        return obs, info

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; at the episode's end, add its statistics to ``info``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self._length += 1
        valid, reason = info_validity(info)
        if not valid:
            self._valid, self._reason = False, self._reason or reason
        if terminated or truncated:
            if self._stats_key in info:
                raise ValueError(
                    f"info already has the stats key {self._stats_key!r} (another statistics "
                    f"wrapper below this one?): pass another stats_key; info keys: {sorted(info)}"
                )
            elapsed = round(time.perf_counter() - self._start, 6)
            success = self._record(
                episode_return=self._return,
                length=self._length,
                elapsed=elapsed,
                valid=self._valid,
                reason=self._reason,
                score=info_score(info),
            )
            info[self._stats_key] = {
                "r": self._return,
                "l": self._length,
                "t": elapsed,
                "valid": self._valid,
                "invalid_reason": None if self._valid else self._reason,
                "success": success,
            }
        return obs, reward, terminated, truncated, info

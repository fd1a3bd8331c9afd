"""`DrumsMonitor`: SB3's ``Monitor`` that keeps invalid episodes out of its statistics."""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any, SupportsFloat

import gymnasium as gym
from stable_baselines3.common.monitor import Monitor

from .._validity import validity

__all__ = ["INVALID_KEY", "DrumsMonitor"]

log = logging.getLogger("drums_gym.integrations.sb3")

#: the info key an invalid episode's end carries instead of ``"episode"``
INVALID_KEY = "drums_invalid"


class DrumsMonitor(Monitor):
    """SB3's :class:`~stable_baselines3.common.monitor.Monitor`, validity-aware.

    A valid episode ends as under ``Monitor``: ``info["episode"] = {"r", "l", "t"}``, a row
    in the monitor file, an entry in :meth:`get_episode_rewards`. An INVALID episode (the
    host flagged it: gate failure, app crash, OOM kill, ...; ``info["valid"] is False``)
    gets no ``info["episode"]``, so it never enters an algorithm's ``ep_info_buffer``
    (``rollout/ep_rew_mean``) nor SB3's ``evaluate_policy``; its end carries
    ``info["drums_invalid"] = {"reason", "l", "t"}`` instead, it is counted in
    :attr:`invalid_reasons` and logged (``drums_gym.integrations.sb3``, INFO).

    SB3's ``Monitor`` writes ``info["episode"]`` for every ending, so an invalid episode's
    placeholder reward of 0 lowers the mean. Invalid episodes end ``truncated=True``, which
    SB3's rollout collection treats like a time limit: it bootstraps from the value of
    the last observation instead of learning the placeholder.

    Args:
        env: a Drums env (or a wrapper over one: ``DiscreteClicks``, ``ResizeScreenshot``).
        filename, allow_early_resets, reset_keywords, info_keywords, override_existing:
            as for SB3's ``Monitor``; the file gets valid episodes only.

    Example:
        >>> from drums_gym import DrumsDesktopEnv
        >>> env = DrumsMonitor(DrumsDesktopEnv("e0df059f"))     # doctest: +SKIP
        >>> _ = env.reset()                                     # doctest: +SKIP
        >>> *_, info = env.step("DONE")                         # doctest: +SKIP
        >>> info["episode"]["r"], env.invalid_count             # doctest: +SKIP
        (0.0, 0)
    """

    needs_reset: bool  # Monitor's (set in its __init__); SB3 is untyped here

    def __init__(
        self,
        env: gym.Env,
        filename: str | None = None,
        allow_early_resets: bool = True,
        reset_keywords: tuple[str, ...] = (),
        info_keywords: tuple[str, ...] = (),
        override_existing: bool = True,
    ) -> None:
        super().__init__(
            env,
            filename=filename,
            allow_early_resets=allow_early_resets,
            reset_keywords=reset_keywords,
            info_keywords=info_keywords,
            override_existing=override_existing,
        )
        self.invalid_reasons: Counter[str] = Counter()
        self._invalid_reason: str | None = None  # the current episode's, once flagged

    @property
    def invalid_count(self) -> int:
        """Invalid episodes seen so far (they are not in :meth:`get_episode_rewards`)."""
        return sum(self.invalid_reasons.values())

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = super().reset(**kwargs)
        self._invalid_reason = validity(info)[1]
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.needs_reset:
            raise RuntimeError("Tried to step environment that needs reset")
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._invalid_reason is None:
            self._invalid_reason = validity(info)[1]
        reason = self._invalid_reason
        if reason is None or not (terminated or truncated):
            return self._monitor_step(obs, reward, terminated, truncated, info)
        # an invalid episode ends: counted apart, never as info["episode"]
        self.rewards.append(float(reward))
        self.needs_reset = True
        self.total_steps += 1
        self.invalid_reasons[reason] += 1
        info[INVALID_KEY] = {
            "reason": reason,
            "l": len(self.rewards),
            "t": round(time.time() - self.t_start, 6),
        }
        log.info("invalid episode left out of the statistics: %s", reason)
        return obs, reward, terminated, truncated, info

    # -- helpers -----------------------------------------------------------------------
    def _monitor_step(
        self, obs: Any, reward: SupportsFloat, terminated: bool, truncated: bool, info: dict
    ) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Monitor's own bookkeeping for a step of a valid episode (as ``Monitor.step``)."""
        self.rewards.append(float(reward))
        if terminated or truncated:
            self.needs_reset = True
            ep_rew = sum(self.rewards)
            ep_len = len(self.rewards)
            ep_info: dict[str, Any] = {
                "r": round(ep_rew, 6),
                "l": ep_len,
                "t": round(time.time() - self.t_start, 6),
            }
            for key in self.info_keywords:
                ep_info[key] = info[key]
            self.episode_returns.append(ep_rew)
            self.episode_lengths.append(ep_len)
            self.episode_times.append(time.time() - self.t_start)
            ep_info.update(self.current_reset_info)
            if self.results_writer:
                self.results_writer.write_row(ep_info)
            info["episode"] = ep_info
        self.total_steps += 1
        return obs, reward, terminated, truncated, info

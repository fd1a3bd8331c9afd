"""`InvalidEpisodeLogger`: invalid episodes in SB3's own logger, apart and by reason."""

from __future__ import annotations

from collections import Counter

from stable_baselines3.common.callbacks import BaseCallback

from .monitor import INVALID_KEY

__all__ = ["InvalidEpisodeLogger"]


class InvalidEpisodeLogger(BaseCallback):
    """Records ``rollout/invalid_episodes`` and ``rollout/invalid/<reason>`` (counts since
    training began) in the algorithm's logger at the end of each rollout, beside SB3's
    ``rollout/ep_rew_mean`` (which :class:`DrumsMonitor` keeps to valid episodes).

    Example:
        >>> model.learn(10_000, callback=InvalidEpisodeLogger())        # doctest: +SKIP
    """

    def __init__(self, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.invalid_reasons: Counter[str] = Counter()

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            mark = info.get(INVALID_KEY)
            if mark is not None:
                self.invalid_reasons[str(mark.get("reason"))] += 1
        return True

    def _on_rollout_end(self) -> None:
        self.logger.record("rollout/invalid_episodes", sum(self.invalid_reasons.values()))
        for reason, count in sorted(self.invalid_reasons.items()):
            self.logger.record(f"rollout/invalid/{reason}", count)

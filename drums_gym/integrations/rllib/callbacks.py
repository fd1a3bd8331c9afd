"""`DrumsCallbacks`: invalid episodes out of RLlib's episode metrics, counted apart."""

from __future__ import annotations

import logging
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from .._validity import validity

__all__ = ["INVALID_METRIC", "DrumsCallbacks"]

log = logging.getLogger("drums_gym.integrations.rllib")

#: the metric (under ``env_runners``) counting invalid episodes; ``.../<reason>`` by reason
INVALID_METRIC = "drums/invalid_episodes"


def episode_validity(episode: Any) -> tuple[bool, str | None]:
    """``(valid, reason)`` of a finished RLlib episode, from its last step's info."""
    infos = episode.get_infos()
    return validity(infos[-1]) if len(infos) else (True, None)


class DrumsCallbacks(RLlibCallback):
    """Keeps invalid episodes (the host flagged them) out of RLlib's episode metrics.

    RLlib's env runner computes ``episode_return_mean``, ``episode_len_mean`` and their
    min/max from the episodes a ``sample()`` finished, when the algorithm gathers metrics;
    an invalid episode's placeholder reward of 0 would enter them as a score. At the end
    of each ``sample()`` this drops the invalid ones from that list (the training batch
    keeps them: they end ``truncated``, so PPO bootstraps from the value of the last
    observation instead of learning the placeholder) and logs ``drums/invalid_episodes``
    and ``drums/invalid_episodes/<reason>`` (sums) instead.

    Example:
        >>> PPOConfig().environment(DrumsRLlibEnv).callbacks(DrumsCallbacks)  # doctest: +SKIP
    """

    def on_sample_end(self, *, env_runner: Any = None, metrics_logger: Any = None,
                      samples: Any = None, **kwargs: Any) -> None:
        done = getattr(env_runner, "_done_episodes_for_metrics", None)
        if done is None:  # not a single-agent env runner: nothing to filter
            return
        kept = []
        for episode in done:
            valid, reason = episode_validity(episode)
            if valid:
                kept.append(episode)
                continue
            # the earlier chunks of the episode go with it
            env_runner._ongoing_episodes_for_metrics.pop(episode.id_, None)
            if metrics_logger is not None:
                metrics_logger.log_value(INVALID_METRIC, 1, reduce="sum")
                metrics_logger.log_value(f"{INVALID_METRIC}/{reason}", 1, reduce="sum")
            log.info("invalid episode left out of RLlib's episode metrics: %s", reason)
        done[:] = kept

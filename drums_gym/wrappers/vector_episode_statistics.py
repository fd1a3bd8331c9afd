"""`DrumsVectorEpisodeStatistics`: per sub-env episode statistics, with validity."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from ._tally import EpisodeTally
from ._vector_info import validity

__all__ = ["DrumsVectorEpisodeStatistics"]


class DrumsVectorEpisodeStatistics(VectorWrapper, EpisodeTally):
    """Vector version of :class:`DrumsEpisodeStatistics`: invalid episodes are left out.

    At a step where sub-envs end an episode, ``infos[stats_key]`` holds arrays ``"r"``,
    ``"l"``, ``"t"``, ``"valid"``, ``"success"`` and ``"invalid_reason"`` (objects), with
    the mask ``infos["_" + stats_key]`` marking the sub-envs that ended (Gymnasium's
    convention). Only valid episodes enter ``return_queue``, ``length_queue``,
    ``time_queue`` and :attr:`success_rate`. Honours ``metadata["autoreset_mode"]``
    (``NEXT_STEP``, the default, ``SAME_STEP`` reading ``infos["final_info"]``, and
    ``DISABLED``).

    Args:
        env: the vector env to wrap.
        buffer_length: how many recent valid episodes the queues keep.
        stats_key: the info key for the episode statistics.
        success_threshold: a valid episode succeeded when its score (or, without one, its
            return) is at least this.

    Example:
        >>> import gymnasium as gym
        >>> envs = gym.make_vec("Drums/e0df059f", num_envs=2)        # doctest: +SKIP
        >>> envs = DrumsVectorEpisodeStatistics(envs)                 # doctest: +SKIP
        >>> _ = envs.reset(seed=0)                                    # doctest: +SKIP
        >>> *_, infos = envs.step(("DONE", "DONE"))                   # doctest: +SKIP
        >>> infos["episode"]["valid"], envs.invalid_rate              # doctest: +SKIP
        (array([ True,  True]), 0.0)
        >>> envs.close()                                              # doctest: +SKIP
    """

    def __init__(
        self,
        env: VectorEnv,
        buffer_length: int = 100,
        stats_key: str = "episode",
        success_threshold: float = 1.0,
    ) -> None:
        VectorWrapper.__init__(self, env)
        self._init_tally(buffer_length, success_threshold)
        self._stats_key = stats_key
        mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        try:
            self._mode = AutoresetMode(mode)
        except ValueError:
            raise ValueError(
                f"env.metadata['autoreset_mode'] must be an AutoresetMode, got {mode!r}"
            ) from None
        n = self.num_envs
        self._starts = np.full(n, time.perf_counter())
        self._returns = np.zeros(n)
        self._lengths = np.zeros(n, dtype=np.int64)
        self._valid = np.ones(n, dtype=bool)
        self._reasons: list[str | None] = [None] * n
        self._prev_dones = np.zeros(n, dtype=bool)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs (all, or ``options["reset_mask"]``) and their counters."""
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:  # read first: envs pop it
            mask = np.asarray(options["reset_mask"], dtype=bool)
        # VectorEnv.reset is annotated seed: int | None; its implementations take a list too
        obs, infos = self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]
        self._restart(np.flatnonzero(mask), infos)
        return obs, infos

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs; add the statistics of the episodes that ended to ``infos``."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        rewards_f = np.asarray(rewards, dtype=np.float64)
        dones = np.logical_or(terminations, truncations)
        counted = np.ones(self.num_envs, dtype=bool)
        if self._mode is not AutoresetMode.SAME_STEP:
            # NEXT_STEP: a sub-env that ended last step was reset by this one (its info is
            # the reset's); it does not count toward the new episode.
            counted = ~self._prev_dones
            self._restart(np.flatnonzero(self._prev_dones), infos)
        self._returns[counted] += rewards_f[counted]
        self._lengths[counted] += 1
        ends = validity(infos, self.num_envs)
        if self._mode is AutoresetMode.SAME_STEP and dones.any():
            finals = validity(infos.get("final_info", {}), self.num_envs)
            ends = [finals[i] if dones[i] else ends[i] for i in range(self.num_envs)]
        for i in np.flatnonzero(counted):
            valid, reason, _ = ends[i]
            if not valid:
                self._valid[i] = False
                self._reasons[i] = self._reasons[i] or reason
        if dones.any():
            self._add_stats(infos, dones, [score for _, _, score in ends])
            if self._mode is AutoresetMode.SAME_STEP:
                self._restart(np.flatnonzero(dones), infos)
        self._prev_dones = dones
        return obs, rewards, terminations, truncations, infos

    def _restart(self, indices: np.ndarray, infos: dict[str, Any]) -> None:
        """Start counting new episodes in sub-envs ``indices``; ``infos`` are their resets'."""
        if not len(indices):
            return
        starts = validity(infos, self.num_envs)
        now = time.perf_counter()
        for i in indices:
            self._starts[i] = now
            self._returns[i] = 0.0
            self._lengths[i] = 0
            self._valid[i], self._reasons[i], _ = starts[i]
            self._prev_dones[i] = False

    def _add_stats(
        self, infos: dict[str, Any], dones: np.ndarray, scores: list[float | None]
    ) -> None:
        key = self._stats_key
        if key in infos or f"_{key}" in infos:
            raise ValueError(
                f"infos already have the stats key {key!r} (another statistics wrapper below "
                f"this one?): pass another stats_key; info keys: {sorted(infos)}"
            )
        elapsed = np.round(time.perf_counter() - self._starts, 6)
        success = np.zeros(self.num_envs, dtype=bool)
        reasons = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(dones):
            success[i] = self._record(
                episode_return=float(self._returns[i]),
                length=int(self._lengths[i]),
                elapsed=float(elapsed[i]),
                valid=bool(self._valid[i]),
                reason=self._reasons[i],
                score=scores[i],
            )
            reasons[i] = None if self._valid[i] else self._reasons[i]
        infos[key] = {
            "r": np.where(dones, self._returns, 0.0),
            "l": np.where(dones, self._lengths, 0),
            "t": np.where(dones, elapsed, 0.0),
            "valid": np.logical_and(dones, self._valid),
            "invalid_reason": reasons,
            "success": success,
        }
        infos[f"_{key}"] = dones

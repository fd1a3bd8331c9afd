"""`DrumsVecEnv`: an SB3 ``VecEnv`` over a Gymnasium vector env (``fork_vector``)."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv

from .._validity import validity
from .monitor import INVALID_KEY, DrumsMonitor

__all__ = ["DrumsVecEnv", "split_infos"]

log = logging.getLogger("drums_gym.integrations.sb3")


def split_infos(infos: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Gymnasium's vector infos (``key`` plus ``_key`` masks) as SB3's list of n dicts.

    >>> split_infos({"valid": np.array([True, False]), "_valid": np.array([True, True]),
    ...              "score": np.array([1.0, 0.0]), "_score": np.array([True, False])}, 2)
    [{'valid': True, 'score': 1.0}, {'valid': False}]
    """
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, values in infos.items():
        if key.startswith("_"):
            continue
        mask = infos.get(f"_{key}")
        for i in range(n):
            if mask is not None and not mask[i]:
                continue
            if isinstance(values, dict):
                out[i][key] = split_infos(values, n)[i]
            else:
                value = values[i]
                out[i][key] = value.item() if isinstance(value, np.generic) else value
    return out


class DrumsVecEnv(VecEnv):
    """SB3's ``VecEnv`` over a Gymnasium ``VectorEnv`` of Drums desktops, with the monitor.

    Made for ``env.fork_vector(n, autoreset_mode="DISABLED")`` (and the vector wrappers
    over it: ``VectorDiscreteClicks``, ``VectorResizeScreenshot``): SB3 expects a member
    whose episode ended to be reset in the same step, with its last observation in
    ``info["terminal_observation"]``; this env does that through ``reset_mask``.

    It also plays :class:`DrumsMonitor`'s role for its members: a valid episode's end
    carries ``info["episode"] = {"r", "l", "t"}``; an invalid one's carries
    ``info["drums_invalid"]`` instead and is counted in :attr:`invalid_reasons`, so it
    stays out of ``ep_info_buffer`` and :func:`evaluate_policy`'s mean.

    Args:
        venv: a Gymnasium vector env whose ``metadata["autoreset_mode"]`` is DISABLED.
        close_venv: close ``venv`` when this env closes (default True).

    Example:
        >>> from drums_gym import DrumsDesktopEnv
        >>> parent = DrumsDesktopEnv("e0df059f")                          # doctest: +SKIP
        >>> _ = parent.reset()                                            # doctest: +SKIP
        >>> venv = DrumsVecEnv(parent.fork_vector(4, autoreset_mode="DISABLED",
        ...                                       close_parent=True))     # doctest: +SKIP
        >>> obs = venv.reset()                                            # doctest: +SKIP
    """

    def __init__(self, venv: VectorEnv, *, close_venv: bool = True) -> None:
        if not isinstance(venv, VectorEnv):
            raise TypeError(f"venv must be a gymnasium VectorEnv, got {type(venv).__name__}")
        mode = venv.metadata.get("autoreset_mode")
        if mode not in (AutoresetMode.DISABLED, "DISABLED", "Disabled"):
            raise ValueError(
                "venv must not autoreset (SB3 resets a finished member itself): make it with "
                f"fork_vector(n, autoreset_mode='DISABLED'), got autoreset_mode {mode!r}"
            )
        self.venv = venv
        self.close_venv = bool(close_venv)
        self.render_mode = venv.render_mode
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        n = venv.num_envs
        self.invalid_reasons: Counter[str] = Counter()
        self.episode_returns: list[float] = []
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(n)
        self._lengths = np.zeros(n, dtype=int)
        self._reasons: list[str | None] = [None] * n
        self._t_start = time.time()
        self._closed = False

    @property
    def invalid_count(self) -> int:
        """Invalid episodes seen so far (never in ``info["episode"]``)."""
        return sum(self.invalid_reasons.values())

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else None
        obs, infos = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = split_infos(infos, self.num_envs)
        for i, info in enumerate(self.reset_infos):
            self._start_episode(i, info)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("call step_async() before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        obs = np.array(obs, copy=True)
        rewards = np.asarray(rewards, dtype=np.float32)
        dones = np.logical_or(terminated, truncated)
        out = split_infos(infos, self.num_envs)
        for i, info in enumerate(out):
            self._returns[i] += float(rewards[i])
            self._lengths[i] += 1
            if self._reasons[i] is None:
                self._reasons[i] = validity(info)[1]
            if dones[i]:
                info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                info["terminal_observation"] = obs[i].copy()
                self._end_episode(i, info)
        if dones.any():
            new_obs, new_infos = self.venv.reset(options={"reset_mask": dones})
            fresh = split_infos(new_infos, self.num_envs)
            for i in map(int, np.flatnonzero(dones)):
                obs[i] = new_obs[i]
                self.reset_infos[i] = fresh[i]
                self._start_episode(i, fresh[i])
        return obs, rewards, dones, out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.close_venv:
            self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: Any = None
    ) -> list[bool]:
        """True for SB3's ``Monitor`` (and :class:`DrumsMonitor`): this env plays the
        monitor's role for every member, so SB3's ``evaluate_policy`` and ``EvalCallback``
        read ``info["episode"]`` (valid episodes only) instead of summing raw rewards, in
        which an invalid episode's placeholder would count as a score."""
        monitored = isinstance(wrapper_class, type) and issubclass(wrapper_class, Monitor) and (
            issubclass(DrumsMonitor, wrapper_class)
        )
        return [monitored for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        frames = self.venv.render()
        if frames is None:
            return [None] * self.num_envs
        return [frame if isinstance(frame, np.ndarray) else None for frame in frames]

    # ------------------------------------------------------------------ the monitor
    def _start_episode(self, i: int, info: dict[str, Any]) -> None:
        self._returns[i] = 0.0
        self._lengths[i] = 0
        self._reasons[i] = validity(info)[1]

    def _end_episode(self, i: int, info: dict[str, Any]) -> None:
        elapsed = round(time.time() - self._t_start, 6)
        reason = self._reasons[i]
        if reason is None:
            info["episode"] = {
                "r": round(float(self._returns[i]), 6),
                "l": int(self._lengths[i]),
                "t": elapsed,
            }
            self.episode_returns.append(float(self._returns[i]))
        else:
            info[INVALID_KEY] = {"reason": reason, "l": int(self._lengths[i]), "t": elapsed}
            self.invalid_reasons[reason] += 1
            log.info("invalid episode left out of the statistics: %s", reason)

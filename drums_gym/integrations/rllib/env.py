"""`DrumsRLlibEnv`: a Drums task with the spaces RLlib takes (no ``Text``, float frames)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from ...envs import DrumsDesktopEnv
from ...wrappers import DEFAULT_KEYS, DiscreteClicks, ResizeScreenshot
from .._frames import FloatFrames

__all__ = ["DrumsRLlibEnv"]

#: the ``env_config`` keys this env reads; the rest go to :class:`DrumsDesktopEnv`
OWN_KEYS = ("task", "grid", "size", "keys", "words")


class DrumsRLlibEnv(gym.Wrapper):
    """``FloatFrames(ResizeScreenshot(DiscreteClicks(DrumsDesktopEnv(task))))`` from RLlib's
    ``env_config`` (RLlib makes the env on each env runner from that dict).

    RLlib's encoders take neither a ``Text`` action space nor, on every path, ``uint8``
    frames: the actions are ``Discrete`` (a click per grid cell, ``keys``, ``words``) and
    the observations ``float32 (H, W, 3)`` in ``[0, 1]``.

    ``env_config`` keys: ``task`` (``"e0df059f"``), ``grid`` (``(cols, rows)``, ``(8, 6)``),
    ``size`` (``(height, width)``, ``(42, 42)``: an RLlib default CNN size),
    ``keys``, ``words`` (``("DONE", "FAIL")``: the infeasible tasks are solvable); any
    other key goes to :class:`DrumsDesktopEnv` (``url``, ``max_steps``, ``screen``, ...;
    without ``url`` each env runner connects to ``DRUMS_URL`` or its embedded host).
    """

    def __init__(self, env_config: Mapping[str, Any] | None = None) -> None:
        config = dict(env_config or {})
        # RLlib's EnvContext carries worker_index/num_workers/...; only the dict counts
        kwargs = {k: v for k, v in config.items() if k not in OWN_KEYS}
        env = DrumsDesktopEnv(str(config.get("task", "e0df059f")), **kwargs)
        try:
            clicks = DiscreteClicks(
                env,
                tuple(config.get("grid", (8, 6))),
                keys=tuple(config.get("keys", DEFAULT_KEYS)),
                words=tuple(config.get("words", ("DONE", "FAIL"))),
            )
            wrapped = FloatFrames(ResizeScreenshot(clicks, tuple(config.get("size", (42, 42)))))
        except BaseException:
            env.close()
            raise
        super().__init__(wrapped)

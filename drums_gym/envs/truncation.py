"""`VerifyOnTruncation`: score an episode that a wrapper cut short.

A Drums episode is scored when it ends, whoever ends it. The env ends its own episodes
(``DONE``/``FAIL``, its own ``max_steps``) and verifies them then; a wrapper that truncates
from outside (Gymnasium's ``TimeLimit``, your own) ends it where the env cannot see, and
the env's last step carries no score. This wrapper, outside every such wrapper, verifies
the episode then (`DrumsDesktopEnv.verify`, idempotent) and puts the checker's score in
the step's reward and ``info``. Put it outermost, around any stack that truncates:
``gym.make("Drums/<id>", max_episode_steps=N)`` (a ``TimeLimit``), a ``TimeLimit`` by
hand, an action-repeat wrapper under one, a proxy env. (The ``Drums/*`` ids cannot
register it: Gymnasium refuses a spec's ``additional_wrappers`` with a vector entry point,
so their limit is the env's own ``max_steps``, which needs no wrapper.)

>>> from gymnasium.wrappers import TimeLimit
>>> from drums_gym.envs import DrumsDesktopEnv, VerifyOnTruncation
>>> env = VerifyOnTruncation(TimeLimit(DrumsDesktopEnv("e0df059f"), 3))  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium as gym

from ._episode import Verdict

__all__ = ["UnscoredEpisodeWarning", "VerifyOnTruncation", "warn_unscored"]


class UnscoredEpisodeWarning(UserWarning):
    """An episode was left without a verdict: something outside the env truncated it (a
    ``TimeLimit``, such as ``gym.make(id, max_episode_steps=N)``'s) or the caller reset
    mid-episode, and nothing verified it, so no step of it carries a score. The env says
    so at the next ``reset``."""


def warn_unscored(env: object, steps: int) -> None:
    """Warn (`UnscoredEpisodeWarning`) that ``env``'s last episode, ``steps`` steps long,
    was never verified, and say how to have it scored."""
    warnings.warn(
        f"{env!r}: the last episode was left after {steps} steps with no verdict, so it was "
        f"never scored: reset() came before it ended, or a wrapper truncated it where the "
        f"env cannot see (a TimeLimit, as gym.make(id, max_episode_steps=N) adds). For a "
        f"step limit give the env its own, gym.make(id, max_steps=N), or put "
        f"drums_gym.envs.VerifyOnTruncation outermost; to score an episode you stop, call "
        f"env.unwrapped.verify() first (docs/step-limit.md)",
        UnscoredEpisodeWarning,
        stacklevel=3,
    )


def _verifier(env: gym.Env[Any, Any]) -> Callable[[], Verdict]:
    """The ``verify`` of the Drums env inside ``env`` (through wrappers, or a proxy that
    forwards attributes or ``unwrapped``)."""
    try:
        verify = env.get_wrapper_attr("verify")
    except AttributeError:
        verify = getattr(env.unwrapped, "verify", None)
    if not callable(verify):
        raise ValueError(
            f"VerifyOnTruncation wraps an env with a verify() method (a DrumsDesktopEnv, or "
            f"a wrapper or proxy of one), got {env!r}"
        )
    return verify  # type: ignore[no-any-return]


class VerifyOnTruncation(
    gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs
):
    """On a truncated step that carries no verdict, verify the episode: the reward becomes
    the checker's score and ``info`` gets ``valid``, ``score`` (or ``invalid_reason``) as
    on a step where the env ended the episode itself."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self._verify = _verifier(env)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated and not _has_verdict(info):
            verdict = self._verify()
            reward = verdict.reward
            info = {**info, **verdict.info()}
        return obs, reward, terminated, truncated, info


def _has_verdict(info: dict[str, Any]) -> bool:
    """The step already says how the episode ended: scored, or invalid."""
    return "score" in info or info.get("valid") is False

"""Finding the Gymnasium ``TimeLimit`` wrappers around an env, so that there is one step limit.

``gym.make(id, max_episode_steps=N)`` (and ``TimeLimit(env, N)`` by hand) truncates the
episode at step N from *outside* the env: the env's own step N returns an unverified reward
of 0 and the wrapper only flips ``truncated``. A Drums episode is scored when it ends, so the
env must know where the wrapper will cut it and verify at that step. Gymnasium 1.x gives the
env no way to see its wrappers (``env.unwrapped.spec.max_episode_steps`` is None under
``make``), but every wrapper's ``reset`` runs on the call stack of the env's ``reset``; this
module reads the ``TimeLimit`` instances off that stack. It only reads frames' ``self``.
"""

from __future__ import annotations

import sys
from types import FrameType

import gymnasium as gym
from gymnasium.wrappers import TimeLimit

__all__ = ["enclosing_time_limits"]

#: frames looked at above the env's own reset (wrapper chains are a few frames each)
_MAX_FRAMES = 200
#: consecutive frames without a ``self`` tolerated inside a wrapper chain (Gymnasium's
#: passive env checker resets through a plain function)
_MAX_PLAIN_FRAMES = 3


def _frame_self(frame: FrameType) -> object | None:
    code = frame.f_code
    if code.co_argcount < 1 or code.co_varnames[:1] != ("self",):
        return None
    return frame.f_locals.get("self")


def enclosing_time_limits(env: gym.Env, frame: FrameType | None = None) -> list[int]:
    """The ``max_episode_steps`` of each ``TimeLimit`` wrapping ``env`` that is resetting it.

    Call from ``env.reset``. Walks up the call stack from ``frame`` (default: the caller's)
    over the frames of ``env`` itself and of wrappers whose ``unwrapped`` is ``env``; stops at
    the first frame of anything else (a vector env, the user's code).
    """
    frame = frame if frame is not None else sys._getframe(1)
    limits: dict[int, int] = {}  # id(wrapper) -> its limit (a wrapper has several frames)
    plain = 0
    for _ in range(_MAX_FRAMES):
        if frame is None:
            break
        owner = _frame_self(frame)
        if owner is None:
            plain += 1  # a function without self (a checker, a decorator)
            if plain > _MAX_PLAIN_FRAMES:
                break
        elif owner is env:
            plain = 0
        elif isinstance(owner, gym.Wrapper) and owner.unwrapped is env:
            plain = 0
            if isinstance(owner, TimeLimit):
                limit = getattr(owner, "_max_episode_steps", None)
                if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
                    limits[id(owner)] = limit
        else:
            break
        frame = frame.f_back
    return list(limits.values())

"""`make_torchrl_env`: forks of a Drums desktop as a batched TorchRL env, validity included."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from tensordict import TensorDictBase
from torchrl.data import Categorical, Composite, Unbounded
from torchrl.envs import GymWrapper, RewardSum, TransformedEnv
from torchrl.envs.gym_like import BaseInfoDictReader

from ...envs import DrumsDesktopEnv
from ...wrappers import DEFAULT_KEYS, VectorDiscreteClicks, VectorResizeScreenshot

__all__ = ["DrumsInfoReader", "make_torchrl_env", "valid_returns"]


class DrumsInfoReader(BaseInfoDictReader):
    """Reads ``valid`` (bool) and ``score`` (float32, NaN where the step reported none)
    out of a Drums env's info into the tensordict.

    TorchRL's ``default_info_dict_reader`` reads ``value.dtype`` off every info value
    (a single env's ``info["valid"]`` is a Python bool: ``'bool' object has no attribute
    'dtype'``) and stacks object arrays (the vector env's strings); this one turns each
    value into a NumPy array of the env's batch shape, honouring Gymnasium's ``_key``
    masks (a member that did not report ``valid`` this step is valid).

    Args:
        batch_size: the env's batch shape (``(n,)`` for ``n`` forks, ``()`` for one env).
    """

    def __init__(self, batch_size: Sequence[int] = ()) -> None:
        self.batch_size = tuple(batch_size)
        self._info_spec = Composite(
            valid=Categorical(2, shape=self.batch_size, dtype=torch.bool),
            score=Unbounded(shape=self.batch_size, dtype=torch.float32),
            shape=self.batch_size,
        )

    @property
    def info_spec(self) -> Composite:
        return self._info_spec

    def __call__(self, info_dict: Mapping[str, Any], tensordict: TensorDictBase) -> TensorDictBase:
        valid = self._read(info_dict, "valid", True, np.bool_)
        score = self._read(info_dict, "score", np.nan, np.float32)
        tensordict.set("valid", torch.as_tensor(valid))
        tensordict.set("score", torch.as_tensor(score))
        return tensordict

    def _read(self, info: Mapping[str, Any], key: str, absent: Any, dtype: Any) -> np.ndarray:
        out = np.full(self.batch_size, absent, dtype=dtype)
        if key not in info:
            return out
        values = np.asarray(info[key], dtype=object)
        mask = np.asarray(info.get(f"_{key}", np.ones(self.batch_size, dtype=bool)), dtype=bool)
        for index in np.ndindex(self.batch_size):
            value = values[index]
            if mask[index] and value is not None:
                out[index] = value
        return out


class _DeclaredAutoreset(VectorWrapper):
    """Gives the wrapped vector env's ``metadata["autoreset_mode"]`` as the attribute
    TorchRL reads (Gymnasium's vector wrappers do not pass attributes through)."""

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return AutoresetMode(self.env.metadata["autoreset_mode"])


def make_torchrl_env(
    task: str = "e0df059f",
    n: int = 4,
    *,
    grid: tuple[int, int] = (8, 6),
    size: tuple[int, int] = (64, 64),
    keys: Sequence[str] = DEFAULT_KEYS,
    words: Sequence[str] = ("DONE", "FAIL"),
    **env_kwargs: Any,
) -> TransformedEnv:
    """``n`` forks of one desktop as a TorchRL env of batch size ``(n,)``.

    ``GymWrapper`` over ``fork_vector(n, autoreset_mode="DISABLED")`` with the
    discrete-click and resize vector wrappers (``uint8 (H, W, 3)`` frames at ``size``),
    :class:`DrumsInfoReader` for ``valid`` and ``score``, and ``RewardSum`` for
    ``episode_reward``. TorchRL resets a finished member itself (``_reset`` becomes the
    fork env's ``reset_mask``: a new fork of the first state). Closing it deletes the
    forks and the parent desktop.

    Args:
        task: the task id.
        n: forks (members of the batch).
        grid, keys, words: the ``Discrete`` actions (``VectorDiscreteClicks``).
        size: ``(height, width)`` of the frames.
        **env_kwargs: for the parent :class:`DrumsDesktopEnv` (``url=``, ``screen=``,
            ``max_steps=``, ``randomize=``, ...).
    """
    parent = DrumsDesktopEnv(task, **env_kwargs)
    try:
        parent.reset()
        forks: VectorEnv = parent.fork_vector(n, autoreset_mode="DISABLED", close_parent=True)
    except BaseException:
        parent.close()
        raise
    try:
        clicks = VectorDiscreteClicks(forks, grid, keys=keys, words=words)
        base = GymWrapper(_DeclaredAutoreset(VectorResizeScreenshot(clicks, size)))
        base.set_info_dict_reader(DrumsInfoReader(base.batch_size))
        return TransformedEnv(base, RewardSum())
    except BaseException:
        forks.close()
        raise


def valid_returns(rollout: TensorDictBase) -> torch.Tensor:
    """The ``episode_reward`` of every episode ``rollout`` finished valid (1-D).

    ``rollout["next", "episode_reward"][rollout["next", "done"]]`` is the usual figure;
    it counts an invalid episode's placeholder as a return of 0. This one keeps the ends
    whose ``("next", "valid")`` is True.
    """
    done = rollout["next", "done"].squeeze(-1)
    valid = rollout["next", "valid"].reshape(done.shape)
    returns = rollout["next", "episode_reward"].squeeze(-1)
    return returns[done & valid]

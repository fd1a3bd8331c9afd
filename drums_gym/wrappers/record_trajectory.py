"""`RecordTrajectory`: each episode's screenshots, steps and an animated GIF, on disk."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from ._trajectory import EpisodeWriter, as_frame

__all__ = ["RecordTrajectory"]


class RecordTrajectory(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Write each episode to ``directory/episode-000001/``, ``episode-000002/``, ...

    Each episode folder holds:

    - ``step-0000.png``, ``step-0001.png``, ...: the screenshot after the reset (step 0)
      and after each step (when ``save_frames``);
    - ``steps.jsonl``: one JSON object per line, written (and flushed) as each step
      happens: ``step``, ``action``, ``reward``, ``terminated``, ``truncated`` and a
      JSON-safe ``info`` (numpy values converted; keys containing ``"token"`` dropped),
      and ``policy``: the policy's record of the action when a loop noted it
      (:meth:`note_policy`: a model's reply, parsed action, tokens, latency).
      Line 0 is the reset (``action`` and ``reward`` null, ``info`` the reset info); a step
      that raised gets a line with ``error`` before the exception goes on;
    - ``episode.gif`` (when ``gif``): the frames at ``fps``, at most 960 pixels wide, each
      labelled with its step number.

    An episode is finished (its GIF written, its files closed) when it ends, when
    ``reset`` starts another, and on ``close()``. The frames are the observations (the
    ``"screenshot"`` of a dict observation); otherwise ``env.render()``. Numbering goes on
    after the episode folders already in ``directory``.

    Args:
        env: the env to record.
        directory: where the episode folders go (created if missing).
        save_frames: write a PNG per step.
        gif: write ``episode.gif`` per episode (its frames are held in memory, downscaled).
        fps: frames per second of the GIF.
        gif_max_width: the GIF's largest width in pixels.

    Example:
        >>> import gymnasium as gym
        >>> env = RecordTrajectory(gym.make("Drums/e0df059f"), "runs/demo")  # doctest: +SKIP
        >>> _ = env.reset(seed=0)                                           # doctest: +SKIP
        >>> _ = env.step("pyautogui.click(960, 540)")                       # doctest: +SKIP
        >>> _ = env.step("DONE")                                            # doctest: +SKIP
        >>> sorted(p.name for p in env.episode_dir.iterdir())               # doctest: +SKIP
        ['episode.gif', 'step-0000.png', 'step-0001.png', 'step-0002.png', 'steps.jsonl']
        >>> env.close()                                                     # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        directory: str | os.PathLike[str],
        *,
        save_frames: bool = True,
        gif: bool = True,
        fps: float = 2,
        gif_max_width: int = 960,
    ) -> None:
        writer = EpisodeWriter(
            directory, save_frames=save_frames, gif=gif, fps=fps, gif_max_width=gif_max_width
        )
        gym.utils.RecordConstructorArgs.__init__(
            self, directory=str(directory), save_frames=save_frames, gif=gif, fps=fps,
            gif_max_width=gif_max_width,
        )
        gym.Wrapper.__init__(self, env)
        self.writer = writer

    @property
    def directory(self) -> Path:
        """Where the episode folders go."""
        return self.writer.directory

    @property
    def save_frames(self) -> bool:
        """Whether a PNG is written per step."""
        return self.writer.save_frames

    @property
    def gif(self) -> bool:
        """Whether ``episode.gif`` is written per episode."""
        return self.writer.gif

    @property
    def fps(self) -> float:
        """Frames per second of the GIF."""
        return self.writer.fps

    @property
    def gif_max_width(self) -> int:
        """The GIF's largest width in pixels."""
        return self.writer.gif_max_width

    @property
    def episode_index(self) -> int:
        """The number of the last episode started (0 before the first)."""
        return self.writer.episode_index

    @property
    def episode_dir(self) -> Path | None:
        """The folder of the episode being (or last) recorded."""
        return self.writer.episode_dir

    def note_policy(self, record: Any) -> None:
        """What the policy said about its next action: ``policy`` in the next step line."""
        self.writer.note_policy(record)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Finish the current episode (if any), reset, and start recording a new one."""
        self.writer.finish()
        obs, info = self.env.reset(seed=seed, options=options)
        self.writer.start()
        self.writer.record(self._frame(obs), None, None, False, False, info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the step; at the episode's end, finish its files."""
        if not self.writer.recording:  # not recording: an ended episode, or no reset yet
            return self.env.step(action)
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except BaseException as exc:  # recorded, then re-raised
            self.writer.record_error(action, exc)
            raise
        self.writer.record(self._frame(obs), action, reward, terminated, truncated, info)
        if terminated or truncated:
            self.writer.finish()
            self.writer.worker.flush()  # an episode's files are complete when it ends
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        """Finish the current episode's files (waiting for its images), then close the env."""
        try:
            self.writer.close()
        finally:
            super().close()

    def _frame(self, obs: Any) -> np.ndarray | None:
        frame = as_frame(obs)
        return frame if frame is not None else as_frame(self.env.render())

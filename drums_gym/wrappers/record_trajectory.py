"""`RecordTrajectory`: each episode's screenshots, steps and an animated GIF, on disk."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, SupportsFloat

import gymnasium as gym
import numpy as np
from PIL import Image, ImageDraw

from ._image import fit_width
from ._jsonsafe import json_safe

__all__ = ["RecordTrajectory"]

_EPISODE_DIR = re.compile(r"episode-(\d{6,})")


class RecordTrajectory(gym.Wrapper[Any, Any, Any, Any]):
    """Write each episode to ``directory/episode-000001/``, ``episode-000002/``, ...

    Each episode folder holds:

    - ``step-0000.png``, ``step-0001.png``, ...: the screenshot after the reset (step 0)
      and after each step (when ``save_frames``);
    - ``steps.jsonl``: one JSON object per line, written (and flushed) as each step
      happens: ``step``, ``action``, ``reward``, ``terminated``, ``truncated`` and a
      JSON-safe ``info`` (numpy values converted; keys containing ``"token"`` dropped).
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
        if (
            isinstance(fps, bool)
            or not isinstance(fps, (int, float))
            or not (math.isfinite(fps) and fps > 0)
        ):
            raise ValueError(f"fps must be a positive number, got {fps!r}")
        if (
            isinstance(gif_max_width, bool)
            or not isinstance(gif_max_width, int)
            or (gif_max_width < 1)
        ):
            raise ValueError(f"gif_max_width must be a positive int, got {gif_max_width!r}")
        gym.Wrapper.__init__(self, env)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.save_frames = bool(save_frames)
        self.gif = bool(gif)
        self.fps = float(fps)
        self.gif_max_width = gif_max_width
        #: the number of the last episode started (0 before the first)
        self.episode_index = max(
            (
                int(m.group(1))
                for p in self.directory.iterdir()
                if (m := _EPISODE_DIR.fullmatch(p.name))
            ),
            default=0,
        )
        #: the folder of the episode being (or last) recorded
        self.episode_dir: Path | None = None
        self._lines: IO[str] | None = None
        self._frames: list[Image.Image] = []
        self._step = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Finish the current episode (if any), reset, and start recording a new one."""
        self._finish()
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode_index += 1
        self.episode_dir = self.directory / f"episode-{self.episode_index:06d}"
        self.episode_dir.mkdir(parents=True, exist_ok=False)
        self._lines = (self.episode_dir / "steps.jsonl").open("w", encoding="utf-8")
        self._step = 0
        self._record(obs, None, None, False, False, info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the step; at the episode's end, finish its files."""
        if self._lines is None:  # not recording: an ended episode, or no reset yet
            return self.env.step(action)
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except BaseException as exc:  # recorded, then re-raised
            self._write({"step": self._step + 1, "action": action, "error": f"{exc!r}"})
            raise
        self._step += 1
        self._record(obs, action, reward, terminated, truncated, info)
        if terminated or truncated:
            self._finish()
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        """Finish the current episode's files, then close the env."""
        self._finish()
        super().close()

    # ------------------------------------------------------------------ internals

    def _record(
        self,
        obs: Any,
        action: Any,
        reward: SupportsFloat | None,
        terminated: bool,
        truncated: bool,
        info: Mapping[str, Any],
    ) -> None:
        self._write(
            {
                "step": self._step,
                "action": action,
                "reward": None if reward is None else float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "info": info,
            }
        )
        frame = self._frame(obs)
        if frame is None:
            return
        image = Image.fromarray(frame)
        if self.save_frames and self.episode_dir is not None:
            image.save(self.episode_dir / f"step-{self._step:04d}.png", compress_level=1)
        if self.gif:
            self._frames.append(_label(fit_width(image, self.gif_max_width), self._step))

    def _write(self, record: dict[str, Any]) -> None:
        if self._lines is not None:
            line = json.dumps(json_safe(record), ensure_ascii=False, allow_nan=False)
            self._lines.write(line + "\n")
            self._lines.flush()

    def _frame(self, obs: Any) -> np.ndarray | None:
        if isinstance(obs, Mapping):
            obs = obs.get("screenshot")
        if not _is_image(obs):
            obs = self.env.render()
        return np.ascontiguousarray(obs, dtype=np.uint8) if _is_image(obs) else None

    def _finish(self) -> None:
        """Write the GIF and close the step log of the current episode (idempotent)."""
        frames, self._frames = self._frames, []
        lines, self._lines = self._lines, None
        try:
            if frames and self.episode_dir is not None:
                frames[0].save(
                    self.episode_dir / "episode.gif",
                    save_all=True,
                    append_images=frames[1:],
                    duration=round(1000 / self.fps),
                    loop=0,
                )
        finally:
            if lines is not None:
                lines.close()


def _is_image(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[2] == 3


def _label(image: Image.Image, step: int) -> Image.Image:
    """A copy of ``image`` with its step number in the top-left corner."""
    image = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(image)
    text = f"step {step}"
    _, _, right, bottom = draw.textbbox((4, 4), text)
    draw.rectangle((0, 0, right + 4, bottom + 4), fill=(0, 0, 0))
    draw.text((4, 4), text, fill=(255, 255, 255))
    return image

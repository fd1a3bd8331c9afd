"""`EpisodeWriter`: one sequence of episode folders (step PNGs, ``steps.jsonl``, GIF).

Shared by `RecordTrajectory` (one writer) and `VectorRecordTrajectory` (one per sub-env).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, SupportsFloat

import numpy as np
from PIL import Image, ImageDraw

from ._image import fit_width
from ._jsonsafe import json_safe

__all__ = ["EpisodeWriter", "as_frame", "check_recording_args"]

_EPISODE_DIR = re.compile(r"episode-(\d{6,})")


def check_recording_args(fps: Any, gif_max_width: Any) -> None:
    """ValueError naming ``fps`` or ``gif_max_width`` when it is not positive."""
    if (
        isinstance(fps, bool)
        or not isinstance(fps, (int, float))
        or not (math.isfinite(fps) and fps > 0)
    ):
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    if isinstance(gif_max_width, bool) or not isinstance(gif_max_width, int) or gif_max_width < 1:
        raise ValueError(f"gif_max_width must be a positive int, got {gif_max_width!r}")


def as_frame(value: Any) -> np.ndarray | None:
    """``value`` (or a dict observation's ``"screenshot"``) as a ``(H, W, 3)`` uint8 frame,
    or None when it is not one."""
    if isinstance(value, Mapping):
        value = value.get("screenshot")
    if isinstance(value, np.ndarray) and value.ndim == 3 and value.shape[2] == 3:
        return np.ascontiguousarray(value, dtype=np.uint8)
    return None


class EpisodeWriter:
    """Writes episodes to ``directory/episode-000001/``, ``episode-000002/``, ...

    Numbering goes on after the episode folders already in ``directory``. Between
    :meth:`start` and :meth:`finish` an episode is being recorded (:attr:`recording`).

    >>> import tempfile
    >>> writer = EpisodeWriter(tempfile.mkdtemp(), gif=False)
    >>> folder = writer.start()
    >>> writer.record(np.zeros((4, 4, 3), np.uint8), None, None, False, False, {"a": 1})
    >>> writer.finish()
    >>> sorted(p.name for p in folder.iterdir())
    ['step-0000.png', 'steps.jsonl']
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        save_frames: bool = True,
        gif: bool = True,
        fps: float = 2,
        gif_max_width: int = 960,
    ) -> None:
        check_recording_args(fps, gif_max_width)
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
        #: the number of the last step recorded in the current episode (0: the reset)
        self.step = 0
        self._lines: IO[str] | None = None
        self._frames: list[Image.Image] = []

    @property
    def recording(self) -> bool:
        """Whether an episode is being recorded (started, not finished)."""
        return self._lines is not None

    def start(self) -> Path:
        """Finish the current episode (if any) and open the next episode's folder."""
        self.finish()
        self.episode_index += 1
        self.episode_dir = self.directory / f"episode-{self.episode_index:06d}"
        self.episode_dir.mkdir(parents=True, exist_ok=False)
        self._lines = (self.episode_dir / "steps.jsonl").open("w", encoding="utf-8")
        self.step = -1
        return self.episode_dir

    def record(
        self,
        frame: np.ndarray | None,
        action: Any,
        reward: SupportsFloat | None,
        terminated: bool,
        truncated: bool,
        info: Mapping[str, Any],
    ) -> None:
        """Record the next step (the first after :meth:`start` is step 0, the reset): its
        line in ``steps.jsonl``, and its frame when it has one."""
        if not self.recording:
            return
        self.step += 1
        self.write(
            {
                "step": self.step,
                "action": action,
                "reward": None if reward is None else float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "info": info,
            }
        )
        if frame is None:
            return
        image = Image.fromarray(frame)
        if self.save_frames and self.episode_dir is not None:
            image.save(self.episode_dir / f"step-{self.step:04d}.png", compress_level=1)
        if self.gif:
            self._frames.append(_label(fit_width(image, self.gif_max_width), self.step))

    def record_error(self, action: Any, exc: BaseException) -> None:
        """Log that the next step raised ``exc`` (the episode goes on being recorded)."""
        self.write({"step": self.step + 1, "action": action, "error": f"{exc!r}"})

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` (made JSON-safe) to ``steps.jsonl`` and flush it."""
        if self._lines is not None:
            line = json.dumps(json_safe(record), ensure_ascii=False, allow_nan=False)
            self._lines.write(line + "\n")
            self._lines.flush()

    def finish(self) -> None:
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


def _label(image: Image.Image, step: int) -> Image.Image:
    """A copy of ``image`` with its step number in the top-left corner."""
    image = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(image)
    text = f"step {step}"
    _, _, right, bottom = draw.textbbox((4, 4), text)
    draw.rectangle((0, 0, right + 4, bottom + 4), fill=(0, 0, 0))
    draw.text((4, 4), text, fill=(255, 255, 255))
    return image

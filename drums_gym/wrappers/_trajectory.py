"""`EpisodeWriter`: one sequence of episode folders (step PNGs, ``steps.jsonl``, GIF).

Shared by `RecordTrajectory` (one writer) and `VectorRecordTrajectory` (one per sub-env).
Images are encoded off the step path: a `FrameWorker` thread writes the PNGs and the GIF
from a bounded queue (a step waits only when the queue is full), and is flushed on close.
An episode closed or reset before it ended is marked with ``unfinished.json``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, SupportsFloat

import numpy as np
from PIL import Image, ImageDraw

from ._image import fit_width
from ._jsonsafe import json_safe
from ._png import encode_png

__all__ = ["UNFINISHED", "EpisodeWriter", "FrameWorker", "as_frame", "check_recording_args"]

_EPISODE_DIR = re.compile(r"episode-(\d{6,})")
#: the marker file of an episode folder whose episode did not end (closed or reset first)
UNFINISHED = "unfinished.json"
_log = logging.getLogger("drums_gym.wrappers")


class FrameWorker:
    """One background thread that runs image work (PNG and GIF encoding) in order.

    ``submit`` queues a task (blocking while ``maxsize`` tasks wait: memory stays bounded);
    ``flush`` waits until every queued task ran and raises the first error one raised;
    ``close`` flushes and stops the thread (idempotent). After ``close``, tasks run inline.

    >>> worker = FrameWorker()
    >>> done = []
    >>> worker.submit(done.append, 1); worker.flush(); done
    [1]
    >>> worker.close()
    """

    def __init__(self, maxsize: int = 32) -> None:
        self._queue: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.Queue(maxsize=maxsize)
        )
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._closed = False
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the worker thread, after the tasks queued before it."""
        if self._closed:
            fn(*args)
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="drums-recorder", daemon=True
                )
                self._thread.start()
        self._queue.put((fn, args))

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is None:
                    return
                fn, args = task
                try:
                    fn(*args)
                except (OSError, ValueError) as exc:  # a full disk, a bad frame
                    _log.warning("recording: %s failed: %s", getattr(fn, "__name__", fn), exc)
                    if self._error is None:
                        self._error = exc
            finally:
                self._queue.task_done()

    def flush(self) -> None:
        """Wait for every queued task; raise the first error a task raised (once)."""
        if self._thread is not None:
            self._queue.join()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def close(self) -> None:
        """Flush, then stop the thread. Idempotent."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            if self._thread is not None:
                self._queue.put(None)
                self._thread.join()


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
    >>> writer.close()  # finish the episode and wait for its images
    >>> sorted(p.name for p in folder.iterdir())
    ['step-0000.png', 'steps.jsonl', 'unfinished.json']
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        save_frames: bool = True,
        gif: bool = True,
        fps: float = 2,
        gif_max_width: int = 960,
        worker: FrameWorker | None = None,
    ) -> None:
        check_recording_args(fps, gif_max_width)
        #: where images are encoded (shared between the writers of a vector recorder)
        self.worker = worker if worker is not None else FrameWorker()
        self._owns_worker = worker is None
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
        self._frames: list[Image.Image] = []  # the GIF's, filled by the worker
        self._ended = False
        self._previous: tuple[np.ndarray, bytes, Image.Image | None] | None = None  # worker's
        self._policy: Mapping[str, Any] | None = None  # noted for the next step's line

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
        self._frames = []
        self._ended = False
        self.step = -1
        self._policy = None
        return self.episode_dir

    def note_policy(self, record: Mapping[str, Any] | None) -> None:
        """What the policy said about the action it is about to take (a model's reply,
        the parsed action, tokens, latency): written as ``policy`` in the next step's line."""
        self._policy = record

    def record(
        self,
        frame: np.ndarray | None,
        action: Any,
        reward: SupportsFloat | None,
        terminated: bool,
        truncated: bool,
        info: Mapping[str, Any],
        policy: Mapping[str, Any] | None = None,
    ) -> None:
        """Record the next step (the first after :meth:`start` is step 0, the reset): its
        line in ``steps.jsonl``, and its frame when it has one. ``policy`` (or what
        :meth:`note_policy` noted) is the policy's record of the action, its ``policy``."""
        if not self.recording:
            return
        self.step += 1
        line: dict[str, Any] = {
            "step": self.step,
            "action": action,
            "reward": None if reward is None else float(reward),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "info": info,
        }
        noted, self._policy = self._policy, None
        if policy is None:
            policy = noted
        if policy is not None and action is not None:
            line["policy"] = policy
        self.write(line)
        if terminated or truncated:
            self._ended = True
        if frame is None or not (self.save_frames or self.gif) or self.episode_dir is None:
            return
        # a copy: the env may reuse its observation buffer while the worker encodes
        self.worker.submit(
            self._encode, np.array(frame, dtype=np.uint8, copy=True), self.episode_dir,
            self.step, self._frames,
        )

    def _encode(
        self, frame: np.ndarray, folder: Path, step: int, gif_frames: list[Image.Image]
    ) -> None:
        """(worker thread) The step's PNG, and its GIF frame: downscaled, labelled and
        given a palette now, so that saving the GIF is quick."""
        previous = self._previous  # (frame, png bytes, gif frame before its label)
        same = previous is not None and np.array_equal(previous[0], frame)
        png = b""
        if self.save_frames:
            # a step that changed nothing on screen (a click on empty desktop, a WAIT)
            # reuses the previous frame's PNG
            png = previous[1] if same and previous is not None else encode_png(frame)
            (folder / f"step-{step:04d}.png").write_bytes(png)
        small = None
        if self.gif:
            small = (
                previous[2]
                if same and previous is not None and previous[2] is not None
                else fit_width(Image.fromarray(frame), self.gif_max_width)
            )
            labelled = _label(small, step)
            gif_frames.append(labelled.quantize(colors=255, method=Image.Quantize.FASTOCTREE))
        self._previous = (frame, png, small)

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
        """Close the step log of the current episode and queue its GIF (idempotent); an
        episode that did not end is marked with ``unfinished.json``."""
        frames, self._frames = self._frames, []
        lines, self._lines = self._lines, None
        if lines is None:
            return
        folder = self.episode_dir
        try:
            if folder is not None and not self._ended:
                marker = {"episode": self.episode_index, "steps": max(0, self.step),
                          "finished": False}
                (folder / UNFINISHED).write_text(json.dumps(marker) + "\n", encoding="utf-8")
            if self.gif and folder is not None:
                self.worker.submit(self._save_gif, folder, frames)
        finally:
            lines.close()

    def _save_gif(self, folder: Path, frames: list[Image.Image]) -> None:
        """(worker thread) ``episode.gif`` from the episode's frames."""
        if frames:
            frames[0].save(
                folder / "episode.gif",
                save_all=True,
                append_images=frames[1:],
                duration=round(1000 / self.fps),
                loop=0,
                optimize=False,  # the frames have their palettes already; 2-3x faster
            )

    def close(self) -> None:
        """Finish the current episode and wait until its images are written (a shared
        worker is flushed, not stopped). Idempotent."""
        self.finish()
        if self._owns_worker:
            self.worker.close()
        else:
            self.worker.flush()


def _label(image: Image.Image, step: int) -> Image.Image:
    """A copy of ``image`` with its step number in the top-left corner."""
    image = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(image)
    text = f"step {step}"
    _, _, right, bottom = draw.textbbox((4, 4), text)
    draw.rectangle((0, 0, right + 4, bottom + 4), fill=(0, 0, 0))
    draw.text((4, 4), text, fill=(255, 255, 255))
    return image

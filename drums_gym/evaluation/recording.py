"""``--record`` for suites: each counted episode's trajectory under
``DIR/record/<task_short>/episode-<k>/``.

An attempt is recorded by the trajectory recorder's `EpisodeWriter` (the files
`drums_gym.wrappers.RecordTrajectory` writes: ``step-NNNN.png``, ``steps.jsonl``,
``episode.gif``) into a staging folder; when the attempt is final its folder is moved to
``episode-<k>`` (replacing what an earlier, killed run left there), otherwise it is
deleted. So the folder exists for a counted episode, and only for one.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..wrappers._trajectory import EpisodeWriter
from .plan import SuiteItem

__all__ = ["RECORD", "AttemptRecording", "record_folder"]

#: the folder of recordings inside a suite's folder
RECORD = "record"


def record_folder(item: SuiteItem) -> str:
    """Where ``item``'s counted episode is recorded, relative to the suite's folder."""
    return f"{RECORD}/{item.task_short}/episode-{item.episode}"


class AttemptRecording:
    """The recording of one attempt, staged until it is known to count."""

    def __init__(self, suite_dir: Path, item: SuiteItem, attempt: int) -> None:
        self.suite_dir = suite_dir
        self.item = item
        self.staging = (
            suite_dir / RECORD / item.task_short
            / f".staging-{item.episode}-{attempt}-{os.getpid()}"
        )
        shutil.rmtree(self.staging, ignore_errors=True)
        self.writer = EpisodeWriter(self.staging)
        self._closed = False

    def start(self, obs: Any, info: Mapping[str, Any]) -> None:
        """The reset: step 0."""
        self.writer.start()
        self.writer.record(obs, None, None, False, False, info)

    def step(
        self, obs: Any, action: Any, reward: float, terminated: bool, truncated: bool,
        info: Mapping[str, Any],
    ) -> None:
        self.writer.record(obs, action, reward, terminated, truncated, info)

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            self.writer.close()  # waits for the images

    def keep(self) -> str:
        """The attempt counts: move its folder to ``episode-<k>``; answers that path
        relative to the suite's folder."""
        self._close()
        relative = record_folder(self.item)
        target = self.suite_dir / relative
        shutil.rmtree(target, ignore_errors=True)
        episode_dir = self.writer.episode_dir
        if episode_dir is None:  # nothing was recorded (the desktop never came up)
            target.mkdir(parents=True, exist_ok=True)
        else:
            os.replace(episode_dir, target)
        shutil.rmtree(self.staging, ignore_errors=True)
        return relative

    def discard(self) -> None:
        """The attempt does not count (retried, or stopped): delete its files."""
        self._close()
        shutil.rmtree(self.staging, ignore_errors=True)

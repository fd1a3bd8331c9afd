"""``--record`` for suites: each counted episode's trajectory under
``DIR/record/<task_short>/episode-<k>/``.

An attempt is recorded by the trajectory recorder's `EpisodeWriter` (the files
`drums_gym.wrappers.RecordTrajectory` writes: ``step-NNNN.png``, ``steps.jsonl``,
``episode.gif``) into a staging folder; when the attempt is final its folder is moved to
``episode-<k>`` (replacing what an earlier, killed run left there), otherwise it is
deleted. So the folder exists for a counted episode, and only for one.

Each step's line also holds ``policy``: what the policy said about the action it chose
(:func:`step_extras`: a model policy's reply text, parsed action, token usage and
latency; any policy's own ``step_extras()``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..wrappers._trajectory import EpisodeWriter
from .plan import SuiteItem

__all__ = ["RECORD", "AttemptRecording", "episode_stats", "record_folder", "step_extras"]

#: the folder of recordings inside a suite's folder
RECORD = "record"


def step_extras(policy: Any) -> dict[str, Any] | None:
    """What ``policy`` says about the action it just answered, for the step's record: its
    ``step_extras()`` (a dict; `drums_gym.integrations.models.OpenAIPolicy` answers the
    model's reply, the parsed action, tokens and latency), or None when it has none."""
    extras = getattr(policy, "step_extras", None)
    value = extras() if callable(extras) else None
    return dict(value) if isinstance(value, Mapping) and value else None


def episode_stats(policy: Any) -> dict[str, Any] | None:
    """``policy.episode_stats()`` (a dict of the episode's figures), or None."""
    stats = getattr(policy, "episode_stats", None)
    value = stats() if callable(stats) else None
    return dict(value) if isinstance(value, Mapping) else None


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
        info: Mapping[str, Any], policy: Mapping[str, Any] | None = None,
    ) -> None:
        """One step; ``policy`` is the policy's record of the action (`step_extras`)."""
        self.writer.record(obs, action, reward, terminated, truncated, info, policy)

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

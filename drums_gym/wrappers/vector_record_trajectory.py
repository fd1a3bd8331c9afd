"""`VectorRecordTrajectory`: each sub-env's episodes, written like `RecordTrajectory`'s."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from ._trajectory import EpisodeWriter, FrameWorker, as_frame, check_recording_args
from ._vector_info import member_info

__all__ = ["VectorRecordTrajectory"]


class VectorRecordTrajectory(VectorWrapper):
    """Vector version of :class:`RecordTrajectory`: sub-env ``k``'s episodes go to
    ``directory/env-<k>/episode-000001/``, ``episode-000002/``, ...

    Each episode folder holds what :class:`RecordTrajectory` writes: ``step-NNNN.png``,
    ``steps.jsonl`` (line 0 the reset, with that sub-env's reset info) and
    ``episode.gif``. For ``NEXT_STEP`` autoreset (the fork vector env's default), the
    step after an episode ends starts the sub-env's next episode (its line 0, with no
    action); for ``DISABLED``, ``reset(options={"reset_mask": m})`` starts the masked
    sub-envs' next episodes, and an ended sub-env records nothing until then.
    ``SAME_STEP`` is refused (its final observation is not the batch's). An episode is
    finished when it ends, when a reset starts another, and on ``close()``; one that did
    not end (closed or reset first) is marked with ``unfinished.json``. PNGs and GIFs are
    encoded by a background thread (bounded queue): they are all on disk after
    ``close()`` (or :meth:`flush`).

    Args:
        env: the vector env to record (``NEXT_STEP`` or ``DISABLED`` autoreset).
        directory: where the ``env-<k>`` folders go (created if missing).
        save_frames, gif, fps, gif_max_width: as for :class:`RecordTrajectory`.

    Example:
        >>> import gymnasium as gym
        >>> envs = gym.make_vec("Drums/e0df059f", num_envs=2)             # doctest: +SKIP
        >>> envs = VectorRecordTrajectory(envs, "runs/demo")              # doctest: +SKIP
        >>> _ = envs.reset(seed=0)                                        # doctest: +SKIP
        >>> _ = envs.step(["pyautogui.click(960, 540)", "DONE"])          # doctest: +SKIP
        >>> [w.episode_dir.name for w in envs.writers]                    # doctest: +SKIP
        ['episode-000001', 'episode-000001']
        >>> envs.close()                                                  # doctest: +SKIP
    """

    def __init__(
        self,
        env: VectorEnv,
        directory: str | os.PathLike[str],
        *,
        save_frames: bool = True,
        gif: bool = True,
        fps: float = 2,
        gif_max_width: int = 960,
    ) -> None:
        check_recording_args(fps, gif_max_width)
        mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        try:
            self._mode = AutoresetMode(mode)
        except ValueError:
            raise ValueError(
                f"env.metadata['autoreset_mode'] must be an AutoresetMode, got {mode!r}"
            ) from None
        if self._mode is AutoresetMode.SAME_STEP:
            raise ValueError("VectorRecordTrajectory needs NEXT_STEP or DISABLED autoreset")
        VectorWrapper.__init__(self, env)
        self.directory = Path(directory)
        #: encodes every sub-env's images off the step path (flushed on close)
        self.worker = FrameWorker(maxsize=max(32, 4 * self.num_envs))
        #: one writer per sub-env, in ``directory/env-<k>``
        self.writers: list[EpisodeWriter] = [
            EpisodeWriter(
                self.directory / f"env-{k}",
                save_frames=save_frames,
                gif=gif,
                fps=fps,
                gif_max_width=gif_max_width,
                worker=self.worker,
            )
            for k in range(self.num_envs)
        ]
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    @property
    def episode_dirs(self) -> list[Path | None]:
        """Each sub-env's episode folder being (or last) recorded."""
        return [w.episode_dir for w in self.writers]

    def note_policy(self, index: int, record: Mapping[str, Any] | None) -> None:
        """What sub-env ``index``'s policy said about its next action (a model's reply,
        tokens, latency): written as ``policy`` in that sub-env's next step line."""
        self.writers[index].note_policy(record)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs (all, or ``options["reset_mask"]``); start their episodes."""
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:  # read first: envs may pop it
            mask = np.asarray(options["reset_mask"], dtype=bool)
        for i in map(int, np.flatnonzero(mask)):
            self.writers[i].finish()
        # VectorEnv.reset is annotated seed: int | None; its implementations take a list too
        obs, infos = self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]
        for i in map(int, np.flatnonzero(mask)):
            info = member_info(infos, i, keep_none=True)
            self.writers[i].start()
            self.writers[i].record(_frame(obs, i), None, None, False, False, info)
            self._autoreset[i] = False
        return obs, infos

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs and record each one's step (or its autoreset)."""
        try:
            obs, rewards, terminations, truncations, infos = self.env.step(actions)
        except BaseException as exc:  # recorded, then re-raised
            for i, writer in enumerate(self.writers):
                if writer.recording and not self._autoreset[i]:
                    writer.record_error(_action(actions, i), exc)
            raise
        dones = np.logical_or(terminations, truncations)
        for i, writer in enumerate(self.writers):
            info = member_info(infos, i, keep_none=True)
            if self._autoreset[i]:  # NEXT_STEP: this step reset sub-env i
                writer.start()
                writer.record(_frame(obs, i), None, None, False, False, info)
            elif writer.recording:
                writer.record(
                    _frame(obs, i),
                    _action(actions, i),
                    rewards[i],
                    terminations[i],
                    truncations[i],
                    info,
                )
                if dones[i]:
                    writer.finish()
        if self._mode is AutoresetMode.NEXT_STEP:
            self._autoreset = dones
        return obs, rewards, terminations, truncations, infos

    def close(self, **kwargs: Any) -> None:
        """Finish every sub-env's current episode, then close the env (harmless twice)."""
        try:
            for writer in self.writers:
                writer.finish()
            self.worker.close()
        finally:
            self.env.close(**kwargs)

    def flush(self) -> None:
        """Wait until every image recorded so far is written."""
        self.worker.flush()


def _frame(obs: Any, i: int) -> np.ndarray | None:
    batch = obs.get("screenshot") if isinstance(obs, Mapping) else obs
    if isinstance(batch, np.ndarray) and batch.ndim == 4:
        return as_frame(batch[i])
    if isinstance(batch, (tuple, list)) and len(batch) > i:
        return as_frame(batch[i])
    return None


def _action(actions: Any, i: int) -> Any:
    try:
        return actions[i]
    except (TypeError, IndexError, KeyError):
        return None

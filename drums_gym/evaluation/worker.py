"""One suite worker: runs attempts of (task, episode) items, one desktop at a time.

A worker keeps one `DrumsDesktopEnv` and reuses it while the items are of the same task
(each episode a ``reset``); it makes a new one when the task changes, and after an
invalid attempt (a retry gets a fresh desktop). The policy is built per episode by
``policy_factory(task, seed)`` and asked for an action only while the episode is live.
An attempt answers one record of ``episodes.jsonl`` (see docs: the suite schema). The
thread pool of :func:`drums_gym.evaluation.run_suite` runs N workers; the Ray runner
(`drums_gym.integrations.ray`) runs one per actor.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._loop import Policy, call_policy, needs_accessibility, reset_policy
from ..client import Client, DrumsError, TransportError
from ..outcomes import UNKNOWN_REASON, EpisodeOutcome
from .plan import SuiteItem
from .recording import AttemptRecording, episode_stats, step_extras

__all__ = ["POLICY_FIGURES", "PolicyFactory", "SuiteStopped", "SuiteWorker", "attempt_record"]

#: ``policy_factory(task, seed) -> policy``: a fresh policy for one episode
PolicyFactory = Callable[[str, int], Policy]
#: what a policy with ``episode_stats() -> dict`` may report per episode (model policies)
POLICY_FIGURES = ("model_latency_s", "prompt_tokens", "completion_tokens", "policy_errors")


class SuiteStopped(Exception):
    """The run was asked to stop mid-episode: the attempt has no record (it runs again
    on resume)."""


def _reason_of(exc: DrumsError) -> str:
    code = getattr(exc, "code", None)
    return f"host_error:{code}" if code else f"host_error:{type(exc).__name__}"


def attempt_record(
    item: SuiteItem,
    attempt: int,
    *,
    last: bool,
    outcome: EpisodeOutcome,
    steps: int,
    action_errors: int,
    timings: Mapping[str, float],
    policy: str,
    started_at: float,
    finished_at: float,
    success_threshold: float = 1.0,
    extra: Mapping[str, Any] | None = None,
    record: str | None = None,
    instruction: str = "",
) -> dict[str, Any]:
    """One line of ``episodes.jsonl`` (the suite schema's fields, in its order)."""
    step_time = float(timings.get("action", 0.0)) + float(timings.get("observe", 0.0))
    line: dict[str, Any] = {
        "task": item.task,
        "task_short": item.task_short,
        "episode": item.episode,
        "seed": item.seed,
        "attempt": attempt,
        "valid": outcome.valid,
        "score": outcome.score if outcome.valid else None,
        "success": (outcome.score or 0.0) >= success_threshold if outcome.valid else None,
        "invalid_reason": None if outcome.valid else (outcome.reason or UNKNOWN_REASON),
        "steps": steps,
        "action_errors": action_errors,
        "timings": {
            k: round(float(timings.get(k, 0.0)), 6) for k in ("action", "observe", "verify")
        },
        "step_latency_s": round(step_time / steps, 6) if steps else None,
        "policy": policy,
        "started_at": round(started_at, 3),
        "finished_at": round(finished_at, 3),
        "record": record,
        "final": outcome.valid or last,
        "instruction": instruction,
    }
    for key, value in (extra or {}).items():
        if key in POLICY_FIGURES and isinstance(value, (int, float)) and math.isfinite(value):
            line[key] = value
    return line


class SuiteWorker:
    """Runs suite attempts on one desktop at a time (see the module docstring).

    Args:
        policy_factory: ``(task, seed) -> policy``, called once per episode.
        client: the `drums_gym.client.Client` desktops are made with (shared by the
            workers of a thread pool; the worker does not close it).
        policy_name: the policy's name in the records.
        max_steps: steps per episode.
        stop: set to stop mid-episode (the attempt raises `SuiteStopped`).
        wait_timeout: seconds to wait for an episode's gates.
        success_threshold: the score at which a valid episode is a success.
        record_to: the suite's folder, to record each counted episode under
            ``record/<task_short>/episode-<k>/`` (None: no recording).
    """

    def __init__(
        self,
        policy_factory: PolicyFactory,
        client: Client,
        *,
        policy_name: str = "policy",
        max_steps: int = 15,
        stop: threading.Event | None = None,
        wait_timeout: float = 120.0,
        success_threshold: float = 1.0,
        record_to: str | os.PathLike[str] | None = None,
    ) -> None:
        self.record_to = None if record_to is None else Path(record_to)
        self.policy_factory = policy_factory
        self.client = client
        self.policy_name = policy_name
        self.max_steps = max_steps
        self.stop = stop if stop is not None else threading.Event()
        self.wait_timeout = wait_timeout
        self.success_threshold = success_threshold
        self._env: Any = None
        self._env_key: tuple[str, bool] | None = None

    def _env_for(self, task: str, accessibility: bool) -> Any:
        from ..envs import DrumsDesktopEnv

        if self._env is not None and self._env_key == (task, accessibility):
            return self._env
        self.close()
        self._env = DrumsDesktopEnv(
            task,
            client=self.client,
            max_steps=self.max_steps,
            accessibility=accessibility,
            wait_timeout=self.wait_timeout,
        )
        self._env_key = (task, accessibility)
        return self._env

    def attempt(self, item: SuiteItem, attempt: int, *, last: bool) -> dict[str, Any]:
        """Run attempt ``attempt`` of ``item`` and answer its record (``final`` when
        valid, or when ``last``). Raises `SuiteStopped` when stopped mid-episode, a
        `drums_gym.client.TransportError` when the host cannot be reached, and the
        policy's `PolicyError` when the policy fails."""
        policy = self.policy_factory(item.task, item.seed)
        env = self._env_for(item.task, needs_accessibility(policy))
        recording = (
            None if self.record_to is None else AttemptRecording(self.record_to, item, attempt)
        )
        started = time.time()
        instruction = ""
        timings = {"action": 0.0, "observe": 0.0, "verify": 0.0}
        steps = errors = 0
        reward = 0.0
        try:
            try:
                obs, info = env.reset(seed=item.seed)
                if recording is not None:
                    recording.start(obs, info)
                reset_policy(policy)
                instruction = str(info.get("instruction", ""))
                ended = not info.get("valid", True)
                while not ended:
                    if self.stop.is_set():
                        raise SuiteStopped(item)
                    action = call_policy(policy, obs, instruction, self.policy_name, info)
                    said = step_extras(policy) if recording is not None else None
                    obs, reward, terminated, truncated, info = env.step(action)
                    if recording is not None:
                        recording.step(
                            obs, action, float(reward), terminated, truncated, info, said
                        )
                    steps += 1
                    errors += info.get("action_error") is not None
                    for key, seconds in (info.get("timings") or {}).items():
                        if key in timings:
                            timings[key] += float(seconds or 0.0)
                    ended = bool(terminated or truncated)
                outcome = EpisodeOutcome.from_info(info, float(reward))
            except DrumsError as exc:
                if isinstance(exc, TransportError):
                    raise
                # the host refused the desktop (quota, conflict...): infrastructure, invalid
                outcome = EpisodeOutcome(False, None, _reason_of(exc))
        except BaseException:
            if recording is not None:
                recording.discard()
            self.close()  # stopped or failed mid-episode: no half-used desktop is kept
            raise
        if not outcome.valid:
            self.close()  # a retry gets a fresh desktop
        final = outcome.valid or last
        folder = None
        if recording is not None:
            if final:
                folder = recording.keep()
            else:
                recording.discard()
        return attempt_record(
            item,
            attempt,
            last=last,
            outcome=outcome,
            steps=steps,
            action_errors=int(errors),
            timings=timings,
            policy=self.policy_name,
            started_at=started,
            finished_at=time.time(),
            success_threshold=self.success_threshold,
            extra=episode_stats(policy),
            record=folder,
            instruction=instruction,
        )

    def close(self) -> None:
        """Delete the worker's desktop (if any). Idempotent."""
        env, self._env, self._env_key = self._env, None, None
        if env is not None:
            env.close()

"""The suite runner: many tasks x K episodes on N desktops shared across tasks.

:func:`run_suite` plans every (task, episode) item (:mod:`.plan`), skips those whose final
record ``DIR/episodes.jsonl`` already holds (``resume=True``), and runs the rest from one
queue on N worker threads, each a :class:`~drums_gym.evaluation.worker.SuiteWorker` with
one desktop at a time, whatever the task mix. Every finished attempt is appended to
``episodes.jsonl`` at once (:mod:`.journal`) and ``summary.json`` is rewritten after it
(:mod:`.stats`). An invalid attempt is retried (a fresh desktop, the same seed) up to
``retries_invalid`` times; the last one is recorded as final and counted invalid with its
reason: never scored 0, never lost. Ctrl+C (KeyboardInterrupt) stops the workers between
steps, deletes their desktops and raises :class:`SuiteInterrupted` with what is done
written; a resumed run finishes the rest. :class:`SuiteRun` (the queue and the journal)
is what the Ray runner shares.

Example (the embedded local host when ``DRUMS_URL`` is unset)::

    from drums_gym.evaluation import SuiteConfig, run_suite

    def policy_factory(task, seed):
        return lambda observation, instruction: "DONE"

    config = SuiteConfig(tasks=("e0df059f",), episodes_per_task=4, num_envs=2)
    result = run_suite(config, policy_factory, "runs/suite", resume=True)
    print(result.summary["overall"]["success_rate"])
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client import Client, connect
from .journal import Journal, JournalError
from .plan import SuiteItem, plan_items, resolve_tasks
from .stats import suite_summary
from .worker import PolicyFactory, SuiteStopped, SuiteWorker

__all__ = [
    "IDENTITY",
    "ProgressCallback",
    "SuiteConfig",
    "SuiteInterrupted",
    "SuiteResult",
    "SuiteRun",
    "check_suite_capacity",
    "run_suite",
]

#: ``on_progress(done, total, successes, invalid)``: after each counted episode
ProgressCallback = Callable[[int, int, int, int], None]
#: the arguments a resumed run must share with the run it resumes (they fix the results)
IDENTITY = ("tasks", "episodes_per_task", "seed", "policy", "max_steps")


def _check_int(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


@dataclass(frozen=True)
class SuiteConfig:
    """What a suite runs.

    Args:
        tasks: task ids (full or 8 characters); or one string: ``"all"``, ``"ID,ID,..."``
            or the path of an OSWorld-style ``test_all.json`` (``{domain: [id, ...]}``).
            Resolved against the host when the run starts.
        episodes_per_task: K episodes of each task.
        num_envs: N desktops at once (worker threads), whatever the task mix.
        seed: the base seed; episode k of a task gets a seed derived from
            (seed, task, k) (`drums_gym.evaluation.episode_seed`).
        max_steps: steps per episode.
        retries_invalid: attempts after an invalid one (the last is reported invalid).
        policy: the policy's name in the records and the summary.
    """

    tasks: Sequence[str]
    episodes_per_task: int = 1
    num_envs: int = 4
    seed: int = 0
    max_steps: int = 15
    retries_invalid: int = 2
    policy: str = "policy"

    def __post_init__(self) -> None:
        if isinstance(self.tasks, str) or not self.tasks:
            raise ValueError(f"tasks must be a non-empty sequence of ids, got {self.tasks!r}")
        object.__setattr__(self, "tasks", tuple(self.tasks))
        _check_int("episodes_per_task", self.episodes_per_task, 1)
        _check_int("num_envs", self.num_envs, 1)
        _check_int("max_steps", self.max_steps, 1)
        _check_int("retries_invalid", self.retries_invalid, 0)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed must be an int, got {self.seed!r}")

    def args(self, tasks: Sequence[str], **extra: Any) -> dict[str, Any]:
        """The ``args`` of ``summary.json`` (``tasks`` resolved to full ids)."""
        return {
            "tasks": list(tasks),
            "episodes_per_task": self.episodes_per_task,
            "num_envs": self.num_envs,
            "seed": self.seed,
            "max_steps": self.max_steps,
            "retries_invalid": self.retries_invalid,
            "policy": self.policy,
            **extra,
        }


@dataclass
class SuiteResult:
    """What a suite run answers: the summary, the final records in plan order, how many
    attempts this call ran, and its wall time."""

    summary: dict[str, Any]
    finals: list[dict[str, Any]]
    attempts_run: int
    elapsed_s: float
    folder: Path = field(default_factory=Path)


class SuiteInterrupted(KeyboardInterrupt):
    """Ctrl+C stopped the run; ``result`` is what is done (written to the folder)."""

    def __init__(self, result: SuiteResult) -> None:
        super().__init__("suite interrupted")
        self.result = result


class SuiteRun:
    """The queue of a suite's attempts and its journal (thread-safe).

    ``next()`` answers ``(item, attempt, last)`` until nothing is left to start;
    ``complete(record)`` appends the record, requeues the item (first in line) when the
    attempt was invalid and not the last, rewrites ``summary.json`` and reports progress.
    """

    def __init__(
        self,
        config: SuiteConfig,
        tasks: Sequence[str],
        journal: Journal,
        args: Mapping[str, Any],
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.config = config
        self.tasks = list(tasks)
        self.journal = journal
        self.args = dict(args)
        self.on_progress = on_progress
        self.items = plan_items(self.tasks, config.episodes_per_task, seed=config.seed)
        self._check_resume()
        self._lock = threading.Lock()
        self._summary_lock = threading.Lock()  # a newer summary is never overwritten
        self._queue: deque[tuple[SuiteItem, int]] = deque(
            (item, journal.attempts.get(item.key, 0))
            for item in self.items
            if item.key not in journal.finals
        )
        self.attempts_run = 0

    def _check_resume(self) -> None:
        previous = self.journal.previous_args
        if not isinstance(previous, dict):
            return
        for key in IDENTITY:
            if key in previous and previous[key] != self.args.get(key):
                raise JournalError(
                    f"{str(self.journal.folder)!r} holds a run with {key}={previous[key]!r}, "
                    f"not {self.args.get(key)!r}: resume it with the same arguments, or "
                    "choose another folder"
                )

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def pending(self) -> int:
        """Attempts queued (items not final and not started)."""
        with self._lock:
            return len(self._queue)

    def next(self) -> tuple[SuiteItem, int, bool] | None:
        """The next attempt to run, or None when the queue is empty."""
        with self._lock:
            if not self._queue:
                return None
            item, attempt = self._queue.popleft()
        return item, attempt, attempt >= self.config.retries_invalid

    def put_back(self, item: SuiteItem, attempt: int) -> None:
        """Queue again (first in line) an attempt that gave no record: its worker died."""
        with self._lock:
            self._queue.appendleft((item, attempt))

    def complete(self, record: dict[str, Any]) -> None:
        """Record a finished attempt (durably), requeue its retry, rewrite the summary."""
        self.journal.append(record)
        with self._lock:
            self.attempts_run += 1
            if not record["final"]:
                item = next(i for i in self.items if i.key == (record["task"], record["episode"]))
                self._queue.appendleft((item, int(record["attempt"]) + 1))
        self.write_summary()

    def finals(self) -> list[dict[str, Any]]:
        """The final records of the plan's items, in plan order."""
        found = self.journal.finals
        return [found[i.key] for i in self.items if i.key in found]

    def summary(self) -> dict[str, Any]:
        return suite_summary(self.args, self.tasks, self.total, self.finals())

    def write_summary(self) -> dict[str, Any]:
        """Rewrite ``summary.json`` and report progress; answers the summary."""
        with self._summary_lock:
            summary = self.summary()
            self.journal.write_summary(summary)
            if self.on_progress is not None:
                overall = summary["overall"]
                self.on_progress(
                    summary["done"], summary["total"], overall["success"],
                    overall["episodes"] - overall["valid"],
                )
        return summary


def check_suite_capacity(client: Client, n: int, *, name: str = "num_envs") -> None:
    """Refuse up front ``n`` desktops at once beyond the host's live-desktop limits."""
    limits = client.host().limits
    for limit, what in ((limits.live_desktops, "live desktops per workspace"),
                        (getattr(limits, "host_desktops", None), "desktops on the host")):
        if limit is not None and n > limit:
            raise ValueError(f"{name} {n} exceeds the host's limit of {limit} {what}")


def run_suite(
    config: SuiteConfig,
    policy_factory: PolicyFactory,
    out: str | Path,
    *,
    resume: bool = False,
    url: str | None = None,
    token: str | None = None,
    client: Client | None = None,
    on_progress: ProgressCallback | None = None,
    extra_args: Mapping[str, Any] | None = None,
    record: bool = False,
) -> SuiteResult:
    """Run the suite ``config`` into the folder ``out`` (see the module docstring).

    Args:
        config: the tasks, K, N, seed, step budget and retry bound.
        policy_factory: ``(task, seed) -> policy``, called once per episode (a policy
            is ``(observation, instruction[, info]) -> action``).
        out: the suite's folder (``episodes.jsonl``, ``summary.json``).
        resume: finish the run already in ``out`` (without it, ``out`` must hold none).
        url, token: the Drums host (default ``DRUMS_URL``/``DRUMS_TOKEN``, else the
            embedded local host); or ``client``, which the run does not close.
        on_progress: ``(done, total, successes, invalid)`` after each counted episode.
        extra_args: more entries for the summary's ``args`` (e.g. where it ran).
        record: record each counted episode under ``out/record/<task_short>/episode-<k>/``
            (the trajectory recorder's files: step PNGs, ``steps.jsonl``, ``episode.gif``).

    Raises:
        ValueError: bad arguments, unknown tasks, ``num_envs`` beyond the host's limits,
            a folder that holds another run (`JournalError`).
        SuiteInterrupted: on Ctrl+C, after the workers stopped and their desktops went.
        PolicyError, TransportError: a policy failed, or the host cannot be reached
            (what is done is written; resume to go on).
    """
    started = time.monotonic()
    owned = client is None
    client = client if client is not None else connect(url=url, token=token)
    try:
        spec = config.tasks[0] if len(config.tasks) == 1 else list(config.tasks)
        tasks = resolve_tasks(client, spec)
        check_suite_capacity(client, config.num_envs)
        with Journal.open(out, resume=resume) as journal:
            run = SuiteRun(config, tasks, journal, config.args(tasks, record=record,
                                                        **(extra_args or {})),
                           on_progress)
            run.write_summary()
            stop = threading.Event()
            try:
                _run_threads(run, config, policy_factory, client, stop,
                             Path(out) if record else None)
            except KeyboardInterrupt:
                result = SuiteResult(run.write_summary(), run.finals(), run.attempts_run,
                                     time.monotonic() - started, Path(out))
                raise SuiteInterrupted(result) from None
            return SuiteResult(run.write_summary(), run.finals(), run.attempts_run,
                               time.monotonic() - started, Path(out))
    finally:
        if owned:
            client.close()


def _run_threads(
    run: SuiteRun,
    config: SuiteConfig,
    policy_factory: PolicyFactory,
    client: Client,
    stop: threading.Event,
    record_to: Path | None,
) -> None:
    """N worker threads over the run's queue; the first worker error stops them all and
    is raised; KeyboardInterrupt stops them (between steps) and is raised."""
    errors: list[BaseException] = []

    def work() -> None:
        worker = SuiteWorker(policy_factory, client, policy_name=config.policy,
                             max_steps=config.max_steps, stop=stop, record_to=record_to)
        try:
            while not stop.is_set():
                job = run.next()
                if job is None:
                    return
                item, attempt, last = job
                try:
                    record = worker.attempt(item, attempt, last=last)
                except SuiteStopped:
                    return
                run.complete(record)
        except BaseException as exc:  # handed to the main thread, raised there
            errors.append(exc)
            stop.set()
        finally:
            worker.close()

    threads = [
        threading.Thread(target=work, name=f"drums-suite-{i}", daemon=True)
        for i in range(max(1, min(config.num_envs, run.pending)))
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        for thread in threads:
            thread.join()
        raise
    if errors:
        raise errors[0]

"""The suite runner on Ray: the same suite, its workers spread over a Ray cluster.

``pip install 'drums-gym[ray]'``. :func:`run_suite_on_ray` runs
:func:`drums_gym.evaluation.run_suite`'s plan with each worker a Ray actor (one
`SuiteWorker`, one desktop at a time) instead of a thread. The driver (this process)
keeps the queue and the folder: it hands each idle actor the next (task, episode)
attempt, appends each record to ``OUT/episodes.jsonl`` as it arrives, rewrites
``OUT/summary.json``, and retries invalid episodes, so ``resume=True`` works as it does
on threads (a run on threads can be resumed on Ray and back).

Where the desktops are:

- ``url`` (or ``DRUMS_URL``) set: every worker uses that Drums host (a real Drums, or
  ``drums-gym serve`` reachable from the cluster's nodes), with ``token`` (or
  ``DRUMS_TOKEN``). The number of workers is checked against its live-desktop limit.
- no URL: each worker starts its own embedded local host in its process, its fault rolls
  seeded ``DRUMS_LOCAL_SEED + worker index`` (the driver's ``DRUMS_LOCAL_*`` variables
  are passed to every worker).

A worker that dies (a lost node) gives its attempt back to the queue (it had no record)
and is replaced, a bounded number of times. Ctrl+C stops the workers between steps,
deletes their desktops and raises `SuiteInterrupted`; a policy error or an unreachable
host is raised after the other workers are stopped.

Example (a local Ray; on a cluster, ``address="auto"`` or ``"ray://head:10001"``)::

    from drums_gym.evaluation import SuiteConfig
    from drums_gym.integrations.ray import run_suite_on_ray

    def policy_factory(task, seed):
        return lambda observation, instruction: "DONE"

    config = SuiteConfig(tasks=("all",), episodes_per_task=2, num_envs=2, max_steps=5)
    result = run_suite_on_ray(config, policy_factory, "runs/ray-suite",
                              init={"num_cpus": 2})
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..evaluation import (
    Journal,
    SuiteConfig,
    SuiteInterrupted,
    SuiteResult,
    SuiteRun,
    SuiteWorker,
    check_suite_capacity,
    resolve_tasks,
)
from ..evaluation.suite import ProgressCallback
from ..evaluation.worker import PolicyFactory, SuiteStopped

__all__ = ["SuiteActor", "run_suite_on_ray"]

log = logging.getLogger("drums_gym.integrations.ray")

#: seconds the driver waits for stopped workers to delete their desktops
STOP_TIMEOUT_S = 60.0
#: the prefix of the variables passed to workers that start an embedded host
_LOCAL_PREFIX = "DRUMS_LOCAL_"


class SuiteActor:
    """A suite worker in a Ray actor's process (made with ``ray.remote`` by the runner).

    Args:
        policy_factory: ``(task, seed) -> policy`` (pickled to the actor).
        url, token: the shared Drums host; ``url`` None starts an embedded host here.
        environment: variables set in the actor's process before connecting (the
            embedded host's ``DRUMS_LOCAL_*``).
        max_steps, policy_name: as for `SuiteWorker`.
    """

    def __init__(
        self,
        policy_factory: PolicyFactory,
        *,
        url: str | None,
        token: str | None,
        environment: Mapping[str, str],
        max_steps: int,
        policy_name: str,
    ) -> None:
        from ..client import connect

        os.environ.update(environment)
        if url is None:
            os.environ.pop("DRUMS_URL", None)  # this process's own embedded host
        self._stop = threading.Event()
        self._busy = threading.Lock()  # held by a running attempt
        self._client = connect(url=url, token=token)
        self._worker = SuiteWorker(
            policy_factory, self._client, policy_name=policy_name, max_steps=max_steps,
            stop=self._stop,
        )

    def tasks(self, spec: Any) -> list[str]:
        """The suite's tasks resolved against this worker's host."""
        return resolve_tasks(self._client, spec)

    def check_capacity(self, n: int) -> None:
        """Refuse ``n`` desktops at once beyond the host's limits (a shared host)."""
        check_suite_capacity(self._client, n, name="num_envs")

    def attempt(self, item: Any, attempt: int, last: bool) -> dict[str, Any] | None:
        """One attempt's record; None when stopped (mid-episode, or before it began)."""
        with self._busy:
            if self._stop.is_set():
                return None
            try:
                return self._worker.attempt(item, attempt, last=last)
            except SuiteStopped:
                return None

    def close(self) -> None:
        """Stop the running attempt at its next step (this runs beside it), then delete
        the desktop and close the client. Idempotent."""
        self._stop.set()
        with self._busy:
            self._worker.close()
            self._client.close()


def _ray() -> Any:
    try:
        import ray
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            "the Ray runner needs Ray: pip install 'drums-gym[ray]'", name=exc.name
        ) from exc
    return ray


def run_suite_on_ray(
    config: SuiteConfig,
    policy_factory: PolicyFactory,
    out: str | os.PathLike[str],
    *,
    resume: bool = False,
    url: str | None = None,
    token: str | None = None,
    address: str | None = None,
    init: Mapping[str, Any] | None = None,
    worker_cpus: float = 1.0,
    max_worker_restarts: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> SuiteResult:
    """Run the suite ``config`` into ``out`` with ``config.num_envs`` Ray actors as its
    workers (see the module docstring).

    Args:
        config, policy_factory, out, resume, on_progress: as for
            `drums_gym.evaluation.run_suite` (``policy_factory`` must pickle).
        url, token: the Drums host every worker uses (default ``DRUMS_URL`` and
            ``DRUMS_TOKEN``); without one each worker starts an embedded local host.
        address: the Ray cluster (``"auto"``, ``"ray://head:10001"``; None: a running
            local Ray or a new one). Used only when Ray is not initialized yet; a Ray the
            runner starts is shut down at the end.
        init: more ``ray.init`` keyword arguments (e.g. ``{"num_cpus": 2}``).
        worker_cpus: CPUs each worker actor reserves (an embedded host renders desktops:
            about one CPU; with a shared host a worker mostly waits, so less).
        max_worker_restarts: workers that may die and be replaced (default ``num_envs``).

    Raises:
        as `run_suite`, and ModuleNotFoundError without Ray.
    """
    ray = _ray()
    started = time.monotonic()
    url = url if url is not None else (os.environ.get("DRUMS_URL") or None)
    token = token if token is not None else (os.environ.get("DRUMS_TOKEN") or None)
    environment = {k: v for k, v in os.environ.items() if k.startswith(_LOCAL_PREFIX)}
    base_seed = int(environment.get("DRUMS_LOCAL_SEED", "0") or 0)
    owns_ray = not ray.is_initialized()
    if owns_ray:
        ray.init(address=address, include_dashboard=False, **dict(init or {}))
    actor_class = ray.remote(SuiteActor)
    made = [0]

    def make_actor() -> Any:
        index = made[0]
        made[0] += 1
        env = dict(environment)
        if url is None:
            env["DRUMS_LOCAL_SEED"] = str(base_seed + index)
        return actor_class.options(num_cpus=worker_cpus, max_concurrency=2).remote(
            policy_factory, url=url, token=token, environment=env,
            max_steps=config.max_steps, policy_name=config.policy,
        )

    actors: list[Any] = []
    try:
        actors = [make_actor() for _ in range(config.num_envs)]
        spec = config.tasks[0] if len(config.tasks) == 1 else list(config.tasks)
        tasks = _get(ray, actors[0].tasks.remote(spec))
        if url is not None:
            _get(ray, actors[0].check_capacity.remote(config.num_envs))
        extra = {"runner": "ray", "record": False}
        with Journal.open(out, resume=resume) as journal:
            run = SuiteRun(config, tasks, journal, config.args(tasks, **extra), on_progress)
            run.write_summary()
            try:
                _drive(ray, run, actors, make_actor,
                       config.num_envs if max_worker_restarts is None else max_worker_restarts)
            except KeyboardInterrupt:
                _close(ray, actors)
                result = SuiteResult(run.write_summary(), run.finals(), run.attempts_run,
                                     time.monotonic() - started, Path(out))
                raise SuiteInterrupted(result) from None
            return SuiteResult(run.write_summary(), run.finals(), run.attempts_run,
                               time.monotonic() - started, Path(out))
    finally:
        _close(ray, actors)
        if owns_ray:
            ray.shutdown()


def _get(ray: Any, ref: Any, timeout: float | None = None) -> Any:
    """``ray.get``, a task's error raised as the error it wraps (a ValueError naming an
    unknown task, a PolicyError...)."""
    try:
        return ray.get(ref, timeout=timeout)
    except ray.exceptions.RayTaskError as exc:
        cause = exc.cause if isinstance(exc.cause, BaseException) else None
        if cause is not None:
            raise cause from None
        raise


def _drive(ray: Any, run: SuiteRun, actors: list[Any], make_actor: Any, restarts: int) -> None:
    """Hand attempts to idle actors until every item is final."""
    idle = list(actors)
    in_flight: dict[Any, tuple[Any, tuple[Any, int, bool]]] = {}
    while True:
        while idle:
            job = run.next()
            if job is None:
                break
            actor = idle.pop()
            in_flight[actor.attempt.remote(*job)] = (actor, job)
        if not in_flight:
            return
        ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
        for ref in ready:
            actor, job = in_flight.pop(ref)
            try:
                record = _get(ray, ref)
            except ray.exceptions.RayActorError as exc:
                if restarts <= 0:
                    raise RuntimeError(
                        f"Ray suite workers kept dying (last: {exc}); what is done is "
                        "written: resume to go on"
                    ) from exc
                restarts -= 1
                log.warning("drums-gym: a Ray suite worker died (%s); replacing it", exc)
                run.put_back(job[0], job[1])
                actors.remove(actor)
                actor = make_actor()
                actors.append(actor)
                idle.append(actor)
                continue
            if record is not None:
                run.complete(record)
            idle.append(actor)


def _close(ray: Any, actors: list[Any]) -> None:
    """Close every actor (its attempt stopped, its desktop deleted), then end it; bounded
    by `STOP_TIMEOUT_S` (leases bound what a hung worker keeps). Idempotent."""
    refs = [a.close.remote() for a in actors]
    if refs:
        ray.wait(refs, num_returns=len(refs), timeout=STOP_TIMEOUT_S)
    for actor in actors:
        ray.kill(actor)
    actors.clear()

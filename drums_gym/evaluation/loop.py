"""The vector evaluation loop: a policy over one task's vector env (``drums-gym eval --task``).

See :mod:`drums_gym.evaluation` for the statistics it keeps and an example.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .._loop import Members, Policy, check_capacity, needs_accessibility
from ..outcomes import UNKNOWN_REASON, EpisodeOutcome, rate, wilson_interval
from ..wrappers._vector_info import info_at, member_info
from .plan import resolve_task
from .recording import episode_stats

__all__ = [
    "EpisodeResult",
    "EvalSummary",
    "Evaluation",
    "StepTimings",
    "evaluate",
    "iter_episodes",
    "make_envs",
]


@dataclass(frozen=True)
class EpisodeResult:
    """One finished episode.

    Attributes:
        env_index: the sub-env it ran in.
        valid: whether it counts; an invalid episode's score is None, never 0.
        score: the checker's score (valid episodes only).
        success: valid and ``score >= success_threshold`` (1.0 by default).
        length: steps it took.
        reason: why it is invalid (None when valid).
        action_errors: actions the env rejected (a policy's mistakes, kept as data).
        task_id: the task it ran (empty when the env does not say).
        instruction: the task's instruction, as the episode's reset gave it.
        policy_stats: the policy's ``episode_stats()`` at the episode's end (a model
            policy's latency, tokens, errors), None when it has none.
    """

    env_index: int
    valid: bool
    score: float | None
    success: bool
    length: int
    reason: str | None = None
    action_errors: int = 0
    task_id: str = ""
    instruction: str = ""
    policy_stats: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (one line of an ``episodes.jsonl``)."""
        return asdict(self)


@dataclass
class StepTimings:
    """Seconds per step phase of valid episodes: ``action``, ``observe``, and ``verify``
    (at episode ends only), as the env reports them in ``info["timings"]``."""

    action: list[float] = field(default_factory=list)
    observe: list[float] = field(default_factory=list)
    verify: list[float] = field(default_factory=list)

    def mean_ms(self) -> dict[str, float | None]:
        """Mean milliseconds of ``step`` (action + observe), ``action``, ``observe`` and
        ``verify``; None where nothing was timed."""
        steps = [a + o for a, o in zip(self.action, self.observe, strict=True)]
        return {
            "step": _mean_ms(steps),
            "action": _mean_ms(self.action),
            "observe": _mean_ms(self.observe),
            "verify": _mean_ms(self.verify),
        }


def _mean_ms(values: list[float]) -> float | None:
    return round(1000 * math.fsum(values) / len(values), 2) if values else None


@dataclass(frozen=True)
class EvalSummary:
    """Statistics of finished episodes; invalid ones are counted, never scored.

    ``success_rate`` is over valid episodes, ``success_ci95`` its 95% Wilson interval,
    ``invalid_rate`` over all episodes, ``mean_score`` and ``mean_length`` (steps) over
    valid ones; rates and means are None when there is nothing to take them over.
    """

    episodes: int
    valid: int
    successes: int
    success_rate: float | None
    success_ci95: tuple[float, float] | None
    invalid_rate: float | None
    invalid_reasons: dict[str, int]
    mean_score: float | None
    mean_length: float | None
    action_errors: int

    @property
    def invalid(self) -> int:
        """Episodes that were invalid."""
        return self.episodes - self.valid

    @classmethod
    def from_results(cls, results: Iterable[EpisodeResult]) -> EvalSummary:
        """The summary of ``results`` (any iterable of :class:`EpisodeResult`)."""
        done = list(results)
        valid = [r for r in done if r.valid]
        successes = sum(r.success for r in valid)
        scores = [r.score for r in valid if r.score is not None]
        reasons = Counter(r.reason or UNKNOWN_REASON for r in done if not r.valid)
        return cls(
            episodes=len(done),
            valid=len(valid),
            successes=successes,
            success_rate=rate(successes, len(valid)),
            success_ci95=wilson_interval(successes, len(valid)),
            invalid_rate=rate(len(done) - len(valid), len(done)),
            invalid_reasons=dict(reasons.most_common()),
            mean_score=math.fsum(scores) / len(scores) if scores else None,
            mean_length=rate(sum(r.length for r in valid), len(valid)),
            action_errors=sum(r.action_errors for r in done),
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the statistics of ``eval --json``)."""
        out = asdict(self)
        out["invalid"] = self.invalid
        # rounded: a bound of 0 or 1 computes as 2.8e-17 or 0.9999999999999999
        ci = self.success_ci95
        out["success_ci95"] = [round(x, 6) for x in ci] if ci else None
        return out


def iter_episodes(
    envs: Any,
    policy: Policy | Sequence[Policy],
    episodes: int | None = None,
    *,
    spec: str = "policy",
    seed: int | None = None,
    success_threshold: float = 1.0,
    timings: StepTimings | None = None,
    on_step: Callable[[int], None] | None = None,
    on_action: Callable[[int, Policy], None] | None = None,
    on_start: Callable[[int, Mapping[str, Any]], None] | None = None,
) -> Iterator[EpisodeResult]:
    """Step ``envs`` (a vector env with ``NEXT_STEP`` autoreset, e.g.
    ``gym.make_vec("Drums/e0df059f", num_envs=4)`` or :func:`make_envs`) and yield each
    episode's result as it finishes, until ``episodes`` have (None: until the caller stops).

    ``policy`` is one policy shared by every sub-env or a sequence of ``num_envs`` (one
    per sub-env, reset at each of its episodes). ``timings`` (a :class:`StepTimings`)
    collects the step phases of valid episodes; ``on_step(vector_steps)`` is called after
    every vector step; ``on_action(i, policy)`` after sub-env ``i``'s policy answered its
    action, before the step (a recorder reads what the policy said:
    `drums_gym.evaluation.recording.step_extras`); ``on_start(i, info)`` when sub-env
    ``i`` starts an episode, with its reset info (``slot_id``: where to watch it). The
    caller owns ``envs`` (close it).
    """
    if episodes is not None and (
        isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1
    ):
        raise ValueError(f"episodes must be a positive int or None, got {episodes!r}")
    n = envs.num_envs
    members = Members(policy, n, spec)
    obs, infos = envs.reset(seed=seed)
    members.reset()
    if on_start is not None:
        for i in range(n):
            on_start(i, member_info(infos, i))
    instructions = [str(info_at(infos, "instruction", i, "")) for i in range(n)]
    tasks = [str(info_at(infos, "task_id", i, "") or "") for i in range(n)]
    live = np.array([bool(info_at(infos, "valid", i, True)) for i in range(n)])
    autoreset = np.zeros(n, dtype=bool)
    lengths = np.zeros(n, dtype=np.int64)
    errors = np.zeros(n, dtype=np.int64)
    yielded = 0
    vector_steps = 0
    while episodes is None or yielded < episodes:
        acting = live & ~autoreset
        actions = members.actions(obs, instructions, infos, acting)
        if on_action is not None:
            for i in map(int, np.flatnonzero(acting)):
                on_action(i, members.policies[i])
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        vector_steps += 1
        finished: list[EpisodeResult] = []
        for i in range(n):
            if autoreset[i]:  # this step reset sub-env i: its info is the new episode's
                instructions[i] = str(info_at(infos, "instruction", i, instructions[i]))
                tasks[i] = str(info_at(infos, "task_id", i, tasks[i]) or tasks[i])
                live[i] = bool(info_at(infos, "valid", i, True))
                lengths[i] = errors[i] = 0
                members.reset(i)
                if on_start is not None:
                    on_start(i, member_info(infos, i))
                continue
            lengths[i] += 1
            if info_at(infos, "action_error", i) is not None:
                errors[i] += 1
            valid_now = bool(info_at(infos, "valid", i, True))
            timing = info_at(infos, "timings", i)
            ended = bool(terminations[i] or truncations[i])
            if timings is not None and isinstance(timing, dict) and valid_now:
                timings.action.append(float(timing.get("action") or 0.0))
                timings.observe.append(float(timing.get("observe") or 0.0))
                if ended:
                    timings.verify.append(float(timing.get("verify") or 0.0))
            if not valid_now:
                live[i] = False
            if ended:
                end = EpisodeOutcome.from_info(member_info(infos, i), float(rewards[i]))
                finished.append(
                    EpisodeResult(
                        env_index=i,
                        valid=end.valid,
                        score=end.score,
                        success=end.valid and (end.score or 0.0) >= success_threshold,
                        length=int(lengths[i]),
                        reason=end.reason,
                        action_errors=int(errors[i]),
                        task_id=tasks[i],
                        instruction=instructions[i],
                        policy_stats=episode_stats(members.policies[i]),
                    )
                )
        autoreset = np.logical_or(terminations, truncations)
        if on_step is not None:
            on_step(vector_steps)
        for result in finished:
            if episodes is not None and yielded >= episodes:
                break
            yielded += 1
            yield result


@dataclass
class Evaluation:
    """What :func:`evaluate` returns: the results, their summary, timings, vector steps."""

    results: list[EpisodeResult]
    summary: EvalSummary
    timings: StepTimings
    vector_steps: int


def evaluate(
    envs: Any,
    policy: Policy | Sequence[Policy],
    episodes: int,
    *,
    spec: str = "policy",
    seed: int | None = None,
    on_episode: Callable[[EpisodeResult], None] | None = None,
    on_action: Callable[[int, Policy], None] | None = None,
    on_start: Callable[[int, Mapping[str, Any]], None] | None = None,
) -> Evaluation:
    """Run :func:`iter_episodes` until ``episodes`` have finished and summarize them."""
    timings = StepTimings()
    steps = [0]

    def count(vector_steps: int) -> None:
        steps[0] = vector_steps

    results = []
    for result in iter_episodes(
        envs, policy, episodes, spec=spec, seed=seed, timings=timings, on_step=count,
        on_action=on_action, on_start=on_start,
    ):
        results.append(result)
        if on_episode is not None:
            on_episode(result)
    return Evaluation(results, EvalSummary.from_results(results), timings, steps[0])


def make_envs(
    task: str,
    num_envs: int,
    *,
    max_steps: int = 15,
    url: str | None = None,
    token: str | None = None,
    accessibility: bool | None = None,
    policy: Any = None,
    wrap: Callable[[Any], Any] | None = None,
    name: str = "num_envs",
) -> Any:
    """The vector env of an evaluation: ``gym.make_vec`` of ``Drums/<task>`` with
    ``num_envs`` children, after checking the host can hold them (the fork and live-desktop
    limits; the error names ``name``).

    ``accessibility`` None: on when ``policy`` (one or a sequence) has
    ``needs_accessibility``. ``wrap(envs)`` may add wrappers (e.g. a recorder); the env is
    closed if it raises.
    """
    import gymnasium as gym

    from ..client import connect
    from ..envs import register_task

    with connect(url=url, token=token) as client:
        task = resolve_task(client, task)  # the one unknown-task message
        check_capacity(client, num_envs, name=name)
    env_id = register_task(task)
    if accessibility is None:
        accessibility = policy is not None and needs_accessibility(policy)
    envs = gym.make_vec(
        env_id, num_envs=num_envs, max_episode_steps=max_steps, url=url, token=token,
        accessibility=accessibility,
    )
    if wrap is None:
        return envs
    try:
        return wrap(envs)
    except BaseException:
        envs.close()
        raise

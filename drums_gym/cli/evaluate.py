"""``drums-gym eval``: vectorized evaluation of a policy on a task.

Runs ``gym.make_vec("Drums/<task>", num_envs=K)`` (children forked from one desktop,
``NEXT_STEP`` autoreset) until ``--episodes`` episodes have finished, then reports the
success rate over VALID episodes (score >= 1.0) with a 95% Wilson interval, the invalid
rate by reason, and the mean step latency.

    drums-gym eval --task e0df059f --episodes 20 --num-envs 4 --policy random
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..client import DrumsError, connect
from ._common import (
    add_connection_args,
    add_output_args,
    dump_json,
    fail,
    fit_to_terminal,
    info_at,
    member_info,
    positive_int,
)
from ._progress import Progress
from .policies import (
    Policy,
    call_policy,
    load_policies,
    needs_accessibility,
    per_member,
    reset_policy,
)

__all__ = ["EpisodeRecord", "add_parser", "evaluate", "run", "wilson_interval"]

#: z of a two-sided 95% interval
Z95 = 1.959963984540054
#: the action of a sub-env whose step is an autoreset (NEXT_STEP): ignored by the env
IGNORED_ACTION = "WAIT"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="vectorized evaluation: success rate over valid episodes",
        description=(
            "Run the policy in a vector env of --num-envs desktops until --episodes episodes "
            "have finished. Success rate is over VALID episodes (score >= 1.0), with a 95%% "
            "Wilson interval; invalid episodes are counted by reason, never scored as 0."
        ),
    )
    p.add_argument("--task", default="e0df059f", help="task id or its first 8 characters")
    p.add_argument(
        "--episodes", type=positive_int, default=8, help="episodes to finish (default 8)"
    )
    p.add_argument(
        "--num-envs", type=positive_int, default=4, help="desktops stepped together (default 4)"
    )
    p.add_argument(
        "--steps", type=positive_int, default=15, help="step budget of each episode (default 15)"
    )
    p.add_argument(
        "--policy",
        default="random",
        help="'random' (default), MODULE:CALLABLE or FILE.py:CALLABLE; a class or a "
        "factory taking seed= is called with --seed (see drums_gym.cli.policies)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the policy (default 0)")
    p.add_argument(
        "--record",
        default=None,
        metavar="DIR",
        help="record every episode (frames, steps.jsonl, GIF) of sub-env k under "
        "DIR/env-<k>/episode-NNNNNN/ (the same forked desktops as without --record)",
    )
    add_connection_args(p)
    add_output_args(p)
    p.set_defaults(run=run)


# ---------------------------------------------------------------------------------- statistics


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a binomial proportion; None when ``n == 0``.

    >>> lo, hi = wilson_interval(3, 18)
    >>> round(lo, 3), round(hi, 3)
    (0.058, 0.392)
    >>> wilson_interval(0, 0) is None
    True
    """
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n={n}], got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


@dataclass
class EpisodeRecord:
    """One finished episode, as the statistics wrapper reported it."""

    env_index: int
    valid: bool
    score: float | None
    success: bool
    length: int
    reason: str | None


# ---------------------------------------------------------------------------------- running


def evaluate(
    envs: Any,
    policy: Policy | Sequence[Policy],
    episodes: int,
    *,
    spec: str = "policy",
    seed: int | None = None,
    progress: Progress | None = None,
) -> tuple[list[EpisodeRecord], dict[str, list[float]], int]:
    """Step ``envs`` (wrapped in ``DrumsVectorEpisodeStatistics``, NEXT_STEP autoreset)
    until ``episodes`` episodes have finished.

    Returns the first ``episodes`` finished episodes, the per-step timings (seconds) of
    ``"action"``, ``"observe"`` and ``"verify"`` (verify: at episode ends only), and the
    number of vector steps taken.
    """
    n = envs.num_envs
    policies = per_member(policy, n)
    obs, infos = envs.reset(seed=seed)
    for member in policies:
        reset_policy(member)
    instructions = [str(info_at(infos, "instruction", i, "")) for i in range(n)]
    autoreset = np.zeros(n, dtype=bool)
    finished: list[EpisodeRecord] = []
    timings: dict[str, list[float]] = {"action": [], "observe": [], "verify": []}
    vector_steps = 0
    while len(finished) < episodes:
        actions = [
            IGNORED_ACTION
            if autoreset[i]
            else call_policy(policies[i], obs[i], instructions[i], spec, member_info(infos, i))
            for i in range(n)
        ]
        obs, _, terminations, truncations, infos = envs.step(actions)
        vector_steps += 1
        for i in range(n):
            if autoreset[i]:  # this step reset sub-env i: its info is the new episode's
                instructions[i] = str(info_at(infos, "instruction", i, instructions[i]))
                reset_policy(policies[i])
                continue
            timing = info_at(infos, "timings", i)
            if isinstance(timing, dict) and info_at(infos, "valid", i, True):
                timings["action"].append(float(timing.get("action") or 0.0))
                timings["observe"].append(float(timing.get("observe") or 0.0))
                if terminations[i] or truncations[i]:
                    timings["verify"].append(float(timing.get("verify") or 0.0))
        stats = infos.get("episode")
        if stats is not None:
            for i in np.flatnonzero(infos["_episode"]):
                if len(finished) >= episodes:
                    break
                valid = bool(stats["valid"][i])
                finished.append(
                    EpisodeRecord(
                        env_index=int(i),
                        valid=valid,
                        score=float(stats["r"][i]) if valid else None,
                        success=bool(stats["success"][i]),
                        length=int(stats["l"][i]),
                        reason=None if valid else str(stats["invalid_reason"][i] or "unknown"),
                    )
                )
        autoreset = np.logical_or(terminations, truncations)
        if progress is not None:
            progress.set(len(finished))
    return finished, timings, vector_steps


def make_envs(
    env_id: str,
    num_envs: int,
    steps: int,
    url: str | None,
    record: str | None,
    accessibility: bool = False,
) -> Any:
    """The vector env under evaluation, wrapped with the Drums episode statistics."""
    from ..wrappers import DrumsVectorEpisodeStatistics, VectorRecordTrajectory

    envs = gym.make_vec(
        env_id, num_envs=num_envs, max_episode_steps=steps, url=url, accessibility=accessibility
    )
    if record is not None:
        try:
            envs = VectorRecordTrajectory(envs, Path(record))
        except BaseException:
            envs.close()
            raise
    try:
        return DrumsVectorEpisodeStatistics(envs, buffer_length=10**6)
    except BaseException:
        envs.close()
        raise


def _check_limits(url: str | None, num_envs: int) -> None:
    """Refuse up front what the host would refuse midway (a fork above its limit)."""
    with connect(url=url) as client:
        limits = client.host().limits
    if limits.fork_limit is not None and num_envs > limits.fork_limit:
        raise ValueError(
            f"--num-envs {num_envs} exceeds the host's fork limit of {limits.fork_limit} children"
        )
    live = limits.live_desktops
    if live is not None and num_envs + 1 > live:  # the children and their parent
        raise ValueError(
            f"--num-envs {num_envs} needs more desktops than the host's limit "
            f"of {live} live desktops"
        )


def run(args: argparse.Namespace) -> int:
    from ..envs import register_task

    try:
        policies = load_policies(args.policy, args.seed, args.num_envs, task=args.task)
        env_id = register_task(args.task)
    except ValueError as exc:
        return fail("eval", exc)

    envs = None
    progress: Progress | None = None
    started = time.perf_counter()
    try:
        _check_limits(args.url, args.num_envs)
        envs = make_envs(
            env_id, args.num_envs, args.steps, args.url, args.record, needs_accessibility(policies)
        )
        progress = Progress(args.episodes, "episodes", enabled=args.progress)
        finished, timings, vector_steps = evaluate(
            envs, policies, args.episodes, spec=args.policy, seed=args.seed, progress=progress
        )
        task_id, instruction = _task_of(envs, args.task)
    except (DrumsError, ValueError) as exc:
        return fail("eval", exc)
    finally:
        if progress is not None:
            progress.close()
        if envs is not None:
            envs.close()

    summary = _summary(
        args,
        env_id,
        task_id,
        instruction,
        finished,
        timings,
        vector_steps,
        time.perf_counter() - started,
    )
    if args.json:
        dump_json(summary)
    else:
        print(render(summary))
    return 0


def _task_of(envs: Any, default: str) -> tuple[str, str]:
    """(task id, instruction) of the envs under evaluation: the fork parent's, or the
    first sub-env's."""
    base = envs.unwrapped
    env = getattr(base, "parent", None)
    if env is None and getattr(base, "envs", None):
        env = base.envs[0].unwrapped
    return str(getattr(env, "task_id", default)), str(getattr(env, "instruction", ""))


# ---------------------------------------------------------------------------------- output


def _mean_ms(values: list[float]) -> float | None:
    return round(1000 * math.fsum(values) / len(values), 2) if values else None


def _summary(
    args: argparse.Namespace,
    env_id: str,
    task_id: str,
    instruction: str,
    finished: list[EpisodeRecord],
    timings: dict[str, list[float]],
    vector_steps: int,
    elapsed: float,
) -> dict[str, Any]:
    valid = [e for e in finished if e.valid]
    successes = sum(e.success for e in valid)
    interval = wilson_interval(successes, len(valid))
    reasons = Counter(e.reason or "unknown" for e in finished if not e.valid)
    scores = [e.score for e in valid if e.score is not None]
    steps = [a + o for a, o in zip(timings["action"], timings["observe"], strict=True)]
    return {
        "env_id": env_id,
        "task": task_id,
        "instruction": instruction,
        "policy": args.policy,
        "seed": args.seed,
        "num_envs": args.num_envs,
        "steps": args.steps,
        "episodes": len(finished),
        "valid": len(valid),
        "invalid": len(finished) - len(valid),
        "successes": successes,
        "success_rate": successes / len(valid) if valid else None,
        "success_ci95": list(interval) if interval is not None else None,
        "invalid_rate": (len(finished) - len(valid)) / len(finished) if finished else None,
        "invalid_reasons": dict(reasons.most_common()),
        "mean_score": math.fsum(scores) / len(scores) if scores else None,
        "mean_length": (sum(e.length for e in valid) / len(valid)) if valid else None,
        "latency_ms": {
            "step": _mean_ms(steps),
            "action": _mean_ms(timings["action"]),
            "observe": _mean_ms(timings["observe"]),
            "verify": _mean_ms(timings["verify"]),
        },
        "vector_steps": vector_steps,
        "record": args.record,
        "elapsed_s": round(elapsed, 3),
    }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def render(summary: dict[str, Any]) -> str:
    """The terminal report of an evaluation summary."""
    s = summary
    lines = [
        f"eval     {s['env_id']}: {s['episodes']} episodes on {s['num_envs']} envs, "
        f"up to {s['steps']} steps, policy {s['policy']} (seed {s['seed']})",
        "task     " + fit_to_terminal(s["instruction"], used=9),
        "",
    ]
    ci = s["success_ci95"]
    ci_text = f"95% Wilson CI {_pct(ci[0])} - {_pct(ci[1])}" if ci else "no valid episode"
    reasons = ", ".join(f"{k} x{v}" for k, v in s["invalid_reasons"].items())
    lat = s["latency_ms"]
    rows = [
        (
            "success rate",
            _pct(s["success_rate"]),
            f"{s['successes']} of {s['valid']} valid episodes ({ci_text})",
        ),
        (
            "invalid rate",
            _pct(s["invalid_rate"]),
            f"{s['invalid']} of {s['episodes']} episodes" + (f": {reasons}" if reasons else ""),
        ),
        (
            "mean score",
            "-" if s["mean_score"] is None else f"{s['mean_score']:.2f}",
            "over valid episodes",
        ),
        (
            "mean length",
            "-" if s["mean_length"] is None else f"{s['mean_length']:.1f}",
            "steps, valid episodes",
        ),
        (
            "step latency",
            _ms(lat["step"]),
            f"action {_ms(lat['action'])} + observe {_ms(lat['observe'])}; "
            f"verify {_ms(lat['verify'])} at episode end",
        ),
        ("wall time", f"{s['elapsed_s']:.1f}s", f"{s['vector_steps']} vector steps"),
    ]
    if s["record"]:
        rows.append(("recorded", "", f"{s['record']}/env-<k>/episode-NNNNNN/"))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines.extend(f"{a.ljust(w0)}  {b.rjust(w1)}  {c}".rstrip() for a, b, c in rows)
    return "\n".join(lines)

"""``drums-gym rollout``: GRPO-style groups of rollouts forked from one desktop.

The loop of the Drums guide, in Gymnasium terms: make a `DrumsDesktopEnv`, reset it
(and run the optional ``--prefix`` actions on it), fork it into a vector env of ``--n``
children, run the policy in every child until its episode ends, and report each group:
how many members were valid, their scores, and their group-relative advantages. Invalid
members (a failed gate, a crash, a failed fork child...) get no advantage and stay out of
the mean; their reasons are counted.

    drums-gym rollout --task e0df059f --n 8 --groups 2 --steps 15 --policy random
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..client import DrumsError
from ..grpo import GroupResult
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
from ._table import format_table
from .policies import (
    Policy,
    call_policy,
    load_policies,
    needs_accessibility,
    per_member,
    reset_policy,
)

__all__ = ["GroupOutcome", "MemberOutcome", "add_parser", "run", "run_groups"]

#: the action of a member whose episode already ended, while the others go on: with
#: DISABLED autoreset the fork vector env lets such a member sit out (action ignored)
IDLE_ACTION = "WAIT"
#: attempts at a parent episode whose gates pass before giving up
PARENT_ATTEMPTS = 3


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "rollout",
        help="GRPO-style groups of rollouts forked from one desktop",
        description=(
            "Reset one desktop for TASK, run the --prefix actions on it, then fork it into "
            "groups of --n children and run the policy in each until its episode ends. "
            "Prints each group's valid members, scores and group-relative advantages "
            "(invalid members are left out and their reasons counted)."
        ),
    )
    p.add_argument("--task", default="e0df059f", help="task id or its first 8 characters")
    p.add_argument("--n", type=positive_int, default=8, help="members per group (default 8)")
    p.add_argument("--groups", type=positive_int, default=2, help="groups (default 2)")
    p.add_argument(
        "--steps",
        type=positive_int,
        default=15,
        help="step budget of each member's episode (default 15)",
    )
    p.add_argument(
        "--policy",
        default="random",
        help="'random' (default), MODULE:CALLABLE or FILE.py:CALLABLE; a class or a "
        "factory taking seed= is called with --seed (see drums_gym.cli.policies)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the policy (default 0)")
    p.add_argument(
        "--prefix",
        action="append",
        default=[],
        metavar="CODE",
        help="pyautogui code run on the parent before forking (repeatable)",
    )
    add_connection_args(p)
    add_output_args(p)
    p.set_defaults(run=run)


# ---------------------------------------------------------------------------------- results


@dataclass
class MemberOutcome:
    """How one member's episode ended."""

    valid: bool
    score: float | None
    reason: str | None
    steps: int
    action_errors: int = 0


@dataclass
class GroupOutcome:
    """One group: its members' outcomes and the advantages of the valid ones."""

    index: int
    members: list[MemberOutcome]
    elapsed_s: float
    result: GroupResult = field(init=False)

    def __post_init__(self) -> None:
        self.result = GroupResult.from_scores(
            [m.score if m.valid and m.score is not None else None for m in self.members],
            reasons=[None if m.valid else m.reason for m in self.members],
        )

    def to_json(self) -> dict[str, Any]:
        summary = self.result.summary()
        return {
            "group": self.index,
            **summary,
            "scores": list(self.result.scores),
            "advantages": list(self.result.advantages),
            "steps": [m.steps for m in self.members],
            "action_errors": [m.action_errors for m in self.members],
            "elapsed_s": round(self.elapsed_s, 3),
        }


# ---------------------------------------------------------------------------------- running


def run_groups(
    parent: Any,
    *,
    n: int,
    groups: int,
    policy: Policy | Sequence[Policy],
    spec: str = "policy",
    progress: Progress | None = None,
) -> list[GroupOutcome]:
    """Fork ``parent`` (a reset `DrumsDesktopEnv`) into ``groups`` groups of ``n`` and run
    ``policy`` in each member until its episode ends (a sequence: one policy per member,
    each reset at the start of a group). The vector env is closed on return and on any
    exception."""
    policies = per_member(policy, n)
    steps = parent.max_steps
    instruction = parent.instruction
    outcomes: list[GroupOutcome] = []
    # DISABLED: each member runs one episode; vec.reset() starts the next group from the
    # fork point (new children), and no member is re-forked mid-group
    vec = parent.fork_vector(n, autoreset_mode="DISABLED")
    try:
        for g in range(groups):
            started = time.perf_counter()
            note = f"group {g + 1}/{groups}"
            obs, infos = vec.reset()
            for member in policies:
                reset_policy(member)
            done = np.zeros(n, dtype=bool)
            members: list[MemberOutcome | None] = [None] * n
            action_errors = np.zeros(n, dtype=np.int64)
            step = 0
            while not done.all():
                actions = [
                    IDLE_ACTION
                    if done[i]
                    else call_policy(policies[i], obs[i], instruction, spec, member_info(infos, i))
                    for i in range(n)
                ]
                obs, rewards, terminations, truncations, infos = vec.step(actions)
                step += 1
                for i in np.flatnonzero(~done):
                    if info_at(infos, "action_error", i) is not None:
                        action_errors[i] += 1
                    if terminations[i] or truncations[i]:
                        valid = bool(info_at(infos, "valid", i, True))
                        members[i] = MemberOutcome(
                            valid=valid,
                            score=float(rewards[i]) if valid else None,
                            reason=None
                            if valid
                            else str(info_at(infos, "invalid_reason", i) or "unknown"),
                            steps=step,
                            action_errors=int(action_errors[i]),
                        )
                        done[i] = True
                if progress is not None:
                    progress.set(g * steps + min(step, steps), note=note)
                if step > steps + 1:  # the env's step budget ends every episode before this
                    raise RuntimeError(f"episodes did not end within {steps} steps")
            if progress is not None:
                progress.set((g + 1) * steps, note=note)
            finished = [m for m in members if m is not None]
            outcomes.append(GroupOutcome(g + 1, finished, time.perf_counter() - started))
    finally:
        vec.close()
    return outcomes


def _start_parent(parent: Any, prefix: list[str], seed: int) -> None:
    """Reset the parent until its episode is valid, then run the prefix actions on it."""
    reason = None
    for attempt in range(PARENT_ATTEMPTS):
        _, info = parent.reset(seed=seed if attempt == 0 else None)
        if info.get("valid", True):
            break
        reason = info.get("invalid_reason")
        print(
            f"drums-gym rollout: the parent's episode is invalid ({reason}); resetting it",
            file=sys.stderr,
        )
    else:
        raise ValueError(
            f"the parent desktop's episode was invalid {PARENT_ATTEMPTS} times "
            f"(last reason: {reason})"
        )
    for code in prefix:
        _, _, terminated, truncated, info = parent.step(code)
        if info.get("action_error"):
            raise ValueError(f"--prefix {code!r} was rejected: {info['action_error']}")
        if not info.get("valid", True):
            raise ValueError(
                f"the parent's episode became invalid during --prefix {code!r} "
                f"({info.get('invalid_reason')})"
            )
        if terminated or truncated:
            raise ValueError(f"--prefix {code!r} ended the parent's episode")


def _check_fork_size(parent: Any, n: int) -> None:
    """Refuse up front what the host would refuse at the first fork."""
    limits = parent.client.host().limits
    if limits.fork_limit is not None and n > limits.fork_limit:
        raise ValueError(f"--n {n} exceeds the host's fork limit of {limits.fork_limit} children")
    if limits.live_desktops is not None and n + 1 > limits.live_desktops:
        raise ValueError(
            f"--n {n} children and their parent exceed the host's limit of "
            f"{limits.live_desktops} live desktops"
        )


def run(args: argparse.Namespace) -> int:
    from ..envs import DrumsDesktopEnv

    for code in args.prefix:
        if code.strip().upper() in ("DONE", "FAIL"):
            return fail(
                "rollout",
                ValueError(f"--prefix {code!r}: a prefix cannot end the parent's episode"),
            )
    if len(args.prefix) >= args.steps:
        return fail(
            "rollout",
            ValueError(
                f"{len(args.prefix)} --prefix actions leave no step of the --steps {args.steps} "
                "budget (the parent's episode shares it)"
            ),
        )
    try:
        policies = load_policies(args.policy, args.seed, args.n, task=args.task)
    except ValueError as exc:
        return fail("rollout", exc)

    parent = None
    progress: Progress | None = None
    started = time.perf_counter()
    try:
        parent = DrumsDesktopEnv(
            args.task,
            url=args.url,
            max_steps=args.steps,
            accessibility=needs_accessibility(policies),
        )
        _check_fork_size(parent, args.n)
        _start_parent(parent, args.prefix, args.seed)
        progress = Progress(args.groups * args.steps, "steps", enabled=args.progress)
        outcomes = run_groups(
            parent,
            n=args.n,
            groups=args.groups,
            policy=policies,
            spec=args.policy,
            progress=progress,
        )
    except (DrumsError, ValueError) as exc:
        return fail("rollout", exc)
    finally:
        if progress is not None:
            progress.close()
        if parent is not None:
            parent.close()

    elapsed = time.perf_counter() - started
    summary = _summary(args, parent, outcomes, elapsed)
    if args.json:
        dump_json(summary)
    else:
        print(render(summary))
    return 0


# ---------------------------------------------------------------------------------- output


def _summary(
    args: argparse.Namespace, parent: Any, outcomes: list[GroupOutcome], elapsed: float
) -> dict[str, Any]:
    members = [m for o in outcomes for m in o.members]
    total = GroupResult.from_scores(
        [m.score if m.valid else None for m in members],
        reasons=[None if m.valid else m.reason for m in members],
    ).summary()
    return {
        "task": parent.task_id,
        "env_id": f"Drums/{parent.task_id[:8]}",
        "instruction": parent.instruction,
        "policy": args.policy,
        "seed": args.seed,
        "n": args.n,
        "groups": [o.to_json() for o in outcomes],
        "steps": args.steps,
        "prefix": list(args.prefix),
        "total": total,
        "elapsed_s": round(elapsed, 3),
    }


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    if math.isclose(value, 0.0, abs_tol=5e-3):
        value = 0.0  # no "-0.00"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _cells(values: list[float | None], signed: bool) -> str:
    texts = [_num(v, signed) for v in values]
    width = max(len(t) for t in texts)
    return " ".join(t.rjust(width) for t in texts)


def _reasons(reasons: dict[str, int]) -> str:
    if not reasons:
        return "-"
    return ", ".join(
        f"{name} x{count}" for name, count in sorted(reasons.items(), key=lambda kv: -kv[1])
    )


def render(summary: dict[str, Any]) -> str:
    """The terminal report of a rollout summary: a header, one row per group, a total."""
    groups = summary["groups"]
    n_groups = len(groups)
    header = (
        f"rollout  {summary['env_id']}: {n_groups} group{'s' * (n_groups != 1)} x "
        f"{summary['n']} members, up to {summary['steps']} steps, policy {summary['policy']} "
        f"(seed {summary['seed']})"
    )
    lines = [header]
    lines.append("task     " + fit_to_terminal(summary["instruction"], used=9))
    if summary["prefix"]:
        lines.append("prefix   " + "; ".join(summary["prefix"]))
    lines.append("")
    rows = []
    for g in groups:
        rows.append(
            [
                str(g["group"]),
                f"{g['valid']}/{g['n']}",
                _num(g["mean_score"]),
                _cells(g["scores"], signed=False),
                _cells(g["advantages"], signed=True),
                _reasons(g["invalid_reasons"]),
            ]
        )
    lines.append(
        format_table(
            ["group", "valid", "mean", "scores", "advantages", "invalid"], rows, align="rrrlll"
        )
    )
    total = summary["total"]
    successes = total["successes"]
    reasons = Counter(total["invalid_reasons"])
    lines.append("")
    lines.append(
        f"total    {total['valid']}/{total['n']} valid, mean score {_num(total['mean_score'])}, "
        f"{successes} success{'es' * (successes != 1)}, "
        f"invalid: {_reasons(dict(reasons))}, {summary['elapsed_s']:.1f}s"
    )
    lines.append(
        "         advantage = (score - group mean) / (group std + 1e-6) over valid "
        "members; '-': invalid, left out"
    )
    return "\n".join(lines)

"""GRPO group rollouts as a library: fork one desktop into groups and run a policy in each.

The loop of the Drums guide in Gymnasium terms: reset a `DrumsDesktopEnv` (the parent),
optionally step it to the shared starting point (:func:`start_parent`), then fork it into
``groups`` groups of ``n`` children and run the policy in every child until its episode
ends. Each group's valid members get group-relative advantages
(:class:`drums_gym.grpo.GroupResult`); invalid members (a failed gate, a crash, a failed
fork child) get none, stay out of the mean, and are counted by reason. A policy is never
asked for an action for a member whose episode is over or invalid, so one bad child never
stops a run.

Example (the embedded local host when ``DRUMS_URL`` is unset)::

    from drums_gym.envs import DrumsDesktopEnv
    from drums_gym.rollouts import run_groups, start_parent, total

    def policy(observation, instruction):
        return "DONE"

    parent = DrumsDesktopEnv("e0df059f", max_steps=5)
    try:
        start_parent(parent, seed=0)
        groups = run_groups(parent, n=4, groups=2, policy=policy)
    finally:
        parent.close()
    for group in groups:
        print(group.index, group.result.scores, group.result.advantages)
    print(total(groups).summary())       # {'n': 8, 'valid': 8, ...}
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._loop import Members, Policy, check_capacity
from .grpo import GroupResult
from .outcomes import EpisodeOutcome
from .wrappers._vector_info import info_at, member_info

__all__ = [
    "PARENT_ATTEMPTS",
    "GroupOutcome",
    "MemberOutcome",
    "iter_groups",
    "run_groups",
    "start_parent",
    "total",
]

#: attempts at a parent episode whose gates pass before :func:`start_parent` gives up
PARENT_ATTEMPTS = 3


@dataclass
class MemberOutcome:
    """How one member's episode ended: validity, score (None when invalid), reason, the
    steps it took and how many of its actions the env rejected."""

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
    steps: int = 0  # vector steps the group took (its longest member's)
    result: GroupResult = field(init=False)

    def __post_init__(self) -> None:
        self.result = _result(self.members)

    @property
    def action_errors(self) -> int:
        """Actions of this group's members that the env rejected."""
        return sum(m.action_errors for m in self.members)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record of the group (the ``rollout --json`` shape)."""
        return {
            "group": self.index,
            **self.result.summary(),
            "scores": list(self.result.scores),
            "advantages": list(self.result.advantages),
            "steps": [m.steps for m in self.members],
            "action_errors": [m.action_errors for m in self.members],
            "elapsed_s": round(self.elapsed_s, 3),
        }


def _result(members: Sequence[MemberOutcome]) -> GroupResult:
    return GroupResult.from_scores(
        [m.score if m.valid else None for m in members],
        reasons=[None if m.valid else m.reason for m in members],
    )


def total(groups: Sequence[GroupOutcome]) -> GroupResult:
    """All members of ``groups`` as one result (for totals: counts, mean, reasons)."""
    return _result([m for g in groups for m in g.members])


def start_parent(
    parent: Any,
    prefix: Sequence[str] = (),
    seed: int | None = None,
    *,
    attempts: int = PARENT_ATTEMPTS,
    on_retry: Callable[[str | None], None] | None = None,
    label: str = "prefix",
) -> None:
    """Reset ``parent`` until its episode is valid (up to ``attempts`` times), then run
    the ``prefix`` actions on it: the shared starting point of every group.

    ``on_retry(reason)`` is called before each new attempt. Raises ValueError (naming a
    prefix action as ``label``) when the parent stays invalid, a prefix action is
    rejected, makes the episode invalid, or ends it.
    """
    for code in prefix:
        if code.strip().upper() in ("DONE", "FAIL"):
            raise ValueError(f"{label} {code!r}: a prefix cannot end the parent's episode")
    reason = None
    for attempt in range(attempts):
        _, info = parent.reset(seed=seed if attempt == 0 else None)
        if info.get("valid", True):
            break
        reason = info.get("invalid_reason")
        if on_retry is not None:
            on_retry(reason)
    else:
        raise ValueError(
            f"the parent desktop's episode was invalid {attempts} times (last reason: {reason})"
        )
    for code in prefix:
        _, _, terminated, truncated, info = parent.step(code)
        if info.get("action_error"):
            raise ValueError(f"{label} {code!r} was rejected: {info['action_error']}")
        if not info.get("valid", True):
            raise ValueError(
                f"the parent's episode became invalid during {label} {code!r} "
                f"({info.get('invalid_reason')})"
            )
        if terminated or truncated:
            raise ValueError(f"{label} {code!r} ended the parent's episode")


def iter_groups(
    parent: Any,
    *,
    n: int,
    groups: int,
    policy: Policy | Sequence[Policy],
    spec: str = "policy",
    on_step: Callable[[int, int], None] | None = None,
    on_start: Callable[[int, Any], None] | None = None,
) -> Iterator[GroupOutcome]:
    """Fork ``parent`` (a reset `DrumsDesktopEnv`) into ``groups`` groups of ``n`` and
    yield each group's outcome as it finishes.

    ``policy`` is one policy shared by every member or a sequence of ``n`` (one per member,
    each reset at the start of a group). ``on_step(group_index, step)`` is called after
    every vector step (``step`` counts from 1 within the group); ``on_start(group_index,
    infos)`` when a group's children are forked (their reset infos: ``slot_id``). The
    vector env is closed
    when the iterator finishes, is closed, or raises.
    """
    check_capacity(parent.client, n)
    members = Members(policy, n, spec)
    budget = int(parent.max_steps)
    instructions = [str(parent.instruction)] * n
    # DISABLED: each member runs one episode; vec.reset() starts the next group from the
    # fork point (new children), and no member is re-forked mid-group
    vec = parent.fork_vector(n, autoreset_mode="DISABLED")
    try:
        for g in range(1, groups + 1):
            started = time.perf_counter()
            obs, infos = vec.reset()
            members.reset()
            if on_start is not None:
                on_start(g, infos)
            done = np.zeros(n, dtype=bool)
            # a member whose episode is invalid from the start is never asked to act
            live = np.array([bool(info_at(infos, "valid", i, True)) for i in range(n)])
            outcomes: list[MemberOutcome | None] = [None] * n
            errors = np.zeros(n, dtype=np.int64)
            step = 0
            while not done.all():
                actions = members.actions(obs, instructions, infos, live & ~done)
                obs, rewards, terminations, truncations, infos = vec.step(actions)
                step += 1
                for i in map(int, np.flatnonzero(~done)):
                    if info_at(infos, "action_error", i) is not None:
                        errors[i] += 1
                    if terminations[i] or truncations[i]:
                        end = EpisodeOutcome.from_info(member_info(infos, i), float(rewards[i]))
                        outcomes[i] = MemberOutcome(
                            end.valid, end.score, end.reason, step, int(errors[i])
                        )
                        done[i] = True
                    elif not info_at(infos, "valid", i, True):
                        live[i] = False
                if on_step is not None:
                    on_step(g, step)
                if step > budget + 1:  # the env's step budget ends every episode before this
                    raise RuntimeError(f"episodes did not end within {budget} steps")
            finished = [m for m in outcomes if m is not None]
            yield GroupOutcome(g, finished, time.perf_counter() - started, steps=step)
    finally:
        vec.close()


def run_groups(
    parent: Any,
    *,
    n: int,
    groups: int,
    policy: Policy | Sequence[Policy],
    spec: str = "policy",
    on_step: Callable[[int, int], None] | None = None,
) -> list[GroupOutcome]:
    """:func:`iter_groups`, collected into a list."""
    return list(
        iter_groups(parent, n=n, groups=groups, policy=policy, spec=spec, on_step=on_step)
    )

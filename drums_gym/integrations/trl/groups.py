"""`ForkGroups`: the rollouts of one prompt's GRPO group start from one forked state.

TRL resets its pooled environments one after another, a group's rows (``num_generations``
copies of one prompt) side by side. The first member of a group makes a parent desktop
(reset, waited valid, the shared ``prefix`` actions applied once), forks it into the
group's size in one branch call (``ceil(size / fork_limit)`` past the host's fork limit),
and deletes the parent; each member then plays one child. So every member starts from the
same saved state, which is what GRPO compares rollouts from.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...client import Client, DrumsError
from ...envs import DrumsDesktopEnv
from ...envs._episode import EpisodeRunner
from ...envs._forking import Forker
from .._validity import validity

__all__ = ["ForkGroups", "GroupMember"]

#: attempts at a parent desktop that comes up valid (with its prefix) before giving up
PARENT_ATTEMPTS = 3


def row_key(task: str, row: Mapping[str, Any]) -> str:
    """Which group a row belongs to: its task and its columns (a digest, never logged)."""
    text = repr((task, sorted((str(k), repr(v)) for k, v in row.items())))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class GroupMember:
    """One member's child desktop, as a single episode: stepped and verified like an env."""

    runner: EpisodeRunner
    task_id: str
    instruction: str
    group: int

    @property
    def slot(self) -> Any:
        return self.runner.slot

    def step(self, action: str) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return self.runner.step(action).astuple()

    def close(self) -> None:
        """Delete the child desktop (already gone: its lease bounds it)."""
        slot, self.runner.slot = self.runner.slot, None
        if slot is not None:
            with contextlib.suppress(DrumsError):  # already gone: its lease bounds it
                slot.delete()


@dataclass
class _Group:
    key: str
    number: int
    members: list[GroupMember] = field(default_factory=list)


class ForkGroups:
    """Hands each rollout a child of its group's forked state.

    Args:
        size: members per group (TRL's ``num_generations``); None until the trainer
            says it (``DrumsEnvironments.on_train_begin``).
        prefix: actions applied once on the parent before it is forked (a mid-episode
            start shared by the group); the children's step limit starts after them.
        env_kwargs: for the parent :class:`DrumsDesktopEnv` (``randomize=``, ``screen=``,
            ``max_steps=``, ...): the children inherit its desktop.
    """

    def __init__(
        self, size: int | None, prefix: Sequence[str], env_kwargs: Mapping[str, Any]
    ) -> None:
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
            raise ValueError(f"group_size must be a positive int or None, got {size!r}")
        if isinstance(prefix, str) or not all(isinstance(a, str) for a in prefix):
            raise ValueError(f"prefix must be a sequence of action strings, got {prefix!r}")
        self.size = size
        self.prefix = tuple(prefix)
        self.env_kwargs = dict(env_kwargs)
        self.groups = 0  # groups made so far
        self.branch_calls = 0  # branch calls made for them
        self._open: _Group | None = None
        self._lock = threading.Lock()

    def start(self, client: Client, task: str, key: str) -> tuple[GroupMember, np.ndarray, dict]:
        """The next member of ``key``'s group (a new group when the open one is another
        prompt's or used up): its child's episode started, its first frame and info."""
        if self.size is None:
            raise RuntimeError(
                "the group size is unknown: pass DrumsEnvironments(group_size=N) (TRL's "
                "num_generations), or pass the factory to GRPOTrainer as a callback too"
            )
        with self._lock:
            group = self._open
            if group is None or group.key != key or not group.members:
                self._discard_open()
                group = self._open = self._new_group(client, task, key)
            member = group.members.pop(0)
        obs, info = member.runner.start(new_episode=False)
        info.update(task_id=member.task_id, instruction=member.instruction, group=member.group)
        return member, obs, info

    def close(self) -> None:
        """Delete the children no member took."""
        with self._lock:
            self._discard_open()

    # ------------------------------------------------------------------ private
    def _discard_open(self) -> None:
        group, self._open = self._open, None
        for member in group.members if group is not None else ():
            member.close()

    def _new_group(self, client: Client, task: str, key: str) -> _Group:
        assert self.size is not None
        self.groups += 1
        parent = DrumsDesktopEnv(task, client=client, **self.env_kwargs)
        try:
            reason = self._prepare(parent)
            group = _Group(key, self.groups)
            if reason is not None:  # no valid fork point: every member is invalid
                runners = [parent.episode_runner(None, reason) for _ in range(self.size)]
            else:
                runners = self._fork(client, parent)
            group.members = [
                GroupMember(r, parent.task_id, parent.instruction, group.number) for r in runners
            ]
            return group
        finally:
            parent.close()  # the children are desktops of their own

    def _prepare(self, parent: DrumsDesktopEnv) -> str | None:
        """Reset the parent and apply the prefix; None when it is a valid fork point,
        else the last reason it was not."""
        reason: str | None = None
        for _attempt in range(PARENT_ATTEMPTS):
            _, info = parent.reset()
            reason = validity(info)[1]
            for action in self.prefix:
                if reason is not None:
                    break
                _, _, terminated, truncated, info = parent.step(action)
                reason = validity(info)[1]
                if reason is None and (terminated or truncated):
                    raise ValueError(
                        f"the prefix ended the episode at {action!r}: a fork point must be "
                        "mid-episode (no DONE/FAIL, fewer actions than max_steps)"
                    )
            if reason is None:
                return None
        return reason

    def _fork(self, client: Client, parent: DrumsDesktopEnv) -> list[EpisodeRunner]:
        assert self.size is not None and parent.slot is not None

        def delete_state(state: str) -> DrumsError | None:
            try:
                client.delete_state(state)
            except DrumsError as exc:
                return exc
            return None

        forker = Forker(
            parent.slot,
            fork_limit=client.host().limits.fork_limit,
            keep_state=False,  # the host deletes the state with the group's last child
            ttl=parent.ttl,
            retries=1,
            pool=None,
            delete_state=delete_state,
        )
        entries = forker.fork(self.size)
        self.branch_calls += forker.branch_calls
        return [
            parent.episode_runner(e) if not isinstance(e, str) else parent.episode_runner(None, e)
            for e in entries
        ]

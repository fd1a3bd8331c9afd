"""`ForkGroups`: the rollouts of one task's group (``vf-eval -r N``) start from one forked
desktop.

The first rollout of a group makes a parent desktop, waits until its episode is valid,
applies the shared ``prefix`` once, forks it into ``size`` children in one branch call,
and deletes the parent; it and the next ``size - 1`` rollouts of that task each play one
child. verifiers tells an env nothing of its groups, so a group is ``size`` consecutive
rollouts of one task (``--env.group-size``: set it to ``-r``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

from ...client import AsyncClient, AsyncSlot, DrumsError

__all__ = ["ForkGroups", "GroupUnavailable"]

#: attempts at a parent desktop that comes up valid (with its prefix) before giving up
PARENT_ATTEMPTS = 3


class GroupUnavailable(RuntimeError):
    """No child for this rollout: the parent never came up valid, or its fork failed.
    ``reason`` is the host's."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"no forked desktop for this rollout: {reason}")
        self.reason = reason


class ForkGroups:
    """Hands each rollout a child of its group's forked desktop (see the module).

    Args:
        size: rollouts per group.
        prefix: actions applied once on the parent before forking.
        screen: ``(width, height)`` of the desktops, or None for the task's.
    """

    def __init__(self, size: int, prefix: Sequence[str], screen: tuple[int, int] | None) -> None:
        self.size = size
        self.prefix = tuple(prefix)
        self.screen = screen
        self.groups = 0
        self.branch_calls = 0
        self._open: dict[str, list[AsyncSlot | str]] = {}  # task -> children not yet taken
        self._lock = asyncio.Lock()

    async def child(self, client: AsyncClient, task: str) -> AsyncSlot:
        """The next child of ``task``'s open group (forking a new group when there is
        none); :class:`GroupUnavailable` when it did not come up."""
        async with self._lock:
            left = self._open.get(task)
            if not left:
                left = self._open[task] = await self._fork(client, task)
            entry = left.pop(0)
        if isinstance(entry, str):
            raise GroupUnavailable(entry)
        return entry

    async def aclose(self) -> None:
        """Delete the children no rollout took."""
        async with self._lock:
            open_groups, self._open = self._open, {}
        for left in open_groups.values():
            for entry in left:
                if not isinstance(entry, str):
                    with contextlib.suppress(DrumsError):  # gone: its lease bounds it
                        await entry.delete()

    async def _fork(self, client: AsyncClient, task: str) -> list[AsyncSlot | str]:
        self.groups += 1
        reason: str | None = None
        for _attempt in range(PARENT_ATTEMPTS):
            async with await client.create(task, screen=self.screen) as parent:
                reason = await self._prepare(parent)
                if reason is not None:
                    continue
                self.branch_calls += 1
                try:
                    group = await parent.fork(self.size, strict=False)
                except DrumsError as exc:
                    return [f"fork_failed:{getattr(exc, 'code', type(exc).__name__)}"] * self.size
                children: list[AsyncSlot | str] = list(group)
                return children + ["fork_failed"] * (self.size - len(children))
        return [reason or "invalid"] * self.size

    async def _prepare(self, parent: AsyncSlot) -> str | None:
        """Wait for the parent's gates and apply the prefix: None when it is a valid
        fork point, else why not."""
        episode = await parent.wait_episode(timeout=120.0)
        if not episode.valid:
            return episode.invalid_reason or episode.status
        for action in self.prefix:
            result = await parent.step(action)
            if result.episode.invalid:
                return result.episode.invalid_reason or "invalid"
        return None

"""Forking many children from one parent desktop: several branch calls, quotas checked first.

A Drums host forks at most ``fork_limit`` children per branch call; a group of ``n`` beyond
that comes from ``ceil(n / fork_limit)`` branch calls on the same parent, issued
concurrently (the host serialises the snapshots; the round trips overlap). `Forker` makes
them, retries the children that did not come up, and answers one entry per child asked for:
a `Slot`, or the reason it is not there (``fork_failed...``). `check_quota` refuses a group
that cannot fit the workspace before anything is created.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from ..client import DrumsError, HostInfo, Slot
from ._episode import FORK_FAILED

__all__ = ["Forker", "check_quota", "chunks"]

_RAISE_LIVE = (
    "raise it with `drums-gym serve --live-desktops N` (or DRUMS_LOCAL_LIVE_DESKTOPS=N for the "
    "embedded host)"
)
_RAISE_STATES = (
    "raise it with `drums-gym serve --saved-states N` (or DRUMS_LOCAL_SAVED_STATES=N for the "
    "embedded host)"
)


def chunks(count: int, limit: int | None) -> list[int]:
    """Sizes of the branch calls for ``count`` children, each at most ``limit``.

    >>> chunks(20, 8)
    [8, 8, 4]
    >>> chunks(3, None)
    [3]
    """
    if count <= 0:
        return []
    if limit is None or limit >= count:
        return [count]
    full, rest = divmod(count, limit)
    return [limit] * full + ([rest] if rest else [])


def check_quota(info: HostInfo, n: int) -> None:
    """Refuse (ValueError) a group of ``n`` children the workspace's quotas cannot hold.

    The live-desktop quota must have room for ``n`` more desktops beside what the workspace
    already runs (the parent among them); the saved-state quota for one state per branch
    call. A host that states no limit is not checked.
    """
    limits, usage = info.limits, info.usage
    quota = limits.live_desktops
    if quota is not None and n > quota - usage.live_desktops:
        free = max(0, quota - usage.live_desktops)
        raise ValueError(
            f"n={n} children exceed the workspace's live-desktop quota of {quota} "
            f"({usage.live_desktops} in use, the parent among them: room for {free} more); "
            f"{_RAISE_LIVE}"
        )
    states = len(chunks(n, limits.fork_limit))
    state_quota = limits.saved_states
    if state_quota is not None and states > state_quota - usage.saved_states:
        free = max(0, state_quota - usage.saved_states)
        raise ValueError(
            f"n={n} children need {states} branch calls of at most {limits.fork_limit}, one saved "
            f"state each, but the workspace's saved-state quota of {state_quota} has room for "
            f"{free}; {_RAISE_STATES}"
        )


@dataclass
class ForkResult:
    """What one round of forking gave: the children that came up, the reason of the rest."""

    slots: list[Slot]
    reason: str = FORK_FAILED


class Forker:
    """Makes children of ``parent`` in branch calls of at most ``fork_limit``.

    Args:
        parent: the slot every child is forked from (its current desktop).
        fork_limit: the host's children per branch call (None: no limit).
        keep_state: keep each saved state until `release` (else the host deletes it with
            its last child).
        ttl: the children's lease in seconds.
        retries: extra rounds for children that did not come up.
        pool: where concurrent branch calls run (None: one after another).
        delete_state: deletes a saved state this forker owns (answers the failure or None).
    """

    def __init__(
        self,
        parent: Slot,
        *,
        fork_limit: int | None,
        keep_state: bool,
        ttl: float,
        retries: int,
        pool: ThreadPoolExecutor | None,
        delete_state: Callable[[str], DrumsError | None],
    ) -> None:
        self.parent = parent
        self.fork_limit = fork_limit
        self.keep_state = keep_state
        self.ttl = ttl
        self.retries = retries
        self.pool = pool
        self._delete_state = delete_state
        self.states: set[str] = set()  # kept saved states this forker owns (keep_state)
        self.branch_calls = 0  # how many branch calls this forker made
        self._lock = threading.Lock()

    def fork(self, count: int) -> list[Slot | str]:
        """``count`` entries: a running child, or the reason it did not come up (after
        ``retries`` more rounds for the missing ones)."""
        slots: list[Slot] = []
        reason = FORK_FAILED
        for _round in range(self.retries + 1):
            missing = count - len(slots)
            if missing == 0:
                break
            result = self._round(missing)
            slots.extend(result.slots)
            if len(slots) < count:
                reason = result.reason
        return [*slots, *([reason] * (count - len(slots)))]

    def _round(self, count: int) -> ForkResult:
        sizes = chunks(count, self.fork_limit)
        if self.pool is None or len(sizes) == 1:
            outcomes = [self._branch(size) for size in sizes]
        else:
            futures: list[Future[ForkResult]] = [
                self.pool.submit(self._branch, size) for size in sizes
            ]
            outcomes = [f.result() for f in futures]
        slots = [s for outcome in outcomes for s in outcome.slots]
        reasons = [o.reason for o in outcomes if o.reason != FORK_FAILED]
        return ForkResult(slots, reasons[0] if reasons else FORK_FAILED)

    def _branch(self, size: int) -> ForkResult:
        """One branch call of ``size`` children (its failure is a reason, not a raise)."""
        with self._lock:
            self.branch_calls += 1
        try:
            group = self.parent.fork(size, keep_state=self.keep_state, strict=False, ttl=self.ttl)
        except DrumsError as exc:
            return ForkResult([], f"{FORK_FAILED}:{getattr(exc, 'code', type(exc).__name__)}")
        if self.keep_state and group.state:
            with self._lock:
                self.states.add(group.state)
        elif len(group) == 0 and group.state:
            self._delete_state(group.state)  # no child will ever delete it
        return ForkResult(list(group))

    def release(self, delete: Callable[[str], DrumsError | None]) -> list[DrumsError]:
        """Delete every saved state still owned; answer the failures."""
        errors = []
        for state in sorted(self.states):
            error = delete(state)
            if error is None:
                self.states.discard(state)
            else:
                errors.append(error)
        return errors

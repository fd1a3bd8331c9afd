"""The fork vector env: n children forked from one desktop, stepped concurrently.

GRPO-style groups start every member from the same state: reach it once on a parent
desktop (reset plus any prefix steps), then ``env.fork_vector(n)``. Each child is an
independent desktop with its own episode; a vector step costs about one child's step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium.spaces import Box
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..client import DrumsError, Slot
from ..registration import DEFAULT_MAX_STEPS
from ._closing import warn_left_behind
from ._episode import EpisodeRunner, StepOutcome
from ._forking import Forker, check_quota
from ._frames import FramePool, RowFill, batched_frames_space

if TYPE_CHECKING:
    from .desktop_env import DrumsDesktopEnv

__all__ = ["DrumsForkVectorEnv"]


class DrumsForkVectorEnv(VectorEnv):
    """A `gymnasium.vector.VectorEnv` of ``n`` children forked from a parent desktop.

    Args:
        parent: a reset `DrumsDesktopEnv`; its desktop's current state is the fork point.
            The parent is never stepped by this env.
        n: number of children, up to the room left in the workspace's live-desktop quota
            (checked first: a clear ValueError names n and the quota). Beyond the host's
            fork limit the children come from several branch calls on the parent, at most
            ``fork_limit`` children each, issued concurrently.
        keep_state: keep each saved state while this env lives, even after its children
            are replaced (default: the host deletes it with its last child). ``close()``
            deletes every saved state this env made either way.
        autoreset_mode: ``NEXT_STEP`` (default) replaces a finished child with a new fork
            at the next step (the children that ended together share branch calls, while the
            others step); ``DISABLED`` leaves it to ``reset(options={"reset_mask": m})``.
        fork_retries: extra fork attempts for children that did not come up; a child that
            still fails is flagged invalid (``fork_failed``) and the batch goes on.
        ttl: the children's lease in seconds (default: the parent env's).
        close_parent: also close the parent env on ``close()`` (``gym.make_vec`` does).

    Example:
        >>> from drums_gym.envs import DrumsDesktopEnv
        >>> parent = DrumsDesktopEnv("e0df059f")                  # doctest: +SKIP
        >>> _ = parent.reset(seed=0)                              # doctest: +SKIP
        >>> group = parent.fork_vector(4)                         # doctest: +SKIP
        >>> obs, infos = group.reset()                            # doctest: +SKIP
        >>> obs.shape                                             # doctest: +SKIP
        (4, 1080, 1920, 3)
        >>> obs, rewards, terms, truncs, infos = group.step(["DONE"] * 4)  # doctest: +SKIP
        >>> group.close(); parent.close()                         # doctest: +SKIP
    """

    def __init__(
        self,
        parent: DrumsDesktopEnv,
        n: int,
        *,
        keep_state: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        fork_retries: int = 1,
        ttl: float | None = None,
        close_parent: bool = False,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        mode = _autoreset_mode(autoreset_mode)
        if isinstance(fork_retries, bool) or not isinstance(fork_retries, int) or fork_retries < 0:
            raise ValueError(f"fork_retries must be an int >= 0, got {fork_retries!r}")
        if ttl is not None and (
            isinstance(ttl, bool)
            or not isinstance(ttl, (int, float))
            or not math.isfinite(ttl)
            or ttl <= 0
        ):
            raise ValueError(f"ttl must be a positive number of seconds or None, got {ttl!r}")
        if parent.slot is None:
            raise RuntimeError("reset the parent env before forking it")
        info = parent.client.host()
        check_quota(info, n)  # before anything is created
        self.parent = parent
        self.num_envs = n
        self.keep_state = bool(keep_state)
        self.fork_retries = fork_retries
        self.ttl = float(ttl) if ttl is not None else parent.ttl
        self.close_parent = close_parent
        self.single_observation_space = parent.observation_space
        self.single_action_space = parent.action_space
        self.observation_space = (
            batched_frames_space(self.single_observation_space, n)
            if isinstance(self.single_observation_space, Box)
            else batch_space(self.single_observation_space, n)
        )
        self.action_space = batch_space(self.single_action_space, n)
        self.metadata = {**parent.metadata, "autoreset_mode": mode}
        self.render_mode = parent.render_mode
        self.spec = parent.spec
        # one thread per child: a vector step is n requests in flight at once (a child's
        # step is I/O-bound: two round trips, then a small delta applied to its frame)
        self._pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="drums-fork")
        self._forker = Forker(
            parent.slot,
            fork_limit=info.limits.fork_limit,
            keep_state=self.keep_state,
            ttl=self.ttl,
            retries=fork_retries,
            pool=self._pool,
            delete_state=self._delete_state,
        )
        self._frames = FramePool((n, parent.screen[1], parent.screen[0], 3))
        self._runners: list[EpisodeRunner | None] = [None] * n
        self._unplaced: list[Slot] = []  # forked children not yet in _runners (close deletes)
        self._needs_reset = np.zeros(n, dtype=bool)
        self._closed = False

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """``metadata["autoreset_mode"]``, also as the attribute Gymnasium's own vector envs
        have (TorchRL reads it there)."""
        mode = self.metadata["autoreset_mode"]
        assert isinstance(mode, AutoresetMode)
        return mode

    # ------------------------------------------------------------------ forking
    @property
    def fork_limit(self) -> int | None:
        """The host's children per branch call: a group is ``ceil(n / fork_limit)`` calls."""
        return self._forker.fork_limit

    @property
    def branch_calls(self) -> int:
        """Branch calls made so far (initial forks, autoresets and retries)."""
        return self._forker.branch_calls

    def _fork(self, count: int) -> list[EpisodeRunner]:
        """``count`` runners on fresh children; failed children are retried, then flagged."""
        entries = self._forker.fork(count)
        self._unplaced = [e for e in entries if isinstance(e, Slot)]
        # no TimeLimit wraps a vector env's children: a parent without a limit of its own
        # (gym.make's) gives them OSWorld's
        limit = self.parent.max_steps or DEFAULT_MAX_STEPS
        return [
            self.parent.episode_runner(e, max_steps=limit) if isinstance(e, Slot)
            else self.parent.episode_runner(None, e, max_steps=limit)
            for e in entries
        ]

    def _delete_state(self, state: str, deadline: float | None = None) -> DrumsError | None:
        """Delete a saved state we own; answer the failure (its idle lease bounds it)."""
        try:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            self.parent.client.delete_state(state, timeout=left)
        except DrumsError as exc:
            return exc
        return None

    def _replace(self, indices: Sequence[int]) -> list[tuple[np.ndarray, dict[str, Any]]]:
        """Delete the children at ``indices``, fork new ones (in as few branch calls as the
        fork limit allows), start their episodes."""
        old = [self._runners[i] for i in indices]
        self._map(lambda r: _delete(r.slot) if r is not None else None, old)
        fresh = self._fork(len(indices))
        for i, runner in zip(indices, fresh, strict=True):
            self._runners[i] = runner
        self._unplaced = []
        return self._map(lambda r: r.start(new_episode=False), fresh)

    def _map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if len(items) <= 1:
            return [fn(item) for item in items]
        return list(self._pool.map(fn, items))

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new group from the fork point (all children, or ``options["reset_mask"]``)."""
        if self._closed:
            raise RuntimeError("the vector env is closed")
        # gymnasium seeds this env's own RNG from an int only (a list of seeds is per member)
        super().reset(seed=seed if isinstance(seed, int) else None)
        mask = None if options is None else options.get("reset_mask")
        if mask is None:
            indices = list(range(self.num_envs))
        else:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                    f"got shape {mask.shape}"
                )
            indices = [int(i) for i in np.flatnonzero(mask)]
        started = self._replace(indices)
        infos: dict[str, Any] = {}
        obs = self._last_obs_batch()
        for i, (frame, info) in zip(indices, started, strict=True):
            obs[i] = frame
            info.update(task_id=self.parent.task_id, instruction=self.parent.instruction)
            infos = self._add_info(infos, info, i)
            self._needs_reset[i] = False
        self._hold_rows(obs)
        return obs, infos

    def _last_obs_batch(self) -> np.ndarray:
        obs = self._frames.acquire()
        for i, runner in enumerate(self._runners):
            if runner is not None and runner.last_obs is not None:
                obs[i] = runner.last_obs
            else:
                obs[i] = 0
        return obs

    def _hold_rows(self, obs: np.ndarray) -> None:
        """Each child's last frame becomes its row of ``obs`` (same pixels), so no earlier
        batch stays referenced here and the frame pool can hand it out again."""
        for i, runner in enumerate(self._runners):
            if runner is not None and runner.last_obs is not None:
                runner.last_obs = obs[i]

    def step(
        self, actions: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._closed:
            raise RuntimeError("the vector env is closed")
        if any(r is None for r in self._runners):
            raise RuntimeError("call reset() before step()")
        actions = list(actions)
        if len(actions) != self.num_envs:
            raise ValueError(f"actions must hold {self.num_envs} actions, got {len(actions)}")
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminations = np.zeros(n, dtype=bool)
        truncations = np.zeros(n, dtype=bool)
        infos: dict[str, Any] = {}
        obs = self._frames.acquire()  # a batch nobody holds any more, else new memory

        to_reset = [i for i in range(n) if self._needs_reset[i]]
        # DISABLED autoreset: a child whose episode ended sits out (its action is ignored,
        # its last frame is repeated, nothing is reported) until reset(options=reset_mask)
        to_step: list[int] = []
        for i, runner in enumerate(self._runners):
            assert runner is not None
            if self._needs_reset[i]:
                continue
            if runner.done:
                obs[i] = runner.last_obs if runner.last_obs is not None else 0
            else:
                to_step.append(i)

        fills = {i: RowFill() for i in to_step}

        def run(i: int) -> StepOutcome:
            runner = self._runners[i]
            assert runner is not None
            # the frame lands in the batch
            return runner.step(actions[i], out=obs[i], fill=fills[i])

        if to_reset or len(to_step) > 1:
            pending = [self._pool.submit(run, i) for i in to_step]
            self._prefill(fills, obs)
            try:  # NEXT_STEP autoreset, while the others step: new forks, in batches
                replaced = self._replace(to_reset) if to_reset else []
                for i, (frame, info) in zip(to_reset, replaced, strict=True):
                    obs[i] = frame
                    info.update(task_id=self.parent.task_id, instruction=self.parent.instruction)
                    infos = self._add_info(infos, info, i)
                    self._needs_reset[i] = False
            finally:
                results = [f.result() for f in pending]
        else:
            results = [run(i) for i in to_step]
        for i, outcome in zip(to_step, results, strict=True):
            if not np.may_share_memory(outcome.obs, obs[i]):
                obs[i] = outcome.obs  # a frame that did not come from the host (an ended child)
            rewards[i] = outcome.reward
            terminations[i] = outcome.terminated
            truncations[i] = outcome.truncated
            infos = self._add_info(infos, outcome.info, i)
            if (outcome.terminated or outcome.truncated) and (
                self.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
            ):
                self._needs_reset[i] = True
        self._hold_rows(obs)
        return obs, rewards, terminations, truncations, infos

    def _prefill(self, fills: dict[int, RowFill], obs: np.ndarray) -> None:
        """While the children act (their requests in flight, this thread idle), copy each
        one's last frame into its row: its screenshot then writes only what changed, and
        the copy is off the step's critical path (a 6 MB frame at 1920x1080)."""
        for i, fill in fills.items():
            runner = self._runners[i]
            if runner is not None:
                runner.prefill(obs[i], fill)

    def render(self) -> tuple[np.ndarray, ...] | None:
        if self.render_mode != "rgb_array":
            return None
        return tuple(
            r.last_obs.copy() for r in self._runners if r is not None and r.last_obs is not None
        )

    @property
    def slots(self) -> list[Slot | None]:
        """The children's desktops (None where a fork failed)."""
        return [r.slot if r is not None else None for r in self._runners]

    def close_extras(self, **kwargs: Any) -> None:
        """Delete every child and owned saved state; close the parent if asked to.

        Bounded by the client's ``close_timeout`` for everything together (children are
        deleted concurrently); never raises because the host is gone or hung: one warning,
        and leases bound what is left.
        """
        deadline = time.monotonic() + self.parent.client.close_timeout
        errors: list[DrumsError] = []
        try:
            # a parent closing its own client deletes the children with everything else
            if not (self.close_parent and self.parent._owns_client):
                results = self._map(
                    lambda r: _delete(r.slot, deadline) if r is not None else None,
                    self._runners,
                )
                errors += [e for e in results if e is not None]
                errors += [
                    e for e in self._map(lambda s: _delete(s, deadline), self._unplaced) if e
                ]
            # kept states too (keep_state keeps them while the group lives, not after)
            errors += self._forker.release(lambda st: self._delete_state(st, deadline))
        finally:
            self._runners = [None] * self.num_envs
            self._frames.clear()
            self._pool.shutdown(wait=True, cancel_futures=True)
            if self.close_parent:
                errors += self.parent._close_within(deadline)
            warn_left_behind(self, errors, self.ttl)

    def close(self, **kwargs: Any) -> None:
        if self._closed:
            return
        try:
            self.close_extras(**kwargs)
        finally:
            self._closed = True
            self.closed = True


def _autoreset_mode(value: AutoresetMode | str) -> AutoresetMode:
    """NEXT_STEP or DISABLED, from the enum or its name or value in any spelling."""

    def norm(text: str) -> str:
        return text.replace("_", "").replace("-", "").lower()

    if isinstance(value, str) and not isinstance(value, AutoresetMode):
        value = next(
            (m for m in AutoresetMode if norm(value) in (norm(m.name), norm(m.value))), value
        )
    if value not in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
        raise ValueError(f"autoreset_mode must be NEXT_STEP or DISABLED, got {value!r}")
    return AutoresetMode(value)


def _delete(slot: Slot | None, deadline: float | None = None) -> DrumsError | None:
    """Delete a child; answer the failure (already gone: its lease bounds anything else)."""
    if slot is None:
        return None
    try:
        slot.delete(None if deadline is None else max(0.0, deadline - time.monotonic()))
    except DrumsError as exc:
        return exc
    return None

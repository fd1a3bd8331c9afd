"""`Slot` (a desktop) and `ForkGroup` (the children of one fork)."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import protocol as W
from . import _ops
from ._objects import GroupBase, SlotBase, close_quietly_if_raising
from .errors import DrumsError
from .models import Episode, Observation, Reward, SlotInfo, StepResult, accessibility_of

if TYPE_CHECKING:  # pragma: no cover
    from ._http import Transport
    from ._session import Session
    from .client import Client

__all__ = ["ForkGroup", "Slot"]

class Slot(SlotBase):
    """A Drums desktop: act on it, look at it, verify it, fork it.

    Made by `Client.create` (or `Client.slot` to attach to an existing one). A context
    manager: leaving the block deletes the desktop.

    Example:
        >>> from drums_gym import client as drums
        >>> with drums.connect() as client:                        # doctest: +SKIP
        ...     with client.create(task="e0df059f") as slot:
        ...         slot.wait_valid()
        ...         slot.step("pyautogui.click(960, 540)")
        ...         print(slot.observe().array.shape, slot.verify(strict=False))
        (1080, 1920, 3) Reward(valid=True, score=0, episode=ep_...)
    """

    _client: Client
    _session: Session

    def __init__(self, client: Client, info: SlotInfo) -> None:
        super().__init__(client, info)
        self._raw_base: tuple[str, np.ndarray] | None = None  # last raw frame: token, pixels
        self._raw_lock = threading.Lock()  # one raw fetch at a time updates the base

    @property
    def client(self) -> Client:
        return self._client

    # -- reading ----------------------------------------------------------------------------

    def info(self) -> SlotInfo:
        """The slot as the host describes it now (state, lease, current episode)."""
        self._info = self._http.run(_ops.slot_info(self.id))
        return self._info

    def episode(self, wait: bool = False, timeout_s: float = 30.0) -> Episode:
        """The current episode; with `wait`, long-poll until it is not pending (or timeout_s)."""
        return self._http.run(_ops.episode(self.id, wait, timeout_s))

    def wait_episode(self, timeout: float = 120.0) -> Episode:
        """Wait until the episode is no longer pending; answer it, valid or invalid.

        Raises `DrumsTimeout` when it is still pending after `timeout` seconds.
        """
        return self._http.run(_ops.wait_episode(self.id, timeout))

    def wait_valid(self, timeout: float = 120.0) -> Episode:
        """Wait until the episode is valid and answer it.

        Raises `InvalidEpisode` (with `.episode` and `.reason`) if it became invalid,
        `DrumsTimeout` if it is still pending after `timeout` seconds.
        """
        return self._http.run(_ops.wait_valid(self.id, timeout))

    def observe(
        self,
        format: str = W.FORMAT_PNG,
        *,
        out: np.ndarray | None = None,
        out_holds: str | None = None,
    ) -> Observation:
        """A screenshot now (`png` or `raw`); `.array` decodes it to `uint8 (H, W, 3)`.

        Raw frames are fetched as deltas where the host offers them: the slot keeps the last
        frame and asks only for what changed since (`?since=`), then rebuilds the screen.
        With `out` (a writable `uint8 (H, W, 3)` array, e.g. a row of a batch), the screen is
        written there and `.array` is `out`: no copy of its own. With `out_holds`, the token
        `copy_frame` answered for `out` (untouched since), a delta is applied to `out`
        itself instead of copying the whole screen into it.
        """
        _ops.check_out(out, format)
        if format != W.FORMAT_RAW:
            return self._http.run(_ops.observe(self.id, format, out, self.screen, None))[0]
        with self._raw_lock:
            observation, self._raw_base = self._http.run(
                _ops.observe(self.id, format, out, self.screen, self._raw_base, out_holds)
            )
        return observation

    def copy_frame(self, out: np.ndarray) -> str | None:
        """Copy the last raw frame this slot fetched into `out`; answer its token (None,
        `out` untouched, before the first raw frame).

        Made for the time a request is in flight: pass the token to the next
        ``observe("raw", out=out, out_holds=token)`` and only what changed is written to
        `out` then (a vector env fills its batch while its children act).
        """
        with self._raw_lock:
            return _ops.copy_base(self._raw_base, out)

    def accessibility(self) -> dict[str, Any]:
        """The accessibility tree of what is on screen (`{"format", "tree"}`)."""
        return accessibility_of(self._http.json("GET", W.slot_accessibility_path(self.id)))

    # -- acting -----------------------------------------------------------------------------

    def step(self, code: str) -> StepResult:
        """Run pyautogui `code` on the desktop (parsed by the host, never executed).

        `code` may also be a control word, ``"DONE"``, ``"FAIL"`` or ``"WAIT"``: the host
        records it as the episode's last action (a last ``FAIL`` scores as OSWorld does).

        Raises `ActionError` (422 `invalid_action`, nothing applied) for code outside the
        action language, `Conflict` (409, `.details["episode"]`) when the episode is invalid.
        A `StepResult` whose `.cut` is set was stopped part way by a host limit.
        """
        return self._http.run(_ops.step(self.id, code))

    def verify(self, strict: bool = True, timeout: float = 120.0) -> Reward:
        """Judge the episode with the task's checker. A `Reward` counts only when `.valid`.

        Pending is not a verdict: on an episode whose gates have not resolved, verify waits
        for them (up to `timeout` seconds, as `wait_valid` does; the host is asked to wait
        too, and a host that does not is waited for here), then judges. Raises
        `DrumsTimeout` when the episode is still pending after `timeout`. With `strict`
        (default) a verify of an episode that is invalid raises `Conflict`; with
        ``strict=False`` it answers a `Reward` with ``valid=False`` and the reason.
        The score follows OSWorld's rule (the host applies it): a last action of ``FAIL``
        scores 0 on a feasible task and 1 on an infeasible one. `Reward.cut` says when a
        host limit stopped the checker.
        """
        return self._http.run(_ops.verify(self.id, strict, timeout))

    def reset(self, randomize: int | None = None, state: str | None = None) -> Episode:
        """Start a new episode from the task's image; answers it (pending: `wait_valid`).

        With ``randomize`` (a seed), the local host varies the fresh desktop by it: icon
        placement, window offset, wallpaper, clock, dates of files the task does not test
        (the same seed, the same desktop; a host without the option ignores it). With
        ``state`` (an id from `save_state` or `fork`), the episode starts from a copy of
        that saved state's desktop instead (the local host's extension: 404 for an unknown
        state, 409 for one of another task or screen size).
        """
        self._info, episode = self._http.run(_ops.reset(self.id, randomize, state))
        return episode

    def save_state(self) -> str:
        """Save this desktop as a state with no children (a branch of ``n = 0``) and answer
        its id: a start point for `reset(state=...)` (the local host's extension). The
        client owns it: `Client.delete_state` or the client's close deletes it."""
        return self._http.run(_ops.save_state(self._session, self.id))

    def extend(self, ttl: float) -> SlotInfo:
        """Make the lease end `ttl` seconds from now; answers the updated slot."""
        self._info = self._http.run(_ops.extend(self.id, ttl))
        return self._info

    def fork(
        self,
        n: int,
        keep_state: bool = False,
        strict: bool = True,
        ttl: float | None = None,
    ) -> ForkGroup:
        """Save this desktop as a state and restore `n` independent children from it.

        `keep_state=False` (use it in loops) lets the host delete the saved state with its
        last child; otherwise it stays until `Client.delete_state` (or the client closes).
        With `strict` a child that did not come up raises `ForkError` (`.ok` holds a group
        of the usable children, which you must close); else see `group.failed`.
        """
        client = self._client

        def group(slots: list[Slot], state: str, failed: list[Any]) -> ForkGroup:
            return ForkGroup(client, slots, state=state, failed=failed, keep_state=keep_state)

        return self._http.run(_ops.fork(
            self._session, self._info, n, keep_state, strict, ttl,
            lambda info: Slot(client, info), group,
        ))

    # -- lifetime ---------------------------------------------------------------------------

    def delete(self, timeout: float | None = None) -> bool:
        """Delete the desktop. Idempotent: False when it was already gone.

        `timeout` bounds the whole call (retries included) in seconds; past it the last
        error (or `DrumsTimeout`) is raised and the desktop's lease bounds it.
        """
        return self._http.run(_ops.delete_desktop(self, _ops.deadline_in(timeout)))

    def close(self) -> None:
        """Delete the desktop (idempotent)."""
        self.delete()

    def __enter__(self) -> Slot:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close()
        except DrumsError as error:
            close_quietly_if_raising(exc, error)

    @property
    def _http(self) -> Transport:
        return self._session.http


class ForkGroup(GroupBase[Slot]):
    """The running children of one fork (`Slot.fork`): iterate, index, `len`.

    `state` is the saved state's id, `failed` the children that did not come up as
    `(child_id, error_dict)`. A context manager: leaving the block deletes the children
    (concurrently) and, unless `keep_state`, the saved state.
    """

    def close(self) -> None:
        """Delete the children and (unless `keep_state`) the saved state. Idempotent.

        Every deletion is attempted; the first failure is raised afterwards.
        """
        self._client._session.http.run(_ops.close_group(self))

    def __enter__(self) -> ForkGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close()
        except DrumsError as error:
            close_quietly_if_raising(exc, error)

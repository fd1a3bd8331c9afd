"""`Slot` (a desktop) and `ForkGroup` (the children of one fork)."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from . import _wire as W
from .errors import (
    Conflict,
    DrumsError,
    DrumsTimeout,
    ForkError,
    InvalidEpisode,
    ProtocolError,
)
from .models import Episode, Observation, Reward, Screen, SlotInfo, StepResult

if TYPE_CHECKING:  # pragma: no cover
    from ._http import Transport
    from ._session import Session
    from .client import Client

__all__ = ["ForkGroup", "Slot"]

logger = logging.getLogger("drums_gym.client")

#: Extra read time on top of a long-poll's `timeout_s` before the transport gives up.
_LONG_POLL_MARGIN_S = 10.0


def _wire_seconds(seconds: float) -> int | float:
    """A duration as sent on the wire: an int when whole, else milliseconds precision."""
    seconds = round(float(seconds), 3)
    return int(seconds) if seconds.is_integer() else seconds


def _check_ttl(ttl: Any, name: str = "ttl") -> float:
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {ttl!r}")
    return ttl


def _randomize(seed: Any) -> dict[str, int]:
    """The ``randomize`` field of a create or reset that varies the desktop by ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= W.MAX_SEED:
        raise ValueError(f"randomize must be a seed, an int from 0 to 2**64 - 1, got {seed!r}")
    return {W.F_SEED: int(seed)}


class Slot:
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

    def __init__(self, client: Client, info: SlotInfo) -> None:
        self._client = client
        self._session: Session = client._session
        self._info = info
        self._deleted = False
        self._raw_base: tuple[str, np.ndarray] | None = None  # last raw frame: its token, pixels
        self._raw_lock = threading.Lock()  # one raw fetch at a time updates the base

    # -- identity ---------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._info.id

    @property
    def task(self) -> str:
        return self._info.task

    @property
    def screen(self) -> Screen | None:
        return self._info.screen

    @property
    def client(self) -> Client:
        return self._client

    @property
    def parent(self) -> str | None:
        """The slot this one was forked from (fork children), else None."""
        return self._info.parent

    @property
    def saved_state(self) -> str | None:
        """The saved state this slot was restored from (fork children), else None."""
        return self._info.saved_state

    @property
    def expires_at(self) -> float | None:
        """When the lease ends (Unix seconds), as last heard from the host."""
        return self._info.expires_at

    @property
    def closed(self) -> bool:
        return self._deleted

    def __repr__(self) -> str:
        screen = f" {self.screen.width}x{self.screen.height}" if self.screen else ""
        state = " deleted" if self._deleted else ""
        return f"<Slot {self.id} task={self.task}{screen}{state}>"

    # -- reading ----------------------------------------------------------------------------

    def info(self) -> SlotInfo:
        """The slot as the host describes it now (state, lease, current episode)."""
        self._info = SlotInfo.from_json(self._http.json("GET", W.slot_path(self.id)))
        return self._info

    def episode(self, wait: bool = False, timeout_s: float = 30.0) -> Episode:
        """The current episode; with `wait`, long-poll until it is not pending (or timeout_s)."""
        params: dict[str, Any] = {}
        read_timeout = None
        if wait:
            timeout_s = min(max(0.0, float(timeout_s)), W.MAX_WAIT_S)
            params = {W.Q_WAIT: "true", W.Q_TIMEOUT_S: _wire_seconds(timeout_s)}
            read_timeout = timeout_s + _LONG_POLL_MARGIN_S
        body = self._http.json(
            "GET", W.slot_episode_path(self.id), params=params, read_timeout=read_timeout
        )
        return Episode.from_json(body)

    def wait_episode(self, timeout: float = 120.0) -> Episode:
        """Wait until the episode is no longer pending; answer it, valid or invalid.

        Raises `DrumsTimeout` when it is still pending after `timeout` seconds.
        """
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout:
            raise ValueError(f"timeout must be a number of seconds, got {timeout!r}")
        deadline = time.monotonic() + float(timeout)
        episode = self.episode(wait=False) if timeout <= 0 else None
        while episode is None or episode.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            episode = self.episode(wait=True, timeout_s=min(remaining, W.MAX_WAIT_S))
        if episode is None or episode.pending:
            raise DrumsTimeout(
                f"the episode of {self.id} is still pending after {float(timeout):g} s"
            )
        return episode

    def wait_valid(self, timeout: float = 120.0) -> Episode:
        """Wait until the episode is valid and answer it.

        Raises `InvalidEpisode` (with `.episode` and `.reason`) if it became invalid,
        `DrumsTimeout` if it is still pending after `timeout` seconds.
        """
        episode = self.wait_episode(timeout)
        if not episode.valid:
            raise InvalidEpisode(
                f"the episode {episode.id} of {self.id} is {episode.status}: "
                f"{episode.invalid_reason}",
                episode=episode,
            )
        return episode

    def observe(self, format: str = W.FORMAT_PNG, *, out: np.ndarray | None = None) -> Observation:
        """A screenshot now (`png` or `raw`); `.array` decodes it to `uint8 (H, W, 3)`.

        Raw frames are fetched as deltas where the host offers them: the slot keeps the last
        frame and asks only for what changed since (`?since=`), then rebuilds the screen.
        With `out` (a writable `uint8 (H, W, 3)` array, e.g. a row of a batch), the screen is
        written there and `.array` is `out`: no copy of its own.
        """
        if out is not None and (out.dtype != np.uint8 or out.ndim != 3 or out.shape[2] != 3):
            raise ValueError(f"out must be a uint8 (H, W, 3) array, got {out.dtype} {out.shape}")
        if format not in W.SCREENSHOT_FORMATS:
            raise ValueError(f"format must be one of {W.SCREENSHOT_FORMATS}, got {format!r}")
        if format == W.FORMAT_RAW:
            with self._raw_lock:
                return self._observe(format, out)
        return self._observe(format, out)

    def _observe(self, format: str, out: np.ndarray | None) -> Observation:
        path = W.slot_screenshot_path(self.id)
        params = {W.Q_FORMAT: format}
        base = self._raw_base if format == W.FORMAT_RAW else None
        if base is not None:
            params[W.Q_SINCE] = base[0]
        response = self._http.request("GET", path, params=params)
        headers = response.headers
        width = _header_int(headers.get(W.H_SCREEN_WIDTH))
        height = _header_int(headers.get(W.H_SCREEN_HEIGHT))
        if (width is None or height is None) and self.screen is not None:
            width, height = self.screen.width, self.screen.height
        if width is None or height is None:
            raise ProtocolError(f"GET {path}: no screen size in the reply")
        token = headers.get(W.H_FRAME_TOKEN)
        rebuilt = None
        if format == W.FORMAT_RAW:
            rebuilt = self._rebuild(base, response.content, headers, width, height, path)
            self._raw_base = (token, rebuilt) if token else None
            # the caller's own array; the slot keeps its base
            rebuilt = _into(out, rebuilt) if out is not None else rebuilt.copy()
        frame = _header_int(headers.get(W.H_FRAME))
        status = headers.get(W.H_EPISODE_STATUS)
        if out is not None and rebuilt is None:  # PNG into out: decode, then copy there
            decoded = Observation(
                format=format, width=width, height=height, data=response.content
            ).array
            rebuilt = _into(out, decoded)
        return Observation(
            format=format,
            width=width,
            height=height,
            data=response.content,
            frame=frame,
            episode_status=status,
            token=token,
            rebuilt=rebuilt,
        )

    @staticmethod
    def _rebuild(
        base: tuple[str, np.ndarray] | None,
        data: bytes,
        headers: Any,
        width: int,
        height: int,
        path: str,
    ) -> np.ndarray:
        """The whole screen from a raw reply: a full frame, or a delta over ``base``."""
        boxes = headers.get(W.H_DELTA_BOXES)
        if boxes is None or base is None or headers.get(W.H_DELTA_BASE) != base[0]:
            if len(data) != width * height * 3:
                raise ProtocolError(
                    f"GET {path}: raw screenshot has {len(data)} bytes, expected "
                    f"{width * height * 3} ({width}x{height}x3)"
                )
            return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3).copy()
        screen = base[1]
        offset = 0
        for box in filter(None, boxes.split(";")):
            try:
                x, y, w, h = (int(v) for v in box.split(","))
            except ValueError:
                raise ProtocolError(f"GET {path}: bad {W.H_DELTA_BOXES} {boxes!r}") from None
            size = w * h * 3
            if x < 0 or y < 0 or x + w > width or y + h > height or offset + size > len(data):
                raise ProtocolError(f"GET {path}: delta box {box!r} does not fit the screen")
            patch = np.frombuffer(data, dtype=np.uint8, count=size, offset=offset)
            screen[y : y + h, x : x + w] = patch.reshape(h, w, 3)
            offset += size
        if offset != len(data):
            raise ProtocolError(f"GET {path}: delta has {len(data) - offset} bytes left over")
        return screen

    def accessibility(self) -> dict[str, Any]:
        """The accessibility tree of what is on screen (`{"format", "tree"}`)."""
        return self._http.json("GET", W.slot_accessibility_path(self.id))

    # -- acting -----------------------------------------------------------------------------

    def step(self, code: str) -> StepResult:
        """Run pyautogui `code` on the desktop (parsed by the host, never executed).

        `code` may also be a control word, ``"DONE"``, ``"FAIL"`` or ``"WAIT"``: the host
        records it as the episode's last action (a last ``FAIL`` scores as OSWorld does).

        Raises `ActionError` (422 `invalid_action`, nothing applied) for code outside the
        action language, `Conflict` (409, `.details["episode"]`) when the episode is invalid.
        """
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of pyautogui code, got {type(code).__name__}")
        try:
            code.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"code must be UTF-8 text: {exc}") from None
        body = self._http.json(
            "POST", W.slot_actions_path(self.id), json={W.F_CODE: code}, replayable=False
        )
        return StepResult.from_json(body)

    def verify(self, strict: bool = True, timeout: float = 120.0) -> Reward:
        """Judge the episode with the task's checker. A `Reward` counts only when `.valid`.

        Pending is not a verdict: on an episode whose gates have not resolved, verify waits
        for them (up to `timeout` seconds, as `wait_valid` does; the host is asked to wait
        too, and a host that does not is waited for here), then judges. Raises
        `DrumsTimeout` when the episode is still pending after `timeout`. With `strict`
        (default) a verify of an episode that is invalid raises `Conflict`; with
        ``strict=False`` it answers a `Reward` with ``valid=False`` and the reason.
        The score follows OSWorld's rule (the host applies it): a last action of ``FAIL``
        scores 0 on a feasible task and 1 on an infeasible one.
        """
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout:
            raise ValueError(f"timeout must be a number of seconds, got {timeout!r}")
        path = W.slot_verify_path(self.id)
        deadline = time.monotonic() + max(0.0, float(timeout))
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            hold = min(remaining, W.MAX_VERIFY_WAIT_S)
            try:
                body = self._http.json(
                    "POST",
                    path,
                    json={W.F_STRICT: bool(strict), W.F_TIMEOUT_S: _wire_seconds(hold)},
                    replayable=True,
                    read_timeout=hold + _LONG_POLL_MARGIN_S,
                )
            except Conflict as exc:  # strict, and the episode is not valid: pending?
                episode = exc.details.get(W.F_EPISODE)
                if not isinstance(episode, dict) or episode.get(W.F_STATUS) != W.EPISODE_PENDING:
                    raise
            else:
                reward = Reward.from_json(body)
                if not reward.pending:
                    return reward
            # pending: wait for the gates here (a host that did not wait), then judge again
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DrumsTimeout(
                    f"the episode of {self.id} is still pending after {float(timeout):g} s: "
                    "no verdict"
                )
            try:
                self.wait_episode(remaining)
            except DrumsTimeout:
                raise DrumsTimeout(
                    f"the episode of {self.id} is still pending after {float(timeout):g} s: "
                    "no verdict"
                ) from None

    def reset(self, randomize: int | None = None) -> Episode:
        """Start a new episode from the task's image; answers it (pending: `wait_valid`).

        With ``randomize`` (a seed), the local host varies the fresh desktop by it: icon
        placement, window offset, wallpaper, clock, dates of files the task does not test
        (the same seed, the same desktop; a host without the option ignores it).
        """
        fields = None if randomize is None else {W.F_RANDOMIZE: _randomize(randomize)}
        body = self._http.json("POST", W.slot_reset_path(self.id), json=fields, replayable=True)
        self._info = SlotInfo.from_json(body)
        if self._info.episode is None:
            raise ProtocolError(f"POST {W.slot_reset_path(self.id)}: no episode in the reply")
        return self._info.episode

    def extend(self, ttl: float) -> SlotInfo:
        """Make the lease end `ttl` seconds from now; answers the updated slot."""
        _check_ttl(ttl)
        body = self._http.json(
            "POST",
            W.slot_lease_path(self.id),
            json={W.F_TTL_S: _wire_seconds(ttl)},
            replayable=True,
        )
        self._info = SlotInfo.from_json(body)
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
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be an int >= 1, got {n!r}")
        body: dict[str, Any] = {W.F_N: n, W.F_DELETE_STATE_WITH_CHILDREN: not keep_state}
        if ttl is not None:
            body[W.F_TTL_S] = _wire_seconds(_check_ttl(ttl))
        path = W.slot_branch_path(self.id)
        key = uuid.uuid4().hex
        try:
            reply = self._http.json("POST", path, json=body, idempotency_key=key)
            state = reply.get(W.F_STATE)
            children = reply.get(W.F_CHILDREN)
            if not isinstance(state, str) or not isinstance(children, list):
                raise ProtocolError(f"POST {path}: the reply lacks 'state' or 'children'")
            self._session.own_state(state, with_children=not keep_state)
            running: list[Slot] = []
            failed: list[tuple[str, dict[str, Any]]] = []
            for child in children:
                if not isinstance(child, dict) or not isinstance(child.get(W.F_ID), str):
                    raise ProtocolError(f"POST {path}: a child without an id")
                child_id = child[W.F_ID]
                if child.get(W.F_STATE, W.CHILD_RUNNING) == W.CHILD_RUNNING:
                    self._session.own_slot(child_id, state)
                    running.append(
                        Slot(
                            self._client,
                            SlotInfo(
                                id=child_id,
                                task=self.task,
                                screen=self.screen,
                                parent=self.id,
                                saved_state=state,
                            ),
                        )
                    )
                else:
                    error = child.get(W.F_ERROR)
                    failed.append((child_id, dict(error) if isinstance(error, dict) else {}))
        except BaseException as exc:  # interrupted or unknown: close() settles it by its key
            self._session.unsettled("branch", path, body, key, exc)
            raise
        if not keep_state and not running:
            self._session.forget_state_if_childless(state)  # the host deleted it at once
        group = ForkGroup(self._client, running, state=state, failed=failed, keep_state=keep_state)
        if strict and failed:
            lines = ", ".join(
                f"{cid}: {err.get(W.F_CODE, '?')} {err.get(W.F_MESSAGE, '')}".rstrip()
                for cid, err in failed
            )
            raise ForkError(
                f"{len(failed)} of {len(children)} fork children of {self.id} failed ({lines})",
                ok=group,
                state=state,
                failed=failed,
            )
        return group

    # -- lifetime ---------------------------------------------------------------------------

    def delete(self, timeout: float | None = None) -> bool:
        """Delete the desktop. Idempotent: False when it was already gone.

        `timeout` bounds the whole call (retries included) in seconds; past it the last
        error (or `DrumsTimeout`) is raised and the desktop's lease bounds it.
        """
        if self._deleted:
            return False
        if self._session.closed:
            self._deleted = True  # the client's close deleted what it owned
            return False
        deadline = None if timeout is None else time.monotonic() + max(0.0, float(timeout))
        deleted = self._session.delete_slot(self.id, deadline)
        self._deleted = True
        return deleted

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
        _close_quietly_if_raising(self.close, exc)

    @property
    def _http(self) -> Transport:
        return self._session.http


class ForkGroup:
    """The running children of one fork (`Slot.fork`): iterate, index, `len`.

    `state` is the saved state's id, `failed` the children that did not come up as
    `(child_id, error_dict)`. A context manager: leaving the block deletes the children
    (concurrently) and, unless `keep_state`, the saved state.
    """

    def __init__(
        self,
        client: Client,
        slots: list[Slot],
        *,
        state: str,
        failed: list[tuple[str, dict[str, Any]]] | None = None,
        keep_state: bool = False,
    ) -> None:
        self._client = client
        self._slots = list(slots)
        self.state = state
        self.failed: list[tuple[str, dict[str, Any]]] = list(failed or [])
        self.keep_state = keep_state
        self._closed = False

    @property
    def slots(self) -> list[Slot]:
        return list(self._slots)

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[Slot]:
        return iter(list(self._slots))

    @overload
    def __getitem__(self, index: int) -> Slot: ...
    @overload
    def __getitem__(self, index: slice) -> list[Slot]: ...
    def __getitem__(self, index: int | slice) -> Slot | list[Slot]:
        return self._slots[index]

    def __repr__(self) -> str:
        ids = ", ".join(s.id for s in self._slots)
        failed = f" failed={len(self.failed)}" if self.failed else ""
        closed = " closed" if self._closed else ""
        return f"<ForkGroup state={self.state} [{ids}]{failed}{closed}>"

    def close(self) -> None:
        """Delete the children and (unless `keep_state`) the saved state. Idempotent.

        Every deletion is attempted; the first failure is raised afterwards.
        """
        if self._closed:
            return
        self._closed = True
        session = self._client._session
        live = [s for s in self._slots if not s.closed]
        errors = session.delete_many(Slot.delete, live)
        if not self.keep_state:
            try:
                session.delete_state(self.state)  # 404: the host already removed it
            except DrumsError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> ForkGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _close_quietly_if_raising(self.close, exc)


def _close_quietly_if_raising(close: Any, exc: BaseException | None) -> None:
    """Close; if an exception is already on its way out, log a cleanup failure instead."""
    if exc is None:
        close()
        return
    try:
        close()
    except DrumsError as cleanup_error:
        logger.warning("cleanup failed while handling %s: %s", type(exc).__name__, cleanup_error)


def _header_int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _into(out: np.ndarray, frame: np.ndarray) -> np.ndarray:
    if out.shape != frame.shape:
        raise ValueError(f"out has shape {out.shape}, the screen is {frame.shape}")
    np.copyto(out, frame)
    return out

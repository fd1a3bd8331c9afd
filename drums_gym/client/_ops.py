"""The client's operations, written once for the sync and the async client (sans-IO).

Each operation is a generator: it yields a `Call` (one request; it is sent the reply's
JSON object, or the `httpx.Response` for a ``raw`` call, or has the request's exception
thrown in) or a `Parallel` (operations to run concurrently; it is sent each one's result
or the `Exception` it raised), and returns the operation's result. `expand` turns each
call into its tries (`_request.exchange`), and a transport runs that
(`_http.Transport.run` with threads, `_async.AsyncTransport.run` on the event loop), so
request building, reply parsing, waiting for gates, fork bookkeeping and cleanup are the
same code under both clients.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx
import numpy as np

from .. import protocol as W
from ._request import Call, Policy, Send, Sleep, exchange
from .errors import (
    Conflict,
    DrumsError,
    DrumsTimeout,
    ForkError,
    InvalidEpisode,
    NotFound,
    ProtocolError,
)
from .models import Episode, Observation, Reward, Screen, SlotInfo, StepResult, decode

if TYPE_CHECKING:  # pragma: no cover
    from ._session import Ledger

__all__ = [
    "Op",
    "Parallel",
    "Runner",
    "Steps",
    "check_task_id",
    "check_ttl",
    "close_session",
    "copy_base",
    "create",
    "delete_state",
    "episode",
    "expand",
    "extend",
    "fork",
    "get",
    "observe",
    "reset",
    "response",
    "screen_of",
    "single",
    "slot_info",
    "step",
    "verify",
    "wait_episode",
    "wait_valid",
    "wire_seconds",
]

logger = logging.getLogger("drums_gym.client")

R = TypeVar("R")
S = TypeVar("S")
Y = TypeVar("Y")
G = TypeVar("G")


@dataclass(frozen=True)
class Parallel:
    """Operations to run concurrently; the yield answers their results (or exceptions)."""

    ops: tuple[Op[Any], ...]


Op = Generator["Call | Parallel", Any, R]
#: What a transport runs: an operation with its calls expanded into tries (`expand`).
Steps = Generator["Send | Sleep | Parallel", Any, R]

#: Extra read time on top of a long-poll's `timeout_s` before the transport gives up.
_LONG_POLL_MARGIN_S = 10.0
_CLOSE_MAX_RETRIES = 2
_CLOSE_RETRY_BUDGET_S = 1.0


class Runner(Generic[Y, R]):
    """Steps a generator that yields ``Y`` and returns ``R`` (an `Op`, or the `Steps` of
    one): `step` is what it waits for (None once done, `value` set)."""

    value: R  #: the generator's result, once `step` is None

    def __init__(self, op: Generator[Y, Any, R]) -> None:
        self._op = op
        self.step: Y | None = None
        self._advance(op.send, None)

    def give(self, value: Any) -> None:
        """Answer the pending step."""
        self._advance(self._op.send, value)

    def fail(self, exc: BaseException) -> None:
        """Raise ``exc`` at the pending step (it propagates unless the operation handles it)."""
        self._advance(self._op.throw, exc)

    def _advance(self, send: Callable[[Any], Any], value: Any) -> None:
        try:
            self.step = send(value)
        except StopIteration as stop:
            self.step, self.value = None, stop.value


def expand(policy: Policy, op: Op[R]) -> Steps[R]:
    """``op`` with each `Call` carried out as `exchange` steps: what a transport runs.

    A `Parallel` passes through: the transport runs each of its operations expanded.
    """
    runner = Runner(op)
    while runner.step is not None:
        step = runner.step
        try:
            if isinstance(step, Call):
                result = yield from exchange(policy, step)
            else:
                result = yield step
        except BaseException as exc:  # into the operation (it may handle it, or re-raise)
            runner.fail(exc)
        else:
            runner.give(result)
    return runner.value


def single(call: Call) -> Op[dict[str, Any]]:
    """An operation of one call: its reply's JSON object."""
    if call.raw:
        raise ValueError("single() answers a JSON object; use response() for a raw call")
    body = yield call
    if not isinstance(body, dict):  # pragma: no cover - exchange answers parse_json's dict
        raise TypeError(f"{call.method} {call.path}: expected a JSON object, got {body!r}")
    return body


def response(call: Call) -> Op[httpx.Response]:
    """An operation of one ``raw`` call: its `httpx.Response`."""
    if not call.raw:
        raise ValueError("response() answers the httpx.Response of a raw call")
    reply = yield call
    if not isinstance(reply, httpx.Response):  # pragma: no cover - a transport bug
        raise TypeError(f"{call.method} {call.path}: expected a response, got {reply!r}")
    return reply


# -- checks and wire values ------------------------------------------------------------------


def wire_seconds(seconds: float) -> int | float:
    """A duration as sent on the wire: an int when whole, else milliseconds precision."""
    seconds = round(float(seconds), 3)
    return int(seconds) if seconds.is_integer() else seconds


def check_ttl(ttl: Any, name: str = "ttl") -> float:
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {ttl!r}")
    return ttl


def check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout != timeout:
        raise ValueError(f"timeout must be a number of seconds, got {timeout!r}")
    return float(timeout)


def check_task_id(task: Any, name: str) -> None:
    if not isinstance(task, str) or not task:
        raise ValueError(f"{name} must be a non-empty task id, got {task!r}")
    try:
        task.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} must be UTF-8 text (a task id), got {task!r}") from None


def screen_of(screen: Screen | tuple[int, int] | Mapping[str, int]) -> Screen:
    """A `Screen` from `(width, height)`, a mapping or a `Screen` (`ValueError` if bad)."""
    if isinstance(screen, Screen):
        return screen
    if isinstance(screen, Mapping):
        parsed = Screen.from_json(screen)
    elif isinstance(screen, tuple) and len(screen) == 2:
        parsed = Screen(*screen)
    else:
        parsed = None
    if parsed is None or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0
        for v in (parsed.width, parsed.height)
    ):
        raise ValueError(f"screen must be (width, height) in positive pixels, got {screen!r}")
    return parsed


def deadline_in(timeout: float | None) -> float | None:
    """The monotonic instant ``timeout`` seconds from now (None: no deadline)."""
    return None if timeout is None else time.monotonic() + max(0.0, float(timeout))


def _body(shape: Any) -> dict[str, Any]:
    """A request body as JSON: the fields that are set (None ones are left out)."""
    body: dict[str, Any] = W.encode(shape, drop_none=True)
    return body


# -- reading -------------------------------------------------------------------------------


def get(path: str, parse: Callable[[Any], R]) -> Op[R]:
    """``GET path``, parsed."""
    return parse((yield Call("GET", path)))


def slot_info(slot_id: str) -> Op[SlotInfo]:
    return (yield from get(W.slot_path(slot_id), SlotInfo.from_json))


def episode(slot_id: str, wait: bool = False, timeout_s: float = 30.0) -> Op[Episode]:
    """The current episode; with `wait`, long-poll until it is not pending (or timeout_s)."""
    params: dict[str, Any] = {}
    read_timeout = None
    if wait:
        timeout_s = min(max(0.0, float(timeout_s)), W.MAX_WAIT_S)
        params = {W.Q_WAIT: "true", W.Q_TIMEOUT_S: wire_seconds(timeout_s)}
        read_timeout = timeout_s + _LONG_POLL_MARGIN_S
    body = yield Call("GET", W.slot_episode_path(slot_id), params=params,
                      read_timeout=read_timeout)
    return Episode.from_json(body)


def wait_episode(slot_id: str, timeout: float = 120.0) -> Op[Episode]:
    """Long-poll until the episode is no longer pending (`DrumsTimeout` after `timeout`)."""
    timeout = check_timeout(timeout)
    deadline = time.monotonic() + timeout
    current = (yield from episode(slot_id)) if timeout <= 0 else None
    while current is None or current.pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        current = yield from episode(slot_id, True, min(remaining, W.MAX_WAIT_S))
    if current is None or current.pending:
        raise DrumsTimeout(f"the episode of {slot_id} is still pending after {timeout:g} s")
    return current


def wait_valid(slot_id: str, timeout: float = 120.0) -> Op[Episode]:
    """`wait_episode`, then `InvalidEpisode` unless the episode is valid."""
    current = yield from wait_episode(slot_id, timeout)
    if not current.valid:
        raise InvalidEpisode(
            f"the episode {current.id} of {slot_id} is {current.status}: "
            f"{current.invalid_reason}",
            episode=current,
        )
    return current


def check_out(out: np.ndarray | None, format: str) -> None:
    if out is not None and (out.dtype != np.uint8 or out.ndim != 3 or out.shape[2] != 3):
        raise ValueError(f"out must be a uint8 (H, W, 3) array, got {out.dtype} {out.shape}")
    if format not in W.SCREENSHOT_FORMATS:
        raise ValueError(f"format must be one of {W.SCREENSHOT_FORMATS}, got {format!r}")


def observe(
    slot_id: str,
    format: str,
    out: np.ndarray | None,
    screen: Screen | None,
    base: tuple[str, np.ndarray] | None,
    out_holds: str | None = None,
) -> Op[tuple[Observation, tuple[str, np.ndarray] | None]]:
    """A screenshot, and the new raw base (the last raw frame: its token and pixels).

    ``base`` is the slot's last raw frame (raw only): the host is asked for what changed
    since, and the screen is rebuilt over it. ``out_holds`` is the token of the frame
    ``out`` already holds (`copy_frame`): when that is the base, a delta is applied to
    ``out`` as well, instead of copying the whole rebuilt screen there.
    """
    path = W.slot_screenshot_path(slot_id)
    params = {W.Q_FORMAT: format}
    base = base if format == W.FORMAT_RAW else None
    if base is not None:
        params[W.Q_SINCE] = base[0]
    response = yield Call("GET", path, params=params, raw=True)
    headers = response.headers
    width = _header_int(headers.get(W.H_SCREEN_WIDTH))
    height = _header_int(headers.get(W.H_SCREEN_HEIGHT))
    if (width is None or height is None) and screen is not None:
        width, height = screen.width, screen.height
    if width is None or height is None:
        raise ProtocolError(f"GET {path}: no screen size in the reply")
    token = headers.get(W.H_FRAME_TOKEN)
    rebuilt = None
    new_base = base
    if format == W.FORMAT_RAW:
        # out already holds the base: the delta goes to both, no whole-frame copy
        also = out if out is not None and base is not None and out_holds == base[0] else None
        rebuilt, patched = _rebuild(base, response.content, headers, width, height, path, also)
        new_base = (token, rebuilt) if token else None
        # the caller's own array; the slot keeps its base
        if patched:
            rebuilt = out  # the delta is already there
        elif out is not None:
            rebuilt = _into(out, rebuilt)
        else:
            rebuilt = rebuilt.copy()
    if out is not None and rebuilt is None:  # PNG into out: decode, then copy there
        decoded = Observation(format=format, width=width, height=height,
                              data=response.content).array
        rebuilt = _into(out, decoded)
    observation = Observation(
        format=format,
        width=width,
        height=height,
        data=response.content,
        frame=_header_int(headers.get(W.H_FRAME)),
        episode_status=headers.get(W.H_EPISODE_STATUS),
        token=token,
        rebuilt=rebuilt,
    )
    return observation, new_base


def _rebuild(
    base: tuple[str, np.ndarray] | None,
    data: bytes,
    headers: Any,
    width: int,
    height: int,
    path: str,
    also: np.ndarray | None = None,
) -> tuple[np.ndarray, bool]:
    """The whole screen from a raw reply: a full frame, or a delta over ``base``; and
    whether the delta was also applied to ``also`` (a copy of the base)."""
    boxes = headers.get(W.H_DELTA_BOXES)
    if boxes is None or base is None or headers.get(W.H_DELTA_BASE) != base[0]:
        if len(data) != width * height * 3:
            raise ProtocolError(
                f"GET {path}: raw screenshot has {len(data)} bytes, expected "
                f"{width * height * 3} ({width}x{height}x3)"
            )
        # a writable array of its own (over a bytearray copy of the reply)
        return np.frombuffer(bytearray(data), dtype=np.uint8).reshape(height, width, 3), False
    screen = base[1]
    if also is not None and also.shape != screen.shape:
        raise ValueError(f"out has shape {also.shape}, the screen is {screen.shape}")
    offset = 0
    for box in filter(None, boxes.split(";")):
        try:
            x, y, w, h = (int(v) for v in box.split(","))
        except ValueError:
            raise ProtocolError(f"GET {path}: bad {W.H_DELTA_BOXES} {boxes!r}") from None
        size = w * h * 3
        if x < 0 or y < 0 or x + w > width or y + h > height or offset + size > len(data):
            raise ProtocolError(f"GET {path}: delta box {box!r} does not fit the screen")
        patch = np.frombuffer(data, dtype=np.uint8, count=size, offset=offset).reshape(h, w, 3)
        screen[y : y + h, x : x + w] = patch
        if also is not None:
            also[y : y + h, x : x + w] = patch
        offset += size
    if offset != len(data):
        raise ProtocolError(f"GET {path}: delta has {len(data) - offset} bytes left over")
    return screen, also is not None


def _header_int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def copy_base(base: tuple[str, np.ndarray] | None, out: np.ndarray) -> str | None:
    """Copy a slot's last raw frame into ``out``; its token (None: no frame, nothing done)."""
    check_out(out, W.FORMAT_RAW)
    if base is None:
        return None
    _into(out, base[1])
    return base[0]


def _into(out: np.ndarray, frame: np.ndarray) -> np.ndarray:
    if out.shape != frame.shape:
        raise ValueError(f"out has shape {out.shape}, the screen is {frame.shape}")
    np.copyto(out, frame)
    return out


# -- acting --------------------------------------------------------------------------------


def step(slot_id: str, code: str) -> Op[StepResult]:
    """Run pyautogui `code` (or a control word) on the desktop; never replayed."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str of pyautogui code, got {type(code).__name__}")
    try:
        code.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"code must be UTF-8 text: {exc}") from None
    body = yield Call("POST", W.slot_actions_path(slot_id), json=_body(W.ActionBody(code=code)),
                      replayable=False)
    return StepResult.from_json(body)


def verify(slot_id: str, strict: bool = True, timeout: float = 120.0) -> Op[Reward]:
    """Judge the episode, waiting (up to `timeout`) for a pending one's gates first."""
    timeout = check_timeout(timeout)
    path = W.slot_verify_path(slot_id)
    deadline = time.monotonic() + max(0.0, timeout)
    late = f"the episode of {slot_id} is still pending after {timeout:g} s: no verdict"
    while True:
        remaining = max(0.0, deadline - time.monotonic())
        hold = min(remaining, W.MAX_VERIFY_WAIT_S)
        try:
            body = yield Call(
                "POST",
                path,
                json=_body(W.VerifyBody(strict=bool(strict), timeout_s=wire_seconds(hold))),
                replayable=True,
                read_timeout=hold + _LONG_POLL_MARGIN_S,
            )
        except Conflict as exc:  # strict, and the episode is not valid: pending?
            current = decode(W.ErrorDetails, exc.details, "the conflict's details").episode
            if current is None or current.status != W.EPISODE_PENDING:
                raise
        else:
            reward = Reward.from_json(body)
            if not reward.pending:
                return reward
        # pending: wait for the gates here (a host that did not wait), then judge again
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DrumsTimeout(late)
        try:
            yield from wait_episode(slot_id, remaining)
        except DrumsTimeout:
            raise DrumsTimeout(late) from None


def randomize_field(seed: Any) -> W.Randomize:
    """The ``randomize`` field of a create or reset that varies the desktop by ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= W.MAX_SEED:
        raise ValueError(f"randomize must be a seed, an int from 0 to 2**64 - 1, got {seed!r}")
    return W.Randomize(seed=int(seed))


def reset(
    slot_id: str, randomize: int | None = None, state: str | None = None
) -> Op[tuple[SlotInfo, Episode]]:
    """Start a new episode from the task's image (varied by the seed ``randomize`` on a host
    that offers it), or from the saved state ``state``; the slot as the host answers it,
    and the new episode."""
    path = W.slot_reset_path(slot_id)
    if state is not None and (not isinstance(state, str) or not state):
        raise ValueError(f"state must be a saved state's id or None, got {state!r}")
    seed = None if randomize is None else randomize_field(randomize)
    fields = _body(W.ResetBody(randomize=seed, state=state))
    info = SlotInfo.from_json((yield Call("POST", path, json=fields or None, replayable=True)))
    if info.episode is None:
        raise ProtocolError(f"POST {path}: no episode in the reply")
    return info, info.episode


def extend(slot_id: str, ttl: float) -> Op[SlotInfo]:
    """Make the lease end `ttl` seconds from now."""
    check_ttl(ttl)
    lease = _body(W.LeaseBody(ttl_s=wire_seconds(ttl)))
    body = yield Call("POST", W.slot_lease_path(slot_id), json=lease, replayable=True)
    return SlotInfo.from_json(body)


# -- creating (keyed; close() settles what an interruption left unknown) ---------------------


def create(
    ledger: Ledger,
    task: str,
    ttl: float,
    screen: Screen | tuple[int, int] | Mapping[str, int] | None,
    randomize: int | None = None,
) -> Op[SlotInfo]:
    """Create a desktop under an idempotency key and own it."""
    check_task_id(task, "task")
    body = _body(W.CreateSlotBody(
        task=task,
        ttl_s=wire_seconds(check_ttl(ttl)),
        screen=None if screen is None else screen_of(screen).to_wire(),
        randomize=None if randomize is None else randomize_field(randomize),
    ))
    key = uuid.uuid4().hex
    try:
        info = SlotInfo.from_json((yield Call("POST", W.SLOTS, json=body, idempotency_key=key)))
        ledger.own_slot(info.id)
    except BaseException as exc:  # interrupted or unknown: close() settles it by its key
        ledger.unsettled("slot", W.SLOTS, body, key, exc)
        raise
    return info


def fork(
    ledger: Ledger,
    parent: SlotInfo,
    n: int,
    keep_state: bool,
    strict: bool,
    ttl: float | None,
    make_slot: Callable[[SlotInfo], S],
    make_group: Callable[[list[S], str, list[tuple[str, dict[str, Any]]]], G],
) -> Op[G]:
    """Save ``parent`` as a state and restore ``n`` children; own them.

    ``make_slot`` wraps a child's `SlotInfo`, ``make_group`` the running children, the
    state and the failed ones. With ``strict``, failed children raise `ForkError`.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    body = _body(W.BranchBody(
        n=n,
        delete_state_with_children=not keep_state,
        ttl_s=None if ttl is None else wire_seconds(check_ttl(ttl)),
    ))
    path = W.slot_branch_path(parent.id)
    key = uuid.uuid4().hex
    try:
        reply = decode(W.BranchReply, (yield Call("POST", path, json=body, idempotency_key=key)),
                       f"POST {path}")
        state, children = reply.state, reply.children
        ledger.own_state(state, with_children=not keep_state)
        running: list[S] = []
        failed: list[tuple[str, dict[str, Any]]] = []
        for child in children:
            if child.state == W.CHILD_RUNNING:
                ledger.own_slot(child.id, state)
                running.append(make_slot(SlotInfo(
                    id=child.id, task=parent.task, screen=parent.screen, parent=parent.id,
                    saved_state=state,
                )))
            else:
                error = {} if child.error is None else W.encode(child.error)
                failed.append((child.id, error))
    except BaseException as exc:  # interrupted or unknown: close() settles it by its key
        ledger.unsettled("branch", path, body, key, exc)
        raise
    if not keep_state and not running:
        ledger.forget_state_if_childless(state)  # the host deleted it at once
    group = make_group(running, state, failed)
    if strict and failed:
        lines = ", ".join(
            f"{c.id}: {c.error.code if c.error else '?'} {c.error.message if c.error else ''}"
            .rstrip()
            for c in children
            if c.state != W.CHILD_RUNNING
        )
        raise ForkError(
            f"{len(failed)} of {len(children)} fork children of {parent.id} failed ({lines})",
            ok=group,  # type: ignore[arg-type]
            state=state,
            failed=failed,
        )
    return group


def save_state(ledger: Ledger, slot_id: str) -> Op[str]:
    """Save the slot's desktop as a state with no children (a branch of ``n = 0``); own it
    (the client's close deletes it). Answers the state's id."""
    path = W.slot_branch_path(slot_id)
    body = _body(W.BranchBody(n=0, delete_state_with_children=False))
    key = uuid.uuid4().hex
    try:
        reply = yield Call("POST", path, json=body, idempotency_key=key)
        state = decode(W.BranchReply, reply, f"POST {path}").state
        ledger.own_state(state)
    except BaseException as exc:  # interrupted or unknown: close() settles it by its key
        ledger.unsettled("branch", path, body, key, exc)
        raise
    return state


def _own_reply(ledger: Ledger, kind: str, reply: Mapping[str, Any]) -> None:
    """Own what a replayed create (``kind="slot"``) or fork answered (nothing, from a reply
    that is not one: settling is best effort)."""
    try:
        if kind == "slot":
            ledger.own_slot(decode(W.SlotReply, reply, "a replayed create").id)
            return
        branch = decode(W.BranchReply, reply, "a replayed fork")
    except ProtocolError:
        return
    ledger.own_state(branch.state)
    for child in branch.children:
        if child.state == W.CHILD_RUNNING:
            ledger.own_slot(child.id)


# -- deleting ------------------------------------------------------------------------------


def _delete(path: str, deadline: float | None) -> Op[bool]:
    """``DELETE path``; False when it was already gone (404)."""
    try:
        yield Call("DELETE", path, deadline=deadline, raw=True)
    except NotFound:
        return False
    return True


def delete_slot(ledger: Ledger, slot_id: str, deadline: float | None = None) -> Op[bool]:
    """Delete a slot; False when it was already gone (404)."""
    deleted = yield from _delete(W.slot_path(slot_id), deadline)
    ledger.forget_slot(slot_id)
    return deleted


def delete_state(ledger: Ledger, state_id: str, deadline: float | None = None) -> Op[bool]:
    """Delete a saved state; False when it was already gone (404)."""
    deleted = yield from _delete(W.state_path(state_id), deadline)
    ledger.forget_state(state_id)
    return deleted


def delete_desktop(slot: Any, deadline: float | None = None) -> Op[bool]:
    """`Slot.delete` / `AsyncSlot.delete`: once; nothing to do after the client closed."""
    if slot._deleted:
        return False
    if slot._session.closed:
        slot._deleted = True  # the client's close deleted what it owned
        return False
    deleted = yield from delete_slot(slot._session, slot.id, deadline)
    slot._deleted = True
    return deleted


def errors_of(results: list[Any]) -> list[DrumsError]:
    """The `DrumsError`s among a `Parallel`'s results; any other exception is raised."""
    errors = []
    for result in results:
        if isinstance(result, DrumsError):
            errors.append(result)
        elif isinstance(result, BaseException):
            raise result
    return errors


def close_group(group: Any) -> Op[None]:
    """`ForkGroup.close`: delete the children (concurrently), then the state unless kept;
    every deletion is attempted, the first failure raised afterwards."""
    if group._closed:
        return
    group._closed = True
    live = [s for s in group._slots if not s.closed]
    errors = errors_of((yield Parallel(tuple(delete_desktop(s) for s in live))))
    if not group.keep_state:
        try:
            yield from delete_state(group._client._session, group.state)  # 404: already gone
        except DrumsError as exc:
            errors.append(exc)
    if errors:
        raise errors[0]


def settle(ledger: Ledger, deadline: float | None = None) -> Op[list[DrumsError]]:
    """Replay each unsettled create or fork with its key and own what the host made."""
    errors: list[DrumsError] = []
    for kind, path, body, key in ledger.take_unsettled():
        try:
            reply = yield Call("POST", path, json=body, idempotency_key=key, deadline=deadline)
        except DrumsError as exc:
            errors.append(exc)
            continue
        _own_reply(ledger, kind, reply)
    return errors


def close_session(ledger: Ledger, policy: Any, deadline: float) -> Op[None]:
    """Delete everything ``ledger`` still owns before ``deadline``; log failures once.

    Cleanup must not hang (it may run at interpreter exit, after the host is gone): a
    short retry budget within the deadline, then leases bound the rest.
    """
    policy.max_retries = min(policy.max_retries, _CLOSE_MAX_RETRIES)
    policy.retry_budget = min(policy.retry_budget, _CLOSE_RETRY_BUDGET_S)
    errors = yield from settle(ledger, deadline)
    slots, states = ledger.owned()
    errors += errors_of((yield Parallel(tuple(delete_slot(ledger, s, deadline) for s in slots))))
    errors += errors_of(
        (yield Parallel(tuple(delete_state(ledger, s, deadline) for s in states)))
    )
    if errors:
        logger.warning(
            "drums client close: cleanup failed: %d of %d deletions at %s did not go "
            "through (first: %s); their leases bound what is left",
            len(errors), len(slots) + len(states), policy.where, errors[0],
        )


def delete_state_of(ledger: Ledger, state: Any, timeout: float | None) -> Op[bool]:
    """`Client.delete_state`: a state id or a `StateInfo`, within ``timeout`` seconds."""
    state_id = getattr(state, "id", state) if not isinstance(state, str) else state
    if not isinstance(state_id, str) or not state_id:
        raise ValueError(f"state must be a state id or a StateInfo, got {state!r}")
    return (yield from delete_state(ledger, state_id, deadline_in(timeout)))


def check_workers(workers: Any, default: int | None, n: int, cap: int) -> int:
    """The pool size of a `map` / concurrency of a `gather` over ``n`` items."""
    if workers is None:
        workers = default or min(n, cap)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    return workers

"""Work on one desktop: actions, screenshots, accessibility, verify, reset, task setup.

Each runs holding only its slot's lock (:meth:`Slot.work`: bounded queue, 409 once the
slot is deleted) and is one operation of the slot's station (:meth:`Slot.run`), which runs
in the slot's worker process. Each is written once, as a generator of its station
requests (:data:`Work`), and driven on a thread (:func:`_drive`) or, for an action and a
screenshot whose slot is free, on the front's event loop (:func:`act_now`,
:func:`screenshot_now`: no thread waits on the worker). An action's code goes to the
worker as it came: the worker plans it (a control word, the fast path or Python) and
performs it; the host never parses agent code. Agent-driven work (actions,
setup, verify) runs in the worker under the work budget of the host's config
(:mod:`drums_gym.local.budget`), and every request to a worker has a deadline, the
budget's seconds plus ``watchdog_grace_s``: at the deadline the host kills the worker
(work in C that never checks its budget stops too).

What a cut means:

- an action whose work runs out of budget (or opens more than ``desktop_windows``
  windows) stops there and answers 200 with ``cut``: the agent's own doing, the episode
  goes on;
- a setup or verify cut by its budget makes the episode invalid (``setup_cut``,
  ``verify_cut``): a host limit is never a score;
- a request past its deadline kills the worker: the episode is invalid with
  ``action_timeout`` / ``setup_timeout`` / ``verify_timeout`` / ``screenshot_timeout``...,
  and a worker that died (memory limit, crash) makes it invalid with ``desktop_lost``.
  Either way the slot stays (answering ``409`` to desktop work) until reset or deleted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar

from .. import protocol as P
from ..actions import ActionError
from .budget import Limits
from .errors import HostError, conflict
from .frames import Frame
from .slots import Slot
from .workers import ACTION_GAP_S, Acted, Station, Verdict, Worker, WorkerLost, WorkerTimeout

if TYPE_CHECKING:
    from .host import Host

__all__ = [
    "ACTION_GAP_S", "act", "act_now", "action_log", "fresh_station",
    "reset", "screenshot", "screenshot_now", "setup", "verify",
]

log = logging.getLogger("drums_gym.local")

T = TypeVar("T")
#: one request of a piece of work to the slot's station: (op, args, limits, deadline_s)
Ask = tuple[str, tuple[Any, ...], Limits | None, float | None]
#: a piece of work: it yields each station request and is sent the reply (or thrown the
#: exception) by its driver, on a thread (:func:`_drive`) or on the event loop
#: (:func:`_on_loop`): one definition of what a request does, both ways
Work = Generator[Ask, Any, T]


def _drive(slot: Slot, work: Work[T]) -> T:
    """(under the slot's lock, on a thread) Run ``work``, its requests to the station."""
    try:
        ask = next(work)
        while True:
            op, args, limits, deadline_s = ask
            try:
                done = slot.run(op, *args, limits=limits, deadline_s=deadline_s)
            except Exception as exc:  # into the work, which handles what it knows
                ask = work.throw(exc)
            else:
                ask = work.send(done)
    except StopIteration as stop:
        result: T = stop.value
        return result


async def _on_loop(slot: Slot, make: Callable[[], Work[T]]) -> T | None:
    """Run ``make()``'s work on the event loop, its requests to the slot's worker awaited
    (no thread waits on them), if the slot's lock is free now; None if it is not (the
    caller goes through a thread, which queues for it)."""
    if not slot.work_now():
        return None
    try:
        work = make()
        try:
            ask = next(work)
            while True:
                op, args, limits, deadline_s = ask
                try:
                    done = await slot.arun(op, *args, limits=limits, deadline_s=deadline_s)
                except Exception as exc:
                    ask = work.throw(exc)
                else:
                    ask = work.send(done)
        except StopIteration as stop:
            result: T = stop.value
            return result
    finally:
        slot.lock.release()


def _invalid_action(exc: ActionError) -> HostError:
    details = P.ErrorDetails(construct=exc.construct, line=exc.lineno)
    return HostError(422, P.CODE_INVALID_ACTION, str(exc), details)


def _deadline(host: Host) -> float:
    return host.config.action_seconds + host.config.watchdog_grace_s


def lose(host: Host, slot: Slot, exc: WorkerLost, what: str) -> None:
    """The slot's worker is gone: its episode is invalid (``<what>_timeout`` when the
    watchdog killed it, else ``desktop_lost``), and the host logs why."""
    if slot.state != P.SLOT_RUNNING:
        raise slot.deleted_error() from None
    reason = f"{what}_timeout" if isinstance(exc, WorkerTimeout) else P.INVALID_DESKTOP_LOST
    slot.lost = reason
    if isinstance(slot.station, Worker):
        slot.station.end(reason)  # its socket and cgroups are released by the pool
    slot.episode.invalidate(reason)
    log.warning(
        "drums-gym local host: slot %s lost its desktop during %s (%s); episode %s is "
        "invalid (%s)", slot.id, what, exc.cause, slot.episode.id, reason,
    )


def _live(slot: Slot) -> None:
    if slot.lost is not None:
        raise conflict(
            f"slot {slot.id!r} lost its desktop ({slot.lost}); reset or delete it",
            P.ErrorDetails(slot=slot.id, reason=slot.lost, episode=slot.episode.public()),
        )


def fresh_station(host: Host, workspace: str) -> Station | Worker:
    """A station with no desktop yet: a new worker, or (in-process hosts) a Station."""
    return host.new_station(workspace)


def retire(station: Station | Worker, reason: str) -> None:
    """A station the slot no longer uses: its worker ends, or its desktop closes."""
    if isinstance(station, Worker):
        station.end(reason)
    else:
        station.close()


def setup(host: Host, slot: Slot, randomize: P.Randomize | None = None) -> None:
    """Make the slot's desktop and run its task's setup, under a budget and a deadline
    (a cut setup is a host failure: the episode is invalid with reason ``setup_cut``)."""
    try:
        slot.run(
            "create", slot.task, slot.width, slot.height, host.faults.seed, randomize,
            host.shell, deadline_s=_deadline(host),
        )
        cut = slot.run("setup", limits=host.config.limits(), deadline_s=_deadline(host))
    except WorkerLost as exc:
        lose(host, slot, exc, "setup")
        return
    if cut is not None:
        slot.episode.invalidate(P.INVALID_SETUP_CUT)


def _shown(host: Host, code: str) -> str:
    """The code as its log entry keeps it (at most ``log_code_chars``, then a marker)."""
    keep = host.config.log_code_chars
    return code if len(code) <= keep else code[:keep] + f"... [{len(code)} characters]"


def _log(host: Host, slot: Slot, entry: P.ActionLogEntry) -> None:
    """Append to the episode's action log, which keeps the last ``action_log_entries``."""
    log = slot.episode.log
    log.append(entry)
    if len(log) > host.config.action_log_entries:
        del log[0]


def act(host: Host, slot: Slot, code: str) -> P.ActionReply:
    """Apply an action: a control word (DONE, FAIL, WAIT), plain pyautogui calls or a
    computer_13 action (the fast path), or other Python code (run in the sandbox,
    :mod:`.pycode`), as the worker plans it; an error of running Python is
    ``action_error`` data, as in OSWorld. A refused action (422) is in the episode's log,
    marked with the reason."""
    with slot.work(host.config.slot_queue):
        return _drive(slot, _acting(host, slot, code))


async def act_now(host: Host, slot: Slot, code: str) -> P.ActionReply | None:
    """:func:`act` on the event loop, for a worker's slot nobody is using
    (:meth:`Slot.work_now`); None otherwise (then :func:`act` on a thread, which queues)."""
    return await _on_loop(slot, lambda: _acting(host, slot, code))


def _acting(host: Host, slot: Slot, code: str) -> Work[P.ActionReply]:
    """(under the slot's lock) An action's work; its worker request is yielded."""
    episode = slot.episode
    episode.refresh()
    if episode.status == P.EPISODE_INVALID:
        raise conflict(
            f"episode {episode.id} is invalid ({episode.invalid_reason})",
            P.ErrorDetails(episode=episode.public()),
        )
    pending = episode.status == P.EPISODE_PENDING
    started = time.time()
    try:
        done: Acted = yield "act", (code,), host.config.limits(), _deadline(host)
    except ActionError as exc:
        _log_rejected(host, slot, code, exc)
        raise _invalid_action(exc) from None
    except WorkerLost as exc:
        lose(host, slot, exc, "action")
        done = Acted(0, None, P.CutReply(kind=P.CUT_LOST, detail=str(exc)), [], host.shell)
    if done.cut is not None and slot.state != P.SLOT_RUNNING:
        raise slot.deleted_error()
    applied, action_error, cut = done.applied, done.action_error, done.cut
    runner, control, incidents, shell = done.runner, done.control, done.incidents, done.shell
    episode.last_action = control if control is not None else P.LAST_ACTION_CODE
    episode.actions += 1
    with host._lock:  # lock order: a slot's lock, then the host's (never the reverse)
        ws = host.workspaces.get(slot.workspace)
        state = ws.states.get(slot.saved_state or "") if ws else None
        if state is not None:
            state.touch()  # a state in use is not idle
    _log(host, slot, P.ActionLogEntry(
        code=_shown(host, code), applied=applied, t=started, control=control,
        runner=runner, action_error=action_error, cut=cut,
    ))
    episode.refresh()
    if cut is not None and cut.kind == P.CUT_SANDBOX:
        episode.invalidate(P.INVALID_SANDBOX_FAILED)
        log.warning("drums-gym local host: slot %s: %s; episode %s is invalid (%s)",
                    slot.id, cut.detail, episode.id, P.INVALID_SANDBOX_FAILED)
    if pending and incidents and episode.status == P.EPISODE_PENDING:
        episode.invalidate("window_closed")
    return P.ActionReply(
        applied=applied,
        episode=episode.public(),
        cut=cut,
        action_error=action_error,
        runner=runner,
        shell=shell,
    )


def _log_rejected(host: Host, slot: Slot, code: str, exc: ActionError) -> None:
    """(under the slot's lock) A refused action in the episode's log, with the reason (the
    live view shows it, marked); it is no action of the episode (``actions`` not counted)."""
    _log(host, slot, P.ActionLogEntry(code=_shown(host, code), t=time.time(), error=str(exc)))

def action_log(host: Host, slot: Slot) -> P.ActionLog:
    with slot.work(host.config.slot_queue):
        return P.ActionLog(episode=slot.episode.id, actions=tuple(slot.episode.log))


def _plainly(host: Host, slot: Slot, what: str, op: str, *args: Any) -> Work[Any]:
    """An unbudgeted request (screenshot, accessibility) under the watchdog."""
    _live(slot)
    try:
        return (yield op, args, None, _deadline(host))
    except WorkerLost as exc:
        lose(host, slot, exc, what)
    _live(slot)


def screenshot(host: Host, slot: Slot, fmt: str, since: str | None = None) -> Frame:
    """The screen as PNG or raw RGB (encoded in the worker); with ``since``, a raw reply
    is a delta."""
    with slot.work(host.config.slot_queue):
        return _drive(slot, _shooting(host, slot, fmt, since))


async def screenshot_now(host: Host, slot: Slot, fmt: str, since: str | None = None
                         ) -> Frame | None:
    """:func:`screenshot` on the event loop when the slot is a worker's and nobody is
    using it (:meth:`Slot.work_now`); None otherwise (then :func:`screenshot` on a
    thread)."""
    return await _on_loop(slot, lambda: _shooting(host, slot, fmt, since))


def _shooting(host: Host, slot: Slot, fmt: str, since: str | None) -> Work[Frame]:
    slot.episode.refresh()
    frame: Frame = yield from _plainly(host, slot, "screenshot", "screenshot", fmt, since,
                                       slot.episode.status)
    return frame


def accessibility(host: Host, slot: Slot) -> P.AccessibilityReply:
    with slot.work(host.config.slot_queue):
        tree: P.AccessibilityReply = _drive(
            slot, _plainly(host, slot, "accessibility", "accessibility"))
        return tree


def verify(host: Host, slot: Slot, strict: bool) -> P.VerifyReply:
    """Judge the episode now (the app waits for pending gates before calling this). A
    check cut by a host limit makes the episode invalid, never a valid 0."""
    with slot.work(host.config.slot_queue):
        episode = slot.episode
        episode.refresh()
        valid = episode.status == P.EPISODE_VALID
        if strict and not valid:
            raise conflict(
                f"episode {episode.id} is {episode.status}"
                + (f" ({episode.invalid_reason})" if episode.invalid_reason else ""),
                P.ErrorDetails(episode=episode.public()),
            )
        cut, score, shell = None, 0.0, host.shell
        if slot.lost is None:
            try:
                done: Verdict = slot.run(
                    "verify", episode.last_action, limits=host.config.limits(),
                    deadline_s=_deadline(host),
                )
                score, cut, shell = done.score, done.cut, done.shell
            except WorkerLost as exc:
                lose(host, slot, exc, "verify")
                cut = P.CutReply(kind=P.CUT_LOST, detail=str(exc))
        if cut is not None:
            if slot.state != P.SLOT_RUNNING:
                raise slot.deleted_error()
            episode.invalidate(P.INVALID_VERIFY_CUT)
            score, valid = 0.0, False
        episode.score = score if valid else None  # the live view's verdict
        return P.VerifyReply(
            valid=valid,
            score=score,
            reason=None if valid else (episode.invalid_reason or episode.status),
            episode_id=episode.id,
            gates=tuple(g.public() for g in episode.gates),
            cut=cut,
            shell=shell,
        )


def reset(
    host: Host,
    slot: Slot,
    randomize: P.Randomize | None = None,
    start: Station | Worker | None = None,
) -> P.SlotReply:
    """A fresh desktop (varied by ``randomize``) and a new episode of the same task; with
    ``start`` (a station holding a copy of a saved state's desktop, already set up:
    `fork.restore`), that desktop instead, as a fork child starts from one. A slot that
    lost its desktop gets a new worker."""
    pending = start  # retired here unless the slot takes it
    try:
        with slot.work(host.config.slot_queue):
            if start is not None:
                old, slot.station, pending = slot.station, start, None
                retire(old, "reset from a saved state")
                slot.lost = None
            elif slot.lost is not None:
                slot.station = fresh_station(host, slot.workspace)
                slot.lost = None
            slot.episode = host.new_episode(slot.task, slot.episode.number + 1)
            if start is None:
                setup(host, slot, randomize)
            return slot.public()
    finally:
        if pending is not None:
            retire(pending, "the slot was not reset")

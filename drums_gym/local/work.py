"""Work on one desktop: actions, screenshots, accessibility, verify, reset, task setup.

Each runs holding only its slot's lock (:meth:`Slot.work`: bounded queue, 409 once the
slot is deleted), and agent-driven work (actions, setup, verify) runs under the work
budget of the host's config (:mod:`drums_gym.local.budget`). An action whose work runs out
of budget stops there and answers 200 with ``cut``; the episode goes on.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .. import protocol as P
from ..actions import ActionError
from .budget import BudgetExceeded
from .desktop import Desktop
from .desktop.variation import rng_for, vary
from .errors import HostError, conflict
from .frames import Frame
from .pycode import perform, plan_action
from .scoring import score_episode
from .slots import Slot

if TYPE_CHECKING:
    from .host import Host

__all__ = [
    "ACTION_GAP_S", "act", "action_log", "fresh_desktop", "reset", "screenshot", "setup", "verify",
]

#: desktop time that passes between two action requests
ACTION_GAP_S = 1.0


def _cut(exc: BudgetExceeded) -> P.CutReply:
    return P.CutReply(kind=exc.kind, detail=str(exc))


def _invalid_action(exc: ActionError) -> HostError:
    details = P.ErrorDetails(construct=exc.construct, line=exc.lineno)
    return HostError(422, P.CODE_INVALID_ACTION, str(exc), details)


def fresh_desktop(
    host: Host, width: int, height: int, randomize: P.Randomize | None = None
) -> Desktop:
    """A new desktop for a slot, before its task's setup: the original one, or with
    ``randomize`` (``{"seed": k}``) varied by that seed (:mod:`.desktop.variation`)."""
    desktop = Desktop(width=width, height=height, seed=host.faults.seed,
                      shell=host.config.shell_backend())
    if randomize is not None:
        vary(desktop, rng_for(randomize.seed))
    return desktop


def setup(host: Host, slot: Slot) -> None:
    """Run the task's setup on the slot's desktop under a budget (a cut setup is a host
    failure: the episode is invalid with reason ``setup_cut``)."""
    try:
        with slot.budgeted(host.config.limits()):
            slot.task.setup(slot.desktop)
    except BudgetExceeded:
        slot.episode.invalidate("setup_cut")
    slot.desktop.take_incidents()


def act(host: Host, slot: Slot, code: str) -> P.ActionReply:
    """Apply an action: a control word (DONE, FAIL, WAIT), plain pyautogui calls or a
    computer_13 action (the fast path), or other Python code (run in the sandbox,
    :mod:`.pycode`); an error of running Python is ``action_error`` data, as in OSWorld.
    A refused action (422) is in the episode's log, marked with the reason."""
    try:
        plan = plan_action(code)
    except ActionError as exc:
        with slot.work(host.config.slot_queue):
            _log_rejected(slot, code, exc)
        raise _invalid_action(exc) from None
    with slot.work(host.config.slot_queue) as desktop:
        episode = slot.episode
        episode.refresh()
        if episode.status == P.EPISODE_INVALID:
            raise conflict(
                f"episode {episode.id} is invalid ({episode.invalid_reason})",
                P.ErrorDetails(episode=episode.public()),
            )
        pending = episode.status == P.EPISODE_PENDING
        started, applied, runner = time.time(), 0, None
        cut: P.CutReply | None = None
        action_error: str | None = None
        incidents: list[tuple[str, str]] = []
        if plan.control is not None:
            episode.last_action = plan.control
        else:
            runner = plan.runner
            try:
                with slot.budgeted(host.config.limits()):
                    desktop.advance(ACTION_GAP_S)  # separate requests are never a double-click
                    try:
                        outcome = perform(plan, desktop)
                    except ActionError as exc:
                        _log_rejected(slot, code, exc)
                        raise _invalid_action(exc) from None
                    applied, action_error = outcome.applied, outcome.action_error
            except BudgetExceeded as exc:
                if slot.state != P.SLOT_RUNNING:
                    raise slot.deleted_error() from None
                cut = _cut(exc)
            incidents = desktop.take_incidents()
            episode.last_action = P.LAST_ACTION_CODE
        episode.actions += 1
        with host._lock:  # lock order: a slot's lock, then the host's (never the reverse)
            ws = host.workspaces.get(slot.workspace)
            state = ws.states.get(slot.saved_state or "") if ws else None
            if state is not None:
                state.touch()  # a state in use is not idle
        episode.log.append(P.ActionLogEntry(
            code=code, applied=applied, t=started, control=plan.control, runner=runner,
            action_error=action_error, cut=cut,
        ))
        episode.refresh()
        if pending and incidents and episode.status == P.EPISODE_PENDING:
            episode.invalidate("window_closed")
        return P.ActionReply(
            applied=applied,
            episode=episode.public(),
            cut=cut,
            action_error=action_error,
            runner=runner,
            shell=desktop.shell,
        )


def _log_rejected(slot: Slot, code: str, exc: ActionError) -> None:
    """(under the slot's lock) A refused action in the episode's log, with the reason (the
    live view shows it, marked); it is no action of the episode (``actions`` not counted)."""
    slot.episode.log.append(P.ActionLogEntry(code=code, t=time.time(), error=str(exc)))

def action_log(host: Host, slot: Slot) -> P.ActionLog:
    with slot.work(host.config.slot_queue):
        return P.ActionLog(episode=slot.episode.id, actions=tuple(slot.episode.log))


def screenshot(host: Host, slot: Slot, fmt: str, since: str | None = None) -> Frame:
    """The screen as PNG or raw RGB; with ``since``, a raw reply is a delta."""
    with slot.work(host.config.slot_queue) as desktop:
        slot.episode.refresh()
        return slot.frames.shot(
            desktop.render,
            desktop.frame,
            f"{slot.epoch}.{desktop.frame}",
            fmt,
            (desktop.width, desktop.height),
            slot.episode.status,
            since,
            desktop.layers,
        )


def accessibility(host: Host, slot: Slot) -> P.AccessibilityReply:
    with slot.work(host.config.slot_queue) as desktop:
        return P.AccessibilityReply(format=P.A11Y_FORMAT, tree=desktop.accessibility())


def verify(host: Host, slot: Slot, strict: bool) -> P.VerifyReply:
    """Judge the episode now (the app waits for pending gates before calling this)."""
    with slot.work(host.config.slot_queue) as desktop:
        episode = slot.episode
        episode.refresh()
        valid = episode.status == P.EPISODE_VALID
        if strict and not valid:
            raise conflict(
                f"episode {episode.id} is {episode.status}"
                + (f" ({episode.invalid_reason})" if episode.invalid_reason else ""),
                P.ErrorDetails(episode=episode.public()),
            )
        cut = None
        try:
            with slot.budgeted(host.config.limits()):
                score = score_episode(slot.task, desktop, episode.last_action)
        except BudgetExceeded as exc:
            if slot.state != P.SLOT_RUNNING:
                raise slot.deleted_error() from None
            score, cut = 0.0, _cut(exc)
        episode.score = score if valid else None  # the live view's verdict
        return P.VerifyReply(
            valid=valid,
            score=score,
            reason=None if valid else (episode.invalid_reason or episode.status),
            episode_id=episode.id,
            gates=tuple(g.public() for g in episode.gates),
            cut=cut,
            shell=desktop.shell,
        )


def reset(
    host: Host,
    slot: Slot,
    randomize: P.Randomize | None = None,
    start: Desktop | None = None,
) -> P.SlotReply:
    """A fresh desktop (varied by ``randomize``, see `fresh_desktop`) and a new episode of
    the same task; with ``start`` (a saved state's desktop, already set up), a copy of it
    instead, as a fork child starts from one."""
    with slot.work(host.config.slot_queue) as old:
        if start is None:
            slot.desktop = fresh_desktop(host, old.width, old.height, randomize)
        else:
            slot.desktop = start.clone()
        old.close()
        slot.epoch += 1
        slot.frames.clear()
        slot.episode = host.new_episode(slot.task, slot.episode.number + 1)
        if start is None:
            setup(host, slot)
        return slot.public()

"""Work on one desktop: actions, screenshots, accessibility, verify, reset, task setup.

Each runs holding only its slot's lock (:meth:`Slot.work`: bounded queue, 409 once the
slot is deleted), and agent-driven work (actions, setup, verify) runs under the work
budget of the host's config (:mod:`drums_gym.local.budget`). An action whose work runs out
of budget stops there and answers 200 with ``cut``; the episode goes on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import protocol as P
from ..actions import ActionError, expand, parse
from .budget import BudgetExceeded
from .desktop import Desktop
from .desktop.variation import rng_for, vary
from .errors import HostError, conflict
from .frames import Frame
from .scoring import score_episode
from .slots import Slot

if TYPE_CHECKING:
    from .host import Host

__all__ = [
    "ACTION_GAP_S", "act", "action_log", "fresh_desktop", "reset", "screenshot", "setup", "verify",
]

#: desktop time that passes between two action requests
ACTION_GAP_S = 1.0


def _cut(exc: BudgetExceeded) -> dict[str, str]:
    return {P.F_KIND: exc.kind, P.F_DETAIL: str(exc)}


def _invalid_action(exc: ActionError) -> HostError:
    return HostError(
        422, P.CODE_INVALID_ACTION, str(exc), {P.F_CONSTRUCT: exc.construct, P.F_LINE: exc.lineno}
    )


def fresh_desktop(
    host: Host, width: int, height: int, randomize: Mapping[str, Any] | None = None
) -> Desktop:
    """A new desktop for a slot, before its task's setup: the original one, or with
    ``randomize`` (``{"seed": k}``) varied by that seed (:mod:`.desktop.variation`)."""
    desktop = Desktop(width=width, height=height, seed=host.faults.seed,
                      shell=host.config.shell_backend())
    if randomize is not None:
        vary(desktop, rng_for(randomize[P.F_SEED]))
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


def act(host: Host, slot: Slot, code: str) -> dict[str, Any]:
    """Apply pyautogui code, or record a control word (DONE, FAIL, WAIT)."""
    word = code.strip()
    actions = None if word in P.CONTROL_WORDS else _parse(code)
    with slot.work(host.config.slot_queue) as desktop:
        episode = slot.episode
        episode.refresh()
        if episode.status == P.EPISODE_INVALID:
            raise conflict(
                f"episode {episode.id} is invalid ({episode.invalid_reason})",
                {P.F_EPISODE: episode.public()},
            )
        pending = episode.status == P.EPISODE_PENDING
        entry: dict[str, Any] = {P.F_CODE: code, P.F_APPLIED: 0, P.F_LOG_T: time.time()}
        cut = None
        incidents: list[tuple[str, str]] = []
        if actions is None:
            entry[P.F_CONTROL] = episode.last_action = word
        else:
            try:
                events = expand(actions, pointer=desktop.pointer)
            except ActionError as exc:
                raise _invalid_action(exc) from None
            try:
                with slot.budgeted(host.config.limits()):
                    desktop.advance(ACTION_GAP_S)  # separate requests are never a double-click
                    desktop.apply(events)
            except BudgetExceeded as exc:
                if slot.state != P.SLOT_RUNNING:
                    raise slot.deleted_error() from None
                cut = entry[P.F_CUT] = _cut(exc)
            incidents = desktop.take_incidents()
            entry[P.F_APPLIED] = len(actions)
            episode.last_action = P.LAST_ACTION_CODE
        episode.actions += 1
        with host._lock:  # lock order: a slot's lock, then the host's (never the reverse)
            ws = host.workspaces.get(slot.workspace)
            state = ws.states.get(slot.saved_state or "") if ws else None
            if state is not None:
                state.touch()  # a state in use is not idle
        episode.log.append(entry)
        episode.refresh()
        if pending and incidents and episode.status == P.EPISODE_PENDING:
            episode.invalidate("window_closed")
        return {P.F_APPLIED: entry[P.F_APPLIED], P.F_EPISODE: episode.public(), P.F_CUT: cut,
                P.F_SHELL: desktop.shell}


def _parse(code: str) -> Any:
    try:
        return parse(code)
    except ActionError as exc:
        raise _invalid_action(exc) from None


def action_log(host: Host, slot: Slot) -> dict[str, Any]:
    with slot.work(host.config.slot_queue):
        return {P.F_EPISODE: slot.episode.id, P.F_ACTIONS: list(slot.episode.log)}


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


def accessibility(host: Host, slot: Slot) -> dict[str, Any]:
    with slot.work(host.config.slot_queue) as desktop:
        return {P.F_FORMAT: P.A11Y_FORMAT, P.F_TREE: desktop.accessibility()}


def verify(host: Host, slot: Slot, strict: bool) -> dict[str, Any]:
    """Judge the episode now (the app waits for pending gates before calling this)."""
    with slot.work(host.config.slot_queue) as desktop:
        episode = slot.episode
        episode.refresh()
        valid = episode.status == P.EPISODE_VALID
        if strict and not valid:
            raise conflict(
                f"episode {episode.id} is {episode.status}"
                + (f" ({episode.invalid_reason})" if episode.invalid_reason else ""),
                {P.F_EPISODE: episode.public()},
            )
        cut = None
        try:
            with slot.budgeted(host.config.limits()):
                score = score_episode(slot.task, desktop, episode.last_action)
        except BudgetExceeded as exc:
            if slot.state != P.SLOT_RUNNING:
                raise slot.deleted_error() from None
            score, cut = 0.0, _cut(exc)
        return {
            P.F_VALID: valid,
            P.F_SCORE: score,
            P.F_REASON: None if valid else (episode.invalid_reason or episode.status),
            P.F_EPISODE_ID: episode.id,
            P.F_GATES: [g.public() for g in episode.gates],
            P.F_CUT: cut,
            P.F_SHELL: desktop.shell,
        }


def reset(host: Host, slot: Slot, randomize: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A fresh desktop (varied by ``randomize``, see `fresh_desktop`) and a new episode of
    the same task."""
    with slot.work(host.config.slot_queue) as old:
        slot.desktop = fresh_desktop(host, old.width, old.height, randomize)
        old.close()
        slot.epoch += 1
        slot.frames.clear()
        slot.episode = host.new_episode(slot.task, slot.episode.number + 1)
        setup(host, slot)
        return slot.public()

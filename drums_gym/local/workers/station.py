"""What lives beside one desktop: the desktop, its task, its frames, and the work on them.

A :class:`Station` is the part of a slot that runs where the desktop runs: in the slot's
worker process (the default), or in the host's own process (``in_process`` hosts, for
tests that reach into a desktop). The host keeps the episode, the quotas and the leases;
it calls these methods with plain data and gets plain data (and ready-to-send frame
bytes) back. Budgeted work (setup, actions, verify) runs under the budget the caller put
in force (:mod:`drums_gym.local.budget`) and reports a cut instead of raising.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any

from ... import protocol as P
from ...actions import expand
from ..budget import BudgetExceeded
from ..desktop import Desktop
from ..desktop.variation import rng_for, vary
from ..frames import Frame, FrameCache
from ..scoring import score_episode
from ..tasks import Task

__all__ = ["ACTION_GAP_S", "CHUNK_EVENTS", "Station"]

#: desktop time that passes between two action requests
ACTION_GAP_S = 1.0
#: events applied between two checks of the window cap
CHUNK_EVENTS = 32


def _cut(exc: BudgetExceeded) -> dict[str, str]:
    return {P.F_KIND: exc.kind, P.F_DETAIL: str(exc)}


class Station:
    """One desktop and its task, frames and window cap (``max_windows``)."""

    def __init__(self, max_windows: int = 64) -> None:
        self.max_windows = max_windows
        self.desktop: Desktop | None = None
        self.task: Task | None = None
        self.seed = 0
        self.epoch = 0  # bumped when the desktop is replaced: frame tokens never repeat
        self.frames = FrameCache()

    def _desk(self) -> Desktop:
        if self.desktop is None:
            raise RuntimeError("this station has no desktop yet (create it first)")
        return self.desktop

    # -- lifecycle -----------------------------------------------------------------------
    def create(
        self,
        task: Task,
        width: int,
        height: int,
        seed: int,
        randomize: Mapping[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """A fresh desktop for ``task`` (varied by ``randomize``), then the task's setup;
        returns the setup's cut, if it was cut."""
        self.task, self.seed = task, seed
        desktop = Desktop(width=width, height=height, seed=seed)
        if randomize is not None:
            vary(desktop, rng_for(randomize[P.F_SEED]))
        self.desktop = desktop
        self.epoch += 1
        self.frames.clear()
        return self.setup()

    def setup(self) -> dict[str, Any] | None:
        """The task's setup steps (a cut setup is reported, the caller invalidates)."""
        desktop, task, cut = self._desk(), self.task, None
        if task is None:
            raise RuntimeError("this station has no task yet (create it first)")
        try:
            task.setup(desktop)
        except BudgetExceeded as exc:
            cut = _cut(exc)
        desktop.take_incidents()
        return cut

    def adopt(self, desktop: Desktop, task: Task) -> None:
        """Take ``desktop`` (a fork's copy) as this station's desktop."""
        self.desktop, self.task = desktop, task
        self.epoch += 1
        self.frames.clear()

    def forked(self) -> None:
        """This station is now a fork child's: new frame tokens (its encoded frames, of
        the same desktop, stay: its first screenshot costs no render)."""
        self.epoch += 1
        self.frames.forget_served()

    def snapshot(self) -> Desktop:
        """An independent copy of the desktop (in-process forks)."""
        return self._desk().clone()

    def pickled(self) -> bytes:
        """The desktop, pickled (inspection from the host: tests, debugging)."""
        return pickle.dumps(self._desk(), protocol=pickle.HIGHEST_PROTOCOL)

    def close(self) -> None:
        """Let go of the desktop (the hook where owned processes and trees end)."""
        self.desktop = None
        self.frames.clear()

    # -- work ----------------------------------------------------------------------------
    def act(self, actions: Any) -> dict[str, Any]:
        """Apply parsed pyautogui ``actions``; returns the cut (budget or window cap) and
        the incidents. Raises ActionError when they cannot be expanded into events."""
        desktop = self._desk()
        events = list(expand(actions, pointer=desktop.pointer))
        cut = None
        try:
            desktop.advance(ACTION_GAP_S)  # separate requests are never a double-click
            for at in range(0, max(len(events), 1), CHUNK_EVENTS):
                desktop.apply(events[at : at + CHUNK_EVENTS])
                if len(desktop.windows) > self.max_windows:
                    cut = self._close_extra_windows()
                    break
        except BudgetExceeded as exc:
            cut = _cut(exc)
        return {P.F_CUT: cut, "incidents": desktop.take_incidents()}

    def _close_extra_windows(self) -> dict[str, str]:
        desktop = self._desk()
        while len(desktop.windows) > self.max_windows:
            desktop.close_window(desktop.windows[-1])
        return {
            P.F_KIND: "windows",
            P.F_DETAIL: f"more than {self.max_windows} windows open (the newest were closed)",
        }

    def screenshot(self, fmt: str, since: str | None, status: str) -> Frame:
        """The screen as PNG or raw RGB; with ``since``, a raw reply is a delta."""
        desktop = self._desk()
        return self.frames.shot(
            desktop.render,
            desktop.frame,
            f"{self.epoch}.{desktop.frame}",
            fmt,
            (desktop.width, desktop.height),
            status,
            since,
            desktop.layers,
        )

    def accessibility(self) -> dict[str, Any]:
        return {P.F_FORMAT: P.A11Y_FORMAT, P.F_TREE: self._desk().accessibility()}

    def verify(self, last_action: str | None) -> dict[str, Any]:
        """The task's score of the desktop now, or the cut that stopped the check."""
        try:
            return {P.F_SCORE: score_episode(self.task, self._desk(), last_action), P.F_CUT: None}
        except BudgetExceeded as exc:
            return {P.F_SCORE: 0.0, P.F_CUT: _cut(exc)}

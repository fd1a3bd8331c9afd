"""What lives beside one desktop: the desktop, its task, its frames, and the work on them.

A :class:`Station` is the part of a slot that runs where the desktop runs: in the slot's
worker process (the default), or in the host's own process (``in_process`` hosts, for
tests that reach into a desktop). The host keeps the episode, the quotas and the leases;
it calls these methods with plain data and gets plain data back: the protocol's shapes
(a cut is a :class:`~drums_gym.protocol.CutReply`), :class:`Acted` and :class:`Verdict`,
and ready-to-send frame bytes. Budgeted work (setup, actions, verify) runs under the
budget the caller put in force (:mod:`drums_gym.local.budget`) and reports a cut instead
of raising. An action's code is planned and performed here (:func:`~..pycode.plan_action`:
a control word, the fast path, or Python in the desktop's sandbox, started by this
process: the host never parses agent code);
:meth:`Station.close` ends the desktop (its sandbox's programs and its files).
"""

from __future__ import annotations

import os
import pickle
import stat
from dataclasses import dataclass

from ... import protocol as P
from ...actions import ControlWord, expand
from ..budget import BudgetExceeded
from ..desktop import Desktop
from ..desktop.variation import rng_for, vary
from ..frames import Frame, FrameCache
from ..pycode import PYTHON, perform, plan_action
from ..sandbox import SandboxError
from ..scoring import score_episode
from ..tasks import Task

__all__ = ["ACTION_GAP_S", "CHUNK_EVENTS", "Acted", "Station", "Verdict"]

#: desktop time that passes between two action requests
ACTION_GAP_S = 1.0
#: events applied between two checks of the window cap
CHUNK_EVENTS = 32


def _cut(exc: BudgetExceeded) -> P.CutReply:
    return P.CutReply(kind=exc.kind, detail=str(exc))


@dataclass(frozen=True)
class Acted:
    """What an action did: the calls applied, the error that stopped Python code, the cut
    (budget or window cap), the incidents (windows closed) and the shell backend; the path
    it took (``runner``: ``fast`` or ``python``), or the control word it was."""

    applied: int
    action_error: str | None
    cut: P.CutReply | None
    incidents: list[tuple[str, str]]
    shell: str
    runner: str | None = None
    control: ControlWord | None = None


@dataclass(frozen=True)
class Verdict:
    """The task's score of the desktop, or the cut that stopped the check (score 0)."""

    score: float
    cut: P.CutReply | None
    shell: str


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
        randomize: P.Randomize | None = None,
        shell: str = "simulated",
    ) -> None:
        """A fresh desktop for ``task`` (varied by ``randomize``; ``shell``: the backend of
        its terminal and commands), before the task's setup (`setup`, budgeted: building
        the desktop is not the task's work). A desktop this station held before is closed."""
        self.task, self.seed = task, seed
        desktop = Desktop(width=width, height=height, seed=seed, shell=shell)
        if randomize is not None:
            vary(desktop, rng_for(randomize.seed))
        self._replace(desktop)

    def _replace(self, desktop: Desktop) -> None:
        old, self.desktop = self.desktop, desktop
        if old is not None:
            old.close()
        self.epoch += 1
        self.frames.clear()

    def setup(self) -> P.CutReply | None:
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
        self.task = task
        self._replace(desktop)

    def forked(self, keep_fd: int) -> None:
        """This station is now a fork child's, in a process of its own: new frame tokens
        (its encoded frames, of the same desktop, stay: its first screenshot costs no
        render). A desktop with real programs (the sandbox backend) shares its parent's
        tree and sandbox: the child takes a copy of both (a new tree, a sandbox not yet
        started) and abandons the inherited objects unclosed (they are the parent's); of the
        inherited sockets, pipes and ptys only ``keep_fd`` (its own to the host) stays."""
        self.epoch += 1
        self.frames.forget_served()
        desktop = self.desktop
        if desktop is not None and desktop.shell != "simulated":
            self.desktop = desktop.clone()
            _abandon(desktop, keep_fd)

    def snapshot(self) -> Desktop:
        """An independent copy of the desktop (in-process forks)."""
        return self._desk().clone()

    def pickled(self) -> bytes:
        """The desktop, pickled (inspection from the host: tests, debugging)."""
        return pickle.dumps(self._desk(), protocol=pickle.HIGHEST_PROTOCOL)

    def close(self) -> None:
        """End the desktop: its sandbox's programs and its files go (idempotent)."""
        desktop, self.desktop = self.desktop, None
        self.frames.clear()
        if desktop is not None:
            desktop.close()

    # -- work ----------------------------------------------------------------------------
    def act(self, code: str) -> Acted:
        """Plan ``code`` and perform it (the fast path, or Python in the sandbox); a
        control word touches nothing. Raises ActionError for code no path runs and for
        calls that cannot be expanded into events."""
        plan = plan_action(code)
        desktop = self._desk()
        if plan.control is not None:
            return Acted(0, None, None, [], desktop.shell, control=plan.control)
        python = plan.runner == PYTHON
        events = [] if python else list(expand(plan.actions, pointer=desktop.pointer))
        cut: P.CutReply | None = None
        action_error: str | None = None
        applied = 0 if python else len(plan.actions)
        try:
            desktop.advance(ACTION_GAP_S)  # separate requests are never a double-click
            if python:
                outcome = perform(plan, desktop)
                applied, action_error = outcome.applied, outcome.action_error
            for at in range(0, len(events), CHUNK_EVENTS):
                desktop.apply(events[at : at + CHUNK_EVENTS])
                if len(desktop.windows) > self.max_windows:
                    cut = self._close_extra_windows()
                    break
        except BudgetExceeded as exc:
            cut = _cut(exc)
        except SandboxError as exc:  # the host's failure: the episode becomes invalid
            cut = P.CutReply(kind=P.CUT_SANDBOX, detail=str(exc))
        if cut is None and len(desktop.windows) > self.max_windows:
            cut = self._close_extra_windows()
        return Acted(applied, action_error, cut, desktop.take_incidents(), desktop.shell,
                     runner=plan.runner)

    def _close_extra_windows(self) -> P.CutReply:
        desktop = self._desk()
        while len(desktop.windows) > self.max_windows:
            desktop.close_window(desktop.windows[-1])
        return P.CutReply(
            kind="windows",
            detail=f"more than {self.max_windows} windows open (the newest were closed)",
        )

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

    def accessibility(self) -> P.AccessibilityReply:
        return P.AccessibilityReply(format=P.A11Y_FORMAT, tree=self._desk().accessibility())

    def verify(self, last_action: str | None) -> Verdict:
        """The task's score of the desktop now, or the cut that stopped the check. A command
        still running in a real terminal first gets up to `SETTLE_CAP_S` more to finish
        (OSWorld waits for the desktop to settle before it evaluates)."""
        desktop = self._desk()
        try:
            desktop.terminals.settle()
            return Verdict(score_episode(self.task, desktop, last_action), None, desktop.shell)
        except BudgetExceeded as exc:
            return Verdict(0.0, _cut(exc), desktop.shell)


#: desktops a fork child inherited and let go of unclosed (see `Station.forked`)
_ABANDONED: list[Desktop] = []


def _abandon(desktop: Desktop, keep_fd: int) -> None:
    """Keep ``desktop`` (the parent's, inherited by fork) from ever being finalized here
    (its tree and sandbox are the parent's to remove) and close the descriptors it holds
    in this process (the parent's sandbox and terminals must not see them held open)."""
    for fin in (getattr(desktop.fs, "_finalizer", None),
                getattr(desktop.sandbox, "_finalizer", None)):
        if fin is not None:
            fin.detach()
    _ABANDONED.append(desktop)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2 or fd == keep_fd:
            continue
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            os.close(fd)  # a socket, pty or pipe of the parent's programs

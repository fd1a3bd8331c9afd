"""The `Task` record (a loaded OSWorld task file) and the lookup error `UnknownTask`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import protocol as P
from ..desktop import Desktop
from ..sandbox import backend_from_env
from .evaluator import Evaluator
from .steps import Step, run_steps

__all__ = ["DEFAULT_GATES", "Task", "UnknownTask"]

DEFAULT_GATES: tuple[str, ...] = ("desktop_ready", "task_setup")


@dataclass(frozen=True)
class Task:
    """One task: ``setup(desktop)`` prepares a fresh desktop, ``check(desktop)`` scores it.

    Built from an OSWorld task file (`drums_gym.local.tasks.loader`): ``config`` is its
    setup steps, ``evaluator`` its judgement; ``source`` is the file it came from.
    ``infeasible`` tasks are judged by the episode's last action (the host's FAIL rule),
    never by the desktop. Plain data: picklable, deep-copyable.
    """

    id: str
    domain: str
    instruction: str
    config: tuple[Step, ...] = field(repr=False, compare=False)
    evaluator: Evaluator = field(repr=False, compare=False)
    screen: tuple[int, int] = (1920, 1080)
    gates: tuple[str, ...] = DEFAULT_GATES
    source: str = field(default="", repr=False, compare=False)

    @property
    def short_id(self) -> str:
        """The first 8 characters of ``id`` (``"e0df059f"``)."""
        return self.id[:8]

    @property
    def infeasible(self) -> bool:
        """Whether the evaluator is ``infeasible`` (1.0 iff the episode ends with FAIL)."""
        return self.evaluator.infeasible

    def create_desktop(self, seed: int = 0, screen: tuple[int, int] | None = None,
                       shell: str | None = None) -> Desktop:
        """A fresh desktop (setup not yet run) at ``screen``, by default the task's size,
        on the ``shell`` backend (``sandbox``/``simulated``; None: ``DRUMS_LOCAL_SHELL``'s
        choice, ``auto`` when unset: the sandbox where it works)."""
        width, height = screen if screen is not None else self.screen
        if shell is None:
            shell = backend_from_env()
        return Desktop(width, height, seed=seed, shell=shell)

    def setup(self, desktop: Desktop) -> None:
        """Run the task file's ``config`` steps on a fresh desktop."""
        run_steps(desktop, self.config, self.id)

    def check(self, desktop: Desktop) -> float:
        """Score ``desktop`` with the evaluator (0.0 or 1.0 for the os tasks; 0.0 for an
        infeasible task). Postconfig and getters run on a copy: checking changes nothing."""
        if self.infeasible:
            return 0.0
        copy = desktop.clone()
        try:
            return float(self.evaluator.score(copy, self.id))
        finally:
            copy.close()

    def public(self) -> P.TaskReply:
        """What the HTTP API serves for this task."""
        return P.TaskReply(id=self.id, short_id=self.short_id, domain=self.domain,
                           instruction=self.instruction,
                           screen=P.ScreenSize(width=self.screen[0], height=self.screen[1]))


class UnknownTask(KeyError):
    """No task has this id (full or 8-character short id)."""

    def __init__(self, task_id: str, known: list[str]) -> None:
        super().__init__(task_id)
        self.task_id, self.known = task_id, known

    def __str__(self) -> str:
        return f"unknown task {self.task_id!r}; known tasks: {', '.join(self.known)}"

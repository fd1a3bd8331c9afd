"""The work budget of one unit of desktop work (an action, a setup step, a getter).

Agent-generated input drives the simulator: a terminal line can loop, expand, print or walk
the filesystem without end. Every loop the simulator runs on such input charges the budget of
the work it belongs to, so one action costs at most ``Limits.steps`` steps, ``Limits.seconds``
of wall time and ``Limits.output_bytes`` of produced data, and stops at the next check once
its slot is deleted. The budget in force is a context variable: code deep in the simulator
calls :func:`charge` without threading a budget through every signature.

>>> from drums_gym.local.budget import Budget, Limits, BudgetExceeded, charge, running
>>> with running(Budget(Limits(steps=10))):
...     try:
...         for _ in range(100):
...             charge()
...     except BudgetExceeded as exc:
...         print(exc.kind)
steps
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "Budget",
    "BudgetExceeded",
    "Limits",
    "charge",
    "charge_bytes",
    "current",
    "running",
]

_CHECK_EVERY = 256  # steps between clock and cancellation checks


@dataclass(frozen=True)
class Limits:
    """What one unit of work may cost."""

    steps: int = 2_000_000
    seconds: float = 5.0
    output_bytes: int = 16 * 1024 * 1024


class BudgetExceeded(Exception):
    """The work ran out of budget (``kind``: ``steps``, ``time``, ``output`` or ``cancelled``).

    Raised inside the simulator and caught where the work began, which stops it as Ctrl+C
    would and reports that it was cut."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


class Budget:
    """The remaining steps, time and output bytes of one unit of work, and its cancel flag."""

    __slots__ = ("_bytes_left", "_cancel", "_deadline", "_steps_left", "_until_check", "limits")

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits if limits is not None else Limits()
        self._steps_left = self.limits.steps
        self._bytes_left = self.limits.output_bytes
        self._deadline = time.monotonic() + self.limits.seconds
        self._until_check = _CHECK_EVERY
        self._cancel = threading.Event()

    def cancel(self) -> None:
        """Stop the work at its next check (thread-safe: the slot was deleted, its lease ended)."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def charge(self, steps: int = 1) -> None:
        """Spend ``steps``; raise :class:`BudgetExceeded` when the work must stop."""
        self._steps_left -= steps
        if self._steps_left < 0:
            raise BudgetExceeded("steps", f"more than {self.limits.steps} steps of work")
        self._until_check -= steps
        if self._until_check <= 0:
            self._until_check = _CHECK_EVERY
            self.check()

    def charge_bytes(self, nbytes: int) -> None:
        """Spend ``nbytes`` of produced data (expansions, output, file contents)."""
        self._bytes_left -= nbytes
        if self._bytes_left < 0:
            raise BudgetExceeded(
                "output", f"more than {self.limits.output_bytes} bytes of output"
            )

    def check(self) -> None:
        """Raise if the work was cancelled or its time is up."""
        if self._cancel.is_set():
            raise BudgetExceeded("cancelled", "the desktop was deleted")
        if time.monotonic() > self._deadline:
            raise BudgetExceeded("time", f"more than {self.limits.seconds:g} s of work")


_current: ContextVar[Budget | None] = ContextVar("drums_local_budget", default=None)


def current() -> Budget | None:
    """The budget in force in this context, if any."""
    return _current.get()


@contextmanager
def running(budget: Budget) -> Iterator[Budget]:
    """Make ``budget`` the one in force for the work inside the ``with`` block."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def charge(steps: int = 1) -> None:
    """Charge the budget in force (no-op outside any: the host sets one for all agent work)."""
    budget = _current.get()
    if budget is not None:
        budget.charge(steps)


def charge_bytes(nbytes: int) -> None:
    """Charge produced bytes to the budget in force."""
    budget = _current.get()
    if budget is not None:
        budget.charge_bytes(nbytes)

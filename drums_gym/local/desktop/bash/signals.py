"""Exceptions that unwind the interpreter on purpose: ``exit`` and ``break``/``continue``.

They live apart from `interp` so the commands that raise them (``exit``, ``break``) do not
import the interpreter that runs them.
"""

from __future__ import annotations

__all__ = ["BreakLoop", "ExitShell"]


class ExitShell(Exception):
    """``exit``: the shell (and its terminal) ends with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class BreakLoop(Exception):
    """``break``/``continue`` (``cont``) unwinding ``levels`` loops."""

    def __init__(self, levels: int, cont: bool) -> None:
        super().__init__(levels)
        self.levels, self.cont = levels, cont

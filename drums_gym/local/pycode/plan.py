"""Which path an action takes: a control word, the fast path, or Python in the sandbox.

- ``DONE``, ``FAIL``, ``WAIT`` (and their computer_13 dicts): control words.
- A computer_13 action (its JSON text): translated to pyautogui calls, the fast path.
- Plain pyautogui calls the `ast` allowlist parser accepts: the fast path (no process).
- Any other valid Python (assignments, loops, aliases, helper functions, f-strings with
  expressions, a wrong argument): run as Python in the desktop's sandbox
  (`runner.run_python`), with OSWorld's semantics. On a desktop without one (the simulated
  shell backend) `perform` refuses such code, saying so.

Code that is not valid Python, too long, or not a str is refused by either path (nothing
would run under ``python -c`` either).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...actions import Action, ActionError, ControlWord, computer13, expand, parse, parse_control
from ..desktop import Desktop
from ..sandbox import SHELL_VARIABLE
from .runner import run_python

__all__ = ["FAST", "PYTHON", "Outcome", "Plan", "perform", "plan_action"]

FAST = "fast"
PYTHON = "python"
CONTROL = "control"

#: refusals no path could run (python -c would not run them either)
_FINAL = frozenset({"syntax", "type", "limit", "computer_13"})


@dataclass(frozen=True)
class Plan:
    """How one action runs (``runner``: ``control``, ``fast`` or ``python``; a Python plan
    keeps the fast parser's ``refusal``, what a desktop without a sandbox answers)."""

    code: str
    runner: str
    control: ControlWord | None = None
    actions: tuple[Action, ...] = ()
    refusal: ActionError | None = None


@dataclass(frozen=True)
class Outcome:
    """What running a plan did: calls applied, and the error that stopped Python code."""

    applied: int
    action_error: str | None = None


def plan_action(code: str) -> Plan:
    """The plan for ``code``; raises `ActionError` for code no path runs."""
    word = parse_control(code)
    c13 = computer13.loads(code) if isinstance(code, str) else None
    if c13 is not None:
        translated = computer13.translate(c13)
        if isinstance(translated, str):
            return Plan(code, CONTROL, control=translated)
        return Plan(code, FAST, actions=tuple(translated))
    if word is not None:
        return Plan(code, CONTROL, control=word)
    try:
        return Plan(code, FAST, actions=tuple(parse(code)))
    except ActionError as exc:
        if exc.construct in _FINAL:
            raise
        return Plan(code, PYTHON, refusal=exc)


def perform(plan: Plan, desktop: Desktop) -> Outcome:
    """Run a fast or Python plan on ``desktop`` (under the work budget in force); a Python
    plan on a desktop without a sandbox raises `ActionError` (nothing applied)."""
    if plan.runner == PYTHON:
        if desktop.sandbox is None:
            exc = plan.refusal or ActionError("code beyond plain pyautogui calls", "python")
            if exc.construct == "argument":
                raise exc
            raise ActionError(
                f"{exc}; code beyond plain pyautogui calls runs as Python only with the "
                f"sandbox backend (bubblewrap; {SHELL_VARIABLE}=auto or sandbox)",
                exc.construct,
                exc.lineno,
            ) from None
        run = run_python(desktop, plan.code)
        return Outcome(run.applied, run.error)
    desktop.apply(expand(plan.actions, pointer=desktop.pointer))
    return Outcome(len(plan.actions))

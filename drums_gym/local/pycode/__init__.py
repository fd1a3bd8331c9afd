"""Agent Python: pyautogui code beyond plain calls runs as real Python in the desktop's sandbox.

`plan_action` decides the path of an action (control word, fast path, Python), `perform`
runs it on a desktop. The Python path (`run_python`) has the desktop's own sandbox start
the system interpreter under rlimits (`PyLimits`), with a ``pyautogui`` stub whose every
call is applied on the desktop by its owner at once; see docs/actions.md. A desktop of
the simulated shell backend has no sandbox: such code is refused there.
"""

from .limits import PyLimits
from .plan import FAST, PYTHON, Outcome, Plan, perform, plan_action
from .runner import PythonRun, run_python

__all__ = [
    "FAST",
    "PYTHON",
    "Outcome",
    "Plan",
    "PyLimits",
    "PythonRun",
    "perform",
    "plan_action",
    "run_python",
]

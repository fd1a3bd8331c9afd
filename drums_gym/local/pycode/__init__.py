"""Agent Python: pyautogui code beyond plain calls runs as real Python in a sandbox.

`plan_action` decides the path of an action (control word, fast path, Python), `perform`
runs it on a desktop. The Python path (`run_python`) starts the system interpreter inside
bubblewrap (`sandbox_prefix`) under rlimits (`PyLimits`), with a ``pyautogui`` stub whose
every call is applied on the desktop by its owner at once; see docs/actions.md.
"""

from .limits import PyLimits
from .plan import FAST, PYTHON, Outcome, Plan, perform, plan_action
from .runner import PythonRun, run_python
from .sandbox import available, sandbox_prefix

__all__ = [
    "FAST",
    "PYTHON",
    "Outcome",
    "Plan",
    "PyLimits",
    "PythonRun",
    "available",
    "perform",
    "plan_action",
    "run_python",
    "sandbox_prefix",
]

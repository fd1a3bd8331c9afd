"""Plan-driven scripted solvers: a list of steps, each reading the accessibility tree.

A step looks at the current tree and returns the next pyautogui code, ``""`` when
there is nothing to do (the next step runs at once), or None when what it needs is
not on screen yet (the solver answers ``"WAIT"`` and retries it; a
lookup raising `LookupError` counts as not ready). When the plan is through, the
solver answers ``"DONE"``; after ``max_waits`` fruitless retries of one step, ``"FAIL"``.

>>> class Demo(Solver):
...     task_id, route = "00000000-demo", "gui"
...     def plan(self):
...         return [hotkey("ctrl", "a"), write("hi\\n")]
>>> s = Demo()
>>> [s(None, "", {"accessibility": {}}) for _ in range(3)]
["pyautogui.hotkey('ctrl', 'a')", "pyautogui.write('hi\\\\n')", 'DONE']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from .a11y import Node, center

__all__ = ["Check", "Locate", "Solver", "Step", "click", "code", "hotkey", "press", "when", "write"]

Step = Callable[[Node], "str | None"]
Locate = Callable[[Node], Node]
Check = Callable[[Node], object]


class Solver:
    """An oracle policy for one task and route: ``reset()``, then call it each step.

    ``solver(observation, instruction, info)`` returns a pyautogui string, ``"WAIT"``,
    ``"DONE"`` or ``"FAIL"``; ``info["accessibility"]`` must hold the tree (make the env
    with ``accessibility=True``).
    """

    task_id: ClassVar[str] = ""
    route: ClassVar[str] = ""
    #: the steps an episode takes with this solver, its closing DONE included, when
    #: nothing on screen has to be waited for (``get_solver(max_steps=...)`` picks by it)
    steps: ClassVar[int] = 0
    max_waits: ClassVar[int] = 10

    def __init__(self) -> None:
        self._steps: list[Step] = list(self.plan())
        self.position = 0
        self.waits = 0

    def plan(self) -> Iterable[Step]:
        """The steps, in order (subclasses)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Start over (a new episode)."""
        self.position = 0
        self.waits = 0

    @property
    def done(self) -> bool:
        return self.position >= len(self._steps)

    def __call__(self, observation: Any, instruction: str = "",
                 info: Mapping[str, Any] | None = None) -> str:
        if self.done:
            return "DONE"
        tree = (info or {}).get("accessibility")
        if isinstance(tree, dict) and "role" not in tree and isinstance(tree.get("tree"), dict):
            tree = tree["tree"]  # the HTTP API's envelope ({"format", "tree"})
        if not isinstance(tree, dict):
            raise ValueError("info['accessibility'] must hold the accessibility tree; make the "
                             "env with accessibility=True")
        while not self.done:
            try:
                out = self._steps[self.position](tree)
            except LookupError:
                out = None
            if out is None:
                self.waits += 1
                return "FAIL" if self.waits > self.max_waits else "WAIT"
            self.position += 1
            self.waits = 0
            if out:  # "" is a step with nothing left to do
                return out
        return "DONE"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(task={self.task_id[:8]!r}, route={self.route!r})"


# -- step builders ----------------------------------------------------------------

def _ready(check: Check | None, tree: Node) -> bool:
    if check is None:
        return True
    try:
        return bool(check(tree))
    except LookupError:
        return False


def code(text: str, check: Check | None = None) -> Step:
    """Fixed pyautogui ``text``, sent once ``check(tree)`` holds."""
    def step(tree: Node) -> str | None:
        return text if _ready(check, tree) else None
    return step


def when(check: Check, step: Step) -> Step:
    """``step``, held back until ``check(tree)`` holds."""
    def gated(tree: Node) -> str | None:
        return step(tree) if _ready(check, tree) else None
    return gated


def hotkey(*keys: str, check: Check | None = None) -> Step:
    return code(f"pyautogui.hotkey({', '.join(repr(k) for k in keys)})", check)


def press(key: str, check: Check | None = None) -> Step:
    return code(f"pyautogui.press({key!r})", check)


def write(text: str, check: Check | None = None) -> Step:
    return code(f"pyautogui.write({text!r})", check)


def click(locate: Locate, clicks: int = 1, button: str = "left", hold: str | None = None,
          check: Check | None = None) -> Step:
    """Click the centre of the node ``locate(tree)`` finds (``hold`` a modifier meanwhile)."""
    def step(tree: Node) -> str | None:
        if not _ready(check, tree):
            return None
        x, y = center(locate(tree))
        if button == "right":
            line = f"pyautogui.rightClick({x}, {y})"
        elif clicks == 2:
            line = f"pyautogui.doubleClick({x}, {y})"
        else:
            line = f"pyautogui.click({x}, {y})"
        if hold:
            return f"pyautogui.keyDown({hold!r})\n{line}\npyautogui.keyUp({hold!r})"
        return line
    return step

"""Config steps (a task's ``config`` and its evaluator's ``postconfig``), by type.

Each type is one function ``(desktop, params, task_id)`` registered in `STEPS`, with an
optional validator run when the task file is loaded (so a step the simulator cannot run is
refused then, naming the file). The types OSWorld's os tasks use:

- ``execute``: ``command`` as an argv list, or a string with ``"shell": true``, runs in the
  simulated shell (`shell.run_command`, in the home folder); a ``python -c "import
  pyautogui; ..."`` command is parsed by the action language and applied to the desktop as
  input events (never executed; its ``time.sleep`` calls are left out: the simulator needs
  no settling time, and a set-up desktop's clock stays where a fresh one starts).
- ``download``: each of ``files`` (``url``, ``path``) is written at ``path`` (relative to the
  home folder) from a local generator of the same name and kind (`downloads`).
- ``activate_window``: raise the window whose title (or app) is ``window_name``.
- ``sleep``: nothing (OSWorld waits for the VM to settle; the simulator is settled).
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drums_gym.actions import ActionError, Sleep, expand, parse

from ..desktop import Desktop
from ..desktop.fs import HOME
from . import downloads
from .errors import TaskFileError
from .registry import Registry
from .shell import missing_commands, run_command

__all__ = ["STEPS", "Step", "check_commands", "execute_plan", "load_steps", "run_steps", "step"]

STEPS: Registry[None] = Registry("config step type")
Validator = Callable[[Mapping[str, Any], str, str], None]
_VALIDATORS: dict[str, Validator] = {}
_PYTHONS = frozenset({"python", "python3"})
_OPERATORS = frozenset(";|&<>()$`\n")


@dataclass(frozen=True)
class Step:
    """One config step: its ``type`` and ``parameters`` (as the task file gives them)."""

    type: str
    params: Mapping[str, Any]


def step(name: str, validate: Validator | None = None
         ) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator: register a step type's runner (and its load-time validator)."""
    def add(fn: Callable[..., None]) -> Callable[..., None]:
        STEPS.register(name)(fn)
        if validate is not None:
            _VALIDATORS[name] = validate
        return fn
    return add


def load_steps(raw: Any, source: str, task_id: str, where: str) -> tuple[Step, ...]:
    """Validate a list of steps from a task file (``where`` names it: ``config``...)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise TaskFileError(source, f"{where} must be a list of steps, got {type(raw).__name__}")
    out = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise TaskFileError(source, f"{at} must be an object with 'type' and 'parameters'")
        kind = item.get("type")
        try:
            STEPS.lookup(kind, source)
        except TaskFileError as exc:
            raise TaskFileError(source, f"{at}: {exc.problem}") from None
        kind = str(kind)  # a known step name: lookup refused anything else
        params = item.get("parameters", {})
        if not isinstance(params, dict):
            raise TaskFileError(source, f"{at}.parameters must be an object")
        check = _VALIDATORS.get(kind)
        if check is not None:
            try:
                check(params, source, task_id)
            except TaskFileError as exc:
                raise TaskFileError(source, f"{at} ({kind}): {exc.problem}") from None
        out.append(Step(kind, params))
    return tuple(out)


def run_steps(desktop: Desktop, steps: tuple[Step, ...], task_id: str) -> None:
    """Run steps in order on ``desktop``."""
    for s in steps:
        STEPS[s.type](desktop, s.params, task_id)


# -- execute -----------------------------------------------------------------------

def _python_code(argv: list[str]) -> str | None:
    if len(argv) == 3 and argv[0] in _PYTHONS and argv[1] == "-c":
        return argv[2]
    return None


def execute_plan(command: Any, shell: Any, source: str = "<task>") -> tuple[str, str]:
    """How a command runs here: ``("actions", pyautogui code)`` or ``("shell", line)``.

    As OSWorld's VM server: a string without ``shell`` is split into an argv, argv items
    starting with ``~/`` are expanded, a list with ``shell`` runs its first item.

    >>> execute_plan(["python", "-c", "import pyautogui; pyautogui.click(1, 2)"], False)
    ('actions', 'import pyautogui; pyautogui.click(1, 2)')
    >>> execute_plan(["ls", "-l", "~/my dir"], False)
    ('shell', "ls -l '/home/user/my dir'")
    >>> execute_plan("echo hi | wc -c", True)
    ('shell', 'echo hi | wc -c')
    """
    argv: list[str] | None = None
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            if not shell:
                raise TaskFileError(source, f"cannot split the command {command!r}: {exc}"
                                    ) from None
        line = command
    elif isinstance(command, list) and command and all(isinstance(a, str) for a in command):
        argv = list(command)
        line = command[0]
    else:
        raise TaskFileError(source, f"command must be a string or a non-empty list of "
                                    f"strings, got {command!r}")
    if argv is not None and not shell:
        argv = [HOME + a[1:] if a.startswith("~/") else a for a in argv]
        line = shlex.join(argv)
    code = _python_code(argv) if argv is not None else None
    if code is not None:
        return "actions", code
    simple = argv is not None and not (shell and any(c in _OPERATORS for c in line))
    if simple and argv and argv[0] in _PYTHONS:
        raise TaskFileError(source, f"the command {command!r} runs Python, which the simulator "
                                    "does not have (only python -c \"import pyautogui; ...\" "
                                    "commands are supported, through the action language)")
    return "shell", line


def check_commands(line: str, source: str) -> None:
    """Refuse a command line that needs commands the simulated shell does not have."""
    missing = missing_commands(line)
    if missing:
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise TaskFileError(source, f"needs {', '.join(missing)}, which the simulated shell "
                                    f"does not have (in {shown!r})")


def _check_execute(params: Mapping[str, Any], source: str, task_id: str) -> None:
    kind, text = execute_plan(params.get("command"), params.get("shell", False), source)
    if kind == "shell":
        check_commands(text, source)
    if kind == "actions":
        try:
            parse(text)
        except ActionError as exc:
            raise TaskFileError(source, f"its pyautogui code is not supported here: {exc}"
                                ) from None


@step("execute", _check_execute)
def execute(desktop: Desktop, params: Mapping[str, Any], task_id: str) -> None:
    kind, text = execute_plan(params.get("command"), params.get("shell", False))
    if kind == "actions":
        events = expand(parse(text), pointer=desktop.pointer)
        desktop.apply([e for e in events if not isinstance(e, Sleep)])
    else:
        run_command(desktop, text)


# -- download ----------------------------------------------------------------------

def _target(path: str) -> str:
    if path.startswith("~"):
        path = HOME + path[1:]
    return posixpath.normpath(path if path.startswith("/") else f"{HOME}/{path}")


def _check_download(params: Mapping[str, Any], source: str, task_id: str) -> None:
    files = params.get("files")
    if not isinstance(files, list) or not files:
        raise TaskFileError(source, "files must be a non-empty list of {url, path}")
    for f in files:
        path = f.get("path") if isinstance(f, dict) else None
        if not isinstance(path, str) or not path.strip():
            raise TaskFileError(source, f"each file needs a path, got {f!r}")
        if not downloads.supports(task_id, path):
            raise TaskFileError(source, f"no local stand-in for the download of {path!r} "
                                        "(the host has no network; see docs/tasks.md)")
        if path.endswith(".sh"):  # a script the task then runs: its commands must exist
            text = downloads.generate(task_id, path).decode(errors="replace")
            try:
                check_commands(text, source)
            except TaskFileError as exc:
                raise TaskFileError(source, f"{posixpath.basename(path)}: {exc.problem}"
                                    ) from None


@step("download", _check_download)
def download(desktop: Desktop, params: Mapping[str, Any], task_id: str) -> None:
    """Write each file (creating missing folders). Where the desktop's state makes that
    impossible (an agent left a folder at the path), the file is skipped, as a failed
    upload to the VM would be: the evaluator then judges what is there."""
    for f in params["files"]:
        path = _target(f["path"])
        parent = posixpath.dirname(path)
        try:
            if not desktop.fs.is_dir(parent):
                desktop.fs.mkdir(parent, parents=True)
            desktop.fs.write_file(path, downloads.generate(task_id, f["path"]))
        except OSError:
            continue


# -- windows and time --------------------------------------------------------------

def _check_activate(params: Mapping[str, Any], source: str, task_id: str) -> None:
    if not isinstance(params.get("window_name"), str):
        raise TaskFileError(source, "window_name must be a string")


@step("activate_window", _check_activate)
def activate_window(desktop: Desktop, params: Mapping[str, Any], task_id: str) -> None:
    """Raise the top window whose title contains ``window_name`` (or, as ``wmctrl -x``
    would by class, whose app is it); ``strict``: the title must equal it. None: no-op."""
    name = params["window_name"].lower()
    strict = bool(params.get("strict", False))
    for w in reversed(desktop.windows):
        title = w.title.lower()
        if (title == name if strict else name in title) or w.app == name:
            desktop.raise_window(w)
            return


def _check_sleep(params: Mapping[str, Any], source: str, task_id: str) -> None:
    seconds = params.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise TaskFileError(source, f"seconds must be a number >= 0, got {seconds!r}")


@step("sleep", _check_sleep)
def sleep(desktop: Desktop, params: Mapping[str, Any], task_id: str) -> None:
    """Nothing to wait for: the simulated desktop is settled after every step."""

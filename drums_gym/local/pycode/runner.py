"""Run agent Python in the desktop's sandbox and serve its pyautogui calls on the desktop.

Each desktop keeps one interpreter server in its sandbox (``server.py``, a resident program
of `Sandbox.resident`, started as the user by the sandbox's broker on the first Python
action, again after a crash or a cut, ended with the desktop). Each action runs in a fresh
fork of it, so nothing carries over between actions, as with OSWorld's ``python -c``. The
owner (this process) sends the code, then answers the child's requests one at a time: each
pyautogui call is bound with the action language's signatures, expanded and applied to the
desktop at once (so lines before an error take effect), and queries answer from the live
desktop. Between messages it checks the work budget in force (time, and cancellation when
the desktop goes); when it runs out the server and its child are SIGKILLed (their process
group) and the next action starts a new server.
"""

from __future__ import annotations

import json
import os
import select
import signal
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ...actions import KEYBOARD_KEYS, X11_KEYS, ActionError, call_action, expand
from ..budget import BudgetExceeded, current
from ..desktop import Desktop
from ..sandbox import Process, SandboxError
from .limits import PyLimits

__all__ = ["PythonRun", "run_python"]

_POLL_S = 0.05
PYTHON = "/usr/bin/python3"  # the system interpreter, as OSWorld's VM runs actions
RESIDENT = "python"  # the name of the desktop's interpreter server (`Sandbox.resident`)
_EXIT_WAIT_S = 2.0


@cache
def _source(name: str) -> str:
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


@dataclass
class PythonRun:
    """What agent code did: pyautogui calls applied, and the error that stopped it."""

    applied: int = 0
    error: str | None = None
    calls: list[str] = field(default_factory=list)


class _Lines:
    """Newline-delimited messages from the interpreter, bounded in length."""

    def __init__(self, fd: int, limit: int) -> None:
        self.fd, self.limit, self.buffer = fd, limit, b""

    def read(self, wait_s: float) -> list[bytes] | None:
        """Complete lines that arrived within ``wait_s`` ([] when none); None at EOF."""
        ready, _, _ = select.select([self.fd], [], [], wait_s)
        if not ready:
            return []
        chunk = os.read(self.fd, 65536)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > self.limit or any(len(line) > self.limit for line in lines):
            raise _Broken(f"the interpreter sent a message over {self.limit} bytes")
        return lines


class _Broken(Exception):
    """The interpreter broke the protocol; it is killed and the action reports why."""


def _argv(limits: PyLimits) -> list[str]:
    setup = {"stub": _source("stub_pyautogui.py"), "keys": list(KEYBOARD_KEYS),
             "x11": sorted(X11_KEYS)}
    return [*limits.prlimit_argv(), PYTHON, "-I", "-S", "-c", _source("server.py"),
            json.dumps(setup)]


def run_python(desktop: Desktop, code: str, limits: PyLimits | None = None) -> PythonRun:
    """Run ``code`` as Python in ``desktop``'s sandbox, against ``desktop``; raises
    `BudgetExceeded` when cut, `SandboxError` when the sandbox cannot start the interpreter
    (a host failure, not the code's), ValueError for a desktop without a sandbox."""
    box = desktop.sandbox
    if box is None:
        raise ValueError("run_python: the desktop has no sandbox (the simulated shell backend)")
    limits = limits if limits is not None else PyLimits()
    try:
        server = box.resident(RESIDENT, _argv(limits))
    except (SandboxError, OSError) as exc:
        raise SandboxError(f"the sandbox could not start the interpreter: {exc}") from exc
    run = PythonRun()
    clean = False
    try:
        _send(server.to_fd, {"code": code})
        clean = _serve(desktop, server.proc, _Lines(server.from_fd, limits.message_bytes),
                       server.to_fd, run)
    except _Broken as exc:
        run.error = str(exc)
    finally:
        if not clean:  # cut, crashed or out of step: the next action starts a fresh server
            server.close()
    return run


def _send(fd: int, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode() + b"\n"
    try:
        while data:
            data = data[os.write(fd, data):]
    except BrokenPipeError:
        pass  # the interpreter is gone; its exit status says why


def _serve(desktop: Desktop, proc: Process, lines: _Lines, out: int, run: PythonRun) -> bool:
    """Answer the child's calls until the server reports its exit: True when the server
    is ready for the next action, False when it ended."""
    budget = current()
    ended = False
    while True:
        if budget is not None:
            budget.check()  # BudgetExceeded: time, or the desktop was deleted
        batch = lines.read(_POLL_S)
        if batch is None:  # the server is gone (after the code's end: the code killed it)
            if not ended:
                _exited(proc, run)
            return False
        for line in batch:
            message = _decode(line)
            if "exit" in message:
                if lines.buffer or line is not batch[-1]:
                    raise _Broken("the interpreter sent a message after its exit")
                if not ended:
                    _died(message["exit"], run)
                return True
            if ended:
                raise _Broken("the interpreter sent a message after its end")
            if "end" in message:
                if message.get("memory"):
                    raise BudgetExceeded("memory", "the code ran out of memory (MemoryError)")
                end = message["end"]
                run.error = end if isinstance(end, str) else None
                ended = True
                continue
            _send(out, _answer(desktop, message, run))


def _decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        raise _Broken("the interpreter sent a message that is not JSON") from None
    if not isinstance(message, dict):
        raise _Broken("the interpreter sent a message that is not an object")
    return message


def _answer(desktop: Desktop, message: dict[str, Any], run: PythonRun) -> dict[str, Any]:
    """Apply one call, or answer one query, on the live desktop."""
    query = message.get("query")
    if query == "position":
        return {"ok": list(desktop.pointer)}
    if query == "size":
        return {"ok": [desktop.width, desktop.height]}
    if query == "pixel":
        x, y = message.get("x"), message.get("y")
        if not (isinstance(x, int) and isinstance(y, int)):
            return {"raise": "TypeError", "message": "pixel(): x and y must be ints"}
        if not (0 <= x < desktop.width and 0 <= y < desktop.height):
            return {"raise": "ValueError", "message": f"pixel(): ({x}, {y}) is off the screen"}
        rgb = desktop.render().convert("RGB").getpixel((x, y))
        return {"ok": list(rgb) if isinstance(rgb, tuple) else [rgb] * 3}
    name, args, kwargs = message.get("call"), message.get("args"), message.get("kwargs")
    if not (isinstance(name, str) and isinstance(args, list) and isinstance(kwargs, dict)):
        raise _Broken("the interpreter sent a malformed call")
    try:
        action = call_action(name, args, kwargs, ignore_tween=True)
        events = expand([action], pointer=desktop.pointer)
    except ActionError as exc:
        kind = "TypeError" if exc.construct == "argument" else "ValueError"
        return {"raise": kind, "message": str(exc)}
    desktop.apply(events)
    run.applied += 1
    run.calls.append(action.name)
    return {"ok": None}


def _died(status: object, run: PythonRun) -> None:
    """The code's process ended without an end message (the server reports a signal's
    death as 128 + its number): say how."""
    if status == 128 + signal.SIGXCPU:
        raise BudgetExceeded("cpu", "the code used more CPU time than its limit")
    if status == 128 + signal.SIGKILL:
        raise BudgetExceeded("memory", "the code was killed (memory or process limit)")
    run.error = f"the Python process ended with status {status} before the code finished"


def _exited(proc: Process, run: PythonRun) -> None:
    """The server closed its pipe (it died, e.g. killed for memory): say how."""
    _died(proc.poll(_EXIT_WAIT_S), run)

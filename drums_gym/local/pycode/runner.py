"""Run agent Python in the sandbox and serve its pyautogui calls on the desktop.

The owner of the Desktop (this process) starts ``python3 -I -S -c boot.py`` inside the
sandbox with two pipes, sends the stub and the code, then answers the interpreter's requests
one at a time: each pyautogui call is bound with the action language's signatures, expanded
and applied to the desktop at once (so lines before an error take effect), and queries answer
from the live desktop. Between messages it checks the work budget in force (time, and
cancellation when the desktop goes), and SIGKILLs the interpreter when it runs out.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ...actions import KEYBOARD_KEYS, X11_KEYS, ActionError, call_action, expand
from ..budget import BudgetExceeded, current
from ..desktop import Desktop
from .limits import PyLimits
from .sandbox import PYTHON, sandbox_prefix

__all__ = ["PythonRun", "run_python"]

_POLL_S = 0.05
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


def run_python(desktop: Desktop, code: str, limits: PyLimits | None = None) -> PythonRun:
    """Run ``code`` as Python against ``desktop``; raises `BudgetExceeded` when cut."""
    limits = limits if limits is not None else PyLimits()
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    argv = [
        *sandbox_prefix(desktop, limits),
        PYTHON, "-I", "-S", "-c", _source("boot.py"), str(to_child_r), str(from_child_w),
    ]  # fmt: skip
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_child_r, from_child_w),
            env={},
        )
    except OSError as exc:
        os.close(to_child_w)
        os.close(from_child_r)
        return PythonRun(error=f"the sandbox could not start: {exc.strerror or exc}")
    finally:
        os.close(to_child_r)
        os.close(from_child_w)
    run = PythonRun()
    finished = False
    try:
        first = {
            "stub": _source("stub_pyautogui.py"),
            "code": code,
            "keys": list(KEYBOARD_KEYS),
            "x11": sorted(X11_KEYS),
        }
        _send(to_child_w, first)
        _serve(desktop, proc, _Lines(from_child_r, limits.message_bytes), to_child_w, run)
        finished = True
    except _Broken as exc:
        run.error = str(exc)
    finally:
        _stop(proc, grace_s=_EXIT_WAIT_S if finished else 0.0)
        os.close(to_child_w)
        os.close(from_child_r)
    return run


def _send(fd: int, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode() + b"\n"
    try:
        while data:
            data = data[os.write(fd, data):]
    except BrokenPipeError:
        pass  # the interpreter is gone; its exit status says why


def _serve(
    desktop: Desktop, proc: subprocess.Popen[bytes], lines: _Lines, out: int, run: PythonRun
) -> None:
    budget = current()
    while True:
        if budget is not None:
            budget.check()  # BudgetExceeded: time, or the desktop was deleted
        batch = lines.read(_POLL_S)
        if batch is None:
            _exited(proc, run)
            return
        for line in batch:
            message = _decode(line)
            if "end" in message:
                if message.get("memory"):
                    raise BudgetExceeded("memory", "the code ran out of memory (MemoryError)")
                end = message["end"]
                run.error = end if isinstance(end, str) else None
                return
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


def _exited(proc: subprocess.Popen[bytes], run: PythonRun) -> None:
    """The interpreter closed its pipe without an end message: say how it ended."""
    try:
        status = proc.wait(timeout=_EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        status = None
    if status == -signal.SIGXCPU or status == 128 + signal.SIGXCPU:
        raise BudgetExceeded("cpu", "the code used more CPU time than its limit")
    if status == -signal.SIGKILL or status == 128 + signal.SIGKILL:
        raise BudgetExceeded("memory", "the code was killed (memory or process limit)")
    run.error = f"the Python process ended with status {status} before the code finished"


def _stop(proc: subprocess.Popen[bytes], grace_s: float) -> None:
    """Make sure the sandbox is gone (bwrap's death takes its whole PID namespace): after
    ``grace_s`` for a run that ended, at once for one that was cut."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)
    if proc.poll() is None:
        proc.kill()
        proc.wait()

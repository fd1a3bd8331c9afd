"""The interpreter a desktop keeps in its sandbox (``python3 -I -S -c <this file's text>``).

It is never imported by the host. It starts once per desktop (again after a crash or a
cut), with the pyautogui stub's source and the key names as its argument (JSON), imports
what an action needs, compiles the stub, and then waits on its stdin. For each action the
owner sends one line, ``{"code": ...}``; the server forks, and the child runs the code as
OSWorld runs an action (``python -c "import pyautogui; import time; pyautogui.FAILSAFE =
False; <code>"``): a fresh ``__main__`` and a fresh ``pyautogui`` module each time, so
nothing the code does (variables, imports, module attributes) reaches the next action;
``pyautogui`` and ``time`` are already imported, each pyautogui call is applied on the
desktop at once, and an exception stops the code there. The child's last line is
``{"end": null}``, or the traceback's last line of what stopped it; then the server sends
``{"exit": status}`` (128 + the signal when it was killed) and waits for the next action.

The child talks over copies of the pipes that are not inherited by programs it runs; its
own stdin and stdout are /dev/null (a ``print`` goes nowhere, as under OSWorld's
controller, whose output nobody reads).
"""

import collections  # noqa: F401 - the stub's imports, done once in the server
import contextlib  # noqa: F401
import json
import os
import sys
import time
import traceback
import types


def _child(code, stub, setup):
    channel_r, channel_w = os.dup(0), os.dup(1)  # os.dup: not inherited by exec'd programs
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    reader = os.fdopen(channel_r, "rb")
    writer = os.fdopen(channel_w, "wb", 0)
    sys.argv = ["-c"]
    module = types.ModuleType("pyautogui")
    module.__dict__["_CHANNEL"] = (reader, writer)
    module.__dict__["_SETUP"] = setup
    exec(stub, module.__dict__)
    sys.modules["pyautogui"] = module
    time.sleep = module.sleep
    scope = {"__name__": "__main__", "pyautogui": module, "time": time}
    end = None
    memory = False
    try:
        exec(compile(code, "<string>", "exec"), scope)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            end = "SystemExit: " + str(exc.code)
    except MemoryError:
        end, memory = "MemoryError", True
    except BaseException as exc:
        end = traceback.format_exception_only(type(exc), exc)[-1].strip()
    writer.write(json.dumps({"end": end, "memory": memory}).encode() + b"\n")


def _line():
    """One line of stdin, b"" at EOF (the owner sends nothing more until the child asks,
    so a chunk never holds part of what comes after the line)."""
    out = bytearray()
    while not out.endswith(b"\n"):
        chunk = os.read(0, 65536)
        if not chunk:
            return b""
        out += chunk
    return bytes(out)


def _main():
    setup = json.loads(sys.argv[1])
    stub = compile(setup.pop("stub"), "pyautogui.py", "exec")
    while True:
        line = _line()
        if not line:
            return  # the owner hung up
        code = json.loads(line)["code"]
        pid = os.fork()
        if pid == 0:
            try:
                _child(code, stub, setup)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        died = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        os.write(1, json.dumps({"exit": died}).encode() + b"\n")


if __name__ == "__main__":  # run by python -c; importing it does nothing
    _main()

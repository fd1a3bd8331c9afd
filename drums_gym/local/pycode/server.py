"""The program the sandboxed interpreter runs (``python3 -I -S -c <this file's text>``).

It is never imported by the host. Its arguments are the two pipe ends to the desktop's owner
(read, write); the first line the owner sends holds the pyautogui stub's source and the
agent's code. The code runs as OSWorld runs an action (``python -c "import pyautogui; import
time; pyautogui.FAILSAFE = False; <code>"``): ``pyautogui`` and ``time`` are already imported,
each pyautogui call is applied on the desktop at once, and an exception stops the code there.
The last line sent is ``{"end": null}``, or the traceback's last line of what stopped it.
"""

import json
import os
import sys
import types


def _main():
    reader = os.fdopen(int(sys.argv[1]), "rb")
    writer = os.fdopen(int(sys.argv[2]), "wb", 0)
    first = json.loads(reader.readline())
    stub = types.ModuleType("pyautogui")
    stub.__dict__["_CHANNEL"] = (reader, writer)
    stub.__dict__["_SETUP"] = first
    exec(compile(first["stub"], "pyautogui.py", "exec"), stub.__dict__)
    sys.modules["pyautogui"] = stub
    import time

    time.sleep = stub.sleep
    scope = {"__name__": "__main__", "pyautogui": stub, "time": time}
    end = None
    memory = False
    try:
        exec(compile(first["code"], "<string>", "exec"), scope)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            end = "SystemExit: " + str(exc.code)
    except MemoryError:
        end, memory = "MemoryError", True
    except BaseException as exc:
        import traceback

        end = traceback.format_exception_only(type(exc), exc)[-1].strip()
    writer.write(json.dumps({"end": end, "memory": memory}).encode() + b"\n")


if __name__ == "__main__":  # run by python -c; importing it does nothing
    _main()

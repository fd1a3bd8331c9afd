"""Agent Python over real HTTP and real Gymnasium: code beyond plain calls runs in the sandbox.

Each test drives the real local host. What the code did is read back from the live desktop
by the next action's own Python (``assert pyautogui.position() == ...``: an ``action_error``
when it does not hold), or from the task's checker.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from dataclasses import replace

import gymnasium as gym
import pytest
from a11y import center, find
from conftest import FAST

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.client import ActionError, connect
from drums_gym.local.pycode.runner import PYTHON
from drums_gym.local.sandbox import available

pytestmark = pytest.mark.skipif(not available(), reason="needs bubblewrap (the sandbox)")


#: the Python path needs the sandbox backend, whatever DRUMS_LOCAL_SHELL says
SANDBOX = replace(FAST, shell="sandbox")


@pytest.fixture
def sandbox_host(make_host):
    return make_host(config=SANDBOX)


@pytest.fixture
def env(sandbox_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", sandbox_host.url)
    env = gym.make("Drums/e0df059f", accessibility=True, wait_s=0.0, max_steps=20)
    yield env
    env.close()


def step(env, action):
    _, reward, terminated, truncated, info = env.step(action)
    assert info["valid"] is True
    return reward, terminated, info


def test_aliases_loops_and_helpers_apply_as_osworld_would(env):
    _, info = env.reset(seed=0)
    x, y = center(find(info["accessibility"], "todo_list_Jan_1"))
    code = (
        "import pyautogui as pg\n"
        "from pyautogui import press, hotkey\n"
        f"target = ({x}, {y})\n"
        "def rename(name):\n"
        "    pg.click(*target)\n"
        "    press('f2')\n"
        "    hotkey('ctrl', 'a')\n"
        "    for ch in name:\n"
        "        pg.write(ch)\n"
        "    pg.press('enter')\n"
        "rename(f\"todo_list_Jan_{1 + 1}\")\n"
    )
    _, _, info = step(env, code)
    assert "action_error" not in info
    reward, terminated, _ = step(env, "DONE")
    assert terminated and reward == 1.0


def test_a_loop_of_presses_and_the_live_position(env):
    env.reset(seed=0)
    _, _, info = step(env, "import pyautogui as pg\nfor i in range(3): pg.moveRel(10, 5)")
    assert "action_error" not in info
    _, _, info = step(env, "import pyautogui as pg\npg.moveTo(100, 100)\n"
                           "for i in range(3): pg.moveRel(10, 5)\n"
                           "assert pg.position() == (130, 115), pg.position()\n"
                           "assert pg.size() == (1920, 1080), pg.size()\n"
                           "assert len(pg.pixel(5, 5)) == 3")
    assert "action_error" not in info
    _, _, info = step(env, "assert pyautogui.position() == (1, 1), tuple(pyautogui.position())")
    assert info["action_error"] == "AssertionError: (130, 115)"  # the check can fail


def test_an_error_on_line_3_leaves_lines_1_and_2_applied(env):
    env.reset(seed=0)
    _, _, info = step(env, "pyautogui.moveTo(111, 222)\nx = 1\nundefined_name\n"
                           "pyautogui.moveTo(5, 5)")
    assert info["action_error"] == "NameError: name 'undefined_name' is not defined"
    _, _, info = step(env, "p = pyautogui.position()\nassert p == (111, 222), p")
    assert "action_error" not in info


def test_a_wrong_argument_raises_in_the_code_after_earlier_lines(env):
    env.reset(seed=0)
    _, _, info = step(env, "pyautogui.moveTo(40, 50)\nn = 'ten'\npyautogui.click(clicks=n)")
    assert info["action_error"].startswith("TypeError: pyautogui.click(): argument 'clicks'")
    _, _, info = step(env, "assert pyautogui.position() == (40, 50)")
    assert "action_error" not in info


def test_unknown_keys_are_noops_in_both_paths(env):
    env.reset(seed=0)
    for code in ("pyautogui.press('super')", "k = 'nosuchkey'\npyautogui.press(k)",
                 "pyautogui.hotkey('command', 'nosuch')"):
        _, _, info = step(env, code)
        assert "action_error" not in info, code


def test_time_sleep_is_the_desktop_clock_and_returns_at_once(env):
    env.reset(seed=0)
    _, _, info = step(env, "import time\nfor _ in range(30): time.sleep(2)")
    assert "action_error" not in info  # 60 s of desktop time, no minute of wall time


def test_no_network_no_machine_file_no_writable_path_uid_1000(sandbox_host, env):
    env.reset(seed=0)
    port = sandbox_host.url.rsplit(":", 1)[1].strip("/")
    checks = {
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)": "Error",
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)": "OSError",
        "open('/etc/shadow').read()": "PermissionError",  # the desktop's own, root's
        f"open({os.path.abspath(__file__)!r}).read()": "FileNotFoundError",
        "open('/proc/1/environ').read()": "PermissionError",  # the sandbox's init, root's
        "open('/usr/drums-probe', 'w')": "OSError: [Errno 30] Read-only file system",
        "open('/etc/drums-probe', 'w')": "PermissionError",
    }
    for code, error in checks.items():
        _, _, info = step(env, code)
        assert error in (info.get("action_error") or ""), (code, info.get("action_error"))
    _, _, info = step(env, "import os\nassert os.getuid() == 1000, os.getuid()\n"
                           "assert 'user:x:1000:1000' in open('/etc/passwd').read()\n"
                           "assert 'root:' not in open('/etc/passwd').read().split('user:')[1]")
    assert "action_error" not in info


def test_python_sees_the_desktops_files_as_the_terminal_does(env):
    """The code runs in the desktop's own sandbox: what it writes, the desktop's files (and
    the task's checker) see; what the setup made, it reads."""
    env.reset(seed=0)
    _, _, info = step(env, "import os\n"
                           "assert 'todo_list_Jan_1' in os.listdir('/home/user/Desktop')\n"
                           "open('/home/user/Desktop/made_by_python.txt', 'w').write('hi')")
    assert "action_error" not in info
    _, _, info = step(env, "pyautogui.hotkey('ctrl', 'alt', 't')")
    _, _, info = step(env, "pyautogui.write('cat ~/Desktop/made_by_python.txt > ~/seen')\n"
                           "pyautogui.press('enter')")
    _, _, info = step(env, "assert open('/home/user/seen').read() == 'hi'")
    assert "action_error" not in info


def test_nothing_carries_over_between_actions(env):
    """One interpreter server per desktop, a fresh fork of it per action: variables,
    imports and module attributes of one action are gone in the next, as with python -c."""
    env.reset(seed=0)
    _, _, info = step(env, "x = 1\nimport json\npyautogui.PAUSE = 7\ntime.marker = 1\n"
                           "import sys\nsys.modules['mine'] = sys")
    assert "action_error" not in info
    for code, error in {"x": "NameError: name 'x' is not defined",
                        "json": "NameError: name 'json' is not defined",
                        "assert pyautogui.PAUSE == 0.1, pyautogui.PAUSE": None,
                        "assert not hasattr(time, 'marker')": None,
                        "import sys\nassert 'mine' not in sys.modules": None}.items():
        _, _, info = step(env, code)
        assert info.get("action_error") == error, code


def test_a_print_and_a_child_program_do_not_reach_the_channel(env):
    env.reset(seed=0)
    _, _, info = step(env, "print('not a message')\nimport os\n"
                           "os.system('echo nor this; cat')\npyautogui.moveTo(33, 44)")
    assert "action_error" not in info
    _, _, info = step(env, "assert pyautogui.position() == (33, 44)")
    assert "action_error" not in info


def test_the_interpreter_is_restarted_after_it_dies(env):
    env.reset(seed=0)
    _, _, info = step(env, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
                           "pyautogui.moveTo(5, 6)")  # the code kills its server, then ends
    assert "action_error" not in info and "cut" not in info
    _, _, info = step(env, "import pyautogui as pg\nassert pg.position() == (5, 6)\n"
                           "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)")
    assert info["action_error"] == ("the Python process ended with status 143 before the code "
                                    "finished")
    _, _, info = step(env, "import pyautogui as pg\npg.moveTo(7, 8)\n"
                           "assert pg.position() == (7, 8)")
    assert "action_error" not in info


def _parent(pid: str) -> str:
    with open(f"/proc/{pid}/status") as f:
        return next(line.split()[1] for line in f if line.startswith("PPid:"))


def _sandboxes() -> set[str]:
    """Interpreters (servers and the code they run) in this process's desktops' sandboxes:
    the pids of the system Python's processes descended from this process.

    Cheap while a fork bomb runs, which the wait in the runaway-code test needs: each
    process is told by its executable (``/proc/<pid>/exe``; its ``cmdline`` waits on a
    forking process's memory map) and each ancestry is read once per call (a bomb is a
    chain of hundreds of processes). Reading ``cmdline`` and walking up from every process,
    one scan outlasted the bomb's 6 s budget under load."""
    me, found = str(os.getpid()), set()
    ours = {me: True, "0": False, "1": False}

    def descends(pid: str) -> bool:
        chain = []
        while pid not in ours:
            chain.append(pid)
            pid = _parent(pid)
        for up in chain:
            ours[up] = ours[pid]
        return ours[pid]

    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{pid}/exe") == _SYSTEM_PYTHON and descends(pid):
                found.add(pid)
        except (OSError, StopIteration):
            continue
    return found


def _cmdlines(pids: set[str]) -> list[str]:
    out = []
    for pid in sorted(pids):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read().replace(b"\0", b" ").decode(errors="replace")
            out.append(f"{pid}: {line[:120]}")
        except OSError:
            continue
    return out


_SYSTEM_PYTHON = os.path.realpath(PYTHON)


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("while True: pass", "time"),
        ("x = bytearray(10 ** 10)", "memory"),
        ("a = []\nwhile True: a.append(' ' * 10 ** 7)", "memory"),
        ("import os\nwhile True:\n    try: os.fork()\n    except OSError: pass", "time"),
    ],
    ids=["infinite-loop", "big-alloc", "growing-list", "fork-bomb"],
)
def test_runaway_code_is_cut_and_a_bystander_answers_meanwhile(make_host, code, kind):
    # a budget that a loaded machine (CI runs the set on 2 cores at load 10 and more) does
    # not use up before a growing list meets its memory limit or the bystander answers
    host = make_host(config=replace(SANDBOX, action_seconds=6.0))
    # sandboxes of another host in this process (an earlier test's) are not this test's
    before = _sandboxes()
    if before:
        warnings.warn(f"sandbox interpreters alive before the test: {_cmdlines(before)}",
                      stacklevel=1)
    with connect(url=host.url) as client:
        victim, bystander = client.create("e0df059f"), client.create("e0df059f")
        try:
            victim.wait_valid()
            bystander.wait_valid()
            results = []
            worker = threading.Thread(target=lambda: results.append(victim.step(code)))
            worker.start()
            if kind == "time":  # while the sandbox runs, the other desktop answers
                began = time.monotonic()
                while not (_sandboxes() - before) and worker.is_alive():
                    threading.Event().wait(0.01)
                seen = time.monotonic()
                assert bystander.observe("raw").array.shape == (1080, 1920, 3)
                assert worker.is_alive(), (
                    f"the victim's action ended first: its sandbox seen after "
                    f"{seen - began:.2f} s, the screenshot took {time.monotonic() - seen:.2f} s"
                    f"; {results}")
            worker.join(30)
            (result,) = results
            assert result.cut is not None and result.cut.kind == kind, result
            assert result.episode.status == "valid"
            after = victim.step("assert pyautogui.position() is not None")
            assert after.action_error is None and after.cut is None  # the desktop carries on
        finally:
            victim.delete()
            bystander.delete()
    _until_no_sandbox(before)  # nothing of the sandbox is left


def _until_no_sandbox(before: set[str], timeout_s: float = 10.0) -> None:
    """The killed sandbox's namespace is torn down by the kernel after its bwrap is reaped:
    wait for that (bounded), then nothing may be left (but what was there ``before``)."""
    deadline = time.monotonic() + timeout_s
    while (_sandboxes() - before) and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    left = _sandboxes() - before
    assert not left, _cmdlines(left)


def test_without_the_sandbox_python_is_refused_and_plain_calls_still_run(make_host, sandbox_host):
    simulated = make_host(config=replace(FAST, shell="simulated"))
    with connect(url=simulated.url) as client, client.create("e0df059f") as slot:
        slot.wait_valid()
        assert slot.step("pyautogui.moveTo(10, 10)").runner == "fast"
        with pytest.raises(ActionError) as info:
            slot.step("import pyautogui as pg\npg.moveTo(20, 20)")
        assert "runs as Python only with the sandbox backend" in info.value.message
        assert "DRUMS_LOCAL_SHELL" in info.value.message
        with pytest.raises(ActionError) as info:  # a wrong argument keeps its own message
            slot.step("pyautogui.click(clicks='x')")
        assert "sandbox" not in info.value.message
    with connect(url=sandbox_host.url) as client, client.create("e0df059f") as slot:
        slot.wait_valid()
        assert slot.step("import pyautogui as pg\npg.moveTo(20, 20)").runner == "python"


def test_a_sandbox_that_cannot_start_the_interpreter_makes_the_episode_invalid(
        make_host, monkeypatch):
    """The interpreter failing to start is the host's failure, not the agent's: the episode
    is invalid (``sandbox_failed``), never an ``action_error`` the agent is scored on."""
    from drums_gym.local.sandbox import Sandbox, SandboxError

    def broken(self, *args, **kwargs):
        raise SandboxError("no interpreter (planted)")

    monkeypatch.setattr(Sandbox, "resident", broken)
    host = make_host(config=SANDBOX, in_process=True)  # the planted break is in this process
    monkeypatch.setenv("DRUMS_URL", host.url)
    env = gym.make("Drums/e0df059f", wait_s=0.0)
    try:
        env.reset(seed=0)
        _, reward, terminated, truncated, info = env.step("x = 1\npyautogui.moveTo(5, 5)")
        assert info["valid"] is False and info["invalid_reason"] == "sandbox_failed", info
        assert "action_error" not in info
        assert terminated or truncated
    finally:
        env.close()

"""Agent Python over real HTTP and real Gymnasium: code beyond plain calls runs in the sandbox.

Each test drives the real local host. What the code did is read back from the live desktop
by the next action's own Python (``assert pyautogui.position() == ...``: an ``action_error``
when it does not hold), or from the task's checker.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace

import gymnasium as gym
import pytest
from a11y import center, find
from conftest import FAST

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.client import ActionError, connect
from drums_gym.local.pycode import available
from drums_gym.local.pycode.sandbox import own_uids

pytestmark = pytest.mark.skipif(not available(), reason="needs bubblewrap (the sandbox)")


@pytest.fixture
def env(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
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


def test_no_network_no_machine_file_no_writable_path_uid_1000(local_host, env):
    env.reset(seed=0)
    port = local_host.url.rsplit(":", 1)[1].strip("/")
    checks = {
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)": "Error",
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)": "OSError",
        "open('/etc/passwd').read()": "FileNotFoundError",
        f"open({os.path.abspath(__file__)!r}).read()": "FileNotFoundError",
        "open('/proc/1/environ').read()": "FileNotFoundError",
        "open('/usr/drums-probe', 'w')": "OSError: [Errno 30] Read-only file system",
    }
    for code, error in checks.items():
        _, _, info = step(env, code)
        assert error in (info.get("action_error") or ""), (code, info.get("action_error"))
    _, _, info = step(env, "import os\nassert os.getuid() == 1000, os.getuid()\n"
                           "assert sorted(os.listdir('/')) == "
                           "['bin', 'dev', 'lib', 'lib64', 'sbin', 'tmp', 'usr'], os.listdir('/')")
    assert "action_error" not in info


def _sandboxes(workers: list[int]) -> int:
    """Processes of the sandboxes of the desktop workers ``workers`` (by their outer uids:
    agent Python runs in a sandbox the desktop's worker starts)."""
    ranges = [own_uids(w) for w in workers]
    count = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if any(os.stat(f"/proc/{pid}").st_uid in uids for uids in ranges):
                    count += 1
            except FileNotFoundError:
                pass
    return count


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
    host = make_host(config=replace(FAST, action_seconds=3.0))
    with connect(url=host.url) as client:
        victim, bystander = client.create("e0df059f"), client.create("e0df059f")
        try:
            victim.wait_valid()
            bystander.wait_valid()
            workers = host.model.pool.pids()
            results = []
            worker = threading.Thread(target=lambda: results.append(victim.step(code)))
            worker.start()
            if kind == "time":  # while the sandbox runs, the other desktop answers
                while _sandboxes(workers) == 0 and worker.is_alive():
                    threading.Event().wait(0.01)
                assert bystander.observe().array.shape == (1080, 1920, 3)
                assert worker.is_alive()
            worker.join(30)
            (result,) = results
            assert result.cut is not None and result.cut.kind == kind, result
            assert result.episode.status == "valid"
            after = victim.step("assert pyautogui.position() is not None")
            assert after.action_error is None and after.cut is None  # the desktop carries on
        finally:
            victim.delete()
            bystander.delete()
    _until_no_sandbox(workers)  # nothing of the sandbox is left


def _until_no_sandbox(workers: list[int], timeout_s: float = 10.0) -> None:
    """The killed sandbox's namespace is torn down by the kernel after its bwrap is reaped:
    wait for that (bounded), then nothing may be left."""
    deadline = time.monotonic() + timeout_s
    while _sandboxes(workers) and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    assert _sandboxes(workers) == 0


def test_without_the_sandbox_python_is_refused_and_plain_calls_still_run(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_LOCAL_SHELL", "simulated")
    with connect(url=local_host.url) as client, client.create("e0df059f") as slot:
        slot.wait_valid()
        assert slot.step("pyautogui.moveTo(10, 10)").runner == "fast"
        with pytest.raises(ActionError) as info:
            slot.step("import pyautogui as pg\npg.moveTo(20, 20)")
        assert "runs as Python only with the sandbox backend" in info.value.message
        assert "DRUMS_LOCAL_SHELL" in info.value.message
        with pytest.raises(ActionError) as info:  # a wrong argument keeps its own message
            slot.step("pyautogui.click(clicks='x')")
        assert "sandbox" not in info.value.message
    monkeypatch.setenv("DRUMS_LOCAL_SHELL", "auto")
    with connect(url=local_host.url) as client, client.create("e0df059f") as slot:
        slot.wait_valid()
        assert slot.step("import pyautogui as pg\npg.moveTo(20, 20)").runner == "python"

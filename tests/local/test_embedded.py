"""The embedded host is a child process of the user's program, tied to its life (issue 19).

A program killed with SIGKILL leaves no host behind; a host that cannot start says why, in
the words of its own stderr; one host serves a process's clients; a host started from a
thread outlives that thread. Every host here is a real child process on loopback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import gone, process_tree, wait_gone

from drums_gym import client as drums
from drums_gym.local.embedded import EmbeddedHost, EmbeddedHostError, embedded_host
from drums_gym.local.sandbox import available
from drums_gym.local.sandbox.tree import tree_base

PARENT_SCRIPT = textwrap.dedent("""
    import sys
    from drums_gym.envs import DrumsDesktopEnv
    from drums_gym.local.embedded import embedded_host

    env = DrumsDesktopEnv("e0df059f", screen=(640, 480))
    env.reset(seed=0)
    print("HOST", embedded_host().pid, embedded_host().url, flush=True)
    sys.stdin.read()  # until the test kills us (or closes our stdin)
""")


def start_parent() -> tuple[subprocess.Popen[str], int, str]:
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    proc = subprocess.Popen([sys.executable, "-c", PARENT_SCRIPT], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("HOST "), line
    _, pid, url = line.split()
    return proc, int(pid), url


def tree_folders(processes: set[int]) -> list[str]:
    """The desktop-tree folders of ``processes`` (on the sandbox backend at least two: the
    zygote's template and the desktop worker's tree)."""
    folders = [tree_base(p) for p in processes if os.path.isdir(tree_base(p))]
    if available():
        assert len(folders) >= 2, (processes, folders)
    return folders


def assert_all_gone(processes: set[int], folders: list[str]) -> None:
    assert all(wait_gone(p) for p in processes), "a host process outlived the kill"
    left = [f for f in folders if os.path.isdir(f)]
    assert not left, f"the killed host's processes left their trees: {left}"


@contextlib.contextmanager
def killed_parent() -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    """`start_parent`, and the parent killed when the test ends, however it ends."""
    proc, pid, url = start_parent()
    try:
        yield proc, pid, url
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_parent_killed_with_sigkill_leaves_no_host_behind():
    """Nor any of its processes' desktop trees: the host, its zygote (which holds the
    template every desktop is copied from) and the desktop's worker each had a folder."""
    with killed_parent() as (proc, pid, url):
        assert pid != proc.pid and not gone(pid)
        assert httpx.get(url + "/healthz").json()["ok"] is True
        processes = set(process_tree(pid))
        folders = tree_folders(processes)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_gone(pid), f"the embedded host {pid} outlived its killed parent"
        assert_all_gone(processes, folders)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_host_killed_with_sigkill_leaves_no_worker_or_desktop_files_behind():
    """The host itself killed (the OOM killer's way): its zygote, which sees the host's end
    of their socket close, ends the desktops' workers and removes their trees and its own."""
    with killed_parent() as (_, pid, _):
        processes = set(process_tree(pid)[1:])
        folders = tree_folders(processes)
        os.kill(pid, signal.SIGKILL)
        assert_all_gone(processes, folders)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_parent_that_exits_takes_its_host_along():
    proc, pid, _ = start_parent()
    assert proc.stdin is not None
    proc.stdin.close()  # the script returns: a normal exit, its desktop deleted at exit
    assert proc.wait(timeout=60) == 0
    assert wait_gone(pid)


def test_a_host_that_cannot_start_says_why_in_its_own_words(monkeypatch):
    monkeypatch.setenv("DRUMS_LOCAL_FORK_LIMIT", "many")
    with pytest.raises(EmbeddedHostError) as caught:
        EmbeddedHost().start()
    message = str(caught.value)
    assert "exited with status 2" in message
    assert "DRUMS_LOCAL_FORK_LIMIT must be an int, got 'many'" in message, message


def test_connect_reports_the_hosts_stderr_when_it_fails_to_start():
    env = {**os.environ, "DRUMS_LOCAL_FAULTS": "gate_fail=7"}
    env.pop("DRUMS_URL", None)
    code = ("from drums_gym.client import connect\n"
            "from drums_gym.local.embedded import EmbeddedHostError\n"
            "try:\n    connect()\nexcept EmbeddedHostError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert "the embedded local Drums host exited with status 2" in out.stdout, out.stderr
    assert "DRUMS_LOCAL_FAULTS" in out.stdout and "gate_fail" in out.stdout, out.stdout


def test_one_host_serves_the_process_and_runs_in_another(monkeypatch):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    with drums.connect() as first, drums.connect() as second:
        assert first.url == second.url
    host = embedded_host()
    assert host is not None and host.alive and host.url == first.url
    assert host.pid is not None and host.pid != os.getpid()
    assert f"pid {host.pid}" in repr(host)


def test_a_host_started_from_a_thread_outlives_the_thread():
    """Linux's parent-death signal follows the thread that forked the child: a host
    started from a short-lived thread (an async client's, a pool's) must not die with it."""
    made: list[EmbeddedHost] = []
    worker = threading.Thread(target=lambda: made.append(EmbeddedHost().start()))
    worker.start()
    worker.join()
    host = made[0]
    try:
        for _ in range(3):  # the thread is gone; the host still answers
            assert httpx.get(host.url + "/healthz").json()["ok"] is True
        assert host.alive
    finally:
        host.stop()
    assert not host.alive
    assert repr(host) == "EmbeddedHost(stopped)"

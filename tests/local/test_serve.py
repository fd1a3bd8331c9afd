"""`drums-gym serve` and the embedded host, as users start them."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import FAST, process_tree, wait_gone

from drums_gym.cli import main
from drums_gym.local.sandbox import available
from drums_gym.local.sandbox.tree import tree_base
from drums_gym.local.server import LocalHost


def test_serve_runs_a_host_on_loopback_with_tokens():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drums_gym.cli",
            "serve",
            "--port",
            "0",
            "--token",
            "s3cret",
            "--faults",
            "gate_fail=0.5",
            "--fork-limit",
            "4",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # the host prints its URL once it answers
        assert "serving at http://127.0.0.1:" in line, line + proc.stderr.read()
        assert "s3cret" not in line
        url = line.split("serving at ")[1].split()[0]
        assert httpx.get(f"{url}/v1/host").status_code == 401
        limits = httpx.get(f"{url}/v1/host", headers={"Authorization": "Bearer s3cret"}).json()
        assert limits["limits"]["fork_limit"] == 4
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def cgroups_of(pids: set[int]) -> list[str]:
    """The cgroups of ``pids`` on the machine: a host's (``drums-gym-<pid>-*``) and its
    desktops' sandboxes' (``drums-desktops/<pid>-*``)."""
    found: list[str] = []
    for pid in pids:
        found += glob.glob(f"/sys/fs/cgroup/*/drums-gym-{pid}-*")
        found += glob.glob(f"/sys/fs/cgroup/*/drums-desktops/{pid}-*")
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_stopped_serve_leaves_nothing_behind(sig: int) -> None:
    """Stopped as ``kill``, ``docker stop`` or a supervisor stop it (SIGTERM: a clean exit,
    0) or killed hard (SIGKILL, the OOM killer's way): no process and no desktop tree of the
    host or of any desktop it had stays, a desktop deleted just before included (its worker
    had not yet been released); no cgroup stays after SIGTERM, nor, after SIGKILL, once the
    next host has started."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0", "--gate-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline()
        assert "serving at " in line, line + proc.stderr.read()
        url = line.split("serving at ")[1].split()[0]
        with httpx.Client(base_url=url, timeout=60) as http:
            ids = [http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
                   for _ in range(2)]
            for sid in ids:
                assert http.get(f"/v1/slots/{sid}/episode",
                                params={"wait": "true"}).json()["status"] == "valid"
            branched = http.post(f"/v1/slots/{ids[0]}/branch", json={"n": 2})
            assert branched.status_code == 200, branched.text
            processes = set(process_tree(proc.pid))
            folders = [tree_base(p) for p in processes if os.path.isdir(tree_base(p))]
            groups = cgroups_of(processes)
            assert http.delete(f"/v1/slots/{ids[1]}").status_code == 200
        proc.send_signal(sig)
        expected = -signal.SIGKILL if sig == signal.SIGKILL else 0
        assert proc.wait(timeout=60) == expected, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    if available():  # the zygote's template and the desktops' trees
        assert len(folders) >= 2, folders
    assert all(wait_gone(p) for p in processes), "a process of the host outlived it"
    assert not [f for f in folders if os.path.isdir(f)], "a desktop tree folder was left"
    if sig == signal.SIGKILL:  # the next host removes what a killed one could not
        with LocalHost(FAST) as host:
            sid = httpx.post(host.url + "/v1/slots", json={"task": "e0df059f"}).json()["id"]
            httpx.delete(f"{host.url}/v1/slots/{sid}")
    assert not [g for g in groups if os.path.isdir(g)], "a cgroup was left"


def test_serve_rejects_bad_arguments(capsys):
    assert main(["serve", "--faults", "gate_fail=7"]) == 2
    assert "gate_fail" in capsys.readouterr().err
    assert main(["serve", "--fork-limit", "0"]) == 2
    assert "fork_limit" in capsys.readouterr().err


def test_embedded_host_starts_once_in_process():
    code = (
        "from drums_gym.local.embedded import ensure_embedded_host\n"
        "import httpx\n"
        "url = ensure_embedded_host()\n"
        "assert ensure_embedded_host() == url\n"
        "health = httpx.get(url + '/healthz').json()\n"
        "print((health['ok'], health['shell']))\n"
    )
    env = {**os.environ, "DRUMS_LOCAL_FAULTS": "latency_ms=1"}
    env.pop("DRUMS_URL", None)
    env.pop("DRUMS_LOCAL_SHELL", None)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    default = "sandbox" if available() else "simulated"  # DRUMS_LOCAL_SHELL unset: auto
    assert out.stdout.strip() == f"(True, '{default}')"
    log = [line for line in out.stderr.splitlines() if "embedded local Drums host" in line]
    assert len(log) == 1 and "latency_ms=1" in log[0]


def test_embedded_host_without_the_local_extra_says_what_to_install():
    code = (
        "import sys\n"
        "sys.modules['fastapi'] = None  # as if drums-gym[local] was not installed\n"
        "from drums_gym.client import connect\n"
        "try:\n"
        "    connect()\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DRUMS_URL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60)
    assert "pip install 'drums-gym[local]'" in out.stdout and "DRUMS_URL" in out.stdout

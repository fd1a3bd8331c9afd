"""`drums-gym serve` and the embedded host, as users start them."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx

from drums_gym.cli import main


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
    assert out.stdout.strip() == "(True, 'simulated')"
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

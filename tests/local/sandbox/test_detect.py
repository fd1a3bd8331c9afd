"""Which shell backend a host gets: ``auto`` (the default) picks the sandbox where it works
and the simulated bash elsewhere (not Linux, no bwrap, a host that is not root), and says
which in /healthz, in every step's info and in a suite's summary.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from conftest import FAST

from drums_gym.local.config import KNOBS, HostConfig
from drums_gym.local.sandbox import (
    DEFAULT_SHELL,
    SHELL_VARIABLE,
    available,
    backend_from_env,
)
from drums_gym.local.sandbox.detect import probe

ROOT = Path(__file__).resolve().parents[3]
CHOICE = ("from drums_gym.local.sandbox import backend_from_env, unavailable_reason\n"
          "print(unavailable_reason()); print(backend_from_env())\n"
          "import os; os.environ['DRUMS_LOCAL_SHELL'] = 'sandbox'\n"
          "try: backend_from_env()\n"
          "except RuntimeError as exc: print(exc)\n")


def choice_in(argv: list[str], **env: str) -> list[str]:
    """What a fresh process decides: the reason, the backend ``auto`` picks, and the error
    of ``DRUMS_LOCAL_SHELL=sandbox`` (one line each)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    done = subprocess.run([*argv, "-c", CHOICE], capture_output=True, text=True, timeout=120,
                          env={**base, "PYTHONPATH": str(ROOT), **env}, cwd="/", check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_auto_is_the_default_and_its_variable_is_the_knobs() -> None:
    assert DEFAULT_SHELL == "auto" and HostConfig().shell == "auto"
    assert [k.env for k in KNOBS if k.field == "shell"] == [SHELL_VARIABLE]
    expected = "sandbox" if available() else "simulated"
    assert backend_from_env({}) == backend_from_env({SHELL_VARIABLE: " "}) == expected
    assert HostConfig().shell_backend() == expected
    assert backend_from_env({SHELL_VARIABLE: "simulated"}) == "simulated"
    with pytest.raises(ValueError, match="shell backend must be one of auto, sandbox"):
        backend_from_env({SHELL_VARIABLE: "bash"})


def test_not_linux_is_the_simulated_bash() -> None:
    assert probe(platform="darwin") == "not Linux (darwin)"
    assert probe(platform="win32") == "not Linux (win32)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the probe's Linux branch")
def test_without_bwrap_auto_is_the_simulated_bash_and_sandbox_says_why() -> None:
    bare = Path(sys.executable).parent  # a PATH with python and without bwrap
    assert shutil.which("bwrap", path=str(bare)) is None
    reason, backend, error = choice_in([sys.executable], PATH=str(bare))
    assert reason == "bwrap is not installed (apt-get install bubblewrap)"
    assert backend == "simulated"
    assert error == f"DRUMS_LOCAL_SHELL=sandbox, but the sandbox cannot run: {reason}"


@pytest.mark.skipif(os.geteuid() != 0 or not available(), reason="needs root and a sandbox")
def test_a_host_that_is_not_root_gets_the_simulated_bash() -> None:
    """A real run as another user (nobody), where bwrap would need a user namespace with
    one mapped id: owners could not be kept, so auto falls back."""
    python = "/usr/bin/python3"  # readable by any user (the test's own may live in /root)
    reason, backend, error = choice_in(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                        "--clear-groups", python])
    assert reason.startswith("the host runs as uid 65534, not root"), reason
    assert backend == "simulated" and error.endswith(reason)


def test_the_backend_is_in_healthz_in_step_info_and_in_the_summary(make_host, tmp_path) -> None:
    from drums_gym.cli._suite import SpecPolicyFactory
    from drums_gym.client import connect
    from drums_gym.evaluation import SuiteConfig, run_suite

    backends = ["simulated"] + (["sandbox"] if available() else [])
    for backend in backends:
        host = make_host(config=replace(FAST, shell=backend))
        health = httpx.get(host.url + "/healthz").json()
        assert health["ok"] is True and health["shell"] == backend
        with connect(url=host.url) as client, client.create("e0df059f") as slot:
            slot.wait_valid()
            assert slot.step("pyautogui.moveTo(5, 5)").shell == backend
        config = SuiteConfig(tasks=("e0df059f",), episodes_per_task=1, num_envs=1,
                             policy="scripted")
        out = tmp_path / backend
        run_suite(config, SpecPolicyFactory("scripted", 15), out, url=host.url)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["shell"] == [backend], summary["shell"]

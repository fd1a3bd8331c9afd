"""Imports without side effects (issue 23): ``import drums_gym.client`` loads neither
Gymnasium nor the simulator and reads no simulator setting; the ``Drums/*`` ids are
registered whichever of Gymnasium and drums_gym is imported first; users' task files are
read only when asked (`register_user_tasks`) or by the host. Each case in a fresh
interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def fresh(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, timeout=120)


def test_the_client_imports_with_a_bad_simulator_setting_and_loads_neither():
    out = fresh("import sys, drums_gym.client\n"
                "print('gymnasium' in sys.modules,"
                " sorted(m for m in sys.modules if m.startswith('drums_gym.local')))",
                DRUMS_LOCAL_TASKS="/nope")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False []"


@pytest.mark.parametrize("order", ["import drums_gym, gymnasium as gym",
                                   "import gymnasium as gym, drums_gym"])
def test_the_ids_are_registered_in_either_import_order(order):
    out = fresh(f"{order}\nprint(gym.spec('Drums/e0df059f').kwargs['max_steps'])",
                DRUMS_LOCAL_TASKS="/nope")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "15"


def test_a_bad_task_setting_is_an_error_where_it_is_used_naming_the_variable():
    out = fresh("import gymnasium, drums_gym\n"
                "try:\n    drums_gym.register_user_tasks()\n"
                "except ValueError as exc:\n    print(exc)\n",
                DRUMS_LOCAL_TASKS="/nope")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "DRUMS_LOCAL_TASKS: /nope: no such task file or folder"


#: replaces os.environ with a mapping that records every variable read, then imports
SPY = """
import os
reads = []
class Spy(dict):
    def __getitem__(self, key):
        reads.append(key)
        return super().__getitem__(key)
    def get(self, key, default=None):
        reads.append(key)
        return super().get(key, default)
    def __contains__(self, key):
        reads.append(key)
        return super().__contains__(key)
os.environ = Spy(os.environ)
"""


@pytest.mark.parametrize("imports", ["import drums_gym", "import drums_gym, gymnasium",
                                     "import gymnasium, drums_gym, drums_gym.envs",
                                     "import drums_gym.local.tasks, drums_gym.local.host"])
def test_importing_reads_no_drums_setting(imports):
    """No DRUMS_* variable is read at import, registration of the ids included (they are
    registered once Gymnasium is there), nor by importing the host's task catalog."""
    out = fresh(f"{SPY}{imports}\n"
                "print(sorted({k for k in reads if str(k).startswith('DRUMS')}))\n",
                DRUMS_LOCAL_TASKS="/nope")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_bad_task_setting_is_an_error_naming_the_variable_when_a_host_starts():
    """The local host reads DRUMS_LOCAL_TASKS when it starts: the catalog call, the embedded
    host a client starts, ``drums-gym serve``; each error names the variable and the path."""
    out = fresh("from drums_gym.local.tasks import default_catalog\n"
                "try:\n    default_catalog()\n"
                "except ValueError as exc:\n    print(exc)\n"
                "import drums_gym.client as drums\n"
                "from drums_gym.local.embedded import EmbeddedHostError\n"
                "try:\n    drums.connect().tasks()\n"
                "except EmbeddedHostError as exc:\n    print(str(exc).splitlines()[-1])\n",
                DRUMS_LOCAL_TASKS="/nope", DRUMS_URL="")
    assert out.returncode == 0, out.stderr
    expected = "DRUMS_LOCAL_TASKS: /nope: no such task file or folder"
    assert out.stdout.splitlines() == [expected, f"drums-gym embedded host: {expected}"]
    serve = subprocess.run([sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0"],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "DRUMS_LOCAL_TASKS": "/nope"})
    assert serve.returncode != 0 and serve.stderr.strip().endswith(expected), serve.stderr


def test_import_drums_gym_client_loads_what_docs_architecture_says():
    """docs/architecture.md: the root, `_version`, `protocol` (its vocabulary, shapes and
    codec), `_rgb` and the client's own
    modules, with httpx, numpy and Pillow; no Gymnasium and nothing of `local`."""
    out = fresh("import sys, json, drums_gym.client\n"
                "print(json.dumps(sorted(m for m in sys.modules if m.startswith('drums_gym')"
                " and not m.startswith('drums_gym.client.'))))\n"
                "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {"
                "'gymnasium', 'httpx', 'numpy', 'PIL', 'fastapi', 'uvicorn', 'starlette'})))\n",
                DRUMS_LOCAL_TASKS="/nope")
    assert out.returncode == 0, out.stderr
    project, third_party = (json.loads(line) for line in out.stdout.splitlines())
    assert project == ["drums_gym", "drums_gym._rgb", "drums_gym._version", "drums_gym.client",
                       "drums_gym.protocol", "drums_gym.protocol.codec",
                       "drums_gym.protocol.shapes", "drums_gym.protocol.vocabulary"]
    assert third_party == ["PIL", "httpx", "numpy"]

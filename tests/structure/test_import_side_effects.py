"""Imports without side effects (issue 23): ``import drums_gym.client`` loads neither
Gymnasium nor the simulator and reads no simulator setting; the ``Drums/*`` ids are
registered whichever of Gymnasium and drums_gym is imported first; users' task files are
read only when asked (`register_user_tasks`) or by the host. Each case in a fresh
interpreter."""

from __future__ import annotations

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

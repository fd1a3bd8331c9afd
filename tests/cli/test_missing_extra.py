"""Without the ``[local]`` extra, ``drums-gym rollout`` and ``serve`` say so in one line,
naming the missing module and the install command (issue 22, item 4).

Each runs in a subprocess whose ``sitecustomize`` makes one module of the extra unimportable
(a meta-path finder raising ModuleNotFoundError, as a machine without it would): FastAPI,
and httptools, uvicorn's C parser the host's guard is built on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKER = '''
import sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == {module!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Blocked())
'''


@pytest.fixture(scope="module", params=["fastapi", "httptools"])
def blocked_env(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp(f"no-{request.param}")
    (folder / "sitecustomize.py").write_text(BLOCKER.format(module=request.param),
                                             encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(ROOT)])
    env["BLOCKED"] = request.param
    return env


@pytest.mark.parametrize(("argv", "says"), [
    (["rollout", "--n", "1", "--groups", "1", "--steps", "1"],
     "drums-gym rollout: error: no Drums host is given (--url or $DRUMS_URL), and the "
     "embedded local host needs the [local] extra ({module} is missing): pip install "
     "'drums-gym[local]', or give a host's --url"),
    (["serve", "--port", "0"],
     "drums-gym serve: error: the local host needs the [local] extra ({module} is missing): "
     "pip install 'drums-gym[local]'"),
])
def test_a_missing_local_extra_is_one_line(
    blocked_env: dict[str, str], argv: list[str], says: str
) -> None:
    says = says.format(module=blocked_env["BLOCKED"])
    proc = subprocess.run(
        [sys.executable, "-m", "drums_gym.cli", *argv], env=blocked_env, cwd=ROOT,
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == says
    assert proc.stdout == ""


def test_the_blocker_blocks(blocked_env: dict[str, str]) -> None:
    """The premise: in that interpreter the module cannot be imported."""
    module = blocked_env["BLOCKED"]
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], env=blocked_env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and f"No module named '{module}'" in proc.stderr

"""A light root: ``import drums_gym`` registers every ``Drums/<id8>`` id without loading the
env, the client or the simulator; the client, the action language and the local host import
without Gymnasium."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
from import_graph import probe

import drums_gym
from drums_gym.envs.desktop_env import DrumsDesktopEnv
from drums_gym.envs.vector import DrumsForkVectorEnv
from drums_gym.local.tasks import CATALOG
from drums_gym.registration import register_task

PACKAGE = Path(drums_gym.__file__).resolve().parent

#: all that ``import drums_gym`` loads of the project when Gymnasium is installed
REGISTRATION = frozenset({
    "drums_gym",
    "drums_gym._version",
    "drums_gym._catalog_ids",
    "drums_gym.registration",
})


def root_extras(package: Path, tmp: Path) -> list[str]:
    """Project modules ``import drums_gym`` loads beyond `REGISTRATION` (and import errors)."""
    report = probe(package, ["drums_gym"], blocked=(), tmp=tmp)
    loaded = {m for m in report.loaded if m.split(".")[0] == "drums_gym"}
    return report.errors + sorted(loaded - REGISTRATION)


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in a fresh interpreter (the variables added to its environment)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env}, check=False)


@pytest.mark.parametrize(
    "module", ["drums_gym.client", "drums_gym.actions", "drums_gym.local", "drums_gym.local.faults"]
)
def test_imports_without_gymnasium(module: str) -> None:
    """Issue 9's reproduction: these failed when the root registered the catalog."""
    done = run(f"import sys; sys.modules['gymnasium'] = None; import {module}")
    assert done.returncode == 0, done.stderr


def test_root_without_gymnasium_registers_nothing_and_says_what_is_missing() -> None:
    done = run(
        "import sys; sys.modules['gymnasium'] = None\n"
        "import drums_gym\n"
        "print(drums_gym.__version__)\n"
        "try:\n"
        "    drums_gym.DrumsDesktopEnv\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc.name)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [drums_gym.__version__, "gymnasium"]


def test_import_drums_gym_loads_only_the_registration(tmp_path: Path) -> None:
    assert root_extras(PACKAGE, tmp_path) == []


def test_planted_heavy_root_is_caught(tmp_path: Path) -> None:
    copy = tmp_path / "src" / "drums_gym"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    init.write_text(init.read_text() + "\nfrom .envs import DrumsDesktopEnv as _env\n")
    extras = root_extras(copy, tmp_path)
    assert "drums_gym.envs.desktop_env" in extras and "drums_gym.client" in extras


def test_client_with_gymnasium_installed_loads_no_host_and_no_env(tmp_path: Path) -> None:
    """With Gymnasium installed the root registers the ids (Gymnasium and `REGISTRATION`
    load); nothing else above the client does, and neither the host nor its server stack."""
    report = probe(PACKAGE, ["drums_gym.client"], blocked=(), tmp=tmp_path)
    assert report.errors == []
    project = {m for m in report.loaded if m.split(".")[0] == "drums_gym"}
    below = ("drums_gym.client", "drums_gym.actions", "drums_gym.protocol", "drums_gym._rgb")
    assert {m for m in project if not m.startswith(below)} <= REGISTRATION
    tops = {m.split(".")[0] for m in report.loaded}
    assert not tops & {"fastapi", "uvicorn", "starlette"}


def test_every_catalog_task_is_registered() -> None:
    for task in CATALOG.values():
        spec = gym.spec(f"Drums/{task.short_id}")
        assert spec.kwargs["task"] == task.id
        assert spec.entry_point == "drums_gym.envs.desktop_env:DrumsDesktopEnv"
        assert spec.vector_entry_point == "drums_gym.envs.make_vec:make_fork_vector"


def test_gym_make_against_a_remote_host_loads_no_simulator(local_host) -> None:
    """``gym.make("drums_gym:Drums/...")`` in a process that talks to a host over HTTP (as to
    a real Drums): the env works and the desktop simulator never loads there."""
    done = run(
        "import json, sys\n"
        "import gymnasium as gym\n"
        "env = gym.make('drums_gym:Drums/e0df059f')\n"
        "obs, info = env.reset()\n"
        "env.close()\n"
        "print(json.dumps({'shape': list(obs.shape), 'task': info['task_id'],\n"
        "    'local': sorted(m for m in sys.modules if m.startswith('drums_gym.local'))}))\n",
        DRUMS_URL=local_host.url,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"shape": [1080, 1920, 3], "task": next(iter(CATALOG)), "local": []}


def test_root_names_load_on_first_use() -> None:
    assert drums_gym.DrumsDesktopEnv is DrumsDesktopEnv
    assert drums_gym.DrumsForkVectorEnv is DrumsForkVectorEnv
    assert drums_gym.register_task is register_task
    assert set(drums_gym.__all__) <= set(dir(drums_gym))
    with pytest.raises(AttributeError, match="no attribute 'DrumsEnv'"):
        drums_gym.DrumsEnv  # noqa: B018


def test_version_is_the_distributions() -> None:
    from drums_gym._version import __version__

    assert drums_gym.__version__ == __version__ == importlib.metadata.version("drums-gym")


def test_submodules_stay_reachable_as_attributes() -> None:
    """As when the root imported them eagerly: ``import drums_gym`` then
    ``drums_gym.client.connect`` works."""
    done = run("import drums_gym\n"
               "print(drums_gym.client.connect.__name__, drums_gym.envs.vector.__name__,\n"
               "      drums_gym.wrappers.ResizeScreenshot.__name__)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["connect", "drums_gym.envs.vector", "ResizeScreenshot"]


def test_the_env_loads_whole() -> None:
    """Whatever loads the env (``gym.make``'s entry point) loads the fork vector env too, so
    that no module is imported in the middle of an episode (``env.fork_vector(n)``)."""
    done = run("import sys, drums_gym.envs.desktop_env\n"
               "print('drums_gym.envs.vector' in sys.modules)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]

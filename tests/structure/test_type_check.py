"""The type check of `.ci/run` (`.venv/bin/mypy`, configured in pyproject.toml), and what it found.

The config asks for strict checking on `drums_gym.client` and `drums_gym.envs` only: a
planted untyped function must fail there and pass elsewhere (a `strict = true` override would
turn strict on for every module, python/mypy#11401). Then the bugs the checker found, pinned.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.wrappers import VectorWithInstruction

ROOT = Path(__file__).resolve().parents[2]
UNTYPED = "def planted(x):\n    return x\n"


def _mypy(tmp_path: Path, *files: Path) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(
        [
            "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(tmp_path / ".mypy_cache"),
            "--no-error-summary",
            *map(str, files),
        ]
    )
    assert not err, err
    return out, status


def test_the_config_is_strict_on_client_and_envs_and_not_elsewhere(tmp_path, monkeypatch):
    planted = []
    for package in ("client", "envs", "local", "wrappers"):
        folder = tmp_path / "drums_gym" / package
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        (folder / "planted.py").write_text(UNTYPED)
        planted.append(folder / "planted.py")
    (tmp_path / "drums_gym" / "__init__.py").write_text("")
    monkeypatch.chdir(tmp_path)  # module names from the planted tree, not the installed one
    out, status = _mypy(tmp_path, *planted)
    flagged = {
        Path(line.split(":", 1)[0]).parent.name
        for line in out.splitlines()
        if "[no-untyped-def]" in line
    }
    assert status == 1 and flagged == {"client", "envs"}, out


def test_the_config_checks_the_rest_of_the_package_non_strict(tmp_path, monkeypatch):
    folder = tmp_path / "drums_gym" / "wrappers"
    folder.mkdir(parents=True)
    for init in (tmp_path / "drums_gym" / "__init__.py", folder / "__init__.py"):
        init.write_text("")
    (folder / "planted.py").write_text('def planted(x: int) -> str:\n    return x\n')
    monkeypatch.chdir(tmp_path)
    out, status = _mypy(tmp_path, folder / "planted.py")
    assert status == 1 and "[return-value]" in out, out


# --- what the type check found --------------------------------------------------------------


@pytest.fixture
def parent(make_host):
    server = make_host()
    client = connect(url=server.url)
    env = DrumsDesktopEnv("e0df059f", client=client)
    yield env
    env.close()
    client.close()


def test_fork_vector_reset_takes_a_list_of_seeds(parent):
    """Its signature said `seed: int | Sequence[int]`; a list used to reach Gymnasium's
    int-only seeding and raise `gymnasium.error.Error`."""
    parent.reset(seed=0)
    vec = VectorWithInstruction(parent.fork_vector(2, autoreset_mode="DISABLED"))
    try:
        obs, infos = vec.reset(seed=[3, 4])
        assert obs["screenshot"].shape[0] == 2 and obs["screenshot"].dtype == np.uint8
        assert infos["valid"].tolist() == [True, True]
        assert list(obs["instruction"]) == [parent.instruction] * 2
        obs, infos = vec.reset(seed=5)  # an int still seeds it
        assert infos["valid"].tolist() == [True, True]
    finally:
        vec.close()

"""The task ids are listed once: ``drums_gym/_catalog_ids.py``, generated from the bundled
task files (``drums_gym/local/tasks/data/os/<id>.json``) by ``python scripts/catalog_ids.py``.
Registration and the local host's catalog both import that list; these tests regenerate it
from the folder and compare, and show the check fails on a stale list and on a new file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from drums_gym import registration
from drums_gym._catalog_ids import ENV_TASKS, TASK_IDS
from drums_gym.local import tasks
from drums_gym.local.tasks import BUNDLED, bundled_tasks

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "catalog_ids.py"
GENERATED = ROOT / "drums_gym" / "_catalog_ids.py"
DATA = ROOT / "drums_gym" / "local" / "tasks" / "data" / "os"


def generate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_list_is_the_folder_and_the_hosts_bundled_tasks_are_the_list() -> None:
    assert sorted(TASK_IDS) == sorted(p.stem for p in DATA.glob("*.json"))
    assert BUNDLED is TASK_IDS, "the host's catalog imports the list, it keeps none of its own"
    assert [t.id for t in bundled_tasks()] == list(TASK_IDS)
    assert TASK_IDS[0].startswith("e0df059f"), "the default task first"


def test_the_variable_is_named_once() -> None:
    assert registration.ENV_TASKS is tasks.ENV_TASKS is ENV_TASKS == "DRUMS_LOCAL_TASKS"
    for module in ("drums_gym/registration.py", "drums_gym/local/tasks/__init__.py"):
        assert '"DRUMS_LOCAL_TASKS"' not in (ROOT / module).read_text(), module


def test_regenerating_from_the_folder_gives_the_file(tmp_path: Path) -> None:
    out = tmp_path / "_catalog_ids.py"
    shutil.copy(GENERATED, out)
    out.write_text(out.read_text().replace(f'    "{TASK_IDS[3]}",\n', ""))  # one dropped
    done = generate("--output", str(out))
    assert done.returncode == 0, done.stderr
    ids = TASK_IDS[:3] + TASK_IDS[4:] + (TASK_IDS[3],)  # known ids keep their place
    assert out.read_text() == GENERATED.read_text().replace(
        "".join(f'    "{i}",\n' for i in TASK_IDS), "".join(f'    "{i}",\n' for i in ids))
    assert generate("--check").returncode == 0, "the committed file is what the folder gives"


def test_check_fails_on_a_stale_list_and_on_a_new_task_file(tmp_path: Path) -> None:
    stale = tmp_path / "_catalog_ids.py"
    stale.write_text(GENERATED.read_text().replace(f'    "{TASK_IDS[-1]}",\n', ""))
    done = generate("--check", "--output", str(stale))
    assert done.returncode == 1
    assert "out of date: run python scripts/catalog_ids.py" in done.stderr
    data = tmp_path / "os"
    shutil.copytree(DATA, data)
    new_id = "0a0faba3-5580-44df-965d-f562a99b291c"
    (data / f"{new_id}.json").write_text(json.dumps({"id": new_id}))
    done = generate("--check", "--data", str(data))
    assert done.returncode == 1, "a new file in the folder makes the list stale"
    (data / f"{new_id}.json").write_text(json.dumps({"id": "something-else"}))
    done = generate("--check", "--data", str(data))
    assert done.returncode != 0 and "is not its file name" in done.stderr

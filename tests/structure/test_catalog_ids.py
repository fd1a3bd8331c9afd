"""The light id list that ``import drums_gym`` registers is the local host's catalog.

``drums_gym/_catalog_ids.py`` is generated (``python scripts/catalog_ids.py``) so that
registration never loads the task runner; these tests keep it in step with the catalog.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from drums_gym._catalog_ids import TASK_IDS
from drums_gym.local.tasks import CATALOG

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalog_ids.py"
GENERATED = Path(__file__).resolve().parents[2] / "drums_gym" / "_catalog_ids.py"


def generate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_light_list_is_the_hosts_catalog() -> None:
    assert tuple(CATALOG) == TASK_IDS, "stale: run python scripts/catalog_ids.py"


def test_generated_file_is_what_the_script_writes(tmp_path: Path) -> None:
    out = tmp_path / "_catalog_ids.py"
    done = generate("--output", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text() == GENERATED.read_text()
    assert generate("--check").returncode == 0


def test_check_fails_on_a_stale_list(tmp_path: Path) -> None:
    stale = tmp_path / "_catalog_ids.py"
    stale.write_text(GENERATED.read_text().replace(f'    "{TASK_IDS[-1]}",\n', ""))
    done = generate("--check", "--output", str(stale))
    assert done.returncode == 1
    assert "out of date: run python scripts/catalog_ids.py" in done.stderr

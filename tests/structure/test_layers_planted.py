"""The layer checks fail on a planted violation: each test copies the package under
tmp_path, plants one bad import, and runs the same check `test_layers.py` runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from import_graph import (
    compare_cycles,
    import_cycles,
    runtime_violations,
    static_violations,
)
from test_layers import ALWAYS, KNOWN_CYCLES, LAYERS, PACKAGE, ROOT

BY_NAME = {layer.name: layer for layer in LAYERS}


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package (``<tmp>/src/drums_gym``), clean by every check."""
    target = tmp_path / "src" / "drums_gym"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def plant(package: Path, module: str, text: str) -> None:
    """Append ``text`` to ``module`` (a path under the package), creating it if need be."""
    path = package / module
    old = path.read_text() if path.exists() else ""
    path.write_text(old + "\n" + text + "\n")


def static(package: Path) -> list[str]:
    return static_violations(package, LAYERS, root=ROOT)


def runtime(package: Path, layer: str, tmp_path: Path) -> list[str]:
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    return runtime_violations(package, LAYERS, BY_NAME[layer], root=ROOT, tmp=scratch,
                              always=ALWAYS)


def test_the_copy_is_clean(copy: Path, tmp_path: Path) -> None:
    assert static(copy) == []
    assert runtime(copy, "local", tmp_path) == []


# -- static ----------------------------------------------------------------------

def test_static_catches_local_importing_the_vector_env(copy: Path) -> None:
    """The old check let this pass (``drums_gym`` was allowed and matched as a prefix)."""
    plant(copy, "local/faults.py", "from drums_gym.envs.vector import DrumsForkVectorEnv")
    problems = static(copy)
    assert len(problems) == 1 and "drums_gym.local.faults:" in problems[0]
    assert "drums_gym.envs.vector" in problems[0] and "may not use envs" in problems[0]


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("local/app.py", "from .. import __version__"),
        ("client/models.py", "import drums_gym"),
        ("client/models.py", "from drums_gym import DrumsDesktopEnv"),
        ("local/desktop/bash/lexer.py", "from .... import register_task"),
    ],
)
def test_static_counts_the_bare_root_as_the_top(copy: Path, module: str, line: str) -> None:
    plant(copy, module, line)
    problems = static(copy)
    assert len(problems) == 1 and "imports the package root drums_gym" in problems[0]


def test_static_resolves_from_package_import_submodule(copy: Path) -> None:
    """``from .. import envs`` imports the submodule drums_gym.envs, not the root."""
    plant(copy, "client/models.py", "from .. import envs")
    problems = static(copy)
    assert len(problems) == 1 and "imports drums_gym.envs at import time" in problems[0]


def test_static_allows_the_client_to_load_the_host_only_lazily(copy: Path) -> None:
    plant(copy, "client/models.py",
          "def _start():\n    from drums_gym.local.embedded import ensure_embedded_host\n")
    assert static(copy) == [], "inside a function: allowed (the embedded host)"
    plant(copy, "client/models.py", "from drums_gym.local.embedded import ensure_embedded_host")
    problems = static(copy)
    assert len(problems) == 1 and "may not use local" in problems[0]


def test_static_counts_type_checking_imports(copy: Path) -> None:
    plant(copy, "actions/limits.py",
          "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..client import Slot\n")
    problems = static(copy)
    assert len(problems) == 1 and "for typing" in problems[0]


@pytest.mark.parametrize(
    ("module", "line", "banned"),
    [
        ("envs/_episode.py", "import httpx", "httpx"),
        ("client/slot.py", "from gymnasium import spaces", "gymnasium"),
        ("local/host.py", "import httpx", "httpx"),
        ("actions/keys.py", "import numpy as np", "numpy"),
    ],
)
def test_static_catches_banned_packages(copy: Path, module: str, line: str, banned: str) -> None:
    plant(copy, module, line)
    problems = static(copy)
    assert len(problems) == 1 and f"imports {banned}" in problems[0]


def test_static_wants_a_row_for_a_new_module(copy: Path) -> None:
    plant(copy, "telemetry.py", '"""A module nobody placed."""')
    assert static(copy) == ["drums_gym.telemetry belongs to no layer of the table"]


# -- runtime ---------------------------------------------------------------------

def test_runtime_catches_the_host_loading_a_module_above_it(copy: Path, tmp_path: Path) -> None:
    """A layer violation the source check would also see; the runtime check sees it by
    what got loaded."""
    plant(copy, "local/faults.py", "import drums_gym.solvers")
    problems = runtime(copy, "local", tmp_path)
    assert any("loaded drums_gym.solvers (solvers)" in p for p in problems), problems


def test_runtime_catches_an_indirect_load(copy: Path, tmp_path: Path) -> None:
    """The client imports a module of its own that hands the import on (via importlib:
    invisible to the source check)."""
    plant(copy, "client/_relay.py",
          '"""Relay."""\nimport importlib\nimportlib.import_module("drums_gym.local.embedded")')
    plant(copy, "client/__init__.py", "from . import _relay")
    assert static(copy) == []
    problems = runtime(copy, "client", tmp_path)
    assert any("loaded drums_gym.local.embedded (local)" in p for p in problems), problems


def test_runtime_catches_a_blocked_package(copy: Path, tmp_path: Path) -> None:
    plant(copy, "actions/limits.py", "def _spaces():\n    import gymnasium\n\n_spaces()\n")
    assert static(copy) == [f"drums_gym.actions.limits:{_line(copy, 'actions/limits.py')} "
                            "imports gymnasium (actions must not)"]
    problems = runtime(copy, "actions", tmp_path)
    assert problems and all("ModuleNotFoundError" in p and "gymnasium" in p for p in problems)


def test_runtime_catches_third_party_in_a_stdlib_only_leaf(copy: Path, tmp_path: Path) -> None:
    plant(copy, "accessibility.py", "import idna  # noqa")
    problems = runtime(copy, "accessibility", tmp_path)
    assert any("loaded idna, not the standard library" in p for p in problems), problems


def test_runtime_catches_the_root_loading_the_simulator(copy: Path, tmp_path: Path) -> None:
    """The root is imported by every layer: if it loads the host, every light layer sees it."""
    plant(copy, "__init__.py", "from .local import tasks as _tasks")
    problems = runtime(copy, "client", tmp_path)
    assert any("loaded drums_gym.local.tasks (local)" in p for p in problems), problems


# -- cycles ----------------------------------------------------------------------

def test_cycle_check_catches_a_planted_cycle(copy: Path) -> None:
    plant(copy, "actions/limits.py", "def _late():\n    from . import parser\n")
    new, gone = compare_cycles(import_cycles(copy), KNOWN_CYCLES)
    assert len(new) == 1 and gone == []
    assert {"drums_gym.actions.limits", "drums_gym.actions.parser"} <= set(new[0])


def test_cycle_check_leaves_out_type_checking_imports(copy: Path) -> None:
    plant(copy, "actions/limits.py",
          "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import parser\n")
    assert compare_cycles(import_cycles(copy), KNOWN_CYCLES) == ([], [])


def test_cycle_check_asks_to_empty_the_allowlist_once_a_cycle_is_gone(copy: Path) -> None:
    """A cycle on the allowlist that the code no longer has is reported (as when the bash
    command registry lands), so the list can only shrink."""
    fixed = frozenset({"drums_gym.actions.limits", "drums_gym.actions.parser"})
    new, gone = compare_cycles(import_cycles(copy), (*KNOWN_CYCLES, fixed))
    assert new == [] and gone == [sorted(fixed)]


def _line(package: Path, module: str) -> int:
    """The line of the last import in ``module`` (where `plant` put it)."""
    lines = (package / module).read_text().splitlines()
    return max(i for i, line in enumerate(lines, 1) if "import " in line)

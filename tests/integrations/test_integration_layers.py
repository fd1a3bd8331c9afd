"""The integrations' place in the layers: each imports its library, nothing else of
drums-gym imports any of them, and they sit above envs/wrappers, beside nothing else."""

from __future__ import annotations

import ast
import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "drums_gym"
INTEGRATIONS = PACKAGE / "integrations"
#: what drums_gym.integrations may import from drums_gym (beside itself)
ALLOWED = ("drums_gym.envs", "drums_gym.wrappers", "drums_gym.client", "drums_gym.actions",
           "drums_gym.grpo", "drums_gym.evaluation", "drums_gym.rollouts",
           "drums_gym.outcomes", "drums_gym._loop", "drums_gym.accessibility",
           "drums_gym.registration", "drums_gym.protocol")
#: the stacks' libraries: only their own integration modules may import them
LIBRARIES: dict[str, tuple[str, ...] | None] = {
    "trl": ("trl",), "transformers": ("trl",), "datasets": ("trl",), "torch": None,
    "verifiers": ("verifiers",), "stable_baselines3": ("sb3",), "ray": ("ray", "rllib"),
    "torchrl": ("torchrl",), "tensordict": ("torchrl",),
}


def imports_of(path: Path, package_dir: Path) -> set[str]:
    module = ".".join(path.relative_to(package_dir.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module or "")
    return names


def layer_violations(package_dir: Path) -> list[str]:
    """Imports under ``package_dir``/integrations that break the layering."""
    root = package_dir / "integrations"
    found = []
    for path in sorted(root.rglob("*.py")):
        stack = path.relative_to(root).parts[0].removesuffix(".py")
        for name in imports_of(path, package_dir):
            top = name.split(".")[0]
            below = any(name == a or name.startswith(a + ".") for a in ALLOWED)
            if top == "drums_gym" and not name.startswith("drums_gym.integrations") and not below:
                found.append(f"{path.name} imports {name}, not a layer below it")
            owners = LIBRARIES.get(top)
            if owners is not None and stack not in owners:
                found.append(f"{path.name} imports {top}, the {owners[0]} stack's library")
    return found


def test_integrations_import_down_and_only_their_own_library():
    assert (INTEGRATIONS / "sb3").is_dir() and layer_violations(PACKAGE) == []


def test_the_layer_check_catches_a_planted_break(tmp_path):
    planted = tmp_path / "drums_gym" / "integrations"
    (planted / "sb3").mkdir(parents=True)
    (planted / "sb3" / "bad.py").write_text("import trl\nfrom drums_gym.local import host\n")
    (planted / "torchrl").mkdir()
    (planted / "torchrl" / "bad.py").write_text("from ray.rllib import callbacks\n")
    found = layer_violations(tmp_path / "drums_gym")
    assert any("drums_gym.local" in f for f in found) and any("trl" in f for f in found)
    assert any("imports ray" in f for f in found)


def test_importing_drums_gym_loads_no_training_library():
    code = (
        "import sys, drums_gym, drums_gym.integrations, drums_gym.wrappers\n"
        "bad = [m for m in ('trl', 'transformers', 'torch', 'verifiers', 'stable_baselines3',"
        " 'ray', 'torchrl', 'tensordict', 'tianshou', 'skrl') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("name", ["drums_gym.integrations._observation",
                                  "drums_gym.integrations._code",
                                  "drums_gym.integrations._validity",
                                  "drums_gym.integrations.sb3.vec_env"])
def test_docstring_examples(name):
    if name.endswith("sb3.vec_env"):
        pytest.importorskip("stable_baselines3", reason="needs the [sb3] extra")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0

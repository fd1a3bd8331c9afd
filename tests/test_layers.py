"""The layers of design.md, checked: imports point down only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "drums_gym"

#: what each layer may import from drums_gym (besides itself) and what it must not import
ALLOWED = {
    "actions": ({"drums_gym.actions"}, {"gymnasium", "httpx", "fastapi"}),
    "local": (
        {"drums_gym.actions", "drums_gym._rgb", "drums_gym", "drums_gym.protocol"},
        {"gymnasium", "httpx"},
    ),
    "client": (
        {"drums_gym.local", "drums_gym._rgb", "drums_gym", "drums_gym.protocol"},
        {"gymnasium"},
    ),
    "envs": ({"drums_gym.actions", "drums_gym.client", "drums_gym.local"}, {"httpx"}),
    "solvers": ({"drums_gym.actions"}, {"gymnasium", "httpx"}),
}


def imports_of(path: Path) -> set[str]:
    """Absolute names of what a module imports (relative imports resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module or "")
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_down(layer):
    allowed, banned = ALLOWED[layer]
    root = PACKAGE / layer
    files = list(root.rglob("*.py")) if root.is_dir() else []
    assert files, f"no modules in {layer}"
    for path in files:
        for name in imports_of(path):
            top = name.split(".")[0]
            assert top not in banned, f"{path.relative_to(PACKAGE)} imports {name}"
            if top == "drums_gym" and not name.startswith(f"drums_gym.{layer}"):
                assert any(name == a or name.startswith(a + ".") for a in allowed) and (
                    name != "drums_gym" or layer in ("local", "client")
                ), f"{path.relative_to(PACKAGE)} imports {name}, above its layer"


def test_envs_build_no_urls():
    for path in (PACKAGE / "envs").rglob("*.py"):
        text = path.read_text()
        assert "/v1/" not in text and "http://" not in text, path.name

"""The layers of design.md, checked: imports point down only, in the source and at runtime.

Top to bottom: cli -> integrations -> evaluation, rollouts, grpo, wrappers -> envs ->
client -> protocol, actions, _rgb (and the leaves); solvers use only actions; local (the
host) uses only protocol, actions, _rgb, accessibility and _version. The package root
``drums_gym`` is the top: no layer imports it. `LAYERS` is the table (one row per layer;
a row whose modules do not exist yet is skipped); `import_graph` holds the checks, which
`test_layers_planted.py` runs on copies of the package with a violation planted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import (
    Layer,
    compare_cycles,
    import_cycles,
    present,
    runtime_violations,
    static_violations,
)

PACKAGE = Path(__file__).resolve().parents[2] / "drums_gym"
ROOT = "drums_gym"
#: what importing the root always loads, whatever layer is imported
ALWAYS = ("drums_gym._version",)

#: the server stack of the ``[local]`` extra: only the host (and the cli) may load it
SERVER = ("fastapi", "uvicorn", "starlette", "pydantic")
#: what a pure leaf never loads
HEAVY = ("gymnasium", "httpx", *SERVER, "numpy", "PIL")
LOOPS = ("evaluation", "rollouts", "grpo", "wrappers", "_loop", "outcomes")

# fmt: off
LAYERS: tuple[Layer, ...] = (
    Layer("cli", ("drums_gym.cli",),
          uses=("integrations", *LOOPS, "solvers", "local", "report")),
    Layer("integrations", ("drums_gym.integrations",), uses=(*LOOPS, "accessibility"),
          optional=("trl", "transformers", "torch", "verifiers", "stable_baselines3",
                    "datasets", "ray", "torchrl", "tensordict")),
    Layer("evaluation", ("drums_gym.evaluation",), uses=("envs", *LOOPS), blocked=SERVER),
    Layer("rollouts", ("drums_gym.rollouts",), uses=("envs", *LOOPS), blocked=SERVER),
    Layer("grpo", ("drums_gym.grpo",), uses=("envs", *LOOPS), blocked=SERVER),
    Layer("wrappers", ("drums_gym.wrappers",), uses=("envs", *LOOPS), blocked=SERVER),
    Layer("_loop", ("drums_gym._loop",), uses=("envs", *LOOPS), blocked=SERVER),
    Layer("report", ("drums_gym.report",), uses=("actions", "outcomes", "_version"),
          blocked=HEAVY),
    Layer("outcomes", ("drums_gym.outcomes",), blocked=HEAVY, stdlib_only=True),
    Layer("envs", ("drums_gym.envs", "drums_gym.registration"), uses=("client", "_catalog_ids"),
          blocked=SERVER,
          banned=("httpx",)),
    Layer("client", ("drums_gym.client",), uses=("protocol", "actions", "_rgb", "_version"),
          lazy=("local",), blocked=("gymnasium", *SERVER)),
    Layer("local", ("drums_gym.local",),
          uses=("protocol", "actions", "_rgb", "accessibility", "_version", "_catalog_ids"),
          blocked=("gymnasium", "httpx")),
    Layer("solvers", ("drums_gym.solvers",), uses=("actions",), blocked=("gymnasium", "httpx")),
    Layer("protocol", ("drums_gym.protocol",), blocked=HEAVY, stdlib_only=True),
    Layer("actions", ("drums_gym.actions",), blocked=HEAVY, stdlib_only=True),
    Layer("_rgb", ("drums_gym._rgb",), blocked=("gymnasium", "httpx", *SERVER)),
    Layer("accessibility", ("drums_gym.accessibility",), blocked=HEAVY, stdlib_only=True),
    Layer("_catalog_ids", ("drums_gym._catalog_ids",), blocked=HEAVY, stdlib_only=True),
    Layer("_version", ("drums_gym._version",), blocked=HEAVY, stdlib_only=True),
)
# fmt: on

#: Import cycles known today, each the set of modules of one strongly connected component.
#: The test fails on any cycle not listed, and on a listed one that is gone (or changed),
#: so this list can only shrink. (An allowlist rather than ``xfail(strict=True)``: an
#: xfail would hide every new cycle for as long as an old one lives.)
KNOWN_CYCLES: tuple[frozenset[str], ...] = (
)

PRESENT = [layer for layer in LAYERS if present(layer, PACKAGE)]


def test_the_table_finds_the_layers_that_exist() -> None:
    """(Rows for modules not written yet are skipped; these exist today.)"""
    names = {layer.name for layer in PRESENT}
    assert {"cli", "envs", "client", "local", "actions", "solvers", "wrappers"} <= names


def test_source_imports_point_down() -> None:
    assert static_violations(PACKAGE, LAYERS, root=ROOT) == []


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_runtime_imports_point_down(layer: Layer, tmp_path: Path) -> None:
    """Import the layer's modules in a fresh interpreter with what it must not use
    blocked: nothing fails, and no project module above it gets loaded."""
    if layer not in PRESENT:
        pytest.skip(f"no {' or '.join(layer.modules)} yet")
    assert runtime_violations(PACKAGE, LAYERS, layer, root=ROOT, tmp=tmp_path,
                              always=ALWAYS) == []


def test_import_graph_has_no_cycles_but_the_known_ones() -> None:
    """``TYPE_CHECKING`` imports never run and are left out; imports inside functions
    count (they run, later)."""
    new, gone = compare_cycles(import_cycles(PACKAGE), KNOWN_CYCLES)
    assert new == [], "new import cycles"
    assert gone == [], "a known cycle is gone (or changed): remove it from KNOWN_CYCLES"


def test_envs_build_no_urls() -> None:
    for path in (PACKAGE / "envs").rglob("*.py"):
        text = path.read_text()
        assert "/v1/" not in text and "http://" not in text, path.name

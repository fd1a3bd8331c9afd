"""Natural agent solutions of the os split (``corpus.json``) through ``gym.make`` on a
local host: every right one scores 1.0 and every wrong one 0.0 (where OSWorld's checker is
as weak, the entry says so and expects what OSWorld would give), with a valid episode, on
each shell backend (``simulated`` always; ``sandbox`` where it runs here).

One env per (task, backend) at a time, reset between entries.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import corpus_steps
import gymnasium as gym
import pytest
from conftest import FAST, assert_no_leaks
from corpus_steps import BACKENDS, CONTROL, KINDS, CorpusError, load, resolve, validate

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.local.host import HostConfig
from drums_gym.local.server import LocalHost
from drums_gym.local.tasks import CATALOG

TASKS = {t[:8] for t in CATALOG} - {"7688b85f"}  # the 24 of the split
CORPUS = load(tasks=TASKS | {"7688b85f"})
MAX_STEPS = 30
#: how many WAITs a click may wait for its target before the entry fails
WAITS = 5


def sandbox_unavailable() -> str | None:
    """Why the sandbox backend cannot run here, or None."""
    if "shell" not in {f.name for f in dataclasses.fields(HostConfig)}:
        return "this tree has no sandbox backend (HostConfig has no shell field)"
    if importlib.util.find_spec("drums_gym.local.sandbox") is None:
        return "this tree has no drums_gym.local.sandbox"
    from drums_gym.local.sandbox.detect import unavailable_reason

    return unavailable_reason()


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[tuple[str, str], Any]]]:
    """A local host running ``request.param``'s shell, and its envs by task (made once)."""
    name = request.param
    if name != "simulated":
        reason = sandbox_unavailable()
        if reason is not None:
            pytest.skip(f"shell backend {name}: {reason}")
    config = dataclasses.replace(FAST, shell=name)
    server = LocalHost(config).start()
    envs: dict[tuple[str, str], Any] = {}
    try:
        yield name, {"url": server.url, "envs": envs}  # type: ignore[misc]
    finally:
        try:
            for env in envs.values():
                env.close()
            assert_no_leaks(server)
        finally:
            server.stop()


def _env(state: dict[str, Any], task: str) -> Any:
    """The task's env on this backend; the previous task's is closed (entries come grouped
    by task, and a host's live desktops are bounded)."""
    envs = state["envs"]
    if task not in envs:
        for other in list(envs):
            envs.pop(other).close()
        envs[task] = gym.make(f"Drums/{task}", accessibility=True, max_steps=MAX_STEPS,
                              wait_s=0.0, url=state["url"])
    return envs[task]


def _tree(info: dict[str, Any]) -> dict[str, Any]:
    tree = info["accessibility"]
    return tree["tree"] if "tree" in tree and "role" not in tree else tree


def run_entry(env: Any, entry: dict[str, Any]) -> tuple[float, dict[str, Any], list[str]]:
    """Play ``entry``'s steps from a fresh reset; the reward, last info and actions sent."""
    _obs, info = env.reset(seed=0)
    sent: list[str] = []
    for step in entry["steps"]:
        for _ in range(WAITS + 1):
            try:
                action = resolve(step, _tree(info))
                break
            except LookupError:
                action = None
                _obs, _r, terminated, truncated, info = env.step("WAIT")
                assert not (terminated or truncated), f"the episode ended waiting for {step}"
        if action is None:
            raise AssertionError(f"{entry['name']}: {step} not on screen after {WAITS} waits")
        sent.append(action)
        _obs, reward, terminated, truncated, info = env.step(action)
        if action not in CONTROL:
            assert "action_error" not in info, (action, info["action_error"])
        if terminated or truncated:
            break
    assert sent[-1] in ("DONE", "FAIL") and terminated, (entry["name"], sent[-1], {
        k: info.get(k) for k in ("valid", "invalid_reason", "cut", "truncation_reason")})
    return float(reward), info, sent


CASES = [pytest.param(e, id=f"{e['task']}-{e['name']}") for e in CORPUS]


@pytest.mark.parametrize("entry", CASES)
def test_the_entry_scores_what_it_expects(backend: tuple[str, dict[str, Any]],
                                          entry: dict[str, Any]) -> None:
    name, state = backend
    if name not in entry.get("backends", BACKENDS):
        pytest.skip(f"{name}: {entry['reason']}")
    reward, info, sent = run_entry(_env(state, entry["task"]), entry)
    assert info["valid"], info.get("invalid_reason")
    if "shell" in info:
        assert info["shell"] == name
    assert reward == entry["expect"], (name, entry["name"], sent)


# -- the corpus itself ----------------------------------------------------------------------

def test_the_corpus_covers_the_24_tasks_with_every_kind() -> None:
    by_task: dict[str, set[str]] = {}
    for e in CORPUS:
        by_task.setdefault(e["task"], set()).add(e["kind"])
    assert len(CORPUS) >= 150
    assert set(by_task) >= TASKS
    assert all("wrong" in kinds for kinds in by_task.values()), by_task
    kinds = {k for ks in by_task.values() for k in ks}
    assert {"terminal", "gui", "settings", "sudo", "answer", "wrong"} <= kinds
    assert all(len(e["steps"]) <= MAX_STEPS for e in CORPUS)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("expect", 0.5, "expect must be 1.0 or 0.0"),
    ("kind", "clever", "kind must be one of"),
    ("steps", ["pyautogui.press('enter')"], "must end with DONE or FAIL"),
    ("steps", [{"click": {"name": "x"}}, "DONE"], "a locator is"),
    ("backends", ["sandbox"], "given with a reason"),
    ("expect", 0.0, "a wrong entry expects 0.0"),
])
def test_a_malformed_entry_is_refused_naming_it(field: str, value: object, message: str
                                                ) -> None:
    good = {"task": "e0df059f", "name": "x", "kind": "terminal", "steps": ["DONE"],
            "expect": 1.0}
    assert validate([good]) == [good]
    with pytest.raises(CorpusError, match=message) as caught:
        validate([{**good, field: value}])
    assert "e0df059f/x" in str(caught.value)


def test_the_step_language_examples_hold() -> None:
    assert doctest.testmod(corpus_steps).failed == 0


def test_docs_tasks_md_shows_the_corpus_as_it_is() -> None:
    """docs/tasks.md's example is an entry of the corpus, and its tables (counts per task
    and kind, backend-restricted entries, weak checkers) match the corpus."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "tasks.md").read_text("utf-8")
    section = text.split("## A corpus of agent solutions", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    by_key = {(e["task"], e["name"]): e for e in CORPUS}
    assert by_key[(example["task"], example["name"])] == example
    rows = set(section.splitlines())
    for task in sorted({e["task"] for e in CORPUS}):
        counts = [sum(1 for e in CORPUS if e["task"] == task and e["kind"] == k) for k in KINDS]
        assert f"| {task} | {' | '.join(map(str, counts))} | {sum(counts)} |" in rows, task
    for e in CORPUS:
        label = f"| {e['task']} `{e['name']}` |"
        if "backends" in e:
            assert f"{label} {', '.join(e['backends'])} | {e['reason']} |" in rows, label
        if "note" in e:
            assert f"{label} {e['expect']} | {e['note'].removeprefix('weak: ')} |" in rows, label

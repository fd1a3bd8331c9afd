"""Every bundled task through gym.make: its scripted solver scores 1.0, a no-op 0.0."""

from __future__ import annotations

import importlib.util
import json

import gymnasium as gym
import pytest

import drums_gym  # noqa: F401
from drums_gym.cli import main
from drums_gym.local.tasks import CATALOG
from drums_gym.solvers import get_solver, routes

HAS_SCORING = importlib.util.find_spec("drums_gym.local.scoring") is not None
#: An infeasible task's FAIL scores 1.0 through the host's scoring rule (local/scoring.py).
needs_scoring = pytest.mark.skipif(not HAS_SCORING, reason="the host has no FAIL rule yet")
CASES = [pytest.param(task.short_id, route, id=f"{task.short_id}-{route}",
                      marks=[needs_scoring] if route == "answer" else [])
         for task in CATALOG.values() for route in routes(task.id)]


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


def run_episode(env_id: str, policy=None, max_steps: int = 40) -> tuple[float, dict]:
    env = gym.make(env_id, accessibility=True, max_steps=max_steps, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        instruction = info["instruction"]
        if policy is not None:
            policy.reset()
        while True:
            action = policy(obs, instruction, info) if policy else "DONE"
            obs, reward, terminated, truncated, info = env.step(action)
            assert "action_error" not in info, (action, info.get("action_error"))
            if terminated or truncated:
                return float(reward), info
    finally:
        env.close()


@pytest.mark.parametrize(("task", "route"), CASES)
def test_scripted_solver_scores_one_through_gym_make(hosted, task, route):
    reward, info = run_episode(f"Drums/{task}", get_solver(task, route=route))
    assert info["valid"] and reward == 1.0


@pytest.mark.parametrize("task", sorted(t.short_id for t in CATALOG.values()))
def test_noop_scores_zero(hosted, task):
    reward, info = run_episode(f"Drums/{task}")
    assert info["valid"] and reward == 0.0


def test_scripted_policy_in_the_rollout_cli(hosted, capsys):
    assert main(["rollout", "--task", "7688b85f", "--n", "2", "--groups", "1", "--steps", "30",
                 "--policy", "scripted", "--json", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    group = summary["groups"][0] if "groups" in summary else summary
    assert group["scores"] == [1.0, 1.0], summary

"""Every bundled task through gym.make: a no-op scores 0.0, and the scripted policy runs in the
rollout CLI. (Each scripted solver route's episode through gym.make, scoring 1.0:
tests/solvers/test_scripted_routes.py, test_every_route_solves_its_task_in_its_declared_steps.)"""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import drums_gym  # noqa: F401
from drums_gym.cli import main
from drums_gym.local.tasks import CATALOG


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


@pytest.mark.parametrize("task", sorted(t.short_id for t in CATALOG.values()))
def test_noop_scores_zero(hosted, task):
    env = gym.make(f"Drums/{task}", accessibility=True, max_steps=40, wait_s=0.0)
    try:
        env.reset(seed=0)
        _, reward, terminated, truncated, info = env.step("DONE")
    finally:
        env.close()
    assert "action_error" not in info, info.get("action_error")
    assert terminated and info["valid"] and reward == 0.0


def test_scripted_policy_in_the_rollout_cli(hosted, capsys):
    assert main(["rollout", "--task", "7688b85f", "--n", "2", "--groups", "1", "--steps", "30",
                 "--policy", "scripted", "--json", "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out)
    group = summary["groups"][0] if "groups" in summary else summary
    assert group["scores"] == [1.0, 1.0], summary

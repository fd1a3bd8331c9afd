"""The scripted policy solves every bundled task at the CLI's default 15 steps, and the
CLI can choose its route (scripted:gui, scripted:terminal)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import drums_gym  # noqa: F401
from drums_gym.cli import main
from drums_gym.cli.policies import PolicyError, load_policy
from drums_gym.local.tasks import CATALOG
from drums_gym.registration import DEFAULT_MAX_STEPS
from drums_gym.solvers import SOLVERS, get_solver

pytestmark = pytest.mark.timeout(120)

TASKS = sorted(t.short_id for t in CATALOG.values())


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


@pytest.mark.parametrize("task", TASKS)
def test_scripted_scores_one_at_the_default_budget(hosted, task, capsys):
    code = main(["eval", "--task", task, "--episodes", "1", "--num-envs", "1",
                 "--policy", "scripted", "--json", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["steps"] == 15 and summary["valid"] == 1
    assert summary["success_rate"] == 1.0, summary


@pytest.mark.parametrize(
    ("task", "route"), sorted(SOLVERS), ids=[f"{t}-{r}" for t, r in sorted(SOLVERS)]
)
def test_declared_steps_are_what_an_episode_takes(hosted, task, route):
    """``Solver.steps`` is what the route picking trusts: it must be the true count."""
    solver = get_solver(task, route=route)
    env = gym.make(f"Drums/{task}", accessibility=True, max_steps=60, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        taken = 0
        while True:
            obs, reward, terminated, truncated, info = env.step(solver(obs, "", info))
            taken += 1
            if terminated or truncated:
                break
    finally:
        env.close()
    assert reward == 1.0 and taken == type(solver).steps


@pytest.mark.parametrize("task", TASKS)
def test_the_default_solver_fits_the_default_step_limit(hosted, task):
    """``get_solver(task)`` as its docstring shows it, in an env made with no step limit
    given (the default 15): it scores 1 before the limit truncates it."""
    solver = get_solver(task)
    assert type(solver).steps <= DEFAULT_MAX_STEPS
    env = gym.make(f"Drums/{task}", accessibility=True, wait_s=0.0)
    try:
        obs, info = env.reset(seed=0)
        for _ in range(DEFAULT_MAX_STEPS):
            obs, reward, terminated, truncated, info = env.step(solver(obs, "", info))
            if terminated or truncated:
                break
    finally:
        env.close()
    assert terminated and not truncated and reward == 1.0


def test_route_is_chosen_by_spec_or_budget():
    assert load_policy("scripted", task="23393935", max_steps=5).route == "terminal"
    assert load_policy("scripted", task="23393935", max_steps=15).route == "gui"
    assert load_policy("scripted:gui-long", task="23393935", max_steps=15).route == "gui-long"
    assert load_policy("scripted:terminal", task="e0df059f").route == "terminal"
    with pytest.raises(PolicyError, match="scripted:tui"):
        load_policy("scripted:tui", task="e0df059f")
    with pytest.raises(PolicyError, match="has no 'gui' solver"):
        load_policy("scripted:gui", task="5ced85fc")


def test_cli_runs_the_route_it_is_told(hosted, capsys):
    code = main(["rollout", "--task", "23393935", "--n", "1", "--groups", "1",
                 "--policy", "scripted:gui-long", "--json", "--no-progress"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    # the long GUI route needs 24 steps: at 15 it cannot finish (and says so by its score)
    assert summary["groups"][0]["scores"] == [0.0]
    code = main(["rollout", "--task", "23393935", "--n", "1", "--groups", "1",
                 "--policy", "scripted:gui", "--json", "--no-progress"])
    assert code == 0 and json.loads(capsys.readouterr().out)["groups"][0]["scores"] == [1.0]
    code = main(["rollout", "--task", "23393935", "--n", "1", "--groups", "1",
                 "--policy", "scripted:terminal", "--json", "--no-progress"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["groups"][0]["scores"] == [1.0]


def test_get_solver_docstring_runs():
    import doctest

    import drums_gym.solvers

    result = doctest.testmod(drums_gym.solvers, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0

"""Every solver route solves its task through gym.make in the steps it declares (each route's
one episode in the fast set), the scripted policy solves every bundled task at the CLI's
default 15 steps, and the CLI can choose its route (scripted:gui, scripted:terminal)."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import drums_gym  # noqa: F401
from drums_gym.cli import main
from drums_gym.cli.policies import PolicyError, load_policy
from drums_gym.local.tasks import CATALOG, get_task
from drums_gym.registration import DEFAULT_MAX_STEPS
from drums_gym.solvers import SOLVERS, get_solver

pytestmark = pytest.mark.timeout(120)

TASKS = sorted(t.short_id for t in CATALOG.values())


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


#: One task per kind of route the CLI's ``scripted`` picks at the default budget: a GUI route, a
#: terminal-only task, an infeasible task answered FAIL. The CLI's choice for every task is
#: checked without an episode (test_the_cli_picks_the_route_whose_episode_is_checked); the
#: episode of each route is run once, below.
CLI_TASKS = ("7688b85f", "5ced85fc", "4783cc41")


@pytest.mark.parametrize("task", CLI_TASKS)
def test_scripted_scores_one_at_the_default_budget(hosted, task, capsys):
    code = main(["eval", "--task", task, "--episodes", "1", "--num-envs", "1",
                 "--policy", "scripted", "--json", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["steps"] == 15 and summary["valid"] == 1
    assert summary["success_rate"] == 1.0, summary


def test_cli_tasks_cover_each_kind_of_default_route():
    picked = {load_policy("scripted", task=t, max_steps=DEFAULT_MAX_STEPS).route
              for t in CLI_TASKS}
    assert picked == {"gui", "terminal", "answer"}


@pytest.mark.parametrize("task", TASKS)
def test_the_cli_picks_the_route_whose_episode_is_checked(task):
    """At the default budget the CLI's ``scripted`` runs ``get_solver(task)``'s route, which
    fits the budget: test_every_route_solves_its_task_in_its_declared_steps runs that route's
    episode (at the default step limit) and checks the count it declares."""
    policy = load_policy("scripted", task=task, max_steps=DEFAULT_MAX_STEPS)
    solver = get_solver(task)
    assert policy.route == solver.route
    assert type(policy.solver) is type(solver)
    assert type(solver).steps <= DEFAULT_MAX_STEPS


@pytest.mark.parametrize(
    ("task", "route"), sorted(SOLVERS), ids=[f"{t}-{r}" for t, r in sorted(SOLVERS)]
)
def test_every_route_solves_its_task_in_its_declared_steps(hosted, task, route):
    """Each solver route's one episode through ``gym.make``, given the task's instruction as
    a policy is: valid, reward 1.0, no action refused, ended by DONE (FAIL on an infeasible
    task), in exactly ``Solver.steps`` steps (what the route picking trusts). A route that
    fits the default step limit runs in an env made with no limit given (the default 15),
    where it terminates before the limit truncates it; a longer one gets 60 steps."""
    solver = get_solver(task, route=route)
    declared = type(solver).steps
    limit = {} if declared <= DEFAULT_MAX_STEPS else {"max_steps": 60}
    env = gym.make(f"Drums/{task}", accessibility=True, wait_s=0.0, **limit)
    try:
        obs, info = env.reset(seed=0)
        instruction = info["instruction"]
        solver.reset()
        taken = 0
        while True:
            action = solver(obs, instruction, info)
            obs, reward, terminated, truncated, info = env.step(action)
            taken += 1
            assert "action_error" not in info, (action, info.get("action_error"))
            if terminated or truncated:
                break
    finally:
        env.close()
    assert info["valid"] and reward == 1.0, info
    assert terminated and not truncated
    assert taken == declared
    assert action == ("FAIL" if get_task(task).infeasible else "DONE")


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

"""The rollout and evaluation loops as a library (drums_gym.rollouts, drums_gym.evaluation),
and what they promise: a policy is only asked to act for a live member, and one invalid
member never stops a run."""

from __future__ import annotations

import doctest
import importlib
import json

import pytest

from drums_gym import grpo, outcomes
from drums_gym.cli import main
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.evaluation import EpisodeResult, EvalSummary, evaluate, iter_episodes, make_envs
from drums_gym.rollouts import GroupOutcome, run_groups, start_parent, total
from drums_gym.wrappers import _tally

pytestmark = pytest.mark.timeout(120)

SCREEN = (640, 480)


def strict_policy(observation, instruction, info):
    """Refuses to act for a member whose episode is invalid (as the scripted solver does,
    which needs the accessibility tree an invalid episode does not have)."""
    if not info.get("valid", True):
        raise ValueError(f"asked to act on an invalid episode: {info.get('invalid_reason')}")
    return "DONE"


@pytest.mark.parametrize(
    "name", ["drums_gym.outcomes", "drums_gym.evaluation", "drums_gym.rollouts", "drums_gym._loop"]
)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_one_unknown_reason_and_one_rate():
    assert grpo.UNKNOWN_REASON is outcomes.UNKNOWN_REASON
    assert not hasattr(_tally, "UNKNOWN_REASON") or _tally.UNKNOWN_REASON is outcomes.UNKNOWN_REASON
    assert _tally.info_validity is outcomes.info_validity


def test_run_groups_from_python(local_host):
    parent = DrumsDesktopEnv("e0df059f", url=local_host.url, max_steps=3, screen=SCREEN)
    try:
        start_parent(parent, ["pyautogui.moveTo(5, 5)"], seed=0)
        groups = run_groups(parent, n=2, groups=2, policy=lambda obs, instruction: "DONE")
    finally:
        parent.close()
    assert [g.index for g in groups] == [1, 2]
    assert all(isinstance(g, GroupOutcome) and g.steps == 1 for g in groups)
    assert total(groups).summary()["n"] == 4 and total(groups).n_valid == 4


def test_start_parent_refuses_a_prefix_that_ends_the_episode(local_host):
    parent = DrumsDesktopEnv("e0df059f", url=local_host.url, max_steps=3, screen=SCREEN)
    try:
        with pytest.raises(ValueError, match="cannot end the parent's episode"):
            start_parent(parent, ["DONE"])
    finally:
        parent.close()


def test_iter_episodes_yields_results_as_they_finish(local_host):
    envs = make_envs("e0df059f", 2, max_steps=2, url=local_host.url)
    try:
        seen = []
        stream = iter_episodes(envs, lambda obs, instruction: "DONE", 5, seed=0,
                               on_step=seen.append)
        first = next(stream)
        assert isinstance(first, EpisodeResult) and first.valid and first.length == 1
        assert seen == [1]  # one vector step taken so far: results come as they finish
        rest = list(stream)
    finally:
        envs.close()
    results = [first, *rest]
    assert len(results) == 5
    assert all(r.task_id.startswith("e0df059f") for r in results)
    summary = EvalSummary.from_results(results)
    assert summary.episodes == 5 and summary.valid == 5 and summary.success_rate == 0.0
    assert summary.mean_length == 1.0 and json.dumps(summary.to_json())


def test_make_envs_checks_capacity_first(local_host):
    with pytest.raises(ValueError, match="num_envs 9 exceeds the host's fork limit"):
        make_envs("e0df059f", 9, url=local_host.url)
    assert local_host.model.counts()["live_desktops"] == 0


# --- a policy is never called for an invalid or finished member -----------------------------


def test_rollout_loop_never_asks_an_invalid_member(make_host):
    server = make_host(faults="gate_fail=0.5", seed=1)
    parent = DrumsDesktopEnv("e0df059f", url=server.url, max_steps=3, screen=SCREEN)
    try:
        start_parent(parent, seed=0, attempts=10)
        groups = run_groups(parent, n=4, groups=2, policy=strict_policy)
    finally:
        parent.close()
    members = [m for g in groups for m in g.members]
    assert len(members) == 8
    invalid = [m for m in members if not m.valid]
    assert invalid and all(m.reason == "gate_failed" and m.score is None for m in invalid)


def test_eval_loop_never_asks_an_invalid_member(make_host):
    server = make_host(faults="fork_child_fail=0.7", seed=3)
    envs = make_envs("e0df059f", 3, max_steps=2, url=server.url)
    try:
        evaluation = evaluate(envs, strict_policy, 9, seed=0)
    finally:
        envs.close()
    assert evaluation.summary.episodes == 9
    assert evaluation.summary.invalid > 0
    assert set(evaluation.summary.invalid_reasons) == {"fork_failed"}


@pytest.mark.parametrize(
    ("command", "faults"),
    [
        (["rollout", "--n", "4", "--groups", "2"], "gate_fail=0.3"),
        (["rollout", "--n", "4", "--groups", "2"], "fork_child_fail=0.3"),
        (["eval", "--episodes", "8", "--num-envs", "4"], "gate_fail=0.3"),
        (["eval", "--episodes", "8", "--num-envs", "4"], "fork_child_fail=0.3"),
    ],
)
def test_scripted_runs_through_invalid_members(make_host, monkeypatch, capsys, command, faults):
    server = make_host(faults=faults, seed=2)
    monkeypatch.setenv("DRUMS_URL", server.url)
    code = main([*command, "--task", "e0df059f", "--policy", "scripted", "--json",
                 "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    counts = summary["total"] if command[0] == "rollout" else summary
    assert counts["invalid"] == sum(counts["invalid_reasons"].values())
    # valid members are solved: the scripted policy went on for them
    assert counts["valid"] == 0 or counts["mean_score"] == 1.0

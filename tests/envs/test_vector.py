"""fork_vector and gym.make_vec against the real local host."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from a11y import center, find
from gymnasium.vector import AutoresetMode

import drums_gym  # noqa: F401
from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv

SOLVE = (
    "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
    "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')"
)


@pytest.fixture
def parent_factory(make_host):
    made = []

    def make(faults=None, seed=0, **kwargs):
        server = make_host(faults=faults, seed=seed)
        client = connect(url=server.url)
        env = DrumsDesktopEnv("e0df059f", client=client, accessibility=True, **kwargs)
        made.append((env, client))
        return env, server

    yield make
    for env, client in made:
        env.close()
        client.close()


def test_fork_vector_group_scores_each_child_independently(parent_factory):
    parent, server = parent_factory()
    _, info = parent.reset()
    x, y = center(find(info["accessibility"], "todo_list_Jan_1"))
    parent.step(f"pyautogui.moveTo({x}, {y})")  # a prefix every child shares
    vec = parent.fork_vector(3, autoreset_mode="DISABLED")
    try:
        assert vec.metadata["autoreset_mode"] == AutoresetMode.DISABLED
        obs, infos = vec.reset(seed=0)
        assert obs.shape == (3, 1080, 1920, 3) and obs.dtype == np.uint8
        assert infos["valid"].tolist() == [True] * 3 and infos["_valid"].all()
        assert len(set(infos["slot_id"])) == 3 and parent.slot.id not in infos["slot_id"]
        assert server.model.counts() == {"live_desktops": 4, "saved_states": 1}
        actions = [SOLVE.format(x=x, y=y), "pyautogui.moveTo(5, 5)", "pyautogui.click("]
        obs2, rewards, terms, truncs, infos = vec.step(actions)
        assert not np.shares_memory(obs, obs2)
        assert "action_error" in infos and infos["_action_error"].tolist() == [False, False, True]
        _, rewards, terms, truncs, infos = vec.step(["DONE"] * 3)
        assert rewards.tolist() == [1.0, 0.0, 0.0] and terms.all() and not truncs.any()
        assert infos["score"].tolist() == [1.0, 0.0, 0.0]
        _, rewards, *_ = parent.step("DONE")
        assert rewards == 0.0, "solving in a child leaves the parent alone"
    finally:
        vec.close()
    assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}
    vec.close()  # harmless twice


def test_next_step_autoreset_replaces_finished_children(parent_factory):
    parent, server = parent_factory(max_steps=2)
    parent.reset()
    vec = parent.fork_vector(2)
    try:
        assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        _, infos = vec.reset()
        first = list(infos["slot_id"])
        _, _, terms, _, _ = vec.step(["DONE", "pyautogui.moveTo(1, 1)"])
        assert terms.tolist() == [True, False]
        _, rewards, terms, truncs, infos = vec.step(["pyautogui.moveTo(2, 2)"] * 2)
        assert infos["slot_id"][0] != first[0], "a new fork replaced the finished child"
        assert infos["_slot_id"].tolist() == [True, False]
        assert rewards[0] == 0.0 and not terms[0] and not truncs[0]
        assert truncs[1], "the other child reached max_steps"
        assert server.model.counts()["live_desktops"] == 3
    finally:
        vec.close()


def test_disabled_autoreset_resets_by_mask(parent_factory):
    parent, _ = parent_factory()
    parent.reset()
    vec = parent.fork_vector(2, autoreset_mode=AutoresetMode.DISABLED)
    try:
        _, infos = vec.reset()
        before = list(infos["slot_id"])
        _, infos = vec.reset(options={"reset_mask": np.array([False, True])})
        assert infos["_slot_id"].tolist() == [False, True] and infos["slot_id"][1] != before[1]
        assert vec.slots[0].id == before[0]
        with pytest.raises(ValueError, match="reset_mask"):
            vec.reset(options={"reset_mask": [True]})
    finally:
        vec.close()


def test_failed_children_are_flagged_and_the_batch_goes_on(parent_factory):
    parent, server = parent_factory(faults="fork_child_fail=1.0")
    parent.reset()
    vec = parent.fork_vector(2)
    try:
        obs, infos = vec.reset()
        assert obs.shape[0] == 2 and infos["valid"].tolist() == [False, False]
        assert infos["invalid_reason"].tolist() == ["fork_failed", "fork_failed"]
        obs, rewards, terms, truncs, infos = vec.step(["DONE", "DONE"])
        assert truncs.all() and not terms.any() and rewards.tolist() == [0.0, 0.0]
        assert infos["valid"].tolist() == [False, False]
        assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}
    finally:
        vec.close()


def test_invalid_children_are_flagged_with_their_reason(parent_factory):
    parent, _ = parent_factory(faults="gate_fail=0.5", seed=3)
    parent.reset()
    vec = parent.fork_vector(6, autoreset_mode="DISABLED")
    try:
        _, infos = vec.reset()
        _, rewards, terms, truncs, step_infos = vec.step(["DONE"] * 6)
        invalid = ~step_infos["valid"]
        assert invalid.any() and (~invalid).any(), "seed 3 gives a mixed group"
        assert (step_infos["invalid_reason"][invalid] == "gate_failed").all()
        assert truncs[invalid].all() and not terms[invalid].any()
        assert terms[~invalid].all()
    finally:
        vec.close()


def test_make_vec_forks_a_parent_and_closes_both(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    vec = gym.make_vec("Drums/e0df059f", num_envs=3, max_steps=4)
    try:
        assert vec.num_envs == 3 and vec.unwrapped.parent.max_steps == 4
        vec = gym.wrappers.vector.RecordEpisodeStatistics(vec)
        vec.reset(seed=1)
        assert local_host.model.counts()["live_desktops"] == 4, "a parent plus 3 forks"
        for _ in range(4):
            _, _, terms, truncs, infos = vec.step(["pyautogui.moveTo(10, 10)"] * 3)
        assert truncs.all() and infos["_episode"].all()
        assert infos["episode"]["l"].tolist() == [4, 4, 4]
    finally:
        vec.close()
    assert local_host.model.counts()["live_desktops"] == 0


def test_make_vec_sync_and_async_modes(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    for mode in ("sync", "async"):
        vec = gym.make_vec("Drums/e0df059f", num_envs=2, vectorization_mode=mode, wait_s=0.0)
        try:
            obs, infos = vec.reset(seed=0)
            assert obs.shape == (2, 1080, 1920, 3) and infos["valid"].all()
            _, rewards, terms, _, _ = vec.step(["DONE", "DONE"])
            assert terms.all()
        finally:
            vec.close()


def test_bad_fork_arguments(parent_factory):
    parent, _ = parent_factory()
    with pytest.raises(RuntimeError, match="reset"):
        parent.fork_vector(2)
    parent.reset()
    for kwargs, named in (
        ({"n": 0}, "n"),
        ({"n": 2, "autoreset_mode": "same-step"}, "autoreset_mode"),
        ({"n": 2, "fork_retries": -1}, "fork_retries"),
    ):
        with pytest.raises(ValueError, match=named):
            parent.fork_vector(**kwargs)


def test_disabled_autoreset_lets_ended_children_sit_out(parent_factory):
    parent, server = parent_factory(max_steps=3)
    parent.reset()
    vec = parent.fork_vector(2, autoreset_mode="DISABLED")
    try:
        obs, infos = vec.reset()
        _, _, terms, _, _ = vec.step(["DONE", "pyautogui.moveTo(3, 3)"])
        assert terms.tolist() == [True, False]
        ids = [s.id for s in vec.slots]
        last, _, terms, truncs, infos = vec.step(["DONE", "pyautogui.moveTo(4, 4)"])
        assert not terms[0] and not truncs[0] and not infos["_valid"][0], "sits out, unreported"
        assert [s.id for s in vec.slots] == ids, "no new fork in DISABLED mode"
        _, _, terms, truncs, _ = vec.step(["pyautogui.moveTo(5, 5)"] * 2)
        assert truncs.tolist() == [False, True]
        assert server.model.counts()["live_desktops"] == 3
    finally:
        vec.close()

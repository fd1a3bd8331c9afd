"""DrumsDesktopEnv against the real local host, through real Gymnasium."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from a11y import center, find
from gymnasium.utils.env_checker import check_env

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv, UnscoredEpisodeWarning

SOLVE = (
    "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
    "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')"
)


@pytest.fixture
def client(local_host):
    with connect(url=local_host.url) as c:
        yield c


@pytest.fixture
def env(client):
    env = DrumsDesktopEnv("e0df059f", client=client, accessibility=True, wait_s=0.01)
    yield env
    env.close()


def solve_action(info: dict) -> str:
    x, y = center(find(info["accessibility"], "todo_list_Jan_1"))
    return SOLVE.format(x=x, y=y)


def test_reset_gives_a_screenshot_and_the_task(env):
    obs, info = env.reset(seed=0)
    assert obs.shape == (1080, 1920, 3) and obs.dtype == np.uint8
    assert env.observation_space.contains(obs)
    assert info["task_id"].startswith("e0df059f") and "todo_list_Jan_2" in info["instruction"]
    assert info["valid"] is True and info["invalid_reason"] is None
    assert info["slot_id"] and info["episode_id"]
    assert [g["status"] for g in info["gates"]] == ["passed", "passed"]


def test_solving_scores_one_and_done_ends(env):
    obs, info = env.reset(seed=0)
    obs2, reward, terminated, truncated, info = env.step(solve_action(info))
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert not np.shares_memory(obs, obs2) and not np.array_equal(obs, obs2)
    assert set(info["timings"]) == {"action", "observe", "verify"}
    assert info["timings"]["action"] > 0 and info["timings"]["observe"] > 0
    _, reward, terminated, truncated, info = env.step("DONE")
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["valid"] is True and info["score"] == 1.0 and info["timings"]["verify"] > 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step("DONE")


def test_bad_actions_are_data_and_the_episode_goes_on(env, tmp_path):
    env.reset(seed=0)
    canary = tmp_path / "canary"
    for action in (
        f"import os\nos.system('touch {canary}')\nopen({str(canary)!r}, 'w')",
        "pyautogui.click(",
        42,
        "pyautogui.click(clicks='no')",
    ):
        _, reward, terminated, truncated, info = env.step(action)
        assert info["action_error"] and not (terminated or truncated) and reward == 0.0
    assert not canary.exists()  # Python runs in the sandbox, where the host's files are not


def test_max_steps_truncates_and_verifies(client):
    env = DrumsDesktopEnv("e0df059f", client=client, max_steps=2)
    try:
        env.reset()
        assert env.step("pyautogui.moveTo(5, 5)")[3] is False
        _, reward, terminated, truncated, info = env.step("pyautogui.moveTo(6, 6)")
        assert (terminated, truncated, info["valid"], info["score"]) == (False, True, True, 0.0)
    finally:
        env.close()


def test_fail_terminates_and_wait_waits(env):
    env.reset()
    _, _, terminated, truncated, info = env.step("WAIT")
    assert not terminated and "action_error" not in info
    _, _, terminated, _, info = env.step("FAIL")
    assert terminated and info["valid"] is True


def test_reset_starts_a_new_episode_on_the_same_desktop(env):
    _, first = env.reset()
    env.step(solve_action(first))
    with pytest.warns(UnscoredEpisodeWarning, match="left after 1 steps with no verdict"):
        _, second = env.reset()  # the first episode is left unscored, and the env says so
    assert second["slot_id"] == first["slot_id"] and second["episode_id"] != first["episode_id"]
    _, reward, *_ = env.step("DONE")
    assert reward == 0.0, "the new episode starts from the task's setup again"


def test_invalid_episode_is_truncated_and_flagged(make_host):
    server = make_host(faults="crash=1.0")
    with connect(url=server.url) as client:
        env = DrumsDesktopEnv("e0df059f", client=client)
        try:
            obs, info = env.reset()
            # crash=1.0 may flag the episode at reset or at a step: either way the next
            # step ends it, truncated, with a placeholder reward and no score
            for _ in range(4):
                obs, reward, terminated, truncated, info = env.step("pyautogui.moveTo(9, 9)")
                if terminated or truncated:
                    break
            assert info["valid"] is False and info["invalid_reason"] == "app_crash"
            assert obs.shape == (1080, 1920, 3)
            assert "timings" in info, "ended by a step"
            assert truncated and not terminated and reward == 0.0 and "score" not in info
        finally:
            env.close()


def test_close_deletes_the_desktop_and_is_idempotent(local_host, client):
    env = DrumsDesktopEnv("e0df059f", client=client)
    env.reset()
    assert local_host.model.counts()["live_desktops"] == 1
    env.close()
    env.close()
    assert local_host.model.counts()["live_desktops"] == 0


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"task": ""}, "task"),
        ({"max_steps": 0}, "max_steps"),
        ({"ttl": -1}, "ttl"),
        ({"render_mode": "human"}, "render_mode"),
        ({"screenshot_format": "bmp"}, "screenshot_format"),
        ({"screen": (10,)}, "screen"),
        ({"task": "zzzzzzzz"}, "zzzzzzzz"),
    ],
)
def test_bad_arguments_name_the_argument(client, kwargs, named):
    with pytest.raises(ValueError, match=named):
        DrumsDesktopEnv(**{"task": "e0df059f", **kwargs}, client=client)


def test_check_env_passes(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    env = gym.make("Drums/e0df059f", wait_s=0.0)
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


def test_random_sampled_actions_never_raise(env):
    env.reset()
    env.action_space.seed(3)
    for _ in range(10):
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        assert info["valid"] is True
        if terminated or truncated:
            env.reset()


def test_gym_make_spec_and_wrappers(local_host, monkeypatch, tmp_path):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    env = gym.make("drums_gym:Drums/e0df059f", max_steps=3, render_mode="rgb_array")
    assert env.spec.nondeterministic is True
    assert gym.spec("Drums/e0df059f").kwargs["max_steps"] == 15
    default = gym.make("Drums/e0df059f")
    assert default.unwrapped.max_steps == 15, "the registered limit"
    default.close()
    env = gym.wrappers.RecordEpisodeStatistics(env)
    env = gym.wrappers.RecordVideo(
        env, str(tmp_path / "video"), episode_trigger=lambda e: True, disable_logger=True
    )
    try:
        env.reset(seed=0)
        assert env.unwrapped.max_steps == 3
        for t in range(3):
            _, _, terminated, truncated, info = env.step(f"pyautogui.moveTo({100 * t}, 300)")
        assert truncated and info["episode"]["l"] == 3 and info["score"] == 0.0
        assert env.render().shape == (1080, 1920, 3)
    finally:
        env.close()
    assert list((tmp_path / "video").glob("*.mp4")), "RecordVideo wrote the episode"


def test_gymnasium_time_limit_wraps_the_env(client):
    env = gym.wrappers.TimeLimit(DrumsDesktopEnv("e0df059f", client=client, max_steps=2), 10)
    try:
        env.reset()
        env.step("pyautogui.moveTo(7, 7)")
        _, reward, terminated, truncated, info = env.step("pyautogui.moveTo(8, 8)")
        assert truncated and info["score"] == 0.0, "the env's own limit verifies first"
    finally:
        env.close()

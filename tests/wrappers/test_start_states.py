"""Start states, the reverse curriculum and evaluation from the initial state, on the real
env against a local host."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from drums_gym.client import Client, connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.wrappers import (
    ReverseCurriculum,
    StartState,
    evaluate_from_initial,
    record_states,
)

SCREEN = (1024, 768)
DEMO = ("pyautogui.click(142, 98)", "pyautogui.hotkey('f2')",
        "pyautogui.write('todo_list_Jan_2\\n')", "DONE")


@pytest.fixture
def client(local_host: Any) -> Iterator[Client]:
    with connect(url=local_host.url) as c:
        yield c


def make(client: Client, **kwargs: Any) -> DrumsDesktopEnv:
    return DrumsDesktopEnv("e0df059f", client=client, screen=SCREEN, wait_s=0.0,
                           max_steps=6, **kwargs)


def test_reset_from_a_state_reproduces_its_screen(client: Client, local_host: Any) -> None:
    env = make(client)
    try:
        initial, _ = env.reset()
        clicked, *_ = env.step(DEMO[0])
        state = env.save_state()
        env.step(DEMO[1])  # the desktop moves on; the state does not
        obs, info = env.reset(options={"state": state})
        assert np.array_equal(obs, clicked) and not np.array_equal(obs, initial)
        assert info["start_state"] == state and info["valid"]
        obs, info = env.reset()
        assert np.array_equal(obs, initial) and info["start_state"] is None
        with pytest.raises(ValueError, match="st_nope"):
            env.reset(options={"state": "st_nope"})
        with pytest.raises(ValueError, match="options\\['state'\\]"):
            env.reset(options={"state": 3})
    finally:
        env.close()
    assert local_host.model.counts()["saved_states"] == 0  # close deleted it
    assert client.states() == []


def test_state_of_another_task_is_refused(client: Client) -> None:
    env = make(client)
    other = DrumsDesktopEnv("7688b85f", client=client, screen=SCREEN)
    try:
        env.reset()
        state = env.save_state()
        other.reset()
        with pytest.raises(ValueError, match="task e0df059f"):
            other.reset(options={"state": state})
    finally:
        env.close()
        other.close()


def test_record_states_along_a_demo(client: Client, local_host: Any) -> None:
    env = make(client)
    try:
        states = record_states(env, list(DEMO))
        assert [(s.step, s.remaining) for s in states] == [
            (1, DEMO[1:]), (2, DEMO[2:]), (3, DEMO[3:])]
        assert local_host.model.counts()["saved_states"] == 3
        # each state plus its remaining actions solves the task
        for state in states:
            env.reset(options={"state": state})
            for code in state.remaining:
                _, reward, terminated, truncated, _ = env.step(code)
            assert terminated and reward == 1.0
        taken: list[str] = []

        def policy(obs: Any, info: dict[str, Any]) -> str:  # a policy, run until the end
            taken.append(DEMO[len(taken)])
            return taken[-1]

        only = record_states(env, policy, at={2})
        assert [(s.step, s.remaining) for s in only] == [(2, DEMO[2:])] and len(taken) == 4
    finally:
        env.close()
    assert local_host.model.counts()["saved_states"] == 0


class Replayer:
    """Plays a start state's remaining demo actions (solves), or answers FAIL (fails)."""

    def __init__(self, env: ReverseCurriculum, solve: bool) -> None:
        self.env, self.solve = env, solve

    def episode(self) -> dict[str, Any]:
        _, info = self.env.reset()
        stage = info["curriculum_stage"]
        start = self.env.states[stage - 1] if stage else None
        plan = list(start.remaining) if isinstance(start, StartState) else list(DEMO)
        for code in plan if self.solve else ["FAIL"]:
            _, _, terminated, truncated, info = self.env.step(code)
            if terminated or truncated:
                break
        return info


def test_curriculum_moves_back_on_success_only(client: Client) -> None:
    env = make(client)
    try:
        states = record_states(env, list(DEMO))
        curriculum = ReverseCurriculum(env, states, threshold=1.0, window=2)
        assert curriculum.stage == curriculum.stages == 3
        failing = Replayer(curriculum, solve=False)
        for _ in range(3):
            assert failing.episode()["curriculum_stage"] == 3
        assert curriculum.stage == 3 and curriculum.recent_success == 0.0
        solving = Replayer(curriculum, solve=True)
        stages = [solving.episode()["curriculum_stage"] for _ in range(8)]
        # the window (2) holds a failure from stage 3 first: 2 more successes move it back
        assert stages == [3, 3, 2, 2, 1, 1, 0, 0]
        assert curriculum.stage == 0 and [m[1] for m in curriculum.moves] == [2, 1, 0]
        # evaluation is from the initial state whatever the stage, and is not counted
        episodes = curriculum.episodes
        plan = iter(list(DEMO) * 2)
        result = evaluate_from_initial(curriculum, lambda obs, info: next(plan), 2)
        assert (result.successes, result.valid, result.invalid, result.rate) == (2, 2, 0, 1.0)
        assert curriculum.episodes == episodes
        assert evaluate_from_initial(curriculum, lambda obs, info: "DONE", 2).rate == 0.0
    finally:
        env.close()


def test_curriculum_arguments(client: Client) -> None:
    env = make(client)
    try:
        for kwargs, word in [({"threshold": 0}, "threshold"), ({"window": 0}, "window"),
                             ({"step_back": 0}, "step_back"), ({"replay": 2}, "replay")]:
            with pytest.raises(ValueError, match=word):
                ReverseCurriculum(env, [StartState("st_x", 1, ())], **kwargs)
        with pytest.raises(ValueError, match="states"):
            ReverseCurriculum(env, "st_x")  # type: ignore[arg-type]
    finally:
        env.close()

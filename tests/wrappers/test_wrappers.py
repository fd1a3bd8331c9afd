"""Wrappers: on a small stand-in env that follows the DrumsDesktopEnv contract, and on the
real env against a local host."""

from __future__ import annotations

import functools
import json
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import batch_space
from PIL import Image

from drums_gym.actions import ActionError, parse, parse_control
from drums_gym.wrappers import (
    DiscreteClicks,
    DrumsEpisodeStatistics,
    DrumsVectorEpisodeStatistics,
    RecordTrajectory,
    ResizeScreenshot,
    VectorDiscreteClicks,
    VectorRecordTrajectory,
    VectorResizeScreenshot,
    VectorWithInstruction,
    WithInstruction,
)

INSTRUCTION = 'I have a directory named "todo_list_Jan_1" on my Desktop; rename it “Jan_2”.'


# --- a stand-in DrumsDesktopEnv ------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How one stand-in episode goes: its score, and whether (at which step) it turns invalid."""

    score: float = 1.0
    invalid_at: int | None = None
    reason: str | None = "gate_failed"


class StandInDesktop(gym.Env[np.ndarray, str]):
    """Follows the DrumsDesktopEnv contract on a tiny screen; episodes follow ``plans``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(
        self,
        plans: Sequence[Plan] = (Plan(),),
        *,
        screen: tuple[int, int] = (64, 48),
        max_steps: int = 4,
        render_mode: str | None = "rgb_array",
        extra_info: dict[str, Any] | None = None,
    ) -> None:
        self.plans = tuple(plans)
        self.screen = screen
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.extra_info = dict(extra_info or {})
        self.instruction = INSTRUCTION
        self.observation_space = spaces.Box(0, 255, (screen[1], screen[0], 3), np.uint8)
        self.action_space = spaces.Text(4096, min_length=1, charset=string.printable)
        self.episodes = 0
        self.actions: list[str] = []
        self._plan = self.plans[0]
        self._t = 0
        self._frame = np.zeros(self.observation_space.shape, np.uint8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._plan = self.plans[self.episodes % len(self.plans)]
        self.episodes += 1
        self._t = 0
        height, width, _ = self.observation_space.shape
        tiles = self.np_random.integers(0, 256, (8, 8, 3), np.uint8)  # seeded, cheap to encode
        rows, cols = -(-height // 8), -(-width // 8)
        self._frame = tiles.repeat(rows, axis=0).repeat(cols, axis=1)[:height, :width].copy()
        info = {
            "task_id": "e0df059f-standin",
            "instruction": self.instruction,
            "slot_id": "slot-1",
            "episode_id": f"episode-{self.episodes}",
            "gates": [{"name": "app_ready", "state": "passed"}],
            "valid": True,
            "invalid_reason": None,
        }
        return self._frame.copy(), info

    def step(self, action: str) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.actions.append(action)
        self._t += 1
        info: dict[str, Any] = {
            "valid": True,
            "invalid_reason": None,
            "timings": {"action": 0.0, "observe": 0.0, "verify": 0.0},
            **self.extra_info,
        }
        word = parse_control(action)
        if word is None:
            try:
                parse(action)
            except ActionError as exc:
                info["action_error"] = str(exc)
        self._frame = self._frame.copy()
        self._frame[self._t % self._frame.shape[0]] = 255
        terminated = word in ("DONE", "FAIL")
        truncated = not terminated and self._t >= self.max_steps
        reward = 0.0
        plan = self._plan
        if plan.invalid_at is not None and self._t >= plan.invalid_at:
            info.update(valid=False, invalid_reason=plan.reason)
            terminated, truncated = False, True
        elif terminated or truncated:
            reward = 0.0 if word == "FAIL" else plan.score
            info["score"] = reward
        return self._frame.copy(), reward, terminated, truncated, info

    def render(self) -> np.ndarray:  # type: ignore[override]
        return self._frame.copy()


def run_episode(env: gym.Env[Any, Any], actions: Sequence[Any], seed: int | None = None):
    """Reset, then step ``actions`` until the episode ends; returns the last step's result."""
    env.reset(seed=seed)
    result = None
    for action in actions:
        result = env.step(action)
        if result[2] or result[3]:
            return result
    raise AssertionError(f"the episode did not end within {len(actions)} actions")


CLICK = "pyautogui.click(10, 10)"


# --- DrumsEpisodeStatistics ----------------------------------------------------------------


def test_statistics_of_a_valid_episode() -> None:
    env = DrumsEpisodeStatistics(StandInDesktop([Plan(score=1.0)]))
    *_, info = run_episode(env, [CLICK, "DONE"], seed=0)
    episode = info["episode"]
    assert episode["r"] == 1.0 and episode["l"] == 2 and episode["t"] >= 0
    assert episode["valid"] is True and episode["invalid_reason"] is None
    assert list(env.return_queue) == [1.0] and list(env.length_queue) == [2]
    assert env.success_rate == 1.0 and env.invalid_rate == 0.0
    env.close()


def test_invalid_episodes_are_left_out_of_returns_and_success() -> None:
    plans = [Plan(score=1.0), Plan(invalid_at=2, reason="oom_killed"), Plan(score=0.0)]
    env = DrumsEpisodeStatistics(StandInDesktop(plans, max_steps=3))
    infos = [run_episode(env, [CLICK, CLICK, CLICK])[-1] for _ in plans]

    assert [i["episode"]["valid"] for i in infos] == [True, False, True]
    assert infos[1]["episode"]["invalid_reason"] == "oom_killed"
    assert list(env.return_queue) == [1.0, 0.0]
    assert list(env.length_queue) == [3, 3]
    assert (env.episode_count, env.valid_count, env.invalid_count) == (3, 2, 1)
    assert env.success_rate == 0.5
    assert env.invalid_rate == pytest.approx(1 / 3)
    assert env.invalid_reasons == {"oom_killed": 1}
    env.close()


def test_only_invalid_episodes_give_no_success_rate() -> None:
    env = DrumsEpisodeStatistics(StandInDesktop([Plan(invalid_at=1, reason=None)]))
    run_episode(env, [CLICK])
    assert env.success_rate is None and env.invalid_rate == 1.0
    assert env.invalid_reasons == {"unknown": 1}
    assert len(env.return_queue) == 0
    fresh = DrumsEpisodeStatistics(StandInDesktop())
    assert fresh.success_rate is None and fresh.invalid_rate is None
    env.close()
    fresh.close()


def test_success_threshold_applies_to_the_score() -> None:
    env = DrumsEpisodeStatistics(StandInDesktop([Plan(score=0.6)]), success_threshold=0.5)
    *_, info = run_episode(env, ["DONE"])
    assert info["episode"]["success"] is True and env.success_count == 1
    env.close()


def test_an_episode_cut_by_reset_is_not_counted() -> None:
    env = DrumsEpisodeStatistics(StandInDesktop())
    env.reset(seed=0)
    env.step(CLICK)
    run_episode(env, ["DONE"])
    assert env.episode_count == 1 and list(env.length_queue) == [1]
    env.close()


def test_statistics_argument_errors() -> None:
    with pytest.raises(ValueError, match="buffer_length"):
        DrumsEpisodeStatistics(StandInDesktop(), buffer_length=0)
    with pytest.raises(ValueError, match="success_threshold"):
        DrumsEpisodeStatistics(StandInDesktop(), success_threshold=float("nan"))


# --- DrumsVectorEpisodeStatistics ----------------------------------------------------------


def make_vector(
    plans: Sequence[Sequence[Plan]], mode: AutoresetMode, max_steps: int = 2
) -> SyncVectorEnv:
    return SyncVectorEnv(
        [functools.partial(StandInDesktop, p, max_steps=max_steps) for p in plans],
        autoreset_mode=mode,
    )


# valid scores are never 0.0, so an invalid episode's 0.0 placeholder would show
VECTOR_PLANS = [
    [Plan(score=1.0), Plan(score=0.25)],
    [Plan(invalid_at=1, reason="quarantined"), Plan(score=1.0)],
    [Plan(score=0.25), Plan(invalid_at=2, reason="app_crash")],
]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_statistics_leave_invalid_episodes_out(mode: AutoresetMode) -> None:
    envs = DrumsVectorEpisodeStatistics(make_vector(VECTOR_PLANS, mode))
    envs.reset(seed=0)
    clicks = (CLICK,) * 3

    _, _, _, _, infos = envs.step(clicks)  # sub-env 1 turns invalid at its first step
    assert infos["_episode"].tolist() == [False, True, False]
    assert infos["episode"]["valid"].tolist() == [False, False, False]
    assert infos["episode"]["invalid_reason"][1] == "quarantined"

    _, _, _, _, infos = envs.step(clicks)  # sub-envs 0 and 2 reach max_steps
    assert infos["_episode"].tolist() == [True, False, True]
    assert infos["episode"]["valid"].tolist() == [True, False, True]
    assert infos["episode"]["r"][[0, 2]].tolist() == [1.0, 0.25]
    assert infos["episode"]["l"][[0, 2]].tolist() == [2, 2]
    assert envs.invalid_reasons == {"quarantined": 1}
    assert sorted(envs.return_queue) == [0.25, 1.0]

    # play on: sub-env 2's second episode turns invalid at its second step
    for _ in range(6):
        envs.step(clicks)
    assert envs.invalid_reasons["app_crash"] >= 1
    assert sum(envs.invalid_reasons.values()) == envs.invalid_count > 0
    assert len(envs.return_queue) == envs.valid_count > 0
    assert 0.0 not in envs.return_queue
    assert envs.success_rate == envs.success_count / envs.valid_count
    envs.close()


def test_vector_statistics_skip_the_autoreset_step() -> None:
    envs = DrumsVectorEpisodeStatistics(
        make_vector([[Plan(score=1.0)]], AutoresetMode.NEXT_STEP, max_steps=1)
    )
    envs.reset(seed=0)
    envs.step((CLICK,))
    _, _, terms, truncs, infos = envs.step((CLICK,))  # the autoreset step
    assert not (terms[0] or truncs[0]) and "episode" not in infos
    _, _, _, _, infos = envs.step((CLICK,))
    assert infos["episode"]["l"][0] == 1 and envs.episode_count == 2
    envs.close()


def test_vector_statistics_with_reset_mask() -> None:
    envs = DrumsVectorEpisodeStatistics(
        SyncVectorEnv(
            [
                functools.partial(StandInDesktop, max_steps=1),
                functools.partial(StandInDesktop, max_steps=3),
            ],
            autoreset_mode=AutoresetMode.DISABLED,
        )
    )
    envs.reset(seed=0)
    envs.step((CLICK, CLICK))
    envs.reset(options={"reset_mask": np.array([True, False])})
    _, _, _, _, infos = envs.step((CLICK, CLICK))
    assert infos["_episode"].tolist() == [True, False]
    envs.reset(options={"reset_mask": np.array([True, False])})
    _, _, _, _, infos = envs.step((CLICK, CLICK))
    assert infos["_episode"].tolist() == [True, True]
    assert envs.episode_count == 4 and list(envs.length_queue) == [1, 1, 1, 3]
    envs.close()


# --- ResizeScreenshot ----------------------------------------------------------------------


def test_resize_keeps_uint8_and_updates_the_space() -> None:
    env = ResizeScreenshot(StandInDesktop(screen=(64, 48)), (24, 32))
    assert env.observation_space == spaces.Box(0, 255, (24, 32, 3), np.uint8)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (24, 32, 3) and obs.dtype == np.uint8 and obs.flags.writeable
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(CLICK)
    assert env.observation_space.contains(obs)
    env.close()


def test_resize_preserves_content() -> None:
    frame = np.zeros((48, 64, 3), np.uint8)
    frame[:, 32:] = (200, 100, 50)
    env = ResizeScreenshot(StandInDesktop(), (12, 16))
    out = env.observation(frame)
    assert out[:, :7].max() == 0 and (out[:, 9:] == (200, 100, 50)).all()
    env.close()


@pytest.mark.parametrize("shape", [(0, 10), (10,), (10.0, 5), "10x5", (True, 4)])
def test_resize_rejects_bad_shapes(shape: Any) -> None:
    with pytest.raises(ValueError, match="shape"):
        ResizeScreenshot(StandInDesktop(), shape)


def test_resize_needs_screenshots() -> None:
    with pytest.raises(ValueError, match="observation_space"):
        ResizeScreenshot(WithInstruction(StandInDesktop()), (10, 10))


def test_vector_resize() -> None:
    envs = VectorResizeScreenshot(
        make_vector([[Plan()], [Plan()]], AutoresetMode.NEXT_STEP), (12, 16)
    )
    assert envs.single_observation_space.shape == (12, 16, 3)
    assert envs.observation_space.shape == (2, 12, 16, 3)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, 12, 16, 3) and obs.dtype == np.uint8
    assert envs.observation_space.contains(obs)
    obs, *_ = envs.step((CLICK, "DONE"))
    assert envs.observation_space.contains(obs)
    envs.close()


# --- WithInstruction -----------------------------------------------------------------------


def test_with_instruction_dict_observation() -> None:
    env = WithInstruction(ResizeScreenshot(StandInDesktop(), (24, 32)))
    obs, info = env.reset(seed=0)
    assert set(obs) == {"screenshot", "instruction"}
    assert obs["instruction"] == info["instruction"] == INSTRUCTION
    assert obs["screenshot"].shape == (24, 32, 3)
    assert env.observation_space.contains(obs)
    assert env.observation_space["instruction"].max_length == 4096
    obs, *_ = env.step(CLICK)
    assert obs["instruction"] == INSTRUCTION and env.observation_space.contains(obs)
    env.close()


class NoInstructionInfo(gym.Wrapper[np.ndarray, str, np.ndarray, str]):
    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        info.pop("instruction")
        return obs, info


def test_with_instruction_falls_back_to_the_env_attribute() -> None:
    inner = StandInDesktop()
    inner.instruction = "Open the terminal."
    env = WithInstruction(NoInstructionInfo(inner))
    obs, _ = env.reset()
    assert obs["instruction"] == "Open the terminal." == env.instruction
    env.close()


def test_with_instruction_warns_outside_the_charset() -> None:
    inner = StandInDesktop()
    inner.instruction = "重命名文件夹"
    env = WithInstruction(inner)
    with pytest.warns(UserWarning, match="charset"):
        obs, _ = env.reset()
    assert obs["instruction"] == "重命名文件夹"
    env.close()


# --- DiscreteClicks ------------------------------------------------------------------------


def test_discrete_clicks_layout_and_strings_parse() -> None:
    env = DiscreteClicks(StandInDesktop(screen=(1920, 1080)), double_click=True)
    cells = 16 * 9
    assert env.action_space == spaces.Discrete(2 * cells + 5 + 1)
    assert env.action(0) == "pyautogui.click(60, 60)"
    assert env.action(cells - 1) == "pyautogui.click(1860, 1020)"
    assert env.action(cells) == "pyautogui.doubleClick(60, 60)"
    assert env.action(2 * cells) == "pyautogui.press('enter')"
    assert env.action(env.action_space.n - 1) == "DONE"
    assert env.action_meaning(17) == "click cell (1, 1) at (180, 180)"
    assert env.action_meaning(2 * cells + 2) == "press f2"
    for i in range(env.action_space.n):
        code = env.action(i)
        if parse_control(code) is None:
            (action,) = parse(code)
            assert action.name in ("click", "press")
    env.close()


def test_discrete_clicks_step_the_env() -> None:
    inner = StandInDesktop(screen=(64, 48))
    env = DiscreteClicks(inner, grid=(4, 3), keys=("enter",))
    assert env.action_space.n == 12 + 1 + 1
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(np.int64(5))
    assert not terminated and "action_error" not in info
    _, reward, terminated, _, info = env.step(env.action_space.n - 1)
    assert terminated and reward == 1.0
    assert inner.actions == ["pyautogui.click(24, 24)", "DONE"]
    env.close()


@pytest.mark.parametrize("action", [-1, 14, 2.0, "3", True])
def test_discrete_clicks_reject_bad_actions(action: Any) -> None:
    env = DiscreteClicks(StandInDesktop(), grid=(4, 3), keys=("enter",))
    with pytest.raises(ValueError, match="action"):
        env.action(action)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"grid": (0, 3)}, "grid"),
        ({"keys": ("enter", "hyperdrive")}, "keys"),
        ({"keys": "enter"}, "keys"),
        ({"words": ("STOP",)}, "words"),
        ({"screen": (10,)}, "screen"),
    ],
)
def test_discrete_clicks_argument_errors(kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        DiscreteClicks(StandInDesktop(), **kwargs)


def test_discrete_clicks_use_screen_pixels_under_a_resize() -> None:
    env = DiscreteClicks(ResizeScreenshot(StandInDesktop(screen=(640, 480)), (48, 64)), (2, 2))
    assert env.action(3) == "pyautogui.click(480, 360)"
    env.close()


# --- RecordTrajectory ----------------------------------------------------------------------


def read_steps(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]


def test_record_trajectory_files(tmp_path: Path) -> None:
    inner = StandInDesktop(extra_info={"api_token": "secret", "n": np.int64(3)})
    env = RecordTrajectory(inner, tmp_path / "runs")
    run_episode(env, [CLICK, "pyautogui.press('enter')", "DONE"], seed=0)
    folder = tmp_path / "runs" / "episode-000001"
    assert env.episode_dir == folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "episode.gif",
        *(f"step-{i:04d}.png" for i in range(4)),
        "steps.jsonl",
    ]
    steps = read_steps(folder)
    assert [s["step"] for s in steps] == [0, 1, 2, 3]
    assert steps[0]["action"] is None and steps[0]["info"]["instruction"] == INSTRUCTION
    assert steps[1]["action"] == CLICK and steps[3]["action"] == "DONE"
    assert steps[3]["terminated"] is True and steps[3]["reward"] == 1.0
    assert steps[1]["info"]["n"] == 3 and steps[1]["info"]["timings"]["action"] == 0.0
    assert "secret" not in (folder / "steps.jsonl").read_text()
    with Image.open(folder / "step-0002.png") as png:
        assert png.size == (64, 48)
    with Image.open(folder / "episode.gif") as gif:
        assert gif.n_frames == 4 and gif.size == (64, 48)
    env.close()


def test_record_trajectory_gif_is_downscaled(tmp_path: Path) -> None:
    env = RecordTrajectory(StandInDesktop(screen=(1280, 720)), tmp_path, save_frames=False)
    run_episode(env, [CLICK, "DONE"])
    folder = tmp_path / "episode-000001"
    assert sorted(p.name for p in folder.iterdir()) == ["episode.gif", "steps.jsonl"]
    with Image.open(folder / "episode.gif") as gif:
        assert gif.size == (960, 540) and gif.n_frames == 3
    env.close()


def test_record_trajectory_flushes_on_close_and_reset(tmp_path: Path) -> None:
    env = RecordTrajectory(StandInDesktop(max_steps=10), tmp_path, gif=False)
    env.reset(seed=0)
    env.step(CLICK)
    assert len(read_steps(tmp_path / "episode-000001")) == 2  # written as it happens
    env.reset()  # cuts episode 1 short: its files are finished
    env.step(CLICK)
    env.close()
    env.close()  # idempotent
    assert len(read_steps(tmp_path / "episode-000002")) == 2
    assert not (tmp_path / "episode-000001" / "episode.gif").exists()


def test_record_trajectory_writes_the_gif_of_an_unfinished_episode_on_close(
    tmp_path: Path,
) -> None:
    env = RecordTrajectory(StandInDesktop(max_steps=10), tmp_path)
    env.reset(seed=0)
    env.step(CLICK)
    env.close()
    with Image.open(tmp_path / "episode-000001" / "episode.gif") as gif:
        assert gif.n_frames == 2


class Exploding(gym.Wrapper[np.ndarray, str, np.ndarray, str]):
    def step(self, action: str) -> Any:
        if action == "boom":
            raise RuntimeError("host went away")
        return self.env.step(action)


def test_record_trajectory_keeps_steps_when_the_env_raises(tmp_path: Path) -> None:
    env = RecordTrajectory(Exploding(StandInDesktop(max_steps=10)), tmp_path)
    env.reset(seed=0)
    env.step(CLICK)
    with pytest.raises(RuntimeError, match="host went away"):
        env.step("boom")
    env.close()
    steps = read_steps(tmp_path / "episode-000001")
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert "host went away" in steps[2]["error"]
    with Image.open(tmp_path / "episode-000001" / "episode.gif") as gif:
        assert gif.n_frames == 2


def test_record_trajectory_numbering_goes_on(tmp_path: Path) -> None:
    (tmp_path / "episode-000007").mkdir()
    env = RecordTrajectory(StandInDesktop(), tmp_path, gif=False, save_frames=False)
    run_episode(env, ["DONE"])
    assert env.episode_dir == tmp_path / "episode-000008"
    env.close()


def test_record_trajectory_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fps"):
        RecordTrajectory(StandInDesktop(), tmp_path, fps=0)
    with pytest.raises(ValueError, match="gif_max_width"):
        RecordTrajectory(StandInDesktop(), tmp_path, gif_max_width=0)


def test_record_trajectory_under_discrete_actions(tmp_path: Path) -> None:
    env = DiscreteClicks(RecordTrajectory(StandInDesktop(), tmp_path), grid=(2, 2))
    run_episode(env, [0, env.action_space.n - 1])
    steps = read_steps(tmp_path / "episode-000001")
    assert [s["action"] for s in steps] == [None, "pyautogui.click(16, 12)", "DONE"]
    env.close()


# --- gymnasium's env checker on every wrapper -----------------------------------------------

WRAPPERS: dict[str, Callable[[gym.Env[Any, Any], Path], gym.Env[Any, Any]]] = {
    "statistics": lambda env, _: DrumsEpisodeStatistics(env),
    "resize": lambda env, _: ResizeScreenshot(env, (24, 32)),
    "instruction": lambda env, _: WithInstruction(env),
    "discrete": lambda env, _: DiscreteClicks(env, grid=(4, 3)),
    "record": lambda env, path: RecordTrajectory(env, path),
}


@pytest.fixture
def standin() -> Iterator[StandInDesktop]:
    env = StandInDesktop()
    yield env
    env.close()


@pytest.mark.parametrize("name", sorted(WRAPPERS))
@pytest.mark.filterwarnings("ignore:.*different from the unwrapped")
@pytest.mark.filterwarnings("ignore:.*alternative render modes")
def test_check_env_on_wrapped_standin(name: str, standin: StandInDesktop, tmp_path: Path) -> None:
    env = WRAPPERS[name](standin, tmp_path)
    check_env(env, skip_render_check=False)
    env.close()


# --- the real DrumsDesktopEnv on a local host ------------------------------------------------

SCREEN = (640, 480)  # the smallest screen a Drums host takes


@pytest.fixture
def drums(make_host: Callable[..., Any]) -> Iterator[Callable[..., gym.Env[np.ndarray, str]]]:
    """Make real ``DrumsDesktopEnv``s on a local host (a healthy one unless ``server`` is
    given); every env and client is closed at teardown, before the hosts' leak check."""
    from drums_gym.client import connect
    from drums_gym.envs import DrumsDesktopEnv

    made: list[tuple[Any, Any]] = []

    def make(server: Any = None, **kwargs: Any) -> gym.Env[np.ndarray, str]:
        client = connect(url=(server or make_host()).url)
        try:
            env = DrumsDesktopEnv(task="e0df059f", client=client, screen=SCREEN, **kwargs)
        except BaseException:
            client.close()
            raise
        made.append((env, client))
        return env

    yield make
    for env, client in made:
        env.close()
        client.close()


def test_statistics_on_the_real_env(drums: Callable[..., Any]) -> None:
    env = DrumsEpisodeStatistics(drums())
    *_, info = run_episode(env, [CLICK, "DONE"], seed=0)
    assert info["episode"]["valid"] is True and info["episode"]["l"] == 2
    assert info["episode"]["r"] == info["score"] == 0.0  # the folder was not renamed
    assert env.success_rate == 0.0 and env.invalid_rate == 0.0


def test_invalid_real_episodes_are_left_out(
    drums: Callable[..., Any], make_host: Callable[..., Any]
) -> None:
    env = DrumsEpisodeStatistics(drums(make_host(faults="gate_fail=1.0")))
    *_, truncated, info = run_episode(env, [CLICK, CLICK], seed=0)
    assert truncated and info["valid"] is False
    assert info["episode"]["valid"] is False
    assert info["episode"]["invalid_reason"] == info["invalid_reason"] == "gate_failed"
    assert len(env.return_queue) == 0 and env.success_rate is None
    assert env.invalid_rate == 1.0 and env.invalid_reasons == {"gate_failed": 1}


def test_resize_and_instruction_on_the_real_env(drums: Callable[..., Any]) -> None:
    inner = drums()
    env = WithInstruction(ResizeScreenshot(inner, (120, 160)))
    obs, info = env.reset(seed=0)
    assert obs["screenshot"].shape == (120, 160, 3) and obs["screenshot"].dtype == np.uint8
    assert obs["instruction"] == info["instruction"] == inner.unwrapped.instruction
    assert "todo_list_Jan_1" in obs["instruction"]
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(CLICK)
    assert env.observation_space.contains(obs)


def test_discrete_clicks_on_the_real_env(drums: Callable[..., Any]) -> None:
    env = DiscreteClicks(drums(), grid=(4, 3), double_click=True)
    assert env.action(0) == f"pyautogui.click({SCREEN[0] // 8}, {SCREEN[1] // 6})"
    env.reset(seed=0)
    for action in (0, 5, 12, 24, 25):  # clicks, a double-click, enter, escape
        _, _, terminated, truncated, info = env.step(action)
        assert "action_error" not in info and not (terminated or truncated)
    _, _, terminated, _, info = env.step(env.action_space.n - 1)
    assert terminated and info["valid"] is True


def test_record_trajectory_on_the_real_env(drums: Callable[..., Any], tmp_path: Path) -> None:
    env = RecordTrajectory(drums(), tmp_path)
    run_episode(env, [CLICK, "pyautogui.press('f2')", "DONE"], seed=0)
    folder = tmp_path / "episode-000001"
    steps = read_steps(folder)
    assert [s["action"] for s in steps] == [None, CLICK, "pyautogui.press('f2')", "DONE"]
    assert steps[0]["info"]["task_id"].startswith("e0df059f")
    assert steps[3]["info"]["valid"] is True and "timings" in steps[3]["info"]
    with Image.open(folder / "step-0003.png") as png:
        assert png.size == SCREEN
    with Image.open(folder / "episode.gif") as gif:
        assert gif.n_frames == 4


def test_vector_wrappers_and_advantages_on_a_fork_group(drums: Callable[..., Any]) -> None:
    from drums_gym.grpo import advantages_from_vector

    parent = drums()
    parent.reset(seed=0)
    group = parent.fork_vector(2)
    try:
        envs = DrumsVectorEpisodeStatistics(VectorResizeScreenshot(group, (120, 160)))
        obs, _ = envs.reset()
        assert obs.shape == (2, 120, 160, 3) and envs.observation_space.contains(obs)
        obs, rewards, terms, _, infos = envs.step(("DONE", "DONE"))
        assert terms.all() and infos["_episode"].all() and infos["episode"]["valid"].all()
        assert advantages_from_vector(rewards, infos) == [0.0, 0.0]
        assert envs.valid_count == 2 and envs.success_rate == 0.0
    finally:
        group.close()


# --- vector wrappers on the real fork vector env -------------------------------------------


@pytest.fixture
def fork_group(drums: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """``fork_group(autoreset_mode=..., max_steps=...)``: a reset parent's 2 forks, closed
    at teardown (before the parent, then the host's leak check)."""
    groups: list[Any] = []

    def make(autoreset_mode: str = "NEXT_STEP", max_steps: int = 2) -> Any:
        parent = drums(max_steps=max_steps)
        parent.reset(seed=0)
        group = parent.fork_vector(2, autoreset_mode=autoreset_mode)
        groups.append(group)
        return group

    yield make
    for group in groups:
        group.close()


def gif_frames(path: Path) -> int:
    with Image.open(path) as gif:
        return gif.n_frames


def test_vector_with_instruction_on_a_fork_group(fork_group: Callable[..., Any]) -> None:
    group = fork_group(max_steps=2)
    envs = VectorWithInstruction(group)
    assert isinstance(envs.single_observation_space, spaces.Dict)
    assert envs.observation_space == batch_space(envs.single_observation_space, 2)
    obs, infos = envs.reset()
    instruction = group.parent.instruction
    assert "todo_list_Jan_1" in instruction and infos["_instruction"].all()
    assert obs["instruction"] == (instruction, instruction) == envs.instructions
    assert obs["screenshot"].shape == (2, SCREEN[1], SCREEN[0], 3)
    assert envs.observation_space.contains(obs)
    obs, _, terms, _, _ = envs.step(("DONE", CLICK))
    assert terms.tolist() == [True, False] and envs.observation_space.contains(obs)
    obs, _, _, _, infos = envs.step(("WAIT", "DONE"))  # sub-env 0 autoresets
    assert infos["_instruction"].tolist() == [True, False]
    assert obs["instruction"] == (instruction, instruction)
    assert envs.observation_space.contains(obs)
    envs.close()
    envs.close()


def test_vector_discrete_clicks_on_a_fork_group(fork_group: Callable[..., Any]) -> None:
    envs = VectorDiscreteClicks(fork_group(), grid=(4, 3))
    single = DiscreteClicks(StandInDesktop(screen=SCREEN), grid=(4, 3))
    assert envs.codes == single.codes and envs.meanings == single.meanings  # one table
    n = single.action_space.n
    assert envs.single_action_space == spaces.Discrete(n)
    assert envs.action_space == spaces.MultiDiscrete([n, n])
    assert envs.actions(np.array([0, n - 1])) == [
        f"pyautogui.click({SCREEN[0] // 8}, {SCREEN[1] // 6})",
        "DONE",
    ]
    for bad in ([0], [0, n], [0.0, 1.0], [True, False]):
        with pytest.raises(ValueError, match="action"):
            envs.actions(np.asarray(bad))
    envs.reset()
    _, _, terms, truncs, infos = envs.step(np.array([0, n - 1]))
    assert terms.tolist() == [False, True] and not truncs.any()
    assert "action_error" not in infos or not infos["_action_error"].any()
    assert envs.action_space.contains(envs.action_space.sample())
    envs.close()
    envs.close()


def test_vector_discrete_clicks_screen_of_a_sync_vector_env() -> None:
    envs = SyncVectorEnv([lambda: StandInDesktop(screen=SCREEN)] * 2)
    wrapped = VectorDiscreteClicks(envs, grid=(2, 2), keys=(), words=("DONE", "WAIT"))
    assert wrapped.actions([3, 5]) == ["pyautogui.click(480, 360)", "WAIT"]
    assert wrapped.action_meaning(0) == "click cell (0, 0) at (160, 120)"
    wrapped.close()


def test_vector_record_trajectory_next_step(fork_group: Callable[..., Any], tmp_path: Path) -> None:
    envs = VectorRecordTrajectory(fork_group(max_steps=2), tmp_path)
    envs.reset()
    envs.step([CLICK, "DONE"])  # sub-env 1 ends
    _, _, _, truncs, _ = envs.step([CLICK, "WAIT"])  # sub-env 0 hits max_steps; 1 autoresets
    assert truncs.tolist() == [True, False]
    envs.step(["WAIT", CLICK])  # sub-env 0 autoresets; 1 steps its second episode
    envs.close()
    envs.close()  # harmless
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env-0", "env-1"]
    expected = {  # (sub-env, episode): actions, with None for the reset line
        (0, 1): [None, CLICK, CLICK],
        (0, 2): [None],
        (1, 1): [None, "DONE"],
        (1, 2): [None, CLICK],  # unfinished: its files are finished on close
    }
    for (k, episode), actions in expected.items():
        folder = tmp_path / f"env-{k}" / f"episode-{episode:06d}"
        steps = read_steps(folder)
        assert [s["action"] for s in steps] == actions
        assert [s["step"] for s in steps] == list(range(len(actions)))
        assert steps[0]["info"]["task_id"].startswith("e0df059f")
        assert steps[0]["info"]["instruction"].startswith("I have a directory")
        assert gif_frames(folder / "episode.gif") == len(actions)
        assert len(list(folder.glob("step-*.png"))) == len(actions)
        with Image.open(folder / "step-0000.png") as png:
            assert png.size == SCREEN
    ends = read_steps(tmp_path / "env-0" / "episode-000001")[-1], read_steps(
        tmp_path / "env-1" / "episode-000001"
    )[-1]
    assert ends[0]["truncated"] is True and ends[1]["terminated"] is True
    assert all(end["info"]["valid"] is True for end in ends)
    assert all(end["info"]["invalid_reason"] is None for end in ends)  # None kept
    assert sorted(p.name for p in (tmp_path / "env-0").iterdir()) == [
        "episode-000001",
        "episode-000002",
    ]


def test_vector_record_trajectory_disabled_under_instructions(
    fork_group: Callable[..., Any], tmp_path: Path
) -> None:
    inner = VectorWithInstruction(fork_group(autoreset_mode="DISABLED", max_steps=3))
    envs = VectorRecordTrajectory(inner, tmp_path, save_frames=False)  # frames: obs["screenshot"]
    obs, _ = envs.reset()
    assert envs.observation_space.contains(obs)
    envs.step(["DONE", CLICK])  # sub-env 0 ends and sits out
    envs.step([CLICK, "DONE"])  # sub-env 1 ends
    obs, _ = envs.reset(options={"reset_mask": np.array([True, False])})
    assert envs.observation_space.contains(obs)
    envs.step(["DONE", CLICK])
    envs.close()
    envs.close()
    runs = {
        (k, p.name): [s["action"] for s in read_steps(p)]
        for k in range(2)
        for p in sorted((tmp_path / f"env-{k}").iterdir())
    }
    assert runs == {
        (0, "episode-000001"): [None, "DONE"],
        (0, "episode-000002"): [None, "DONE"],
        (1, "episode-000001"): [None, CLICK, "DONE"],
    }
    folder = tmp_path / "env-1" / "episode-000001"
    assert sorted(p.name for p in folder.iterdir()) == ["episode.gif", "steps.jsonl"]
    assert gif_frames(folder / "episode.gif") == 3


def test_vector_record_trajectory_argument_errors(tmp_path: Path) -> None:
    same_step = SyncVectorEnv(
        [StandInDesktop] * 2, autoreset_mode=AutoresetMode.SAME_STEP
    )
    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        VectorRecordTrajectory(same_step, tmp_path)
    with pytest.raises(ValueError, match="fps"):
        VectorRecordTrajectory(same_step, tmp_path, fps=0)
    same_step.close()
    assert not list(tmp_path.iterdir())  # nothing created for a refused recorder

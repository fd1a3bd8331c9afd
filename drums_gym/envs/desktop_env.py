"""`DrumsDesktopEnv`: one Drums desktop as a Gymnasium environment."""

from __future__ import annotations

import math
import string
from typing import TYPE_CHECKING, Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..client import Client, DrumsError, Slot, connect
from ..registration import DEFAULT_MAX_STEPS
from ._episode import EpisodeRunner

if TYPE_CHECKING:
    from .vector import DrumsForkVectorEnv

__all__ = ["DEFAULT_MAX_STEPS", "DrumsDesktopEnv", "action_space"]

#: characters an action may hold: pyautogui code (printable ASCII, newlines, quotes)
ACTION_CHARSET = string.printable
MAX_ACTION_LENGTH = 4096


def action_space() -> spaces.Text:
    """The text action space: pyautogui code, or the words DONE, FAIL, WAIT."""
    return spaces.Text(max_length=MAX_ACTION_LENGTH, min_length=1, charset=ACTION_CHARSET)


def _positive(name: str, value: Any, *, integer: bool = False) -> Any:
    kind = int if integer else (int, float)
    if (
        isinstance(value, bool)
        or not isinstance(value, kind)
        or not math.isfinite(value)
        or (value <= 0)
    ):
        what = "a positive int" if integer else "a positive number"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


class DrumsDesktopEnv(gym.Env[np.ndarray, str]):
    """A Drums desktop for one task: pyautogui strings in, screenshots out.

    ``reset`` creates the desktop (first call) or starts a new episode on it, and waits until
    the episode's gates pass. ``step`` sends pyautogui code (``"DONE"``/``"FAIL"`` end the
    episode, ``"WAIT"`` waits); the reward comes from the task checker when the episode
    ends. An episode the host flags invalid ends with ``truncated=True`` and
    ``info["valid"] = False``: its reward is a placeholder, not a score.

    Args:
        task: task id, full or its first 8 characters (``"e0df059f"``).
        client: a :class:`drums_gym.client.Client`; by default one is made from ``url`` and
            ``token`` (``DRUMS_URL``/``DRUMS_TOKEN``, else the embedded local host).
        url, token: where to connect when no client is given.
        ttl: the desktop's lease in seconds.
        max_steps: steps per episode (default 15, as OSWorld); at the limit the env verifies
            the episode and truncates it with the checker's score. With ``gym.make``, pass
            ``max_steps=N``: Gymnasium's own ``max_episode_steps=N`` adds a TimeLimit that
            cuts the episode without verifying it.
        render_mode: ``"rgb_array"`` or None.
        wait_timeout: seconds to wait for an episode's gates.
        wait_s: seconds a ``"WAIT"`` action waits.
        screen: ``(width, height)`` of the desktop (default: the task's).
        screenshot_format: ``"png"`` (what every Drums host serves), ``"raw"`` (uncompressed
            RGB, which the local host serves) or ``"auto"`` (the default: raw from a host on
            loopback that offers it, else PNG).
        accessibility: put the accessibility tree of the screen in ``info["accessibility"]``
            at reset and every step (OSWorld-style nodes: role, name, position, size,
            states, children), for policies and scripted solvers that read positions.

    Example:
        >>> import gymnasium as gym
        >>> import drums_gym
        >>> env = gym.make("Drums/e0df059f")                      # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)                         # doctest: +SKIP
        >>> obs.shape, info["instruction"][:26]                   # doctest: +SKIP
        ((1080, 1920, 3), 'I have a directory named "')
        >>> obs, reward, terminated, truncated, info = env.step("DONE")  # doctest: +SKIP
        >>> reward, info["valid"]                                 # doctest: +SKIP
        (0.0, True)
        >>> env.close()                                           # doctest: +SKIP
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(
        self,
        task: str = "e0df059f",
        *,
        client: Client | None = None,
        url: str | None = None,
        token: str | None = None,
        ttl: float = 900.0,
        max_steps: int | None = None,
        render_mode: str | None = None,
        wait_timeout: float = 120.0,
        wait_s: float = 1.0,
        screen: tuple[int, int] | None = None,
        screenshot_format: str = "auto",
        accessibility: bool = False,
    ) -> None:
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a task id string, got {task!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if max_steps is not None:
            _positive("max_steps", max_steps, integer=True)
        _positive("ttl", ttl)
        _positive("wait_timeout", wait_timeout)
        if isinstance(wait_s, bool) or not isinstance(wait_s, (int, float)) or wait_s < 0:
            raise ValueError(f"wait_s must be a number >= 0, got {wait_s!r}")
        if screenshot_format not in ("auto", "png", "raw"):
            raise ValueError(
                f"screenshot_format must be 'auto', 'png' or 'raw', got {screenshot_format!r}"
            )
        if screen is not None and (
            not isinstance(screen, (tuple, list))
            or len(screen) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in screen)
        ):
            raise ValueError(f"screen must be a (width, height) pair of ints, got {screen!r}")
        if client is not None and (url is not None or token is not None):
            raise ValueError("pass either client or url/token, not both")

        self._owns_client = client is None
        self.client: Client = client if client is not None else connect(url=url, token=token)
        try:
            info = self.client.task(task)
        except DrumsError as exc:
            if self._owns_client:
                self.client.close()
            raise ValueError(f"task {task!r} is not known to the Drums host: {exc}") from exc
        self.task_id: str = info.id
        self.instruction: str = info.instruction
        width, height = screen or info.screen or (1920, 1080)
        self.screen = (int(width), int(height))
        self.render_mode = render_mode
        self.ttl = float(ttl)
        self._max_steps = max_steps
        self._wait_timeout = float(wait_timeout)
        self._wait_s = float(wait_s)
        self._format = (
            self.client.preferred_screenshot_format()
            if screenshot_format == "auto"
            else screenshot_format
        )
        self._accessibility = bool(accessibility)
        self.observation_space = spaces.Box(0, 255, (self.screen[1], self.screen[0], 3), np.uint8)
        self.action_space = action_space()
        self._slot: Slot | None = None
        self._runner: EpisodeRunner | None = None
        self._closed = False

    # ------------------------------------------------------------------ properties
    @property
    def max_steps(self) -> int:
        """Steps per episode: the constructor's ``max_steps``, else 15."""
        return self._max_steps if self._max_steps is not None else DEFAULT_MAX_STEPS

    @property
    def slot(self) -> Slot | None:
        """The desktop behind this env (None before the first reset)."""
        return self._slot

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if self._closed:
            raise RuntimeError("the env is closed")
        new_episode = self._slot is not None
        if self._slot is None:
            self._slot = self.client.create(task=self.task_id, ttl=self.ttl, screen=self.screen)
        runner = self.episode_runner(self._slot)
        self._runner = runner
        obs, info = runner.start(new_episode=new_episode)
        info.update(task_id=self.task_id, instruction=self.instruction)
        return obs, info

    def episode_runner(self, slot: Slot | None, failed_reason: str | None = None) -> EpisodeRunner:
        """A runner of ``slot``'s episodes with this env's settings (the fork vector env
        makes one per child; ``slot`` None is a child that did not come up)."""
        return EpisodeRunner(
            slot,
            max_steps=self.max_steps,
            height=self.screen[1],
            width=self.screen[0],
            wait_s=self._wait_s,
            wait_timeout=self._wait_timeout,
            screenshot_format=self._format,
            accessibility=self._accessibility,
            failed_reason=failed_reason,
        )

    def step(self, action: str) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._runner is None:
            raise RuntimeError("call reset() before step()")
        return self._runner.step(action).astuple()

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        if self.render_mode != "rgb_array":
            return None
        if self._runner is None or self._runner.last_obs is None:
            return None
        return self._runner.last_obs.copy()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._slot is not None:
                self._slot.delete()
        finally:
            self._slot = None
            self._runner = None
            if self._owns_client:
                self.client.close()
        super().close()

    # ------------------------------------------------------------------ fork
    def fork_vector(self, n: int, **kwargs: Any) -> DrumsForkVectorEnv:
        """A vector env of ``n`` children forked from this desktop's current state.

        Call after ``reset`` (and any prefix steps). See
        :class:`drums_gym.envs.vector.DrumsForkVectorEnv` for the keyword arguments.
        """
        from .vector import DrumsForkVectorEnv

        if self._slot is None or self._runner is None:
            raise RuntimeError("call reset() before fork_vector(): there is no desktop to fork")
        return DrumsForkVectorEnv(self, n, **kwargs)

    def __repr__(self) -> str:
        slot = self._slot.id if self._slot is not None else None
        return f"<DrumsDesktopEnv task={self.task_id[:8]} slot={slot}>"

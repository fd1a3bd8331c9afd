"""`DrumsDesktopEnv`: one Drums desktop as a Gymnasium environment."""

from __future__ import annotations

import logging
import math
import string
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..client import Client, DrumsError, NotFound, Slot, Unauthorized, connect
from ..registration import DEFAULT_MAX_STEPS
from ._closing import warn_left_behind
from ._episode import EpisodeRunner, Verdict
from ._start_state import start_state_id
from .truncation import warn_unscored

if TYPE_CHECKING:
    from .vector import DrumsForkVectorEnv

__all__ = ["DEFAULT_MAX_STEPS", "DrumsDesktopEnv", "action_space"]

logger = logging.getLogger("drums_gym.envs")

#: characters an action may hold: pyautogui code (printable ASCII, newlines, quotes)
ACTION_CHARSET = string.printable
MAX_ACTION_LENGTH = 4096
#: the largest ``screen`` an env accepts, (width, height): 8K UHD
MAX_SCREEN = (7680, 4320)
#: tasks named in the error for an unknown task id
_TASKS_SHOWN = 20


def action_space() -> spaces.Text:
    """The text action space: pyautogui code, or the words DONE, FAIL, WAIT (``step`` also
    takes computer_13 dicts; they are not in the space)."""
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


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _known_tasks(client: Client) -> str:
    """``": it serves a, b, ..."`` for an error message (empty if the host cannot say)."""
    try:
        ids = sorted(t.short_id or t.id for t in client.tasks())
    except DrumsError:
        return ""
    if not ids:
        return ": it serves no tasks"
    shown = ", ".join(ids[:_TASKS_SHOWN])
    more = f" and {len(ids) - _TASKS_SHOWN} more" if len(ids) > _TASKS_SHOWN else ""
    return f": it serves {len(ids)} tasks ({shown}{more})"


class DrumsDesktopEnv(gym.Env[np.ndarray, str]):
    """A Drums desktop for one task: pyautogui strings in, screenshots out.

    ``reset`` creates the desktop (first call) or starts a new episode on it, and waits until
    the episode's gates pass. ``step`` sends pyautogui code, or a control word, to the host
    (``"DONE"``/``"FAIL"`` end the episode, ``"WAIT"`` waits; a last ``FAIL`` scores as
    OSWorld does); the reward comes from the task checker when the episode ends: at
    ``DONE``/``FAIL``, at the env's own ``max_steps``, or when a wrapper truncates it
    (`VerifyOnTruncation` outside it then calls `verify`). A computer_13 action (OSWorld's
    other action space, a dict such as ``{"action_type": "CLICK", "x": 10, "y": 20}``, or
    its JSON text) is accepted too: the action space stays ``Text``, and a dict is sent as
    its JSON text. Code beyond plain pyautogui calls (loops, variables, aliases) runs as
    Python on the host where it has the sandbox; what stops it is ``info["action_error"]``
    (docs/actions.md). An episode the host flags invalid ends with ``truncated=True`` and
    ``info["valid"] = False``: its reward is a placeholder, not a score. ``close`` is
    bounded by the client's ``close_timeout`` and never raises because the host is gone.

    Args:
        task: task id, full or its first 8 characters (``"e0df059f"``).
        client: a :class:`drums_gym.client.Client`; by default one is made from ``url`` and
            ``token`` (``DRUMS_URL``/``DRUMS_TOKEN``, else the embedded local host).
        url, token: where to connect when no client is given.
        ttl: the desktop's lease in seconds.
        max_steps: the env's own step limit (default 15, as OSWorld); at the limit it
            verifies the episode and truncates it with the checker's score (the ``Drums/*``
            ids register it as plain data: ``gym.make(id, max_steps=N)`` sets it). None: no
            limit of its own, the wrappers around it end its episodes (a ``TimeLimit``, with
            `VerifyOnTruncation` outside it to score them; see ``docs/step-limit.md``).
        render_mode: ``"rgb_array"`` or None.
        wait_timeout: seconds to wait for an episode's gates.
        wait_s: seconds a ``"WAIT"`` action waits (finite, >= 0).
        screen: ``(width, height)`` of the desktop (default: the task's), at most
            7680x4320.
        screenshot_format: ``"png"`` (what every Drums host serves), ``"raw"`` (uncompressed
            RGB, which the local host serves) or ``"auto"`` (the default: raw from a host on
            loopback that offers it, else PNG).
        accessibility: put the accessibility tree of the screen in ``info["accessibility"]``
            at reset and every step (OSWorld-style nodes: role, name, position, size,
            states, children), for policies and scripted solvers that read positions.
        randomize: vary the desktop at every reset by the reset's seed (or, without one, a
            seed drawn from ``np_random``): icon placement, window offset, wallpaper, clock,
            dates of files the task does not test; nothing a checker reads. The same seed
            gives the same desktop. ``reset(options={"randomize": ...})`` overrides it for
            one reset. Off by default: the task's original desktop. The fork vector env's
            children inherit the parent's desktop, randomized or not.
        screenshots: fetch a frame at every reset and step (the default). False: the
            observation is a blank (black) frame and no frame is fetched: for policies of
            the accessibility tree (``accessibility=True``), whose steps it makes faster.

    ``reset(options={"state": s})`` starts the episode from a saved state instead of the
    task's initial desktop: ``s`` an id from :meth:`save_state` (or a fork's state), or a
    :class:`drums_gym.wrappers.StartState`; ``info["start_state"]`` names it (None from the
    initial desktop).

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

    # not a ClassVar: gymnasium.Env declares metadata an instance attribute
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        task: str = "e0df059f",
        *,
        client: Client | None = None,
        url: str | None = None,
        token: str | None = None,
        ttl: float = 900.0,
        max_steps: int | None = DEFAULT_MAX_STEPS,
        render_mode: str | None = None,
        wait_timeout: float = 120.0,
        wait_s: float = 1.0,
        screen: tuple[int, int] | None = None,
        screenshot_format: str = "auto",
        accessibility: bool = False,
        randomize: bool = False,
        screenshots: bool = True,
    ) -> None:
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a task id string, got {task!r}")
        if not _is_utf8(task):
            raise ValueError(f"task must be UTF-8 text (a task id), got {task!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        if max_steps is not None:
            _positive("max_steps", max_steps, integer=True)
        _positive("ttl", ttl)
        _positive("wait_timeout", wait_timeout)
        if (
            isinstance(wait_s, bool)
            or not isinstance(wait_s, (int, float))
            or not math.isfinite(wait_s)
            or wait_s < 0
        ):
            raise ValueError(f"wait_s must be a finite number of seconds >= 0, got {wait_s!r}")
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
        if screen is not None and not (
            1 <= screen[0] <= MAX_SCREEN[0] and 1 <= screen[1] <= MAX_SCREEN[1]
        ):
            raise ValueError(
                f"screen must be (width, height) with 1 <= width <= {MAX_SCREEN[0]} and "
                f"1 <= height <= {MAX_SCREEN[1]}, got {tuple(screen)!r}"
            )
        if not isinstance(randomize, bool):
            raise ValueError(f"randomize must be True or False, got {randomize!r}")
        if not isinstance(screenshots, bool):
            raise ValueError(f"screenshots must be True or False, got {screenshots!r}")
        if client is not None and (url is not None or token is not None):
            raise ValueError("pass either client or url/token, not both")

        self._owns_client = client is None
        self.client: Client = client if client is not None else connect(url=url, token=token)
        try:
            info = self.client.task(task)
        except NotFound as exc:
            known = _known_tasks(self.client)
            if self._owns_client:
                self.client.close()
            raise ValueError(
                f"task {task!r} is not known to the Drums host at {self.client.url}{known}; "
                "list its tasks with `drums-gym tasks` or Client.tasks()"
            ) from exc
        except Unauthorized as exc:
            if self._owns_client:
                self.client.close()
            hint = (
                f"the host at {self.client.url} refused the token: check DRUMS_TOKEN (or token=)"
                if self.client.has_token
                else f"no token was sent to {self.client.url}: set DRUMS_TOKEN (or token=)"
            )
            raise Unauthorized(
                exc.status, exc.code, f"{exc.message}; {hint}", exc.details,
                method=exc.method, path=exc.path,
            ) from exc
        except BaseException:  # ConnectError (naming the URL), timeouts...: as they are
            if self._owns_client:
                self.client.close()
            raise
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
        self._screenshots = screenshots
        self.randomize = randomize
        self.observation_space = spaces.Box(0, 255, (self.screen[1], self.screen[0], 3), np.uint8)
        self.action_space = action_space()
        self._slot: Slot | None = None
        self._states: list[str] = []  # saved by save_state(), deleted by close()
        self._runner: EpisodeRunner | None = None
        self._closed = False

    # ------------------------------------------------------------------ properties
    @property
    def max_steps(self) -> int | None:
        """The env's own step limit (verified at that step), or None: no limit of its own
        (the wrappers around it end its episodes, as ``gym.make``'s ``TimeLimit`` does)."""
        return self._max_steps

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
        variation = self._variation_seed(seed, options)
        state = start_state_id((options or {}).get("state"))
        new_episode = self._slot is not None
        if self._slot is None:
            self._slot = self.client.create(
                task=self.task_id, ttl=self.ttl, screen=self.screen, randomize=variation
            )
        previous, runner = self._runner, self.episode_runner(self._slot)
        if previous is not None and previous.steps and previous.verdict is None and previous.valid:
            warn_unscored(self, previous.steps)  # cut from outside, and nothing verified it
        self._runner = runner
        obs, info = runner.start(new_episode=new_episode, randomize=variation, state=state)
        info.update(task_id=self.task_id, instruction=self.instruction, start_state=state)
        return obs, info

    def save_state(self) -> str:
        """Save the desktop as it is now (mid-episode too) as a state; answer its id.

        ``reset(options={"state": id})`` then starts an episode from a copy of it (a new
        episode: its steps count from 0). The env deletes the states it saved on
        ``close``; `drums_gym.wrappers.record_states` saves them along a trajectory.
        """
        if self._slot is None:
            raise RuntimeError("call reset() before save_state(): there is no desktop to save")
        state = self._slot.save_state()
        self._states.append(state)
        return state

    def _variation_seed(self, seed: int | None, options: dict[str, Any] | None) -> int | None:
        """The seed this reset randomizes the desktop by, or None for the original one."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {options!r}")
        on = (options or {}).get("randomize", self.randomize)
        if not isinstance(on, bool):
            raise ValueError(f"options['randomize'] must be True or False, got {on!r}")
        if not on:
            return None
        if seed is not None:
            return int(seed)
        return int(self.np_random.integers(0, 2**63 - 1))

    def verify(self) -> Verdict:
        """Score the current episode with the task's checker and end it (OSWorld's
        ``evaluate()``): a `Verdict` with ``valid``, ``score`` (or ``invalid_reason``) and
        ``reward``. Idempotent: an episode that has ended (by ``DONE``/``FAIL``, the limit,
        or an earlier ``verify``) answers its verdict again without asking the host.
        `VerifyOnTruncation` calls it when a wrapper truncates the episode.

        Raises ``RuntimeError`` before the first ``reset``.
        """
        if self._runner is None:
            raise RuntimeError("call reset() before verify(): there is no episode to score")
        return self._runner.verify()

    def episode_runner(
        self,
        slot: Slot | None,
        failed_reason: str | None = None,
        max_steps: int | None = None,
    ) -> EpisodeRunner:
        """A runner of ``slot``'s episodes with this env's settings (the fork vector env
        makes one per child, with the limit ``max_steps`` of its own; ``slot`` None is a
        child that did not come up)."""
        return EpisodeRunner(
            slot,
            max_steps=self.max_steps if max_steps is None else max_steps,
            height=self.screen[1],
            width=self.screen[0],
            wait_s=self._wait_s,
            wait_timeout=self._wait_timeout,
            screenshot_format=self._format,
            accessibility=self._accessibility,
            screenshots=self._screenshots,
            failed_reason=failed_reason,
        )

    def step(  # also a computer_13 dict, beside the Text space
        self, action: str | Mapping[str, Any]
    ) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._runner is None:
            raise RuntimeError("call reset() before step()")
        return self._runner.step(action).astuple()

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        if self._runner is None or self._runner.last_obs is None:
            return None
        # numpy >= 2.3 types .copy() as Self, which reads as Any under python_version 3.10
        return self._runner.last_obs.copy()  # type: ignore[no-any-return, unused-ignore]

    def close(self) -> None:
        """Delete the desktop (and close the client the env made). Idempotent.

        Bounded by the client's ``close_timeout`` (5 s by default) however the host answers;
        never raises because the host is gone or hung: it logs one warning, and the
        desktop's lease (``ttl``) bounds what is left.
        """
        if self._closed:
            return
        errors = self._close_within(time.monotonic() + self.client.close_timeout)
        warn_left_behind(self, errors, self.ttl)
        super().close()

    def _close_within(self, deadline: float) -> list[DrumsError]:
        """Close by ``deadline`` (monotonic); answer the failures instead of raising them
        (a client the env made reports its own, once)."""
        if self._closed:
            return []
        self._closed = True
        slot, self._slot, self._runner = self._slot, None, None
        states, self._states = self._states, []
        errors: list[DrumsError] = []
        for state in states if not self._owns_client else ():  # its close deletes them
            try:
                self.client.delete_state(state, timeout=max(0.0, deadline - time.monotonic()))
            except DrumsError as exc:
                errors.append(exc)
        if self._owns_client:  # it owns the desktop too: its close deletes it
            self.client.close(timeout=max(0.0, deadline - time.monotonic()))
        elif slot is not None:
            try:
                slot.delete(timeout=max(0.0, deadline - time.monotonic()))
            except DrumsError as exc:
                errors.append(exc)
        return errors

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

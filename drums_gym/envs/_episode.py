"""One Drums episode as Gymnasium sees it: the step semantics shared by every env here.

`EpisodeRunner` drives one slot through ``start`` (wait for the episode, first frame) and
``step`` (control words, pyautogui code, observation, verify at the end). `DrumsDesktopEnv`
runs one; the fork vector env runs one per child. Infrastructure failures end the episode
flagged invalid (``truncated=True``, ``info["valid"] = False``), never as a crash or a 0 score.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..actions import ActionError as CodeError
from ..actions import computer13, parse_control
from ..client import DrumsError, Slot
from ..client.errors import ActionError, Conflict, InvalidRequest, NotFound
from ._frames import RowFill

__all__ = ["EpisodeRunner", "StepOutcome", "Verdict", "blank_frame"]

#: reasons drums-gym itself gives (the host gives gate_failed, app_crash, ...)
FORK_FAILED = "fork_failed"
HOST_ERROR = "host_error"


def blank_frame(height: int, width: int) -> np.ndarray:
    """The observation of a desktop that is not there (a failed fork child)."""
    return np.zeros((height, width, 3), dtype=np.uint8)


@dataclass
class StepOutcome:
    obs: np.ndarray
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    def astuple(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return self.obs, self.reward, self.terminated, self.truncated, self.info


@dataclass(frozen=True)
class Verdict:
    """How an episode ended: scored (``valid``, ``score``) or invalid (``invalid_reason``).

    ``cut`` is the host's report when a limit of its own stopped the checker
    (``{"kind", "detail"}``; ``info["verify_cut"]``), else None. ``reward`` is what a
    Gymnasium step returns: the score, or a placeholder of 0 for an invalid episode (leave
    it out of every statistic).
    """

    valid: bool
    score: float | None
    invalid_reason: str | None = None
    cut: dict[str, Any] | None = None

    @property
    def reward(self) -> float:
        return float(self.score) if self.valid and self.score is not None else 0.0

    def info(self) -> dict[str, Any]:
        """The entries of the last step's ``info`` that say it (``score`` when valid)."""
        info: dict[str, Any] = {"valid": self.valid, "invalid_reason": self.invalid_reason}
        if self.valid:
            info["score"] = self.reward
        if self.cut is not None:
            info["verify_cut"] = self.cut
        return info


def _timings(action: float = 0.0, observe: float = 0.0, verify: float = 0.0) -> dict[str, float]:
    return {"action": action, "observe": observe, "verify": verify}


@dataclass
class EpisodeRunner:
    """Runs episodes of one slot (or of no slot: a failed fork child, flagged invalid)."""

    slot: Slot | None
    max_steps: int | None  # None: no limit of its own (the wrappers around the env end it)
    height: int
    width: int
    wait_s: float = 1.0
    wait_timeout: float = 120.0
    screenshot_format: str = "png"
    accessibility: bool = False  # put the accessibility tree in info["accessibility"]
    screenshots: bool = True  # False: no frame is fetched, the observation is blank
    failed_reason: str | None = None  # set when there is no desktop behind this runner
    steps: int = 0
    done: bool = False
    valid: bool = True
    invalid_reason: str | None = None
    verdict: Verdict | None = None  # set once the episode has ended
    error: str | None = field(default=None, repr=False)  # the last verify's failure
    last_obs: np.ndarray | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- helpers
    def _observe(self, out: np.ndarray | None = None, fill: RowFill | None = None) -> np.ndarray:
        assert self.slot is not None
        if not self.screenshots:  # a policy of the accessibility tree: save the frame
            frame = blank_frame(self.height, self.width) if out is None else out
            if out is not None:
                out[...] = 0
            return frame
        holds = self.prefill(out, fill) if out is not None and fill is not None else None
        frame = self.slot.observe(format=self.screenshot_format, out=out, out_holds=holds).array
        self.last_obs = frame
        return frame

    def prefill(self, out: np.ndarray, fill: RowFill) -> str | None:
        """Fill ``out`` with the slot's last raw frame, once per ``fill`` (whoever comes
        first: the vector env while this child acts, or this child's screenshot); the
        frame's token, for the screenshot to write only what changed."""
        if self.slot is None or not self.screenshots or self.screenshot_format != "raw":
            return None
        return fill.once(lambda: self.slot.copy_frame(out) if self.slot is not None else None)

    def _last_frame(self) -> np.ndarray:
        if self.last_obs is None:
            return blank_frame(self.height, self.width)
        # numpy >= 2.3 types .copy() as Self, which reads as Any under python_version 3.10
        return self.last_obs.copy()  # type: ignore[no-any-return, unused-ignore]

    def _flag(self, reason: str) -> None:
        self.valid, self.invalid_reason = False, reason

    def _tree(self, info: dict[str, Any]) -> dict[str, Any]:
        """Add the accessibility tree to ``info`` when asked to (one more request)."""
        if self.accessibility and self.slot is not None and self.valid:
            info["accessibility"] = self.slot.accessibility()["tree"]
        return info

    def _info(self, **extra: Any) -> dict[str, Any]:
        info: dict[str, Any] = {
            "valid": self.valid,
            "invalid_reason": self.invalid_reason,
            "step": self.steps,
        }
        info.update(extra)
        return info

    # ---------------------------------------------------------------- episode
    def start(
        self, *, new_episode: bool, randomize: int | None = None, state: str | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Begin an episode (resetting the desktop when ``new_episode``, varied by the seed
        ``randomize`` when given, or to the saved state ``state``); wait until it is no
        longer pending; return the first frame and the episode's info. An unknown state, or
        one of another task or screen, is the caller's mistake: ValueError."""
        self.steps, self.done, self.valid, self.invalid_reason = 0, False, True, None
        self.last_obs, self.verdict = None, None
        if self.slot is None:
            self._flag(self.failed_reason or FORK_FAILED)
            return self._last_frame(), self._info(slot_id=None, episode_id=None, gates=[])
        try:
            if state is not None:
                try:
                    self.slot.reset(state=state)
                except (NotFound, Conflict) as exc:
                    raise ValueError(f"cannot start from state {state!r}: {exc}") from exc
            elif new_episode:
                self.slot.reset(randomize=randomize)
            episode = self.slot.wait_episode(timeout=self.wait_timeout)
            if episode.status != "valid":
                self._flag(episode.invalid_reason or episode.status)
            obs = self._observe()
        except DrumsError as exc:
            self._flag(_reason_of(exc))
            return self._last_frame(), self._info(
                slot_id=self.slot.id, episode_id=None, gates=[], error=_describe(exc)
            )
        info = self._info(
            slot_id=self.slot.id,
            episode_id=episode.id,
            gates=[g.to_dict() for g in episode.gates],
        )
        try:
            return obs, self._tree(info)
        except DrumsError as exc:
            self._flag(_reason_of(exc))
            return obs, self._info(
                slot_id=self.slot.id, episode_id=episode.id, error=_describe(exc)
            )

    def step(
        self, action: Any, out: np.ndarray | None = None, fill: RowFill | None = None
    ) -> StepOutcome:
        """One Gymnasium step of this episode; ``out`` is where to put the frame (a row of
        a vector env's batch), else a new array; ``fill`` shares filling ``out`` with the
        last frame ahead of the screenshot (`prefill`)."""
        if self.done:
            raise RuntimeError("the episode has ended; call reset() before step()")
        self.steps += 1
        if not self.valid or self.slot is None:
            return self._end_invalid(_timings())
        extra: dict[str, Any] = {}
        t_action = t_observe = 0.0
        terminated = False
        action, refused = _as_text(action)
        control = (parse_control(action) or computer13.control_of(action)) if action else None
        start = time.perf_counter()
        try:
            if refused is not None:
                extra["action_error"] = refused
            else:
                # Every action reaches the host, control words too: the host records the
                # episode's last action and scores FAIL as OSWorld does.
                terminated = control in ("DONE", "FAIL")
                try:
                    result = self.slot.step(action)
                    if result.cut is not None:
                        extra["cut"] = result.cut.to_dict()
                    if result.action_error is not None:
                        extra["action_error"] = result.action_error
                    if result.shell is not None:
                        extra["shell"] = result.shell  # which backend ran it
                    if result.episode.status == "invalid":
                        self._flag(result.episode.invalid_reason or "invalid")
                except ActionError as exc:
                    if control is None:
                        extra["action_error"] = exc.message
                    # else a host from before control words: the word still acts here
                except ValueError as exc:  # refused before sending (text that is not UTF-8)
                    extra["action_error"] = str(exc)
                except InvalidRequest as exc:
                    extra["action_error"] = exc.message
                except Conflict as exc:
                    self._flag(_reason_of(exc))
                if control == "WAIT" and self.valid:
                    time.sleep(self.wait_s)
            t_action = time.perf_counter() - start
            if not self.valid:
                return self._end_invalid(_timings(t_action), extra)
            start = time.perf_counter()
            obs = self._observe(out, fill)
            if self.accessibility:
                extra["accessibility"] = self.slot.accessibility()["tree"]
            t_observe = time.perf_counter() - start
        except DrumsError as exc:
            self._flag(_reason_of(exc))
            extra["error"] = _describe(exc)
            return self._end_invalid(_timings(t_action, t_observe), extra)
        truncated = (
            not terminated and self.max_steps is not None and self.steps >= self.max_steps
        )
        if not (terminated or truncated):
            return StepOutcome(
                obs, 0.0, False, False, self._info(timings=_timings(t_action, t_observe), **extra)
            )
        return self._finish(obs, terminated, t_action, t_observe, extra)

    def verify(self) -> Verdict:
        """Score the episode and end it (idempotent: an ended episode answers its verdict
        again, without asking the host). A host failure ends it invalid."""
        if self.verdict is not None:
            return self.verdict
        if not self.valid or self.slot is None:
            return self._ended_invalid()
        try:
            reward = self.slot.verify(strict=False, timeout=self.wait_timeout)
        except DrumsError as exc:
            self._flag(_reason_of(exc))
            self.error = _describe(exc)
            return self._ended_invalid()
        cut = reward.cut.to_dict() if reward.cut is not None else None
        if not reward.valid:
            self._flag(reward.reason or "invalid")
            return self._ended_invalid(cut)
        self.done = True
        self.verdict = Verdict(True, float(reward.score), None, cut)
        return self.verdict

    def _ended_invalid(self, cut: dict[str, Any] | None = None) -> Verdict:
        self.done = True
        self.verdict = Verdict(False, None, self.invalid_reason, cut)
        return self.verdict

    def _finish(
        self,
        obs: np.ndarray,
        terminated: bool,
        t_action: float,
        t_observe: float,
        extra: dict[str, Any],
    ) -> StepOutcome:
        """The episode ends: its reward comes from verify(strict=False)."""
        start = time.perf_counter()
        self.error = None
        verdict = self.verify()
        timings = _timings(t_action, t_observe, time.perf_counter() - start)
        if self.error is not None:
            extra["error"] = self.error
        if not verdict.valid:
            return self._end_invalid(timings, {**extra, **verdict.info()}, obs)
        return StepOutcome(
            obs,
            verdict.reward,
            terminated,
            not terminated,
            self._info(timings=timings, **{**extra, **verdict.info()}),
        )

    def _end_invalid(
        self,
        timings: dict[str, float],
        extra: dict[str, Any] | None = None,
        obs: np.ndarray | None = None,
    ) -> StepOutcome:
        """End the episode flagged invalid: truncated, with a placeholder reward of 0."""
        if self.verdict is None:
            self._ended_invalid()
        frame = obs if obs is not None else self._last_frame()
        return StepOutcome(frame, 0.0, False, True, self._info(timings=timings, **(extra or {})))


def _as_text(action: Any) -> tuple[str, str | None]:
    """The text sent for ``action`` (a computer_13 dict becomes its JSON), or why not."""
    if isinstance(action, str):
        return action, None
    if isinstance(action, Mapping):
        try:
            return computer13.dumps(action), None
        except CodeError as exc:
            return "", str(exc)
    return "", (
        "action must be a str of pyautogui code, DONE/FAIL/WAIT, or a computer_13 dict, "
        f"got {type(action).__name__}"
    )


def _reason_of(exc: DrumsError) -> str:
    """The invalid reason an error stands for."""
    reason = getattr(exc, "invalid_reason", None)
    if reason:
        return str(reason)
    code = getattr(exc, "code", None)
    return f"{HOST_ERROR}:{code}" if code else f"{HOST_ERROR}:{type(exc).__name__}"


def _describe(exc: DrumsError) -> str:
    return f"{type(exc).__name__}: {exc}"

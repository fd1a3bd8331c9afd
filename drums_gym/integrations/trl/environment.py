"""`DrumsToolEnv`: a Drums desktop as a multi-turn environment of TRL's ``GRPOTrainer``.

TRL exposes every public method of an ``environment_factory`` class as a tool (except
``reset`` and ``get_reward``), reading each one's type hints and docstring; so this class's
only public methods are the desktop actions, and everything else is private.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ...client import Client, DrumsError, connect
from ...envs import DrumsDesktopEnv
from .._observation import linearize_tree, screenshot_image
from .._validity import validity
from .groups import ForkGroups, GroupMember, row_key

__all__ = ["DrumsToolEnv", "EpisodeResult"]

log = logging.getLogger("drums_gym.integrations.trl")

#: what a tool answers once the episode is over
OVER = "The episode is over: no further action is taken."

Observation = str | list[dict[str, Any]]


@dataclass(frozen=True)
class EpisodeResult:
    """One finished rollout: its task, validity and score (None when invalid)."""

    task_id: str
    valid: bool
    score: float | None
    invalid_reason: str | None
    steps: int
    slot_id: str | None = None
    group: int | None = None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class DrumsToolEnv:
    """One desktop per rollout, driven by tool calls; the episode's score is the reward.

    ``reset(**row)`` starts an episode on the row's ``task`` (a dataset column; else the
    constructor's task) and answers what TRL appends to the prompt: the instruction and
    the first observation. Each tool runs one pyautogui action and answers the new
    observation: for a text-only model (``vision=False``) the accessibility tree as
    OSWorld's linearized table; for a vision model (``vision=True``) the screenshot as an
    image content block (``{"type": "image", "image": PIL.Image}``) plus a status line.
    ``done``/``fail`` end the episode (OSWorld's DONE/FAIL); so does ``max_steps``.

    ``get_reward()`` is the checker's score, or **None when the episode is invalid**
    (the host flagged it: gate failure, app crash, ...). TRL turns None into NaN and leaves
    the row out of its reward statistics (its advantage is 0) -- unless another reward
    function scores the same row, which brings it back as 0 (see docs/integrations.md).

    Make these through :class:`DrumsEnvironments`, which shares one client, starts the
    members of one prompt's group from one forked state, and closes every desktop when
    training ends and at exit; a bare ``DrumsToolEnv()`` works too (a desktop of its own,
    reset per rollout).

    Args:
        task: the default task id (a row's ``task`` column overrides it).
        client: the Drums client (default: ``connect()``; closed with the env).
        vision: answer screenshots (vision models) instead of accessibility text.
        max_steps: actions per episode before it is verified and ended.
        screen: ``(width, height)`` of the desktop (default: the task's).
        max_tree_chars: where the accessibility text is cut.
        **env_kwargs: for :class:`DrumsDesktopEnv`, as with ``gym.make`` (``randomize=``,
            ``wait_timeout=``, ...).
    """

    def __init__(
        self,
        task: str = "e0df059f",
        *,
        client: Client | None = None,
        vision: bool = False,
        max_steps: int = 15,
        screen: tuple[int, int] | None = None,
        max_tree_chars: int = 8000,
        **env_kwargs: Any,
    ) -> None:
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a task id string, got {task!r}")
        if not _is_int(max_steps) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got {max_steps!r}")
        if not _is_int(max_tree_chars) or max_tree_chars < 1:
            raise ValueError(f"max_tree_chars must be a positive int, got {max_tree_chars!r}")
        self._task = task
        self._client = client
        self._owns_client = client is None
        self._vision = bool(vision)
        self._max_steps = max_steps
        self._screen = screen
        self._max_tree_chars = max_tree_chars
        self._env_kwargs = dict(env_kwargs)
        self._groups: ForkGroups | None = None  # set by DrumsEnvironments
        self._env: DrumsDesktopEnv | GroupMember | None = None
        self._over = True
        self._score: float | None = None
        self._invalid_reason: str | None = None
        self._steps = 0
        self._result: EpisodeResult | None = None
        self.results: list[EpisodeResult] = []

    # ------------------------------------------------------------------ TRL's hooks
    def reset(self, **row: Any) -> Observation:
        """Start an episode on ``row["task"]`` (else the default task); answer the
        instruction and the first observation, which TRL appends to the prompt."""
        task = str(row.get("task") or self._task)
        env: DrumsDesktopEnv | GroupMember
        if self._groups is not None and self._groups.size is not None:  # a forked child
            self._close_desktop()  # the previous rollout's child goes first
            if self._client is None:
                self._client = connect()
            env, obs, info = self._groups.start(self._client, task, row_key(task, row))
            self._env = env
        else:
            env = self._desktop(task)
            obs, info = env.reset()
        self._over, self._score, self._steps, self._result = False, None, 0, None
        self._invalid_reason = validity(info)[1]
        if self._invalid_reason is not None:
            self._over = True
        head = f"\n\nTask: {env.instruction}"
        if self._invalid_reason is not None:
            head += "\nThe desktop failed; the episode is over."
        return self._observation(obs, info, head)

    def get_reward(self) -> float | None:
        """The episode's score, or None when it is invalid (never a 0 for an invalid one).
        An episode the model left unfinished is verified as it stands."""
        env = self._env
        if self._result is None and env is not None:
            if not self._over and self._invalid_reason is None and env.slot is not None:
                try:
                    reward = env.slot.verify(strict=False)
                except DrumsError as exc:
                    self._invalid_reason = f"host_error:{getattr(exc, 'code', None)}"
                else:
                    if reward.valid:
                        self._score = float(reward.score)
                    else:
                        self._invalid_reason = reward.reason or "invalid"
                self._over = True
            valid = self._invalid_reason is None
            slot = env.slot
            self._result = EpisodeResult(
                env.task_id,
                valid,
                self._score if valid else None,
                self._invalid_reason,
                self._steps,
                slot.id if slot is not None else None,
                env.group if isinstance(env, GroupMember) else None,
            )
            self.results.append(self._result)
            if not valid:
                log.info("invalid rollout left out of the rewards: %s", self._invalid_reason)
        if self._result is None or not self._result.valid:
            return None
        return self._result.score

    # ------------------------------------------------------------------ the tools
    def click(self, x: int, y: int) -> Observation:
        """Click the left mouse button at a point of the screen.

        Args:
            x: horizontal pixel position, from the left edge.
            y: vertical pixel position, from the top edge.
        """
        return self._point_action("click", x, y)

    def double_click(self, x: int, y: int) -> Observation:
        """Double-click the left mouse button at a point of the screen (opens items).

        Args:
            x: horizontal pixel position, from the left edge.
            y: vertical pixel position, from the top edge.
        """
        return self._point_action("doubleClick", x, y)

    def right_click(self, x: int, y: int) -> Observation:
        """Click the right mouse button at a point of the screen (opens a context menu).

        Args:
            x: horizontal pixel position, from the left edge.
            y: vertical pixel position, from the top edge.
        """
        return self._point_action("rightClick", x, y)

    def type_text(self, text: str) -> Observation:
        """Type text with the keyboard where the focus is; a newline presses Enter.

        Args:
            text: the characters to type.
        """
        if not isinstance(text, str):
            return self._mistake(f"text must be a string, got {text!r}")
        return self._act(f"pyautogui.write({text!r})")

    def press(self, key: str) -> Observation:
        """Press and release one key, e.g. "enter", "f2", "delete", "esc", "tab".

        Args:
            key: the pyautogui name of the key.
        """
        if not isinstance(key, str):
            return self._mistake(f"key must be a string, got {key!r}")
        return self._act(f"pyautogui.press({key!r})")

    def hotkey(self, keys: list[str]) -> Observation:
        """Press a key combination: the keys go down in order and up in reverse.

        Args:
            keys: pyautogui key names, e.g. ["ctrl", "alt", "t"] to open a terminal.
        """
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
            return self._mistake(f"keys must be a non-empty list of key names, got {keys!r}")
        return self._act(f"pyautogui.hotkey({', '.join(repr(k) for k in keys)})")

    def scroll(self, clicks: int, x: int, y: int) -> Observation:
        """Scroll the mouse wheel over a point: positive clicks scroll up, negative down.

        Args:
            clicks: how many wheel clicks (positive up, negative down).
            x: horizontal pixel position of the pointer.
            y: vertical pixel position of the pointer.
        """
        if not all(_is_int(v) for v in (clicks, x, y)):
            return self._mistake(f"clicks, x and y must be integers, got {clicks!r}, {x!r}, {y!r}")
        return self._act(f"pyautogui.scroll({clicks}, x={x}, y={y})")

    def drag(self, from_x: int, from_y: int, to_x: int, to_y: int) -> Observation:
        """Drag with the left mouse button held from one point to another.

        Args:
            from_x: horizontal pixel position where the drag starts.
            from_y: vertical pixel position where the drag starts.
            to_x: horizontal pixel position where the drag ends.
            to_y: vertical pixel position where the drag ends.
        """
        if not all(_is_int(v) for v in (from_x, from_y, to_x, to_y)):
            return self._mistake("from_x, from_y, to_x and to_y must be integers")
        return self._act(
            f"pyautogui.moveTo({from_x}, {from_y})\npyautogui.dragTo({to_x}, {to_y}, button='left')"
        )

    def done(self) -> str:
        """Say the task is complete; the episode ends and is checked."""
        return self._finish("DONE")

    def fail(self) -> str:
        """Say the task cannot be done (infeasible); the episode ends and is checked."""
        return self._finish("FAIL")

    # ------------------------------------------------------------------ private
    def _desktop(self, task: str) -> DrumsDesktopEnv:
        env = self._env
        if isinstance(env, DrumsDesktopEnv) and task in (env.task_id, env.task_id[:8]):
            return env
        self._close_desktop()
        if self._client is None:
            self._client = connect()
        self._env = DrumsDesktopEnv(task, client=self._client, **self._desktop_kwargs())
        return self._env

    def _desktop_kwargs(self) -> dict[str, Any]:
        """What this env gives :class:`DrumsDesktopEnv` (a group's parent gets the same)."""
        return {
            "max_steps": self._max_steps,
            "screen": self._screen,
            "accessibility": not self._vision,
            **self._env_kwargs,
        }

    def _point_action(self, name: str, x: Any, y: Any) -> Observation:
        if not (_is_int(x) and _is_int(y)):
            return self._mistake(f"x and y must be integers, got {x!r}, {y!r}")
        return self._act(f"pyautogui.{name}({x}, {y})")

    def _mistake(self, message: str) -> Observation:
        """A bad tool argument: the model's mistake is data, the episode goes on."""
        return f"Error: {message}"

    def _act(self, code: str) -> Observation:
        if self._over or self._env is None:
            return OVER
        obs, reward, terminated, truncated, info = self._env.step(code)
        self._steps += 1
        status = self._after_step(reward, terminated, truncated, info)
        return self._observation(obs, info, status)

    def _finish(self, word: str) -> str:
        if self._over or self._env is None:
            return OVER
        _, reward, terminated, truncated, info = self._env.step(word)
        self._steps += 1
        return self._after_step(reward, terminated, truncated, info)

    def _after_step(self, reward: Any, terminated: bool, truncated: bool, info: dict) -> str:
        reason = validity(info)[1]
        parts = [f"Step {self._steps} of {self._max_steps}."]
        if info.get("action_error"):
            parts.append(f"The action was not run: {info['action_error']}")
        if reason is not None:
            self._invalid_reason, self._over = reason, True
            parts.append("The desktop failed; the episode is over.")
        elif terminated or truncated:
            self._over, self._score = True, float(reward)
            parts.append("The episode is over.")
        return " ".join(parts)

    def _observation(self, obs: Any, info: dict, status: str) -> Observation:
        if self._vision:
            return [
                {"type": "image", "image": screenshot_image(obs)},
                {"type": "text", "text": status},
            ]
        tree = linearize_tree(info.get("accessibility"), self._max_tree_chars)
        return f"{status}\nThe screen's accessibility tree:\n{tree}"

    def _close_desktop(self) -> None:
        env, self._env = self._env, None
        if env is not None:
            env.close()

    def _close(self) -> None:
        """Delete the desktop; close the client if this env made it (a shared one stays
        with its owner). Closing twice is harmless."""
        self._over = True
        try:
            self._close_desktop()
        finally:
            if self._owns_client and self._client is not None:
                client, self._client = self._client, None
                client.close()

    def __repr__(self) -> str:
        task = self._env.task_id[:8] if self._env is not None else self._task
        return f"<DrumsToolEnv task={task} vision={self._vision}>"

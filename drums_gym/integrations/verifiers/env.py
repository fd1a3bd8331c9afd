"""`DrumsEnv`: verifiers' Env whose episodes drive a Drums desktop turn by turn.

Each turn the player model gets the screen (a screenshot, and the accessibility tree as
text) and answers one action; the env runs it on the desktop (in a worker thread: the
Drums env is synchronous) until DONE/FAIL or ``max_steps``; the checker's score is the
trace's reward. An INVALID episode (the host flagged it) raises
:class:`InvalidEpisodeError`, so verifiers records an errored rollout: out of the
headline mean, retried under ``--env.retries``; never a 0.
"""

from __future__ import annotations

import asyncio
import base64
import io
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np
import verifiers.v1 as vf
from pydantic import Field

from ...client import Client, connect
from ...envs import DrumsDesktopEnv
from .._code import completion_code
from .._observation import linearize_tree, screenshot_image
from .._validity import validity
from .taskset import DrumsTask

__all__ = ["DrumsEnv", "DrumsEnvConfig", "InvalidEpisodeError", "in_thread"]

log = logging.getLogger("drums_gym.integrations.verifiers")

T = TypeVar("T")


class InvalidEpisodeError(RuntimeError):
    """The Drums host flagged the episode invalid (gate failure, app crash, OOM kill, ...):
    the rollout errors instead of scoring 0. ``reason`` is the host's reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the Drums episode is invalid: {reason}")
        self.reason = reason


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run one blocking call of the sync Drums env off the event loop.

    The one seam between verifiers' asyncio and the synchronous client: an async
    client can replace this function without touching the episode loop.
    """
    return await asyncio.to_thread(fn, *args)


class DrumsEnvConfig(vf.EnvConfig):
    """The env's settings (``--env.max-steps``, ``--env.observation``, ...)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime={"type": "subprocess"})
    """The model playing the desktop (``--env.player.*``); the local subprocess runtime
    by default."""
    max_steps: int = Field(15, ge=1)
    """Actions per episode; the episode is verified at the limit (OSWorld's 15)."""
    observation: Literal["screenshot", "accessibility", "both"] = "both"
    """What the model sees each turn: the screenshot, the accessibility tree as text,
    or both."""
    screen_width: int | None = Field(None, ge=1)
    """Desktop width in pixels (default: the task's)."""
    screen_height: int | None = Field(None, ge=1)
    """Desktop height in pixels (default: the task's)."""


def _png_data_url(frame: np.ndarray) -> str:
    buffer = io.BytesIO()
    screenshot_image(frame).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class DrumsEnv(vf.Env[DrumsEnvConfig]):
    """A Drums desktop per episode; the player model acts, the desktop's checker scores."""

    def __init__(self, config: DrumsEnvConfig) -> None:
        super().__init__(config)
        self._client: Client | None = None

    async def start(self) -> None:
        url = getattr(self.taskset.config, "url", None)
        self._client = await in_thread(connect, url)

    async def stop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await in_thread(client.close)

    # ------------------------------------------------------------------ one episode
    async def run(self, task: DrumsTask, agents: vf.Agents) -> None:
        desktop = await in_thread(self._desktop, task.data.drums_task)
        try:
            obs, info = await in_thread(desktop.reset)
            _raise_if_invalid(info)
            # the env opens the conversation itself, with the screen (the prompt is nulled)
            opening = type(task)(task.data.model_copy(update={"prompt": None}), task.config)
            score: float | None = None
            async with agents.player.interaction(opening) as chat:
                head = f"{task.data.prompt}\n\nStep 0 of {desktop.max_steps}."
                segment = await chat.turn(self._message(head, obs, info))
                while not segment.terminated:
                    action = completion_code(segment.last_reply) or "WAIT"
                    obs, reward, terminated, truncated, info = await in_thread(
                        desktop.step, action
                    )
                    _raise_if_invalid(info)
                    if terminated or truncated:
                        score = float(reward)
                        break
                    status = f"Step {info['step']} of {desktop.max_steps}."
                    if info.get("action_error"):
                        status += f" The action was not run: {info['action_error']}"
                    segment = await chat.turn(self._message(status, obs, info))
            if score is None:  # the model stopped answering: verify the desktop as it is
                score = await in_thread(self._verify_now, desktop)
            chat.trace.record_reward("drums_score", score, 1.0)
        finally:
            await in_thread(desktop.close)

    # ------------------------------------------------------------------ helpers
    def _desktop(self, task_id: str) -> DrumsDesktopEnv:
        if self._client is None:
            raise RuntimeError("DrumsEnv.run() outside serving(): start() made no client")
        width, height = self.config.screen_width, self.config.screen_height
        return DrumsDesktopEnv(
            task_id,
            client=self._client,
            max_steps=self.config.max_steps,
            screen=(width, height) if width and height else None,
            accessibility=self.config.observation != "screenshot",
        )

    def _message(self, status: str, obs: np.ndarray, info: dict) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [{"type": "text", "text": status}]
        if self.config.observation != "screenshot":
            tree = linearize_tree(info.get("accessibility"))
            parts.append({"type": "text", "text": f"The screen's accessibility tree:\n{tree}"})
        if self.config.observation != "accessibility":
            parts.append({"type": "image_url", "image_url": {"url": _png_data_url(obs)}})
        return [{"role": "user", "content": parts}]

    @staticmethod
    def _verify_now(desktop: DrumsDesktopEnv) -> float:
        assert desktop.slot is not None
        reward = desktop.slot.verify(strict=False)
        if not reward.valid:
            raise InvalidEpisodeError(reward.reason or "invalid")
        return float(reward.score)


def _raise_if_invalid(info: dict) -> None:
    valid, reason = validity(info)
    if not valid:
        log.info("invalid Drums episode: an errored rollout, not a 0: %s", reason)
        raise InvalidEpisodeError(reason or "invalid")

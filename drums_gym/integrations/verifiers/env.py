"""`DrumsEnv`: verifiers' Env whose episodes drive a Drums desktop turn by turn.

Each turn the player model gets the screen (a screenshot, and the accessibility tree as
text) and answers one action; the env runs it on the desktop through the async Drums
client (`drums_gym.client.AsyncClient`, on verifiers' own event loop: no threads) until
DONE/FAIL or ``max_steps``; the checker's score is the trace's reward. An INVALID episode
(the host flagged it, or the host failed) raises :class:`InvalidEpisodeError`, so
verifiers records an errored rollout: out of the headline mean, retried under
``--env.retries``; never a 0.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import verifiers.v1 as vf
from pydantic import Field

from ...actions.control import parse_control
from ...client import ActionError, AsyncClient, AsyncSlot, DrumsError, InvalidRequest, aconnect
from ...envs._episode import _reason_of as reason_of
from .._code import completion_code
from .._observation import linearize_tree
from .groups import ForkGroups, GroupUnavailable
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


#: seconds a WAIT action waits (as the Drums env's default), and for gates at most
WAIT_S = 1.0
WAIT_TIMEOUT_S = 120.0


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run one blocking call off the event loop (e.g. the sync Drums env from verifiers
    code). `DrumsEnv` itself needs none: it talks to the host with the async client."""
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
    group_size: int = Field(1, ge=1)
    """Rollouts of one task that start from one forked desktop (set it to ``-r``): the
    first makes the desktop, applies ``prefix``, forks it once; 1: a desktop each."""
    prefix: list[str] = Field(default_factory=list)
    """Actions applied once on each group's desktop before it is forked (a shared
    mid-episode start; the step limit counts after them)."""


class DrumsEnv(vf.Env[DrumsEnvConfig]):
    """A Drums desktop per episode; the player model acts, the desktop's checker scores."""

    def __init__(self, config: DrumsEnvConfig) -> None:
        super().__init__(config)
        self._client: AsyncClient | None = None
        self._groups: ForkGroups | None = None

    async def start(self) -> None:
        url = getattr(self.taskset.config, "url", None)
        self._client = await aconnect(url)
        width, height = self.config.screen_width, self.config.screen_height
        if self.config.group_size > 1 or self.config.prefix:
            screen = (width, height) if width and height else None
            self._groups = ForkGroups(self.config.group_size, self.config.prefix, screen)

    async def stop(self) -> None:
        client, self._client = self._client, None
        groups, self._groups = self._groups, None
        try:
            if groups is not None:
                await groups.aclose()
        finally:
            if client is not None:
                await client.aclose()

    # ------------------------------------------------------------------ one episode
    async def run(self, task: DrumsTask, agents: vf.Agents) -> None:
        if self._client is None:
            raise RuntimeError("DrumsEnv.run() outside serving(): start() made no client")
        width, height = self.config.screen_width, self.config.screen_height
        try:
            if self._groups is not None:  # a child of the group's forked desktop
                desktop = await self._groups.child(self._client, task.data.drums_task)
            else:
                desktop = await self._client.create(
                    task.data.drums_task, screen=(width, height) if width and height else None
                )
            async with desktop:
                await self._play(desktop, task, agents)
        except GroupUnavailable as exc:
            raise _invalid(exc.reason) from exc
        except DrumsError as exc:  # the host failed the episode: errored, never a 0
            raise _invalid(reason_of(exc)) from exc

    async def _play(self, desktop: AsyncSlot, task: DrumsTask, agents: vf.Agents) -> None:
        episode = await desktop.wait_episode(timeout=WAIT_TIMEOUT_S)
        if not episode.valid:
            raise _invalid(episode.invalid_reason or episode.status)
        max_steps = self.config.max_steps
        # the env opens the conversation itself, with the screen (the prompt is nulled)
        opening = type(task)(task.data.model_copy(update={"prompt": None}), task.config)
        score: float | None = None
        async with agents.player.interaction(opening) as chat:
            head = f"{task.data.prompt}\n\nStep 0 of {max_steps}."
            segment = await chat.turn(await self._message(desktop, head))
            steps = 0
            while not segment.terminated:
                action = completion_code(segment.last_reply) or "WAIT"
                steps += 1
                refused = await _act(desktop, action)
                if parse_control(action) in ("DONE", "FAIL") or steps >= max_steps:
                    score = await _score(desktop)
                    break
                status = f"Step {steps} of {max_steps}."
                if refused:
                    status += f" The action was not run: {refused}"
                segment = await chat.turn(await self._message(desktop, status))
        if score is None:  # the model stopped answering: verify the desktop as it is
            score = await _score(desktop)
        chat.trace.record_reward("drums_score", score, 1.0)

    # ------------------------------------------------------------------ helpers
    async def _message(self, desktop: AsyncSlot, status: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [{"type": "text", "text": status}]
        if self.config.observation != "screenshot":
            tree = linearize_tree((await desktop.accessibility()).get("tree"))
            parts.append({"type": "text", "text": f"The screen's accessibility tree:\n{tree}"})
        if self.config.observation != "accessibility":
            png = (await desktop.observe("png")).data  # the host's PNG as it came
            url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        return [{"role": "user", "content": parts}]


async def _act(desktop: AsyncSlot, action: str) -> str | None:
    """Run one action; why the host refused it (the agent's mistake, data), else None.
    An episode the action found invalid raises."""
    control = parse_control(action)
    try:
        result = await desktop.step(action)
    except ActionError as exc:  # a control word refused: a host from before them
        return None if control else exc.message
    except InvalidRequest as exc:
        return exc.message
    except ValueError as exc:  # refused before sending (text that is not UTF-8)
        return str(exc)
    if result.episode.invalid:
        raise _invalid(result.episode.invalid_reason or "invalid")
    if control == "WAIT":
        await asyncio.sleep(WAIT_S)
    return None


async def _score(desktop: AsyncSlot) -> float:
    reward = await desktop.verify(strict=False, timeout=WAIT_TIMEOUT_S)
    if not reward.valid:
        raise _invalid(reward.reason or "invalid")
    return float(reward.score)


def _invalid(reason: str) -> InvalidEpisodeError:
    log.info("invalid Drums episode: an errored rollout, not a 0: %s", reason)
    return InvalidEpisodeError(reason)

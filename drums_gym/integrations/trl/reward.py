"""`DrumsCodeReward`: a TRL reward function for single-turn use: each completion's pyautogui
code runs on a fresh desktop, which is then verified."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...actions import parse_control
from ...client import Client, DrumsError, connect
from ...envs import DrumsDesktopEnv
from .._code import completion_code
from .._validity import validity
from .quiet import quiet_unscorable_rows

__all__ = ["DrumsCodeReward"]

log = logging.getLogger("drums_gym.integrations.trl")

class DrumsCodeReward:
    """A reward function for TRL's ``GRPOTrainer`` (single turn): run, then verify.

    For each completion: a fresh desktop for the row's ``task`` column (else ``task``)
    waits until its episode is valid, runs the completion's pyautogui code
    (:func:`completion_code`; a bare ``DONE``/``FAIL`` is sent as that word), then ends
    the episode with DONE and answers the checker's score. **An invalid episode answers
    None** (TRL: NaN, out of the statistics; see docs/integrations.md for the caveat with
    a second reward function). Code outside the action language is the model's mistake:
    the desktop is verified as it stands (usually 0). Rows run concurrently.

    Args:
        task: the default task id.
        client: a Drums client (default: ``connect(url=url, token=token)``).
        url, token: where to connect when no client is given.
        workers: desktops at once.
        **env_kwargs: for :class:`DrumsDesktopEnv` (``screen=``, ``wait_timeout=``, ...).

    Example:
        >>> reward = DrumsCodeReward("e0df059f")                         # doctest: +SKIP
        >>> GRPOTrainer(model, reward_funcs=[reward], ...)              # doctest: +SKIP
    """

    def __init__(
        self,
        task: str = "e0df059f",
        *,
        client: Client | None = None,
        url: str | None = None,
        token: str | None = None,
        workers: int = 8,
        **env_kwargs: Any,
    ) -> None:
        if not isinstance(task, str) or not task:
            raise ValueError(f"task must be a task id string, got {task!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        if client is not None and (url is not None or token is not None):
            raise ValueError("pass either client or url/token, not both")
        self.__name__ = "drums_reward"  # TRL logs a reward function under its name
        self.task = task
        self.workers = workers
        self.env_kwargs = dict(env_kwargs)
        self._url, self._token = url, token
        self._client = client
        self._owns_client = client is None

    @property
    def client(self) -> Client:
        if self._client is None:
            self._client = connect(url=self._url, token=self._token)
        return self._client

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        task: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """One reward per completion: its score, or None when its episode was invalid."""
        quiet_unscorable_rows()  # TRL would log an invalid row's whole prompt
        tasks = list(task) if task is not None else [self.task] * len(completions)
        if len(tasks) != len(completions):
            raise ValueError(f"task must hold one id per completion, got {len(tasks)}")
        rows = list(zip(tasks, (completion_code(c) for c in completions), strict=True))
        with ThreadPoolExecutor(max_workers=min(self.workers, max(1, len(rows)))) as pool:
            return list(pool.map(lambda row: self._score(*row), rows))

    def _score(self, task: str, code: str) -> float | None:
        env = DrumsDesktopEnv(task or self.task, client=self.client, **self.env_kwargs)
        try:
            _, info = env.reset()
            if not validity(info)[0]:
                self._invalid(validity(info)[1])
                return None
            control = parse_control(code)
            actions = [control] if control in ("DONE", "FAIL") else [code, "DONE"] if code else [
                "DONE"
            ]
            for action in actions:
                _, reward, terminated, truncated, info = env.step(action)
                valid, reason = validity(info)
                if not valid:
                    self._invalid(reason)
                    return None
                if terminated or truncated:
                    return float(reward)
            return None  # not reached: DONE ends the episode
        except DrumsError as exc:
            self._invalid(f"host_error:{getattr(exc, 'code', type(exc).__name__)}")
            return None
        finally:
            env.close()

    def _invalid(self, reason: str | None) -> None:
        log.info("invalid episode: reward None (left out of TRL's statistics): %s", reason)

    def close(self) -> None:
        """Close the client if it was made here."""
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            client.close()

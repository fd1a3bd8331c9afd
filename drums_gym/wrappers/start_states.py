"""Start states as data: saved states along a trajectory, each a place an episode can
start from (``reset(options={"state": s})``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

__all__ = ["StartState", "record_states"]


@dataclass(frozen=True)
class StartState:
    """A saved state ``id`` reached after ``step`` actions of a trajectory, and the actions
    of that trajectory still to come from there (``remaining``: a demonstration's rest).
    Pass it as ``env.reset(options={"state": start_state})``."""

    id: str
    step: int
    remaining: tuple[Any, ...]

    def __repr__(self) -> str:
        return f"StartState(id={self.id!r}, step={self.step}, remaining={len(self.remaining)})"


def _saver(env: gym.Env[Any, Any]) -> Callable[[], str]:
    save = getattr(env.unwrapped, "save_state", None)
    if not callable(save):
        raise ValueError(f"record_states needs a Drums env (with save_state()), got {env}")
    return save


def record_states(
    env: gym.Env[Any, Any],
    actions: Sequence[Any] | Callable[[Any, dict[str, Any]], Any],
    *,
    at: Collection[int] | None = None,
    reset_options: dict[str, Any] | None = None,
) -> list[StartState]:
    """Reset ``env``, step a trajectory and save a state after each step that leaves the
    episode running; answer the states in order (``step`` = actions taken).

    ``actions`` is a sequence of the env's actions (a recorded demo), or a policy
    ``(observation, info) -> action`` (a solver, a model) run until the episode ends. With
    ``at``, only the states after those step counts are saved (the host's saved-state quota
    is 8 per workspace by default). The env deletes the states on ``close``.

    Example:
        >>> import gymnasium as gym
        >>> env = gym.make("Drums/e0df059f")                                  # doctest: +SKIP
        >>> demo = ["pyautogui.click(136, 96)", "pyautogui.press('f2')",
        ...         "pyautogui.write('todo_list_Jan_2\\n')", "DONE"]         # doctest: +SKIP
        >>> [(s.step, len(s.remaining)) for s in record_states(env, demo)]  # doctest: +SKIP
        [(1, 3), (2, 2), (3, 1)]
    """
    save = _saver(env)
    if at is not None and not all(isinstance(k, int) and k >= 1 for k in at):
        raise ValueError(f"at must be step counts (ints >= 1), got {at!r}")
    policy = actions if callable(actions) else None
    planned = None if callable(actions) else list(actions)
    obs, info = env.reset(options=reset_options)
    taken: list[Any] = []
    saved: list[tuple[str, int]] = []
    while planned is None or len(taken) < len(planned):
        action = policy(obs, info) if policy is not None else planned[len(taken)]  # type: ignore[index]
        obs, _reward, terminated, truncated, info = env.step(action)
        taken.append(action)
        if terminated or truncated:
            break
        if at is None or len(taken) in at:
            saved.append((save(), len(taken)))
    trajectory = tuple(taken if planned is None else planned)
    return [StartState(state, step, trajectory[step:]) for state, step in saved]

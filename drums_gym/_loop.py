"""What the rollout and evaluation loops share: members' policies, and the host's capacity.

`Members` holds one policy per member of a vector env and asks it for an action only for
a member whose episode is live (neither over nor invalid); every other member gets
:data:`IDLE_ACTION`, which the Drums vector env ignores (an ended member sits out, an
invalid one ends at once). :func:`check_capacity` refuses up front what the host would
refuse midway.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .wrappers._vector_info import member_info

__all__ = [
    "IDLE_ACTION",
    "Members",
    "Policy",
    "PolicyError",
    "PolicyWarning",
    "call_policy",
    "check_capacity",
    "needs_accessibility",
    "per_member",
    "reset_policy",
]

#: the policy contract: (screenshot, instruction[, info]) -> one action string
Policy = Callable[..., str]

#: the action of a member whose episode is over or invalid: the vector env ignores it
#: (an ended member sits out; an invalid one ends without acting)
IDLE_ACTION = "WAIT"


class PolicyError(ValueError):
    """A policy spec could not be loaded, or a policy failed; the message names the spec."""


class PolicyWarning(UserWarning):
    """A policy answered something that is not an action string (counted as an action
    error by the env; warned once per loop)."""


def per_member(policy: Policy | Sequence[Policy], n: int) -> list[Policy]:
    """``n`` policies: a sequence as it is (one per member), or one policy shared by all."""
    policies = list(policy) if isinstance(policy, Sequence) else [policy] * n
    if len(policies) != n:
        raise ValueError(f"policy must be one policy or {n}, got {len(policies)}")
    return policies


def needs_accessibility(policies: Any) -> bool:
    """Whether any policy asks for the accessibility tree in its ``info``
    (it has ``needs_accessibility = True``)."""
    if callable(policies) and not isinstance(policies, Sequence):
        policies = [policies]
    return any(getattr(p, "needs_accessibility", False) for p in policies)


def reset_policy(policy: Policy) -> None:
    """Start a new episode for a policy that keeps state (it has ``reset()``)."""
    reset = getattr(policy, "reset", None)
    if callable(reset):
        reset()


def _wants_info(policy: Policy) -> bool:
    """Whether ``policy`` takes a third positional parameter (the step's info)."""
    try:
        params = inspect.signature(policy).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind == p.VAR_POSITIONAL for p in params)


def call_policy(
    policy: Policy,
    observation: np.ndarray,
    instruction: str,
    spec: str,
    info: Mapping[str, Any] | None = None,
) -> str:
    """``policy(observation, instruction[, info])``, a failure reported as a `PolicyError`.

    What the policy answers goes to the env as is: a non-string answer is the env's to
    flag (``info["action_error"]``), as every policy mistake is data.
    """
    try:
        if _wants_info(policy):
            return policy(observation, instruction, info if info is not None else {})
        return policy(observation, instruction)
    except Exception as exc:  # user code: report it as one line naming the spec
        raise PolicyError(f"policy {spec!r} raised {type(exc).__name__}: {exc}") from exc


class Members:
    """One policy per member of a vector env of ``n``; asks only live members.

    Args:
        policy: one policy (shared by all members) or a sequence of ``n``.
        n: members.
        spec: the policy's name in errors and warnings.

    >>> members = Members(lambda obs, instruction: "DONE", 3)
    >>> obs = np.zeros((3, 2, 2, 3), np.uint8)
    >>> members.actions(obs, ["task"] * 3, {}, live=np.array([True, False, True]))
    ['DONE', 'WAIT', 'DONE']
    """

    def __init__(self, policy: Policy | Sequence[Policy], n: int, spec: str = "policy") -> None:
        self.policies = per_member(policy, n)
        self.n = n
        self.spec = spec
        self._warned = False

    def reset(self, index: int | None = None) -> None:
        """Start a new episode for member ``index`` (None: every member)."""
        for i in range(self.n) if index is None else (index,):
            reset_policy(self.policies[i])

    def act(
        self, index: int, observation: np.ndarray, instruction: str, info: Mapping[str, Any]
    ) -> Any:
        """Member ``index``'s action; warns once when a policy answers a non-string."""
        action = call_policy(self.policies[index], observation, instruction, self.spec, info)
        if not isinstance(action, str) and not self._warned:
            self._warned = True
            warnings.warn(
                f"policy {self.spec!r} returned {type(action).__name__} {action!r}, not an "
                "action string; the env counts it as an action error (warned once)",
                PolicyWarning,
                stacklevel=2,
            )
        return action

    def actions(
        self,
        observations: Any,
        instructions: Sequence[str],
        infos: Mapping[str, Any],
        live: np.ndarray,
    ) -> list[Any]:
        """One action per member: the policy's for ``live`` members, else `IDLE_ACTION`."""
        return [
            self.act(i, observations[i], instructions[i], member_info(infos, i))
            if live[i]
            else IDLE_ACTION
            for i in range(self.n)
        ]


def check_capacity(client: Any, n: int, *, name: str = "n") -> None:
    """Refuse up front what the host would refuse midway: ``n`` children forked from one
    parent (the fork limit, and the live-desktop limit counting the parent).

    ``client`` is a `drums_gym.client.Client`; ``name`` is the argument named in the error
    (``"--num-envs"`` from the CLI). Raises ValueError.
    """
    limits = client.host().limits
    if limits.fork_limit is not None and n > limits.fork_limit:
        raise ValueError(
            f"{name} {n} exceeds the host's fork limit of {limits.fork_limit} children"
        )
    live = limits.live_desktops
    if live is not None and n + 1 > live:  # the children and their parent
        raise ValueError(
            f"{name} {n} children and their parent exceed the host's limit of "
            f"{live} live desktops"
        )

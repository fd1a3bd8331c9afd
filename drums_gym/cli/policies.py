"""Policies for the command line: ``random``, ``scripted``, ``openai:MODEL``, ``MODULE:CALLABLE``.

A policy is any callable ``policy(observation, instruction) -> str``: it gets the
screenshot (a ``uint8`` array of shape ``(H, W, 3)``) and the task's instruction, and
answers one action: pyautogui code, or one of the words ``DONE``, ``FAIL``, ``WAIT``.
A policy that takes a third parameter also gets the step's ``info`` (with the
accessibility tree as ``info["accessibility"]`` when the policy sets
``needs_accessibility = True``), and one with a ``reset()`` method is reset at the start
of each episode. Each member of a group or vector env gets its own policy instance.

>>> import numpy as np
>>> policy = load_policy("random", seed=0)
>>> action = policy(np.zeros((1080, 1920, 3), np.uint8), "rename the folder")
>>> action.startswith("pyautogui.") or action == "DONE"
True

How ``MODULE:CALLABLE`` specs load (the rule :func:`load_policy` applies):

- ``MODULE`` is a dotted module name importable from ``sys.path`` or the current
  directory, or a path to a ``.py`` file (``examples/llm_policy.py:policy``);
  ``CALLABLE`` is an attribute of it, dotted for nested ones (``Agent.make``).
- A **class** is instantiated: ``Class(seed=seed)`` when its constructor takes a ``seed``
  parameter (or ``**kwargs``), else ``Class()``. The instance must be callable.
- A **factory** is a function whose parameters are all optional and include ``seed``
  (``def make(*, seed=0)``): it is called as ``make(seed=seed)`` and must return the policy.
- Any **other callable** is the policy itself (``def act(obs, instruction)``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar

import numpy as np

from .._loop import (
    Policy,
    PolicyError,
    call_policy,
    needs_accessibility,
    per_member,
    reset_policy,
)

__all__ = [
    "BUILTIN_POLICIES",
    "Policy",
    "PolicyError",
    "RandomPolicy",
    "ScriptedPolicy",
    "call_policy",
    "load_policies",
    "load_policy",
    "needs_accessibility",
    "per_member",
    "reset_policy",
]

class RandomPolicy:
    """Random pointer and keyboard actions within the screen, from a seeded generator.

    Mostly moves and clicks at uniform points of the screenshot, sometimes a key, a hotkey
    or a short text, and with probability ``p_done`` the word ``DONE``. The same seed gives
    the same actions for the same sequence of screen sizes.

    >>> policy = RandomPolicy(seed=1, p_done=0.0)
    >>> policy(np.zeros((100, 200, 3), np.uint8), "").startswith("pyautogui.")
    True
    """

    KEYS = ("enter", "esc", "tab", "f2", "backspace", "delete", "up", "down", "left", "right")
    HOTKEYS = (("ctrl", "a"), ("ctrl", "c"), ("ctrl", "v"), ("ctrl", "z"))
    LETTERS = "abcdefghijklmnopqrstuvwxyz_0123456789"
    #: relative weights of the action kinds
    WEIGHTS: ClassVar[Mapping[str, float]] = MappingProxyType(
        {
            "moveTo": 0.25,
            "click": 0.30,
            "doubleClick": 0.12,
            "rightClick": 0.05,
            "press": 0.13,
            "hotkey": 0.05,
            "write": 0.10,
        }
    )

    def __init__(self, seed: int | None = None, p_done: float = 0.05) -> None:
        if (
            isinstance(p_done, bool)
            or not isinstance(p_done, (int, float))
            or not (0.0 <= p_done <= 1.0)
        ):
            raise ValueError(f"p_done must be a probability in [0, 1], got {p_done!r}")
        self.rng = np.random.default_rng(seed)
        self.p_done = float(p_done)
        self._kinds = list(self.WEIGHTS)
        weights = np.array(list(self.WEIGHTS.values()), dtype=np.float64)
        self._p = weights / weights.sum()

    def __call__(self, observation: np.ndarray, instruction: str) -> str:
        if self.rng.random() < self.p_done:
            return "DONE"
        height, width = _screen_size(observation)
        kind = self._kinds[int(self.rng.choice(len(self._kinds), p=self._p))]
        if kind in ("moveTo", "click", "doubleClick", "rightClick"):
            x, y = int(self.rng.integers(0, width)), int(self.rng.integers(0, height))
            return f"pyautogui.{kind}({x}, {y})"
        if kind == "press":
            return f"pyautogui.press({self.KEYS[int(self.rng.integers(len(self.KEYS)))]!r})"
        if kind == "hotkey":
            keys = self.HOTKEYS[int(self.rng.integers(len(self.HOTKEYS)))]
            return "pyautogui.hotkey(" + ", ".join(repr(k) for k in keys) + ")"
        length = int(self.rng.integers(1, 9))
        text = "".join(
            self.LETTERS[int(i)] for i in self.rng.integers(0, len(self.LETTERS), length)
        )
        return f"pyautogui.write({text!r})"

    def __repr__(self) -> str:
        return f"RandomPolicy(p_done={self.p_done})"


def _screen_size(observation: Any) -> tuple[int, int]:
    shape = getattr(observation, "shape", None)
    if shape is None or len(shape) < 2 or shape[0] < 1 or shape[1] < 1:
        return 1080, 1920
    return int(shape[0]), int(shape[1])


def _random(seed: int, task: str | None, option: str | None, max_steps: int | None) -> Policy:
    if option is not None:
        raise PolicyError(f"policy 'random' takes no option, got 'random:{option}'")
    return RandomPolicy(seed=seed)


class ScriptedPolicy:
    """The task's scripted solver (an oracle reading the accessibility tree) as a policy.

    Args:
        task: the task id (full or its first 8 characters).
        route: ``"gui"``, ``"terminal"`` or ``"gui-long"``; None: the GUI route if its
            episode fits ``max_steps``, else the terminal route (see
            `drums_gym.solvers.get_solver`).
        max_steps: the episode's step budget.
    """

    needs_accessibility = True

    def __init__(
        self, task: str, route: str | None = None, max_steps: int | None = None
    ) -> None:
        from ..solvers import get_solver

        name = "scripted" if route is None else f"scripted:{route}"
        try:
            self.solver = get_solver(task, route=route, max_steps=max_steps)
        except (KeyError, ValueError) as exc:
            raise PolicyError(f"policy {name!r}: no solver for task {task!r}: {exc}") from None

    @property
    def route(self) -> str:
        """The route the solver takes."""
        return self.solver.route

    def reset(self) -> None:
        self.solver.reset()

    def __call__(self, observation: np.ndarray, instruction: str, info: Mapping[str, Any]) -> str:
        return self.solver(observation, instruction, info)


def _scripted(
    seed: int, task: str | None, option: str | None, max_steps: int | None
) -> Policy:
    if task is None:
        raise PolicyError("policy 'scripted' needs the task: it runs the task's own solver")
    return ScriptedPolicy(task, route=option, max_steps=max_steps)


#: built-in policy names and their factories ``factory(seed, task, option, max_steps)``
#: (``option`` is what follows ``NAME:``, e.g. the route of ``scripted:terminal``)
BUILTIN_POLICIES: dict[str, Callable[[int, str | None, str | None, int | None], Policy]] = {
    "random": _random,
    "scripted": _scripted,
}


def load_policies(
    spec: str,
    seed: int,
    n: int,
    task: str | None = None,
    max_steps: int | None = None,
    model: Mapping[str, Any] | None = None,
) -> list[Policy]:
    """One policy per member (seeds ``seed``, ``seed + 1``, ...): stateful policies such as
    scripted solvers keep one episode's state each."""
    return [
        load_policy(spec, seed + i, task, max_steps=max_steps, model=model) for i in range(n)
    ]


def load_policy(
    spec: str = "random",
    seed: int = 0,
    task: str | None = None,
    *,
    max_steps: int | None = None,
    model: Mapping[str, Any] | None = None,
) -> Policy:
    """The policy a command-line spec names.

    Args:
        spec: ``"random"``, ``"scripted"`` (the task's scripted solver: needs ``task``;
            the GUI route when it fits ``max_steps``, else the terminal route),
            ``"scripted:gui"`` or ``"scripted:terminal"`` (that route),
            ``"openai:MODEL"`` (a model behind an OpenAI-compatible server: see
            `drums_gym.integrations.models.OpenAIPolicy`), or ``"MODULE:CALLABLE"`` (see
            the module docstring for how classes and factories are called).
        seed: seed of the policy's randomness (passed to classes and factories that
            take a ``seed``).
        task: the task the policy will run (built-in policies that need it).
        max_steps: the episode's step budget (the scripted policy picks a route by it).
        model: `OpenAIPolicy` options for ``openai:MODEL`` (``base_url``, ``api_key_env``,
            ``observation``, ...).

    Raises:
        PolicyError: (a ValueError) naming the spec: unknown name, module not importable,
            attribute missing, not callable, or a factory that failed.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PolicyError(f"policy spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    name, _, option = spec.partition(":")
    if name in BUILTIN_POLICIES:
        return BUILTIN_POLICIES[name](seed, task, option or None, max_steps)
    from ..integrations.models import is_model_spec, policy_from_spec

    if is_model_spec(spec):  # before MODULE:CALLABLE: "openai:gpt-4o" is no module
        try:
            return policy_from_spec(spec, seed=seed, **dict(model or {}))
        except ValueError as exc:
            raise PolicyError(str(exc)) from None
    if ":" not in spec:
        known = ", ".join(sorted(BUILTIN_POLICIES))
        raise PolicyError(f"unknown policy {spec!r}: use one of {known}, or MODULE:CALLABLE")
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise PolicyError(f"policy {spec!r} is not MODULE:CALLABLE")
    module = _import(module_name, spec)
    target: Any = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise PolicyError(
                f"policy {spec!r}: {module_name!r} has no attribute {attr!r}"
            ) from None
    if not callable(target):
        raise PolicyError(f"policy {spec!r}: {attr!r} is a {type(target).__name__}, not callable")
    policy = _instantiate(target, seed, spec)
    if not callable(policy):
        raise PolicyError(
            f"policy {spec!r}: the factory returned a {type(policy).__name__}, not a callable"
        )
    return policy


def _import(module_name: str, spec: str) -> ModuleType:
    """Import a dotted module name (retrying from the current directory) or a .py path."""
    if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise PolicyError(f"policy {spec!r}: no such file {module_name!r}")
        name = f"drums_gym_policy_{path.stem}"
        file_spec = importlib.util.spec_from_file_location(name, path)
        if file_spec is None or file_spec.loader is None:
            raise PolicyError(f"policy {spec!r}: cannot load {module_name!r} as a module")
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[name] = module
        try:
            file_spec.loader.exec_module(module)
        except Exception as exc:  # user code: report it as one line naming the spec
            sys.modules.pop(name, None)
            raise PolicyError(
                f"policy {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
            ) from exc
        return module
    try:
        return _import_module(module_name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        missing = exc.name or ""
        if cwd not in sys.path and module_name.split(".")[0] == missing.split(".")[0]:
            sys.path.append(cwd)  # console scripts do not put the current directory on the path
            try:
                return _import_module(module_name)
            except ModuleNotFoundError:
                pass
            except Exception as inner:  # user code failing at import
                raise PolicyError(
                    f"policy {spec!r}: importing {module_name!r} failed: "
                    f"{type(inner).__name__}: {inner}"
                ) from inner
        raise PolicyError(f"policy {spec!r}: cannot import module {module_name!r}: {exc}") from exc
    except Exception as exc:  # user code failing at import
        raise PolicyError(
            f"policy {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc


def _import_module(name: str) -> ModuleType:
    return importlib.import_module(name)


def _takes_seed(fn: Any) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return False
    return any(
        (p.name == "seed" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        or p.kind is p.VAR_KEYWORD
        for p in params
    )


def _is_factory(fn: Any) -> bool:
    """A function whose parameters are all optional and include ``seed``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in params
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    has_seed = any(
        p.name == "seed" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params
    )
    return has_seed and not required


def _instantiate(target: Any, seed: int, spec: str) -> Any:
    """Apply the loading rule: classes are instantiated, seed factories called."""
    try:
        if isinstance(target, type):  # inspect.isclass, which types it type[object]
            return target(seed=seed) if _takes_seed(target) else target()
        if _is_factory(target):
            return target(seed=seed)
    except Exception as exc:  # user code: report it as one line naming the spec
        raise PolicyError(
            f"policy {spec!r}: building the policy failed: {type(exc).__name__}: {exc}"
        ) from exc
    return target

"""`Registry`: a name -> function table filled by a decorator (getters, metrics, steps).

>>> table: Registry[int] = Registry("widget")
>>> @table.register("one")
... def one() -> int:
...     return 1
>>> table["one"](), "one" in table, table.names()
(1, True, ['one'])
>>> table.lookup("two", "t.json")
Traceback (most recent call last):
...
drums_gym.local.tasks.errors.TaskFileError: t.json: unknown widget 'two' (known: one)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from .errors import TaskFileError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Functions by name; `register` adds one, `lookup` refuses unknown names."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._fns: dict[str, Callable[..., T]] = {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Decorator: ``@GETTERS.register("rule")`` makes the function the ``rule`` getter."""
        def add(fn: Callable[..., T]) -> Callable[..., T]:
            if name in self._fns:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._fns[name] = fn
            return fn
        return add

    def __contains__(self, name: object) -> bool:
        return name in self._fns

    def __getitem__(self, name: str) -> Callable[..., T]:
        return self._fns[name]

    def names(self) -> list[str]:
        return sorted(self._fns)

    def lookup(self, name: object, source: str) -> Callable[..., T]:
        """The function called ``name``, or a `TaskFileError` naming it and ``source``."""
        if not isinstance(name, str) or name not in self._fns:
            raise TaskFileError(source, f"unknown {self.kind} {name!r} "
                                        f"(known: {', '.join(self.names())})")
        return self._fns[name]

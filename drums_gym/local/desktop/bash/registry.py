"""Commands by declaration: the `command` decorator and the `Registry` an interpreter runs.

A command is a function defined where it belongs (``cmd_text.py``, ``cmd_files.py`` ...)
and declared with `command`, which turns it into a `Command`. With ``opts=`` the decorator
parses the options (coreutils style, see `opts.parse_opts`) and prints the usage error
itself; the function then receives the parsed `Args`:

>>> @command("hello", opts=Opts("n", {"name": "n"}, with_value="n"))
... def hello(ctx, a: Args) -> int:
...     ctx.out(f"hello {a.values.get('n', 'world')}\\n")
...     return 0
>>> reg = Registry([hello])
>>> "hello" in reg, reg["hello"].builtin
(True, False)

`Registry.from_modules` collects every `Command` a module defines; the standard table is
`commands.standard_commands`. An interpreter holds its registry (``interp.commands``) and
commands that look others up (``type``, ``which``, ``sudo``, ``xargs``) read it through
``ctx.commands``, never through a global.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, overload

from .context import Ctx
from .opts import BadOption, parse_opts

__all__ = ["Args", "Command", "CommandFn", "Opts", "ParsedFn", "Registry", "command"]

CommandFn = Callable[[Ctx, list[str]], int]


@dataclass(frozen=True)
class Opts:
    """How a command's options parse: bundled ``short`` letters, ``long`` names (mapped to a
    letter, or ``""`` to accept and ignore), letters taking a value (``with_value``),
    ``-NUM`` as a value of ``number`` (``head -5`` is ``head -n 5``), and the exit status
    of a usage error; ``usage`` (if not None) replaces coreutils' "Try '... --help'" line
    after the error, for tools that print their usage instead (the shadow tools:
    ``useradd``, ``usermod``, ``passwd`` ...), another hint (glibc's ``getent``) or, as
    ``""``, nothing (systemd's tools). ``stop_at_operand``: the first operand ends the
    options (commands that run a command: ``sudo``, ``xargs``)."""

    short: str = ""
    long: Mapping[str, str] = field(default_factory=dict)
    with_value: str = ""
    number: str = ""
    usage_status: int = 1
    usage: str | None = None
    stop_at_operand: bool = False


@dataclass
class Args:
    """A command's parsed arguments: flags given, operands, the last value of each option
    (``values``) and every value of a repeatable one (``all_values``, e.g. grep's ``-e``)."""

    flags: set[str]
    operands: list[str]
    values: dict[str, str]
    all_values: dict[str, list[str]]
    raw: list[str]


ParsedFn = Callable[[Ctx, Args], int]


@dataclass(frozen=True)
class Command:
    """One declared command: its names, whether bash has it built in (``type`` says "shell
    builtin") and whether it is also a program in ``/usr/bin`` (``which`` finds it, ``sudo``
    runs it)."""

    names: tuple[str, ...]
    fn: Callable[..., int]
    opts: Opts | None = None
    builtin: bool = False
    program: bool = True

    @property
    def name(self) -> str:
        return self.names[0]

    def __call__(self, ctx: Ctx, args: list[str]) -> int:
        """Run with raw ``args``; with `Opts`, a bad option prints its usage error here."""
        if self.opts is None:
            return self.fn(ctx, args)
        o = self.opts
        if o.number:
            args = [f"-{o.number}{a[1:]}" if a[:1] == "-" and a[1:].isdecimal()
                    else a for a in args]
        every: dict[str, list[str]] = {}
        try:
            flags, operands, values = parse_opts(self.name, args, o.short, dict(o.long),
                                                 o.with_value, every, o.stop_at_operand)
        except BadOption as exc:
            first = str(exc).split("\n")[0]
            ctx.err(str(exc) if o.usage is None else f"{first}\n{o.usage}" if o.usage else first)
            return o.usage_status
        return self.fn(ctx, Args(flags, operands, values, every, args))


@overload
def command(name: str, *aliases: str, opts: None = None, builtin: bool = False,
            program: bool | None = None) -> Callable[[CommandFn], Command]: ...


@overload
def command(name: str, *aliases: str, opts: Opts, builtin: bool = False,
            program: bool | None = None) -> Callable[[ParsedFn], Command]: ...


def command(name: str, *aliases: str, opts: Opts | None = None, builtin: bool = False,
            program: bool | None = None) -> Callable[[Any], Command]:
    """Declare a command named ``name`` (and ``aliases``). Without ``opts`` the function is
    ``(ctx, args: list[str]) -> status``; with ``opts`` it is ``(ctx, args: Args) -> status``.
    ``program`` defaults to ``not builtin``."""

    def declare(fn: Callable[..., int]) -> Command:
        return Command((name, *aliases), fn, opts, builtin,
                       (not builtin) if program is None else program)

    return declare


class Registry(Mapping[str, Command]):
    """Name -> `Command` (immutable: copying a shell shares it)."""

    def __init__(self, commands: Iterable[Command] = ()) -> None:
        table: dict[str, Command] = {}
        for c in commands:
            for n in c.names:
                table[n] = c
        self._table = table

    @classmethod
    def from_modules(cls, *modules: ModuleType) -> Registry:
        """Every `Command` defined at the top level of ``modules`` (in order; later wins)."""
        found: list[Command] = []
        for m in modules:
            found.extend(v for v in vars(m).values() if isinstance(v, Command))
        return cls(found)

    def adding(self, *commands: Command) -> Registry:
        """A registry with ``commands`` added (replacing same-named ones)."""
        return Registry([*self._table.values(), *commands])

    def __getitem__(self, name: str) -> Command:
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __deepcopy__(self, memo: dict[int, Any]) -> Registry:
        return self

    def __repr__(self) -> str:
        return f"Registry({len(self._table)} commands)"

"""The syntax tree of a parsed command line (immutable, deep-copyable dataclasses).

A `Word` is a tuple of parts ``(kind, text, quoted)``: ``kind`` is ``"lit"``
(literal text; unquoted literal text takes part in brace expansion and
globbing), ``"var"`` (a parameter: ``text`` is its name, e.g. ``"HOME"``,
``"?"``, ``"1"``), ``"cmd"`` (a command substitution: ``text`` is the inner
source), ``"arith"`` (``$((...))``) or ``"tilde"`` (``~`` or ``~user``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

__all__ = [
    "AndOr",
    "Command",
    "For",
    "Group",
    "If",
    "Part",
    "Pipeline",
    "Redirect",
    "Seq",
    "Simple",
    "While",
    "Word",
    "word_text",
]

Part = tuple[str, str, bool]
Word = tuple[Part, ...]


def word_text(word: Word) -> str | None:
    """The text of a word made of unquoted literal text only (keywords, names), else None."""
    if len(word) == 1 and word[0][0] == "lit" and not word[0][2]:
        return word[0][1]
    return None


@dataclass(frozen=True)
class Redirect:
    """``fd op target``: ops ``>``, ``>>``, ``<``, ``&>``, ``&>>``, or ``>&`` (``target`` an fd)."""

    fd: int
    op: str
    target: Word


@dataclass(frozen=True)
class Simple:
    """``NAME=value ... word ... redirections``."""

    assigns: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True)
class Pipeline:
    """``[!] cmd | cmd | ...``."""

    commands: tuple[Command, ...]
    negate: bool = False


@dataclass(frozen=True)
class AndOr:
    """Pipelines joined by ``&&``/``||``: ``parts[0]`` has op ``""``."""

    parts: tuple[tuple[str, Pipeline], ...]


@dataclass(frozen=True)
class Seq:
    """A command list: and-or lists separated by ``;``, ``&`` or newlines."""

    items: tuple[AndOr, ...]


@dataclass(frozen=True)
class For:
    """``for var [in words]; do body; done`` (no ``in``: the positional parameters)."""

    var: str
    words: tuple[Word, ...] | None
    body: Seq
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True)
class If:
    """``if c; then b; [elif c; then b;] [else b;] fi``."""

    clauses: tuple[tuple[Seq, Seq], ...]
    orelse: Seq | None
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True)
class While:
    """``while|until cond; do body; done``."""

    cond: Seq
    body: Seq
    until: bool = False
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True)
class Group:
    """``{ list; }`` or, with ``subshell``, ``( list )``."""

    body: Seq
    subshell: bool = False
    redirects: tuple[Redirect, ...] = ()


Command = Union[Simple, For, If, While, Group]  # noqa: UP007 (a runtime alias on 3.10)

"""The standard command table: every `registry.Command` the ``cmd_*`` modules declare.

To add a command, declare it with `registry.command` in the ``cmd_*`` module it belongs to
(or a new one listed in `MODULES`); see docs/terminal.md.
"""

from __future__ import annotations

from functools import lru_cache

from . import (
    cmd_chmod,
    cmd_core,
    cmd_files,
    cmd_find,
    cmd_gnome,
    cmd_grep,
    cmd_ls,
    cmd_misc,
    cmd_stream,
    cmd_system,
    cmd_text,
)
from .registry import Registry

__all__ = ["MODULES", "standard_commands"]

MODULES = (cmd_core, cmd_misc, cmd_files, cmd_chmod, cmd_find, cmd_ls, cmd_text, cmd_grep,
           cmd_gnome, cmd_system, cmd_stream)


@lru_cache(maxsize=1)
def standard_commands() -> Registry:
    """The commands of Ubuntu's bash and coreutils that the terminal runs."""
    return Registry.from_modules(*MODULES)

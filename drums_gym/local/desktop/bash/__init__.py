"""A small bash over the simulated filesystem, for the Terminal window.

Parsing (`lexer`, `parser`), expansion (`expand`, `globbing`), execution
(`interp`) and the commands (`cmd_*`) are pure Python over
`drums_gym.local.desktop.fs.FileSystem`: nothing is run on the real machine.
`BashSession` is the interactive front end a terminal feeds lines to.
"""

from .session import PASSWORD, BashSession, Reply

__all__ = ["PASSWORD", "BashSession", "Reply"]

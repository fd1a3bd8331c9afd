"""`TaskFileError`: a task file the local host cannot run, refused when it is loaded."""

from __future__ import annotations

__all__ = ["TaskFileError"]


class TaskFileError(ValueError):
    """A task file is malformed or names something the simulator does not have.

    ``source`` is the file (or a label for in-memory data); the message names it and
    what was wrong, e.g. ``tasks/x.json: unknown getter 'vm_file' (known: ...)``."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source, self.problem = source, problem

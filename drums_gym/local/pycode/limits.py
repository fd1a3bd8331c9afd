"""The OS limits agent Python runs under (set on its process before the sandbox starts)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PyLimits"]


@dataclass(frozen=True)
class PyLimits:
    """rlimits of the sandboxed interpreter, and the owner's own bounds on what it sends.

    The wall clock is the action's work budget (``Limits.seconds``): the owner SIGKILLs the
    interpreter when it runs out. ``cpu_s`` is a second line for a busy loop.
    """

    memory_bytes: int = 512 * 1024 * 1024  # RLIMIT_AS
    cpu_s: int = 10  # RLIMIT_CPU
    processes: int = 32  # RLIMIT_NPROC, counted per run (each run has its own outer uid)
    file_bytes: int = 1024 * 1024  # RLIMIT_FSIZE
    open_files: int = 64  # RLIMIT_NOFILE
    tmp_bytes: int = 16 * 1024 * 1024  # the private /tmp (tmpfs)
    message_bytes: int = 1024 * 1024  # longest line the interpreter may send the owner

    def prlimit_argv(self) -> list[str]:
        """``prlimit`` (util-linux) setting these limits, soft and hard, then exec'ing on."""
        return [
            "/usr/bin/prlimit",
            f"--as={self.memory_bytes}",
            f"--cpu={self.cpu_s}",
            f"--nproc={self.processes}",
            f"--fsize={self.file_bytes}",
            f"--nofile={self.open_files}",
            "--core=0",
            "--",
        ]

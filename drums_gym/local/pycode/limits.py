"""The OS limits agent Python runs under, on top of its desktop's sandbox's own."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PyLimits"]


@dataclass(frozen=True)
class PyLimits:
    """rlimits of the sandboxed interpreter, and the owner's own bounds on what it sends.

    The interpreter is one of its desktop's programs: the desktop's limits hold it too
    (processes, memory with the tree, CPU share, file size, open files; `SandboxLimits`).
    These are lower, per interpreter. The wall clock is the action's work budget
    (``Limits.seconds``): the interpreter is SIGKILLed when it runs out. ``cpu_s`` is a
    second line for a busy loop.
    """

    memory_bytes: int = 512 * 1024 * 1024  # RLIMIT_AS
    cpu_s: int = 10  # RLIMIT_CPU
    message_bytes: int = 1024 * 1024  # longest line the interpreter may send the owner

    def prlimit_argv(self) -> list[str]:
        """``prlimit`` (util-linux, in the sandbox's /usr) setting these limits, soft and
        hard, then exec'ing on."""
        return ["/usr/bin/prlimit", f"--as={self.memory_bytes}", f"--cpu={self.cpu_s}",
                "--core=0", "--"]

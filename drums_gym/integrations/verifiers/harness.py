"""`DrumsChatHarness`: verifiers' plain chat loop, run with this interpreter (no uv).

verifiers' tool-less ``null`` harness runs its chat program through ``uv``, which
installs uv and the program's packages on first use; those packages (openai, httpx, mcp,
tenacity) are verifiers' own dependencies, so under the local ``subprocess`` runtime the
program can run with the interpreter that runs verifiers, with nothing installed.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

from verifiers.v1.harnesses.null import NullHarness
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE, launch_chat_program

__all__ = ["DrumsChatHarness"]


class _ThisInterpreter:
    """The runtime, except that a chat program runs with ``sys.executable``. The program
    goes in the runtime's own working folder (each rollout's runtime has its own, so
    concurrent rollouts never share a half-written file)."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(
        self, script: str | bytes, env: dict[str, str] | None = None, *, activate: bool = True
    ) -> list[str]:
        data = script.encode() if isinstance(script, str) else script
        path = f"drums-chat-{hashlib.sha256(data).hexdigest()[:16]}.py"
        await self._runtime.write(path, data)
        return [sys.executable, path]


class DrumsChatHarness(NullHarness):
    """The ``null`` chat loop without uv: for the local ``subprocess`` runtime."""

    async def setup(self, runtime: Any) -> None:
        """Nothing to install."""

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> Any:
        system_prompt, prompt = self.resolve_prompt(data)
        return await launch_chat_program(
            CHAT_PROGRAM_SOURCE,
            self.config,
            ctx,
            trace,
            _ThisInterpreter(runtime),
            endpoint,
            secret,
            mcp_urls,
            system_prompt,
            prompt,
            extra_args=[f"--tool-interception-url={tool_interception_url}"]
            if tool_interception_url
            else (),
        )

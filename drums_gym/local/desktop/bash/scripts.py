"""Running files as scripts: ``bash FILE`` and ``./x.sh`` (interpreted, never executed)."""

from __future__ import annotations

from .context import Ctx

__all__ = ["run_path", "run_script"]


def run_script(ctx: Ctx, name: str, args: list[str]) -> int:
    """``bash FILE ARGS``: run a file's text as a script in a subshell."""
    p = ctx.path(name)
    if not ctx.fs.is_file(p):
        why = "Is a directory" if ctx.fs.is_dir(p) else "No such file or directory"
        ctx.err(f"bash: {name}: {why}")
        return 126 if ctx.fs.is_dir(p) else 127
    text = ctx.fs.read_file(p).decode(errors="replace")
    state = ctx.state

    def body() -> int:
        state.positional = list(args)
        return ctx.interp.run_source(text, ctx.io)

    saved = state.positional
    try:
        return ctx.interp.subshell(body)
    finally:
        state.positional = saved


def run_path(ctx: Ctx, name: str, args: list[str]) -> int:
    """Run ``./script.sh``: shell scripts are interpreted; other programs cannot run here."""
    p, fs = ctx.path(name), ctx.fs
    if not fs.exists(p):
        ctx.err(f"bash: {name}: No such file or directory")
        return 127
    if fs.is_dir(p):
        ctx.err(f"bash: {name}: Is a directory")
        return 126
    if not ctx.may(p, "x") or not ctx.mode(p) & 0o111:
        ctx.err(f"bash: {name}: Permission denied")
        return 126
    first = fs.read_file(p).decode(errors="replace").split("\n", 1)[0]
    if first.startswith("#!") and not any(sh in first for sh in ("bash", "/sh", " sh")):
        ctx.err(f"bash: {name}: cannot execute: required file not found")
        return 127
    return run_script(ctx, name, args)

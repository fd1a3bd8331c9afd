"""``chmod``: octal and symbolic modes (``u+x,go-w``, ``a=rX``), ``-R``, ``-v``/``-c``."""

from __future__ import annotations

from .cmd_files import join_path, missing_operand, walk
from .context import USER, Ctx
from .modes import parse_mode
from .registry import command

__all__: list[str] = []


@command("chmod")
def chmod(ctx: Ctx, args: list[str]) -> int:
    flags: set[str] = set()
    spec: str | None = None
    ops: list[str] = []
    for a in args:
        if spec is None and a.startswith("-") and len(a) > 1 and all(c in "rwxXst" for c in a[1:]):
            spec = a
        elif a in ("-R", "--recursive", "-v", "--verbose", "-c", "--changes", "-f", "--silent"):
            flags.add(a.lstrip("-")[0].upper() if a in ("-R", "--recursive") else a.lstrip("-")[0])
        elif a.startswith("-") and len(a) > 1 and spec is None and not a[1:].isdecimal():
            ctx.err(f"chmod: invalid option -- '{a[1]}'\nTry 'chmod --help' for more information.")
            return 1
        elif spec is None:
            spec = a
        else:
            ops.append(a)
    if spec is None:
        return missing_operand(ctx, "chmod")
    if not ops:
        ctx.err(f"chmod: missing operand after '{spec}'\nTry 'chmod --help' for more information.")
        return 1
    if parse_mode(spec, 0o644, False) is None:
        ctx.err(f"chmod: invalid mode: ‘{spec}’\nTry 'chmod --help' for more information.")
        return 1
    status, fs = 0, ctx.fs
    for arg in ops:
        p = ctx.path(arg)
        if not fs.exists(p):
            ctx.err(f"chmod: cannot access '{arg}': No such file or directory")
            status = 1
            continue
        for path in walk(fs, p) if "R" in flags else [p]:
            if not ctx.root and ctx.owner(path) != USER:
                shown = arg if path == p else join_path(arg, path[len(p) + 1:])
                ctx.err(f"chmod: changing permissions of '{shown}': Operation not permitted")
                status = 1
                continue
            old = ctx.mode(path)
            new = parse_mode(spec, old, fs.is_dir(path))
            fs.chmod(path, old if new is None else new)
            if "v" in flags or ("c" in flags and new != old):
                shown = arg if path == p else join_path(arg, path[len(p) + 1:])
                ctx.out(f"mode of '{shown}' changed from {old:04o} to {new:04o}\n")
    return status



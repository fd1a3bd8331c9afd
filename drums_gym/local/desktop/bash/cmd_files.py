"""File commands: mkdir, rmdir, touch, mv, cp, rm (coreutils' behaviour and messages)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ...budget import charge, charge_bytes
from ..fs import FileSystem
from .context import Ctx
from .dates import parse_date, parse_stamp
from .modes import UMASK, parse_mode
from .registry import Args, Opts, command

__all__ = ["join_path", "missing_operand", "walk"]



def walk(fs: FileSystem, path: str) -> Iterator[str]:
    """``path`` and everything below it, parents first, names in sorted order (iterative:
    any depth; every entry charges the work budget)."""
    stack = [path]
    while stack:
        p = stack.pop()
        charge()
        yield p
        if fs.is_dir(p):
            stack.extend(f"{p.rstrip('/')}/{name}" for name in reversed(fs.listdir(p)))


def _base(arg: str) -> str:
    return arg.rstrip("/").rsplit("/", 1)[-1] or arg


def join_path(arg: str, name: str) -> str:
    """``arg/name`` as the user would write it."""
    return f"{arg.rstrip('/')}/{name}" if arg.rstrip("/") else f"/{name}"


def missing_operand(ctx: Ctx, prog: str, after: str | None = None) -> int:
    what = "missing operand" if after is None else (
        f"missing destination file operand after '{after}'")
    if prog in ("mv", "cp") and after is None:
        what = "missing file operand"
    ctx.err(f"{prog}: {what}\nTry '{prog} --help' for more information.")
    return 1


def _why(ctx: Ctx, path: str) -> str:
    """Why creating ``path`` fails (parent missing / not a dir / permission)."""
    parent = path.rsplit("/", 1)[0] or "/"
    if not ctx.fs.exists(parent):
        return "No such file or directory"
    if not ctx.fs.is_dir(parent):
        return "Not a directory"
    return "Permission denied" if not ctx.may_change(path) else ""


@command("mkdir", opts=Opts("pvm", {"parents": "p", "verbose": "v", "mode": "m"},
                            with_value="m"))
def mkdir(ctx: Ctx, a: Args) -> int:
    flags, ops, vals = a.flags, a.operands, a.values
    if not ops:
        return missing_operand(ctx, "mkdir")
    mode = None
    if "m" in vals:
        mode = parse_mode(vals["m"], 0o777, True)
        if mode is None:
            ctx.err(f"mkdir: invalid mode ‘{vals['m']}’")
            return 1
    status = 0
    for arg in ops:
        p = ctx.path(arg)
        fs = ctx.fs
        if "p" in flags:
            first_missing = p
            while not fs.exists(first_missing.rsplit("/", 1)[0] or "/"):
                first_missing = first_missing.rsplit("/", 1)[0]
            problem = ""
            if fs.exists(p):
                problem = "" if fs.is_dir(p) else "File exists"
            elif not fs.is_dir(first_missing.rsplit("/", 1)[0] or "/"):
                problem = "Not a directory"
            elif not ctx.may_change(first_missing):
                problem = "Permission denied"
            if problem:
                ctx.err(f"mkdir: cannot create directory ‘{arg}’: {problem}")
                status = 1
                continue
            existed = fs.exists(p)
            fs.mkdir(p, parents=True, mode=mode)
        else:
            problem = "File exists" if fs.exists(p) else _why(ctx, p)
            if problem:
                ctx.err(f"mkdir: cannot create directory ‘{arg}’: {problem}")
                status = 1
                continue
            existed = False
            fs.mkdir(p, mode=mode)
        if "v" in flags and not existed:
            ctx.out(f"mkdir: created directory '{arg}'\n")
    return status


@command("rmdir", opts=Opts("pv", {"parents": "p", "verbose": "v"}))
def rmdir(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    if not ops:
        return missing_operand(ctx, "rmdir")
    status = 0
    for arg in ops:
        p, fs = ctx.path(arg), ctx.fs
        problem = ""
        if not fs.exists(p):
            problem = "No such file or directory"
        elif not fs.is_dir(p):
            problem = "Not a directory"
        elif fs.listdir(p):
            problem = "Directory not empty"
        elif not ctx.may_change(p):
            problem = "Permission denied"
        if problem:
            ctx.err(f"rmdir: failed to remove '{arg}': {problem}")
            status = 1
            continue
        fs.remove(p, recursive=False)
        if "v" in flags:
            ctx.out(f"rmdir: removing directory, '{arg}'\n")
    return status


@command("touch", opts=Opts("camdtr", {"no-create": "c", "date": "d", "reference": "r"},
                            with_value="dtr"))
def touch(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    if not ops:
        ctx.err("touch: missing file operand\nTry 'touch --help' for more information.")
        return 1
    when = _touch_time(ctx, a)
    if when is False:
        return 1
    status = 0
    for arg in ops:
        p, fs = ctx.path(arg), ctx.fs
        if fs.is_file(p):
            if not ctx.may(p, "w"):
                ctx.err(f"touch: cannot touch '{arg}': Permission denied")
                status = 1
            elif when is None:
                fs.write_file(p, fs.read_file(p))
            else:
                fs.set_mtime(p, when)
            continue
        if fs.exists(p):
            if when is not None:
                fs.set_mtime(p, when)
            continue
        if "c" in flags:
            continue
        problem = _why(ctx, p)
        if problem:
            ctx.err(f"touch: cannot touch '{arg}': {problem}")
            status = 1
            continue
        fs.write_file(p, b"")
        if when is not None:
            fs.set_mtime(p, when)
    return status


def _touch_time(ctx: Ctx, a: Args) -> float | bool | None:
    """The time ``-d``/``-t``/``-r`` give (None: now; False after printing an error)."""
    now = ctx.fs.clock.now()
    if "d" in a.values:
        when = parse_date(a.values["d"], now)
        if when is None:
            ctx.err(f"touch: invalid date format ‘{a.values['d']}’")
            return False
        return when
    if "t" in a.values:
        when = parse_stamp(a.values["t"])
        if when is None:
            ctx.err(f"touch: invalid date format ‘{a.values['t']}’")
            return False
        return when
    if "r" in a.values:
        ref = ctx.path(a.values["r"])
        if not ctx.fs.exists(ref):
            ctx.err(f"touch: failed to get attributes of '{a.values['r']}': "
                    "No such file or directory")
            return False
        return ctx.fs.stat(ref).st_mtime
    return None


def _targets(ctx: Ctx, prog: str, ops: list[str], flags: set[str]) -> list[tuple[str, str]] | None:
    """(source arg, destination arg) pairs for mv/cp, or None after printing an error."""
    if not ops:
        missing_operand(ctx, prog)
        return None
    if len(ops) == 1:
        missing_operand(ctx, prog, ops[0])
        return None
    dest, srcs = ops[-1], ops[:-1]
    into = ctx.is_dir(ctx.path(dest)) and "T" not in flags
    if len(srcs) > 1 and not into:
        ctx.err(f"{prog}: target '{dest}' is not a directory")
        return None
    return [(s, join_path(dest, _base(s)) if into else dest) for s in srcs]


def _parents_targets(ctx: Ctx, ops: list[str]) -> list[tuple[str, str]] | None:
    """``cp --parents SRC... DIR``: each SRC lands at DIR/SRC; missing folders are made."""
    if len(ops) < 2:
        missing_operand(ctx, "cp", *ops[:1])
        return None
    dest, srcs = ops[-1], ops[:-1]
    if not ctx.is_dir(ctx.path(dest)):
        ctx.err("cp: with --parents, the destination must be a directory\n"
                "Try 'cp --help' for more information.")
        return None
    pairs = []
    for src in srcs:
        rel = "/".join(p for p in src.split("/") if p not in ("", "."))
        target = join_path(dest, rel)
        parent = ctx.path(target).rsplit("/", 1)[0]
        if rel and not ctx.fs.is_dir(parent) and ctx.fs.exists(ctx.path(src)):
            with contextlib.suppress(OSError):  # cp reports the failure when it copies
                ctx.fs.mkdir(parent, parents=True)
        pairs.append((src, target))
    return pairs


@command("mv", opts=Opts("finvTu", {"force": "f", "no-clobber": "n", "verbose": "v"}))
def mv(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    pairs = _targets(ctx, "mv", ops, flags)
    if pairs is None:
        return 1
    status, fs = 0, ctx.fs
    for src, dst in pairs:
        sp, dp = ctx.path(src), ctx.path(dst)
        problem = ""
        if not fs.exists(sp):
            problem = f"cannot stat '{src}': No such file or directory"
        elif sp == dp:
            problem = f"'{src}' and '{dst}' are the same file"
        elif fs.is_dir(sp) and dp.startswith(sp + "/"):
            problem = f"cannot move '{src}' to a subdirectory of itself, '{dst}'"
        elif fs.exists(dp):
            if "n" in flags:
                continue
            if fs.is_dir(dp) and not fs.is_dir(sp):
                problem = f"cannot overwrite directory '{dst}' with non-directory"
            elif fs.is_dir(sp) and not fs.is_dir(dp):
                problem = f"cannot overwrite non-directory '{dst}' with directory '{src}'"
            elif fs.is_dir(dp) and fs.listdir(dp):
                problem = f"cannot move '{src}' to '{dst}': Directory not empty"
        if not problem:
            why = _why(ctx, dp) or ("" if ctx.may_change(sp) else "Permission denied")
            if why:
                problem = f"cannot move '{src}' to '{dst}': {why}"
        if problem:
            ctx.err(f"mv: {problem}")
            status = 1
            continue
        fs.rename(sp, dp)
        if "v" in flags:
            ctx.out(f"renamed '{src}' -> '{dst}'\n")
    return status


@command("cp", opts=Opts("rRafinvpTut", {
    "recursive": "r", "archive": "a", "force": "f", "no-clobber": "n", "verbose": "v",
    "preserve": "p", "parents": "P", "target-directory": "t"}, with_value="t"))
def cp(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, list(a.operands)
    if "t" in a.values:
        ops.append(a.values["t"])
    pairs = _parents_targets(ctx, ops) if "P" in flags else _targets(ctx, "cp", ops, flags)
    if pairs is None:
        return 1
    recursive = bool(flags & {"r", "R", "a"})
    status, fs = 0, ctx.fs
    for src, dst in pairs:
        sp, dp = ctx.path(src), ctx.path(dst)
        problem = ""
        if not fs.exists(sp):
            problem = f"cannot stat '{src}': No such file or directory"
        elif fs.is_dir(sp) and not recursive:
            problem = f"-r not specified; omitting directory '{src}'"
        elif sp == dp:
            problem = f"'{src}' and '{dst}' are the same file"
        elif fs.is_dir(sp) and (dp + "/").startswith(sp + "/"):
            problem = f"cannot copy a directory, '{src}', into itself, '{dst}'"
        if problem:
            ctx.err(f"cp: {problem}")
            status = 1
            continue
        status |= _copy(ctx, sp, dp, dst, src, flags)
    return status


def _copy(ctx: Ctx, sp: str, dp: str, dst: str, src: str, flags: set[str]) -> int:
    charge()
    fs = ctx.fs
    keep = bool(flags & {"p", "a"})
    mode = ctx.mode(sp)
    if fs.is_file(sp):
        if fs.is_dir(dp):
            ctx.err(f"cp: cannot overwrite directory '{dst}' with non-directory")
            return 1
        if fs.exists(dp) and "n" in flags:
            return 0
        why = ("" if ctx.may(dp, "w") else "Permission denied") if fs.exists(dp) else _why(ctx, dp)
        if why or not ctx.may(sp, "r"):
            what = f"open '{src}' for reading" if not why else f"create regular file '{dst}'"
            ctx.err(f"cp: cannot {what}: {why or 'Permission denied'}")
            return 1
        new_mode = mode if keep else (None if fs.exists(dp) else mode & ~UMASK)
        data = fs.read_file(sp)
        charge_bytes(len(data))
        fs.write_file(dp, data, mode=new_mode)
        if "v" in flags:
            ctx.out(f"'{src}' -> '{dst}'\n")
        return 0
    if fs.exists(dp) and not fs.is_dir(dp):
        ctx.err(f"cp: cannot overwrite non-directory '{dst}' with directory '{src}'")
        return 1
    if not fs.exists(dp):
        why = _why(ctx, dp)
        if why:
            ctx.err(f"cp: cannot create directory '{dst}': {why}")
            return 1
        fs.mkdir(dp, mode=mode if keep else mode & ~UMASK)
        if "v" in flags:
            ctx.out(f"'{src}' -> '{dst}'\n")
    status = 0
    for name in fs.listdir(sp):
        status |= _copy(ctx, f"{sp}/{name}", f"{dp}/{name}", join_path(dst, name),
                        join_path(src, name), flags)
    return status


@command("rm", opts=Opts("rRfidv", {
    "recursive": "r", "force": "f", "dir": "d", "verbose": "v", "interactive": "i",
    "no-preserve-root": ""}))
def rm(ctx: Ctx, a: Args) -> int:
    flags, ops = a.flags, a.operands
    if not ops:
        return 0 if "f" in flags else missing_operand(ctx, "rm")
    recursive = bool(flags & {"r", "R"})
    status, fs = 0, ctx.fs
    for arg in ops:
        if _base(arg) in (".", ".."):
            ctx.err(f"rm: refusing to remove '.' or '..' directory: skipping '{arg}'")
            status = 1
            continue
        p = ctx.path(arg)
        if p == "/" and recursive:
            ctx.err("rm: it is dangerous to operate recursively on '/'\n"
                    "rm: use --no-preserve-root to override this failsafe")
            status = 1
            continue
        problem = ""
        if not fs.exists(p):
            if "f" in flags:
                continue
            problem = "No such file or directory"
        elif fs.is_dir(p) and not recursive and not ("d" in flags and not fs.listdir(p)):
            problem = "Is a directory" if "d" not in flags else "Directory not empty"
        elif not ctx.may_change(p):
            problem = "Permission denied"
        if problem:
            ctx.err(f"rm: cannot remove '{arg}': {problem}")
            status = 1
            continue
        is_dir = fs.is_dir(p)
        fs.remove(p, recursive=True)
        if "v" in flags:
            ctx.out(f"removed {'directory ' if is_dir else ''}'{arg}'\n")
    return status



"""Small utilities: xargs, seq, basename, dirname, whoami, hostname, uname, date, sleep,
type/which, true/false (``id`` is in cmd_users)."""

from __future__ import annotations

import re
import shlex
from datetime import datetime, timezone

from ...budget import charge
from .context import USER, Ctx
from .registry import Args, Opts, command

__all__: list[str] = []


@command("xargs", opts=Opts("0adEILnPprstx", {
    "null": "0", "arg-file": "a", "delimiter": "d", "max-lines": "L", "max-args": "n",
    "max-procs": "P", "interactive": "p", "no-run-if-empty": "r", "max-chars": "s",
    "verbose": "t", "exit": "x", "show-limits": "", "process-slot-var": "V"},
    with_value="adEILnPsV", stop_at_operand=True))
def xargs(ctx: Ctx, a: Args) -> int:
    """``-n N``, ``-I REPL``, ``-0``; the other options of GNU xargs parse and change
    nothing here."""
    n = a.values.get("n", "0")
    if not n.isdecimal():
        ctx.err(f"xargs: invalid number \"{n}\" for -n option\n"
                "Try 'xargs --help' for more information.")
        return 1
    per, repl, nul = int(n), a.values.get("I"), "0" in a.flags
    cmd = a.operands or ["echo"]
    if repl is not None and not nul:
        status = 0
        for line in ctx.io.stdin.splitlines():
            if line.strip():
                status |= ctx.run([a.replace(repl, line) for a in cmd])
        return 123 if status else 0
    charge(1 + len(ctx.io.stdin) // 4)  # shlex (or the NUL split) reads it all
    if nul:
        items = [item for item in ctx.io.stdin.split("\0") if item]
        if repl is not None:
            status = 0
            for item in items:
                status |= ctx.run([a.replace(repl, item) for a in cmd])
            return 123 if status else 0
    try:
        items = items if nul else shlex.split(ctx.io.stdin)
    except ValueError:
        ctx.err("xargs: unmatched quote; by default quotes are special to xargs unless you "
                "use the -0 option")
        return 1
    if not items:
        return 0
    groups = [items[k:k + per] for k in range(0, len(items), per)] if per else [items]
    status = 0
    for g in groups:
        status |= ctx.run(cmd + g)
    return 123 if status else 0


@command("seq")
def seq(ctx: Ctx, args: list[str]) -> int:
    nums: list[int] = []
    for a in args:
        if not re.fullmatch(r"[-+]?[0-9]+", a.strip()):
            ctx.err(f"seq: invalid floating point argument: ‘{a}’\n"
                    "Try 'seq --help' for more information.")
            return 1
        nums.append(int(a))
    if not 1 <= len(nums) <= 3:
        ctx.err("seq: missing operand\nTry 'seq --help' for more information." if not nums
                else f"seq: extra operand ‘{args[3]}’\nTry 'seq --help' for more information.")
        return 1
    first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (
        (nums[0], 1, nums[1]) if len(nums) == 2 else tuple(nums))
    if step == 0:
        ctx.err(f"seq: invalid Zero increment value: ‘{args[1]}’\n"
                "Try 'seq --help' for more information.")
        return 1
    count = max(0, (last - first) // step + 1)
    # made and charged in chunks: ``seq 1 1e20`` stops at the budget with little in memory
    for start in range(0, count, 4096):
        charge(min(4096, count - start))
        ctx.out("".join(f"{first + step * k}\n" for k in range(start, min(count, start + 4096))))
    return 0


@command("basename")
def basename(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.err("basename: missing operand")
        return 1
    name = args[0].rstrip("/").rsplit("/", 1)[-1] or "/"
    if len(args) > 1 and name.endswith(args[1]) and name != args[1]:
        name = name[: -len(args[1])]
    ctx.out(name + "\n")
    return 0


@command("dirname")
def dirname(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.err("dirname: missing operand")
        return 1
    for a in args:
        head = a.rstrip("/").rsplit("/", 1)
        ctx.out(("." if len(head) == 1 else (head[0] or "/")) + "\n")
    return 0


@command("whoami")
def whoami(ctx: Ctx, args: list[str]) -> int:
    ctx.out(("root" if ctx.root else USER) + "\n")
    return 0


@command("hostname")
def hostname(ctx: Ctx, args: list[str]) -> int:
    ctx.out("ubuntu\n")
    return 0


@command("uname")
def uname(ctx: Ctx, args: list[str]) -> int:
    full = "Linux ubuntu 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 " \
           "x86_64 x86_64 x86_64 GNU/Linux"
    ctx.out((full if "-a" in args else ("ubuntu" if "-n" in args else "Linux")) + "\n")
    return 0


@command("date")
def date(ctx: Ctx, args: list[str]) -> int:
    now = datetime.fromtimestamp(ctx.fs.clock.now(), tz=timezone.utc)
    fmt = next((a[1:] for a in args if a.startswith("+")), "%a %b %e %H:%M:%S %Z %Y")
    ctx.out(now.strftime(fmt.replace("%e", f"{now.day:>2}")) + "\n")
    return 0


@command("sleep")
def sleep(ctx: Ctx, args: list[str]) -> int:
    try:
        seconds = sum(float(a.rstrip("s")) for a in args)
    except ValueError:
        ctx.err(f"sleep: invalid time interval ‘{args[0]}’")
        return 1
    ctx.fs.clock.seconds += max(0.0, min(seconds, 3600.0))
    return 0


def _type_or_which(ctx: Ctx, args: list[str], which: bool) -> int:
    status = 0
    for name in args:
        found = ctx.commands.get(name)
        if found is not None and found.builtin and not which:
            ctx.out(f"{name} is a shell builtin\n")
        elif found is not None and (found.program if which else not found.builtin):
            ctx.out(f"/usr/bin/{name}\n" if which else f"{name} is /usr/bin/{name}\n")
        elif (on_path := ctx.find_program(name)) is not None:
            ctx.out(f"{on_path}\n" if which else f"{name} is {on_path}\n")
        elif not which:
            ctx.err(f"bash: type: {name}: not found")
            status = 1
        else:
            status = 1
    return status


@command("which")
def which(ctx: Ctx, args: list[str]) -> int:
    return _type_or_which(ctx, args, which=True)


@command("type", builtin=True)
def type_(ctx: Ctx, args: list[str]) -> int:
    return _type_or_which(ctx, args, which=False)


@command("true", ":", builtin=True, program=True)
def true(ctx: Ctx, args: list[str]) -> int:
    return 0


@command("false", builtin=True, program=True)
def false(ctx: Ctx, args: list[str]) -> int:
    return 1



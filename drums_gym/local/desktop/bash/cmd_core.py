"""Shell builtins: cd, pwd, exit, export, unset, env, history, clear, sudo, test/[, read,
break/continue, source, bash -c / bash FILE."""

from __future__ import annotations

import re

from .context import Ctx
from .registry import Args, Opts, command
from .scripts import run_script
from .signals import BreakLoop, ExitShell

__all__ = ["MAX_SOURCE_NESTING", "SUDO_TIMEOUT", "reads_itself"]

SUDO_TIMEOUT = 15 * 60.0  # seconds of simulated time a sudo password is remembered
MAX_SOURCE_NESTING = 16  # bash's sourcenest_max, set (Ubuntu's bash has none and crashes)


@command("cd", builtin=True)
def cd(ctx: Ctx, args: list[str]) -> int:
    if len(args) > 1:
        ctx.err("bash: cd: too many arguments")
        return 1
    arg = args[0] if args else ctx.var("HOME")
    if arg == "-":
        arg = ctx.var("OLDPWD")
        if not arg:
            ctx.err("bash: cd: OLDPWD not set")
            return 1
        ctx.out(arg + "\n")
    p, fs = ctx.path(arg), ctx.fs
    why = ""
    if not fs.exists(p):
        why = "No such file or directory"
    elif not fs.is_dir(p):
        why = "Not a directory"
    elif not ctx.may(p, "x"):
        why = "Permission denied"
    if why:
        ctx.err(f"bash: cd: {arg}: {why}")
        return 1
    ctx.state.set_cwd(p)
    return 0


@command("pwd", builtin=True, program=True)
def pwd(ctx: Ctx, args: list[str]) -> int:
    ctx.out(ctx.cwd + "\n")
    return 0


@command("exit", "logout", builtin=True)
def exit_(ctx: Ctx, args: list[str]) -> int:
    if args and not re.fullmatch(r"-?[0-9]+", args[0]):
        ctx.err(f"bash: exit: {args[0]}: numeric argument required")
        raise ExitShell(2)
    raise ExitShell(int(args[0]) & 0xFF if args else ctx.state.status)


@command("export", builtin=True)
def export(ctx: Ctx, args: list[str]) -> int:
    st = ctx.state
    names = [a for a in args if a != "-p"]
    if not names:
        for name in sorted(st.exported):
            if name in st.vars:
                ctx.out(f'declare -x {name}="{st.vars[name]}"\n')
        return 0
    for a in names:
        name, eq, value = a.partition("=")
        if not name.replace("_", "a").isalnum() or name[0].isdecimal():
            ctx.err(f"bash: export: `{a}': not a valid identifier")
            return 1
        if eq:
            st.vars[name] = value
        st.exported.add(name)
    return 0


@command("unset", builtin=True)
def unset(ctx: Ctx, args: list[str]) -> int:
    for a in args:
        if a not in ("-v", "-f"):
            ctx.state.vars.pop(a, None)
            ctx.state.exported.discard(a)
    return 0


@command("env", "printenv")
def env(ctx: Ctx, args: list[str]) -> int:
    if args:
        return ctx.run(args)
    st = ctx.state
    for name in sorted(st.exported):
        if name in st.vars:
            ctx.out(f"{name}={st.vars[name]}\n")
    return 0


@command("history", builtin=True)
def history(ctx: Ctx, args: list[str]) -> int:
    if args[:1] == ["-c"]:
        ctx.state.history.clear()
        return 0
    for n, line in enumerate(ctx.state.history, start=1):
        ctx.out(f"{n:>5}  {line}\n")
    return 0


@command("clear")
def clear(ctx: Ctx, args: list[str]) -> int:
    ctx.out("\x1b[H\x1b[2J\x1b[3J")
    return 0


_SUDO_USAGE = ("usage: sudo -h | -K | -k | -V\nusage: sudo -v [-AknS] [-g group] [-h host] "
               "[-p prompt] [-u user]\nusage: sudo [-AbEHknPS] [-C num] [-D directory] "
               "[-g group] [-h host] [-p prompt] [-R directory] [-T timeout] [-u user] "
               "[VAR=value] [-i|-s] [<command>]")


@command("sudo", opts=Opts("AbCDEeghHiKklnPpRSsTUuVv", {
    "askpass": "A", "background": "b", "close-from": "C", "chdir": "D", "preserve-env": "E",
    "edit": "e", "group": "g", "set-home": "H", "host": "h", "login": "i",
    "remove-timestamp": "K", "reset-timestamp": "k", "list": "l", "non-interactive": "n",
    "preserve-groups": "P", "prompt": "p", "chroot": "R", "stdin": "S", "shell": "s",
    "command-timeout": "T", "other-user": "U", "user": "u", "version": "V", "validate": "v"},
    with_value="CDgpRTUu", stop_at_operand=True, usage=_SUDO_USAGE))
def sudo(ctx: Ctx, a: Args) -> int:
    st = ctx.state
    args = a.operands
    if (args and a.flags & {"S", "n"} and st.asks_password
            and st.sudo_until < ctx.fs.clock.now() and not _password_from_stdin(ctx, a)):
        return 1
    if a.flags & {"k", "K"}:
        st.sudo_until = -1.0
        if not args:
            return 0
    if "v" in a.flags:
        return 0
    if a.flags & {"i", "s"}:
        ctx.err("sudo: interactive root shells are not available in this terminal")
        return 1
    if not args:
        ctx.err(_SUDO_USAGE)
        return 1
    st.sudo_until = ctx.fs.clock.now() + SUDO_TIMEOUT
    name = args[0]
    found = ctx.commands.get(name)
    if (found is None and "/" not in name) or (found is not None and not found.program):
        ctx.err(f"sudo: {name}: command not found")
        return 1
    return ctx.run(args, root=True)


_SUDO_VALUED = frozenset("CDgpRTUu")
_PASSWORD = "password"  # the desktop user's (OSWorld's image)
_TRIES = 3


def reads_itself(args: list[str]) -> bool:
    """Whether ``sudo ARGS`` gets its password itself (``-S``: from standard input, ``-n``:
    never), rather than from the terminal's prompt.

    >>> reads_itself(["-S", "ls"]), reads_itself(["-Sp", "", "ls"]), reads_itself(["ls", "-S"])
    (True, True, False)
    """
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("--stdin", "--non-interactive"):
            return True
        if arg == "--" or not arg.startswith("-") or arg == "-":
            return False
        if arg.startswith("--"):
            i += 1 if "=" in arg else 2  # a long option's value is the next argument
            continue
        for k, ch in enumerate(arg[1:], 1):
            if ch in "Sn":
                return True
            if ch in _SUDO_VALUED:
                i += 0 if k < len(arg) - 1 else 1  # the value: the cluster's rest or next
                break
        i += 1
    return False


def _password_from_stdin(ctx: Ctx, a: Args) -> bool:
    """``-S``: read the password from standard input (sudo's prompt on stderr, up to three
    lines, the rest of the input left to the command); ``-n``: refuse, as sudo does
    without cached credentials."""
    if "S" not in a.flags:
        ctx.err("sudo: a password is required")
        return False
    prompt = a.values.get("p", "[sudo] password for user: ")
    data, start = ctx.io.stdin, 0
    for tries in range(_TRIES):
        ctx.io.err.append(prompt)
        if start >= len(data):
            ctx.err("")
            ctx.err("sudo: no password was provided")
            if tries:
                ctx.err(f"sudo: {tries} incorrect password attempt{'s' if tries > 1 else ''}")
            return False
        end = data.find("\n", start)
        end = len(data) if end < 0 else end
        typed, start = data[start:end], end + 1
        if typed == _PASSWORD:
            ctx.io.stdin = data[start:]
            ctx.state.sudo_until = ctx.fs.clock.now() + SUDO_TIMEOUT
            return True
        ctx.err("Sorry, try again.")
    ctx.err(f"sudo: {_TRIES} incorrect password attempts")
    return False


@command("test", builtin=True, program=True)
def test(ctx: Ctx, args: list[str]) -> int:
    return _test(ctx, args, "test")


@command("[", builtin=True, program=True)
def bracket(ctx: Ctx, args: list[str]) -> int:
    if not args or args[-1] != "]":
        ctx.err("bash: [: missing `]'")
        return 2
    return _test(ctx, args[:-1], "[")


def _test(ctx: Ctx, args: list[str], prog: str) -> int:
    def unary(op: str, arg: str) -> bool:
        p, fs = ctx.path(arg) if arg else "", ctx.fs
        checks = {
            "-e": lambda: fs.exists(p), "-f": lambda: fs.is_file(p), "-d": lambda: fs.is_dir(p),
            "-s": lambda: (fs.is_file(p) and bool(fs.read_file(p))) or fs.is_dir(p),
            "-r": lambda: fs.exists(p) and ctx.may(p, "r"),
            "-w": lambda: fs.exists(p) and ctx.may(p, "w"),
            "-x": lambda: fs.exists(p) and ctx.may(p, "x"),
            "-z": lambda: arg == "", "-n": lambda: arg != "",
        }
        return checks[op]()

    def single(a: list[str]) -> bool:
        if a and a[0] == "!":
            return not single(a[1:])
        if len(a) == 0:
            return False
        if len(a) == 1:
            return a[0] != ""
        if len(a) == 2 and a[0] in ("-e", "-f", "-d", "-s", "-r", "-w", "-x", "-z", "-n", "-a"):
            return unary("-e" if a[0] == "-a" else a[0], a[1])
        if len(a) == 3:
            x, op, y = a
            if op in ("=", "=="):
                return x == y
            if op == "!=":
                return x != y
            ints = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
                    "-gt": int.__gt__, "-ge": int.__ge__}
            if op in ints:
                for v in (x, y):
                    if not re.fullmatch(r"\s*[-+]?[0-9]+\s*", v):
                        raise ValueError(f"{v}: integer expression expected")
                return bool(ints[op](int(x), int(y)))
        raise ValueError(f"{a[0]}: unary operator expected" if len(a) == 2 else
                         "too many arguments")

    try:
        for op in ("-o", "-a"):
            if op in args[1:-1]:
                k = args.index(op, 1)
                left, right = single(args[:k]), single(args[k + 1:])
                return 0 if (left or right if op == "-o" else left and right) else 1
        return 0 if single(args) else 1
    except ValueError as exc:
        ctx.err(f"bash: {prog}: {exc}")
        return 2


@command("read", builtin=True)
def read(ctx: Ctx, args: list[str]) -> int:
    names = [a for a in args if not a.startswith("-")] or ["REPLY"]
    data = ctx.io.stdin
    if not data:
        return 1
    line, _, rest = data.partition("\n")
    ctx.io.stdin = rest
    if "-r" not in args:
        line = line.replace("\\", "")
    fields = line.split(None, len(names) - 1) if len(names) > 1 else [line.strip()]
    for k, name in enumerate(names):
        ctx.state.vars[name] = fields[k] if k < len(fields) else ""
    return 0


def _loop_control(ctx: Ctx, args: list[str], name: str, cont: bool) -> int:
    if len(args) > 1:
        ctx.err(f"bash: {name}: too many arguments")
        return 1
    if args and not re.fullmatch(r"-?[0-9]+", args[0]):
        ctx.err(f"bash: {name}: {args[0]}: numeric argument required")
        return 128
    levels = int(args[0]) if args else 1
    if levels < 1:
        ctx.err(f"bash: {name}: {args[0]}: loop count out of range")
        return 1
    if not ctx.interp.loops:
        ctx.err(f"bash: {name}: only meaningful in a `for', `while', or `until' loop")
        return 0
    raise BreakLoop(levels, cont)


@command("break", builtin=True)
def break_(ctx: Ctx, args: list[str]) -> int:
    return _loop_control(ctx, args, "break", cont=False)


@command("continue", builtin=True)
def continue_(ctx: Ctx, args: list[str]) -> int:
    return _loop_control(ctx, args, "continue", cont=True)


@command("source", ".", builtin=True)
def source(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.err("bash: source: filename argument required")
        return 2
    p = ctx.path(args[0])
    if not ctx.fs.is_file(p):
        ctx.err(f"bash: {args[0]}: No such file or directory")
        return 1
    interp = ctx.interp
    if interp.sources >= MAX_SOURCE_NESTING:
        ctx.err(f"bash: {args[0]}: maximum source nesting level exceeded ({MAX_SOURCE_NESTING})")
        return 1
    interp.sources += 1
    try:
        return interp.run_source(ctx.fs.read_file(p).decode(errors="replace"), ctx.io)
    finally:
        interp.sources -= 1


@command("bash", "sh")
def bash(ctx: Ctx, args: list[str]) -> int:
    if args[:1] == ["-c"] and len(args) > 1:
        return ctx.interp.subshell(lambda: ctx.interp.run_source(args[1], ctx.io))
    if not args:
        return 0
    return run_script(ctx, args[0], args[1:])



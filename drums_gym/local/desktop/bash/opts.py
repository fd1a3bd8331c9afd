"""Option parsing the way coreutils does it (bundled short flags, ``--long``, ``--``).

>>> flags, operands, values = parse_opts("rm", ["-rf", "a", "--", "-b"], "rfiv")
>>> sorted(flags), operands, values
(['f', 'r'], ['a', '-b'], {})
"""

from __future__ import annotations

from .context import Ctx

__all__ = ["BadOption", "parse_opts", "usage_error"]


class BadOption(Exception):
    """An unknown option; ``str()`` is the coreutils message (two lines), ``option`` the
    option as given (``-x``, ``--x``) for tools that word the error otherwise."""

    def __init__(self, message: str, option: str = "") -> None:
        super().__init__(message)
        self.option = option


def parse_opts(prog: str, args: list[str], short: str, long: dict[str, str] | None = None,
               with_value: str = "", every: dict[str, list[str]] | None = None,
               stop_at_operand: bool = False,
               ) -> tuple[set[str], list[str], dict[str, str]]:
    """Split ``args`` into (flags, operands, option values). ``with_value`` lists short
    options taking an argument (``-n 5`` / ``-n5``; a long name mapped to one takes
    ``--name=5`` or ``--name 5``, as getopt_long does); ``every`` (if given) collects all the
    values of each, in order. With ``stop_at_operand`` the first operand ends the options
    (getopt's ``+``: ``sudo ls -l``, ``xargs grep -n``). Raises `BadOption`."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    operands: list[str] = []
    long = long or {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands.extend(args[i + 1:])
            break
        if a.startswith("--") and len(a) > 2:
            name, sep, val = a[2:].partition("=")
            match = [k for k in long if k.startswith(name)]
            exact = name if name in long else (match[0] if len(match) == 1 else None)
            if exact is None:
                raise BadOption(f"{prog}: unrecognized option '{a}'\n"
                                f"Try '{prog} --help' for more information.", a)
            key = long[exact]
            if key:
                flags.add(key)
                if not sep and key in with_value:
                    i += 1
                    if i >= len(args):
                        raise BadOption(f"{prog}: option '--{exact}' requires an argument\n"
                                        f"Try '{prog} --help' for more information.",
                                        f"--{exact}")
                    val, sep = args[i], "="
                if sep:
                    values[key] = val
                    if every is not None:
                        every.setdefault(key, []).append(val)
        elif a.startswith("-") and len(a) > 1:
            for k, c in enumerate(a[1:], start=1):
                if c not in short:
                    raise BadOption(f"{prog}: invalid option -- '{c}'\n"
                                    f"Try '{prog} --help' for more information.", f"-{c}")
                if c in with_value:
                    rest = a[k + 1:]
                    if not rest:
                        i += 1
                        if i >= len(args):
                            raise BadOption(f"{prog}: option requires an argument -- '{c}'\n"
                                            f"Try '{prog} --help' for more information.",
                                            f"-{c}")
                        rest = args[i]
                    values[c] = rest
                    if every is not None:
                        every.setdefault(c, []).append(rest)
                    flags.add(c)
                    break
                flags.add(c)
        elif stop_at_operand:
            operands.extend(args[i:])
            break
        else:
            operands.append(a)
        i += 1
    return flags, operands, values


def usage_error(ctx: Ctx, exc: BadOption, status: int = 1) -> int:
    """Print a `BadOption` message and return ``status``."""
    ctx.err(str(exc))
    return status

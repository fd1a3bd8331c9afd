"""The ``drums-gym`` command line: ``serve``, ``tasks``, ``rollout``, ``eval``."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from .._loop import PolicyWarning
from .._version import __version__
from ..local import SERVER_STACK
from . import doctor, evaluate, report, rollout, serve, tasks

__all__ = ["main"]

#: subcommand modules; each has ``add_parser(subparsers)`` and ``run(args) -> int``
COMMANDS = [serve, tasks, rollout, evaluate, report, doctor]


def missing_extra(command: str, module: str) -> str:
    """The one line for a ``[local]`` module that is not installed."""
    install = "pip install 'drums-gym[local]'"
    if command == "serve":
        return (f"the local host needs the [local] extra ({module} is missing): {install}")
    return (f"no Drums host is given (--url or $DRUMS_URL), and the embedded local host needs "
            f"the [local] extra ({module} is missing): {install}, or give a host's --url")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand. No flag is taken by a prefix of its name
    (``--num-env`` is an error, not ``--num-envs``)."""
    parser = argparse.ArgumentParser(
        prog="drums-gym", description="Gymnasium environments over Drums desktops.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"drums-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    for subparser in sub.choices.values():
        subparser.allow_abbrev = False
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that an argument the subcommand does not know is
    reported with the subcommand's usage (argparse would show the top level's)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``drums-gym`` console script."""
    parser = build_parser()
    args = parse(parser, argv)
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if issubclass(category, PolicyWarning):  # one plain line, not a source location
                print(f"drums-gym {args.command}: warning: {message}", file=sys.stderr)
            else:
                shown(message, category, *rest, **kw)

        warnings.showwarning = show
        try:
            return int(args.run(args) or 0)
        except ModuleNotFoundError as exc:
            module = (exc.name or "").partition(".")[0]
            if module not in SERVER_STACK:  # said in one line, not as a traceback
                raise
            print(f"drums-gym {args.command}: error: {missing_extra(args.command, module)}",
                  file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())

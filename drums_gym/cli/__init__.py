"""The ``drums-gym`` command line: ``serve``, ``tasks``, ``rollout``, ``eval``."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from .._loop import PolicyWarning
from .._version import __version__
from . import doctor, evaluate, report, rollout, serve, tasks

__all__ = ["main"]

#: subcommand modules; each has ``add_parser(subparsers)`` and ``run(args) -> int``
COMMANDS = [serve, tasks, rollout, evaluate, report, doctor]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drums-gym", description="Gymnasium environments over Drums desktops."
    )
    parser.add_argument("--version", action="version", version=f"drums-gym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``drums-gym`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
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
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())

"""Shared pieces of the ``drums-gym`` subcommands: argument types, errors, vector infos."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from typing import Any

from ..wrappers._vector_info import info_at, member_info

__all__ = [
    "add_connection_args",
    "add_model_args",
    "add_output_args",
    "dump_json",
    "fail",
    "fit_to_terminal",
    "info_at",
    "member_info",
    "model_options",
    "positive_int",
    "terminal_width",
    "token_hint",
]


def positive_int(text: str) -> int:
    """An argparse type: an int >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_connection_args(p: argparse.ArgumentParser) -> None:
    """``--url`` (default ``$DRUMS_URL``, else the embedded local host) and ``--token``
    (default ``$DRUMS_TOKEN``; the variable keeps it out of process listings)."""
    p.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="Drums host (default: $DRUMS_URL, else the embedded local host)",
    )
    p.add_argument(
        "--token",
        default=None,
        metavar="TOKEN",
        help="bearer token of the host (default: $DRUMS_TOKEN, which is better: a flag "
        "shows in process listings and shell history)",
    )


def add_output_args(p: argparse.ArgumentParser, *, progress: bool = True) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON summary on stdout")
    if progress:
        p.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="draw the live progress bar on stderr (default: only on a terminal)",
        )


def fail(command: str, exc: BaseException, args: argparse.Namespace | None = None) -> int:
    """Print a user error as one line on stderr and answer exit code 1. A host's 401 gets
    the one hint every command gives (`token_hint`, from ``args``' ``--url``/``--token``)."""
    from ..client import Unauthorized

    if isinstance(exc, Unauthorized) and args is not None:
        while isinstance(exc.__cause__, Unauthorized):  # the host's own words, not a hint
            exc = exc.__cause__
        message = f"{' '.join(str(exc).split())}; {token_hint(args)}"
    else:
        message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"drums-gym {command}: error: {message}", file=sys.stderr)
    return 1


def token_hint(args: argparse.Namespace) -> str:
    """What to do about a refused token, in the command line's words (``--token``)."""
    url = getattr(args, "url", None) or os.environ.get("DRUMS_URL") or "the embedded host"
    host = url if url == "the embedded host" else f"the host at {url}"
    if getattr(args, "token", None) or os.environ.get("DRUMS_TOKEN"):
        return f"{host} refused the token: give the token it was started with (--token T, " \
            "or $DRUMS_TOKEN)"
    return f"no token was given, and {host} needs one: give it with --token T (or $DRUMS_TOKEN)"


def dump_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    print(json.dumps(data, indent=2, allow_nan=False))


def terminal_width(default: int = 100) -> int:
    """Columns of stdout when it is a terminal, else ``default``."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size((default, 24)).columns
    return default


def fit_to_terminal(text: str, used: int = 0) -> str:
    """``text`` cut to the terminal's width less ``used`` columns; whole when stdout is not
    a terminal (logs and pipes keep everything)."""
    from ._table import truncate

    width = terminal_width(default=0)
    return truncate(text, max(20, width - used)) if width else text


def add_model_args(p: argparse.ArgumentParser) -> None:
    """``--base-url``, ``--api-key-env`` and ``--observation``: what ``--policy openai:MODEL``
    (`drums_gym.integrations.models.OpenAIPolicy`) is given."""
    g = p.add_argument_group("model policies (--policy openai:MODEL)")
    g.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="the OpenAI-compatible server (vLLM, SGLang, an API); default $OPENAI_BASE_URL",
    )
    g.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="the environment variable holding the API key (default OPENAI_API_KEY)",
    )
    g.add_argument(
        "--observation",
        default="screenshot",
        choices=("screenshot", "screenshot_a11y_tree", "a11y_tree"),
        help="what the model is shown each step (default screenshot)",
    )


def model_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `OpenAIPolicy` options of `add_model_args`' flags."""
    return {
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "observation": args.observation,
    }

"""``drums-gym report``: write an evaluation's ``report.html`` (a static page, no server).

    drums-gym report runs/my-eval        # writes runs/my-eval/report.html

``drums-gym eval --record --out DIR`` writes it at the end too (:func:`write_report`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..report import ReportError
from ..report import write_report as _write
from ._common import fail

__all__ = ["add_parser", "run", "write_report"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="write DIR/report.html from an evaluation's output folder",
        description="Write DIR/report.html: one self-contained page (open it in a browser; "
        "no server, no network) with the success rate per task and overall over valid "
        "episodes with 95% intervals, the episodes (filterable by task and outcome) and "
        "each recorded episode's trajectory, step by step (docs/report.md).",
    )
    p.add_argument("dir", metavar="DIR", help="the --out folder of drums-gym eval")
    p.set_defaults(run=run)


def write_report(directory: str | os.PathLike[str], command: str = "eval") -> Path | None:
    """The eval CLI's hook, called once the run is over: write ``directory/report.html``
    and return its path. A report that cannot be written never fails the evaluation: it
    prints one warning line on stderr (naming ``command``) and answers None."""
    try:
        return _write(directory)
    except (ReportError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"drums-gym {command}: warning: no report written: {message}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    try:
        path = _write(args.dir)
    except (ReportError, OSError) as exc:
        return fail("report", exc)
    print(f"wrote {path} (open it in a browser)")
    return 0

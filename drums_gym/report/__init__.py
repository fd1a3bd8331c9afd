"""The evaluation report: ``DIR/report.html`` from an evaluation's output folder.

One self-contained static page (inline CSS and JS, no network; frames are the recording's
PNGs, linked by relative paths): success per task and overall over valid episodes with
95% Wilson intervals as an error-bar chart, invalid episodes by reason, mean steps and
step latency; a table of episodes filterable by task and outcome; and each episode's
trajectory, step by step (the screen, the action with its mouse presses marked, the model's
reply, errors, timings) to the final verdict. See docs/report.md.

>>> from drums_gym.report import write_report
>>> path = write_report("runs/my-eval")          # doctest: +SKIP
>>> path.name                                    # doctest: +SKIP
'report.html'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ._clicks import Click, clicks_of
from ._data import (
    EPISODES_FILE,
    FAILED,
    INVALID,
    SOLVED,
    SUMMARY_FILE,
    Episode,
    ReportError,
    Run,
    Step,
    load_run,
    outcome_of,
)
from ._page import render_page
from ._stats import Stats, stats_of

__all__ = [
    "EPISODES_FILE",
    "FAILED",
    "INVALID",
    "REPORT_FILE",
    "REPORT_MODE",
    "SOLVED",
    "SUMMARY_FILE",
    "Click",
    "Episode",
    "ReportError",
    "Run",
    "Stats",
    "Step",
    "clicks_of",
    "load_run",
    "outcome_of",
    "render_page",
    "render_report",
    "stats_of",
    "write_report",
]

#: the report's file name inside the run's folder
REPORT_FILE = "report.html"
#: its mode: readable by all, as every other output of an evaluation (mkstemp makes 0600)
REPORT_MODE = 0o644


def render_report(directory: str | os.PathLike[str]) -> str:
    """The report's HTML for the run in ``directory`` (ReportError when it is not one)."""
    return render_page(load_run(directory))


def write_report(directory: str | os.PathLike[str]) -> Path:
    """Write ``directory/report.html`` (atomically: a temporary file, then a rename) and
    return its path. ReportError names what is wrong when ``directory`` is not the output
    folder of an evaluation."""
    folder = Path(directory)
    html = render_report(folder)
    target = folder / REPORT_FILE
    fd, temp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=folder)
    try:
        os.fchmod(fd, REPORT_MODE)  # mkstemp's 0600 would hide the page from a web server
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(html)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target

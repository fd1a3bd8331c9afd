"""The progress bar of ``rollout`` and ``eval``: tqdm on stderr, and one closing line.

The live bar is tqdm's, drawn only when the stream is a terminal (or forced with
``--progress``). Either way ``close()`` leaves one line with the count, the elapsed time
and the rate, so logs keep a record. The total may shrink while running (``shrink``):
a group whose members all finish early gives back the steps it did not take, so the
count is of steps actually taken.

>>> import io
>>> out = io.StringIO()
>>> with Progress(3, "steps", stream=out) as bar:
...     bar.update(3)
>>> out.getvalue().startswith("steps: 3/3 in ")
True
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from types import TracebackType
from typing import Any, TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """``5.2s``, ``3:07``, ``1:02:03``: short, for a progress line.

    >>> format_duration(5.24), format_duration(187), format_duration(3723)
    ('5.2s', '3:07', '1:02:03')
    """
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _tqdm(total: int | None, unit: str, stream: TextIO, mininterval: float) -> Any:
    """A tqdm bar, or None when tqdm is not installed (``pip install drums-gym[cli]``)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(
        total=total,
        desc=unit,
        unit="",
        file=stream,
        leave=False,  # the closing line below replaces it
        # the terminal's size (80x24 when it reports none, as a bare pty does: tqdm would
        # then draw nothing)
        ncols=min(120, shutil.get_terminal_size().columns),
        nrows=shutil.get_terminal_size().lines,
        mininterval=mininterval,
        miniters=1,
        bar_format="{desc} {bar:24} {n_fmt}/{total_fmt}  {rate_fmt}  ETA {remaining}",
    )


class Progress:
    """Counts work towards ``total`` and shows it on ``stream`` (stderr by default).

    Args:
        total: units of work expected (None: unknown).
        unit: what is counted (``"steps"``, ``"episodes"``); also the label.
        stream: where to draw (default ``sys.stderr``).
        enabled: draw the live bar: True forces it, False disables it, None (default)
            draws only when ``stream`` is a terminal. The closing line prints regardless.
        mininterval: seconds between two redraws of the live bar.

    Thread-safe: ``update`` may be called from worker threads.
    """

    def __init__(
        self,
        total: int | None,
        unit: str = "it",
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        mininterval: float = 0.1,
    ) -> None:
        if total is not None and (
            isinstance(total, bool) or not isinstance(total, int) or total < 0
        ):
            raise ValueError(f"total must be an int >= 0 or None, got {total!r}")
        self.total = total
        self.unit = unit
        self.count = 0
        self._stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self._stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
        self.enabled = enabled
        self._bar = _tqdm(total, unit, self._stream, mininterval) if enabled else None
        self._start = time.monotonic()
        self._closed = False
        self._lock = threading.Lock()

    def update(self, n: int = 1, *, note: str | None = None) -> None:
        """Add ``n`` units of done work (and replace the note shown after the bar)."""
        self.set(self.count + n, note=note)

    def set(self, count: int, *, note: str | None = None) -> None:
        """Set the done count."""
        with self._lock:
            self.count = count
            if self._bar is not None and not self._closed:
                if note is not None:
                    self._bar.set_description_str(f"{self.unit} {note}", refresh=False)
                self._bar.update(count - self._bar.n)

    def shrink(self, n: int) -> None:
        """Take ``n`` units off the total (work that turned out not to be needed)."""
        with self._lock:
            if self.total is None or n <= 0:
                return
            self.total = max(self.count, self.total - n)
            if self._bar is not None and not self._closed:
                self._bar.total = self.total
                self._bar.refresh()

    def final_line(self) -> str:
        """The closing line: ``steps: 30/30 in 8.8s (3.4/s)``."""
        elapsed = max(0.0, time.monotonic() - self._start)
        count = f"{self.count}/{self.total}" if self.total is not None else str(self.count)
        text = f"{self.unit}: {count} in {format_duration(elapsed)}"
        if elapsed > 0:
            text += f" ({self.count / elapsed:.1f}/s)"
        return text

    def close(self) -> None:
        """Erase the live bar and print the closing line. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._bar is not None:
                self._bar.close()
            self._stream.write(self.final_line() + "\n")
            self._stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

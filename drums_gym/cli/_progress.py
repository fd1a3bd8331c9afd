"""A tiny progress bar on stderr: counts, rate and ETA; no dependencies.

The bar redraws in place only on a terminal (or when forced); either way ``close()``
prints one final line with the count, the elapsed time and the rate, so logs keep a record.

>>> import io
>>> out = io.StringIO()
>>> with Progress(3, "steps", stream=out, clock=iter(range(10)).__next__) as bar:
...     bar.update(3)
>>> out.getvalue()
'steps: 3/3 in 1.0s (3.0/s)\\n'
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "format_duration"]

#: seconds between two redraws of the bar
REDRAW_INTERVAL = 0.1


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


class Progress:
    """Counts work towards ``total`` and shows it on ``stream`` (stderr by default).

    Args:
        total: units of work expected (None: unknown, no bar or ETA).
        unit: what is counted (``"steps"``, ``"episodes"``); also the label.
        stream: where to draw (default ``sys.stderr``).
        enabled: redraw a live bar: True forces it, False disables it, None (default)
            draws only when ``stream`` is a terminal. The final line prints regardless.
        clock: seconds as a float (default ``time.monotonic``); for tests.

    Thread-safe: ``update`` may be called from worker threads.
    """

    def __init__(
        self,
        total: int | None,
        unit: str = "it",
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        width: int = 24,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if total is not None and (isinstance(total, bool) or not isinstance(total, int)
                                  or total < 0):
            raise ValueError(f"total must be an int >= 0 or None, got {total!r}")
        self.total = total
        self.unit = unit
        self.count = 0
        self.note = ""
        self._stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self._stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
        self.enabled = enabled
        self._width = width
        self._clock = clock
        self._start = clock()
        self._last_draw = float("-inf")
        self._drawn_len = 0
        self._closed = False
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ counting
    def update(self, n: int = 1, *, note: str | None = None) -> None:
        """Add ``n`` units of done work (and replace the note shown after the bar)."""
        with self._lock:
            self.count += n
            if note is not None:
                self.note = note
            self._draw(force=False)

    def set(self, count: int, *, note: str | None = None) -> None:
        """Set the done count (e.g. when a group ends before its step budget)."""
        with self._lock:
            self.count = count
            if note is not None:
                self.note = note
            self._draw(force=False)

    def shrink(self, n: int) -> None:
        """Take ``n`` units off the total (work that turned out not to be needed)."""
        with self._lock:
            if self.total is not None:
                self.total = max(self.count, self.total - max(0, n))
            self._draw(force=False)

    # ------------------------------------------------------------------ drawing
    def _elapsed(self) -> float:
        return max(0.0, self._clock() - self._start)

    def _rate(self, elapsed: float) -> float | None:
        return self.count / elapsed if elapsed > 0 else None

    def line(self) -> str:
        """The live line: ``steps [#####-----] 12/30  3.4/s  ETA 5.2s  note``."""
        elapsed = self._elapsed()
        rate = self._rate(elapsed)
        parts = [self.unit]
        if self.total:
            filled = min(self._width, int(self._width * self.count / self.total))
            parts.append("[" + "#" * filled + "-" * (self._width - filled) + "]")
            parts.append(f"{self.count}/{self.total}")
        else:
            parts.append(str(self.count))
        if rate is not None:
            parts.append(f"{rate:.1f}/s")
        if self.total and rate:
            remaining = max(0, self.total - self.count) / rate
            parts.append(f"ETA {format_duration(remaining)}")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)

    def final_line(self) -> str:
        """The closing line: ``steps: 30/30 in 8.8s (3.4/s)``."""
        elapsed = self._elapsed()
        rate = self._rate(elapsed)
        count = f"{self.count}/{self.total}" if self.total is not None else str(self.count)
        text = f"{self.unit}: {count} in {format_duration(elapsed)}"
        if rate is not None:
            text += f" ({rate:.1f}/s)"
        return text

    def _draw(self, *, force: bool) -> None:
        if not self.enabled or self._closed:
            return
        now = self._clock()
        if not force and now - self._last_draw < REDRAW_INTERVAL:
            return
        self._last_draw = now
        text = self.line()
        pad = max(0, self._drawn_len - len(text))
        self._stream.write("\r" + text + " " * pad)
        self._stream.flush()
        self._drawn_len = len(text)

    def close(self) -> None:
        """Erase the live bar and print the final line. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            text = self.final_line()
            if self.enabled and self._drawn_len:
                pad = max(0, self._drawn_len - len(text))
                self._stream.write("\r" + text + " " * pad + "\n")
            else:
                self._stream.write(text + "\n")
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

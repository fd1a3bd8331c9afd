"""A suite's folder on disk: ``episodes.jsonl`` appended durably, ``summary.json``
replaced atomically, and what a resumed run finds there.

Each finished attempt is one JSON line, written, flushed and fsynced before the run goes
on, so a run killed at any moment (SIGKILL included) leaves whole lines, and at most one
partial last line, which :meth:`Journal.open` cuts off when resuming (the attempt it
belonged to runs again). ``summary.json`` is written to a temporary file and moved over
the old one with ``os.replace``: a reader sees the old summary or the new one.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> with Journal.open(folder, resume=False) as journal:
...     journal.append({"task": "t" * 36, "episode": 0, "attempt": 0, "final": True})
>>> with Journal.open(folder, resume=True) as journal:
...     sorted(journal.finals)
[('tttttttttttttttttttttttttttttttttttt', 0)]
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["EPISODES", "SUMMARY", "Journal", "JournalError", "write_json_atomic"]

EPISODES = "episodes.jsonl"
SUMMARY = "summary.json"


class JournalError(ValueError):
    """A suite folder that cannot be used as asked (names the folder and the reason)."""


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temp file, fsync, ``os.replace``)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class Journal:
    """The records of a suite folder, in memory and on disk.

    Attributes:
        folder: the suite's folder.
        records: every record read or appended, in file order.
        finals: the final record of each ``(task, episode)`` that has one.
        attempts: attempts made so far per ``(task, episode)`` (final or not).
        previous_args: the ``args`` of the ``summary.json`` found when resuming (or None).
    """

    def __init__(self, folder: Path, records: list[dict[str, Any]], previous_args: Any) -> None:
        self.folder = folder
        self.records: list[dict[str, Any]] = []
        self.finals: dict[tuple[str, int], dict[str, Any]] = {}
        self.attempts: dict[tuple[str, int], int] = {}
        self.previous_args = previous_args
        self._lock = threading.Lock()
        for record in records:
            self._remember(record)
        self._fh = open(folder / EPISODES, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())

    @classmethod
    def open(cls, folder: str | os.PathLike[str], *, resume: bool) -> Journal:
        """Open ``folder`` (created if missing). Without ``resume`` it must hold no run
        yet; with it, the records there are read (a partial last line is cut off)."""
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        episodes = path / EPISODES
        has_run = episodes.exists() and episodes.stat().st_size > 0
        if has_run and not resume:
            raise JournalError(
                f"{str(path)!r} already holds a suite run ({EPISODES}): pass --resume "
                "(resume=True) to finish it, or choose another folder"
            )
        records = _read_records(episodes) if has_run else []
        previous = None
        summary = path / SUMMARY
        if resume and summary.exists():
            try:
                previous = json.loads(summary.read_text(encoding="utf-8")).get("args")
            except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
                previous = None  # rewritten atomically: only a foreign file is unreadable
        return cls(path, records, previous)

    def _remember(self, record: dict[str, Any]) -> None:
        key = (str(record["task"]), int(record["episode"]))
        self.records.append(record)
        self.attempts[key] = max(self.attempts.get(key, 0), int(record.get("attempt", 0)) + 1)
        if record.get("final") and key not in self.finals:
            self.finals[key] = record

    def append(self, record: dict[str, Any]) -> None:
        """Append one record durably (write, flush, fsync) and remember it. Thread-safe."""
        line = json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._remember(record)

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Replace ``summary.json`` atomically. Thread-safe."""
        with self._lock:
            write_json_atomic(self.folder / SUMMARY, summary)

    def close(self) -> None:
        """Close the file. Idempotent."""
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


_REQUIRED = ("task", "episode", "final")


def _read_records(path: Path) -> list[dict[str, Any]]:
    """The whole records of ``episodes.jsonl``; a partial last line (a run killed while
    writing it) is cut off the file. A bad line elsewhere is an error naming it."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    # the last element is b"" when the file ends with a newline, else a partial line
    tail = lines.pop()
    records: list[dict[str, Any]] = []
    good_end = 0
    for number, raw in enumerate(lines, start=1):
        try:
            record = json.loads(raw)
            if not isinstance(record, dict) or any(k not in record for k in _REQUIRED):
                raise ValueError("not a suite record")
        except (ValueError, UnicodeDecodeError) as exc:
            if number == len(lines) and not tail:
                break  # a last line cut mid-record and then ended: treat it as partial
            raise JournalError(
                f"{str(path)!r} line {number} is not a suite record ({exc}); "
                "it was not written by drums-gym eval"
            ) from None
        records.append(record)
        good_end += len(raw) + 1
    if good_end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
            fh.flush()
            os.fsync(fh.fileno())
    return records

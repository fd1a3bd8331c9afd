"""Helpers of the reliability tests: waiting on conditions, threads, memory."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: threads a local host runs for itself: its server thread and AnyIO's worker threads
HOST_THREAD_NAMES = ("drums-local-host", "AnyIO worker thread")


def wait_until(
    probe: Callable[[], T], timeout: float, what: str, interval: float = 0.01
) -> T:
    """Poll ``probe`` until it answers something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what} ({value!r})")
        time.sleep(interval)


def client_threads() -> set[threading.Thread]:
    """The live threads that are not a local host's own."""
    return {t for t in threading.enumerate() if t.name not in HOST_THREAD_NAMES}


def assert_threads_back(before: set[threading.Thread], timeout: float = 5.0) -> None:
    """Every thread started since ``before`` (other than a host's) ends within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        new = client_threads() - before
        if not new:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"threads left running: {sorted(t.name for t in new)}")
        time.sleep(0.01)


def rss_mb() -> float:
    """This process's resident set size in MiB (Linux)."""
    status = Path("/proc/self/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+)\s+kB", status, re.MULTILINE)
    assert match, "no VmRSS in /proc/self/status"
    return int(match.group(1)) / 1024

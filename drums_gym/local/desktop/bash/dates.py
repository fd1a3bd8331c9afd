"""Dates as GNU ``date -d`` and ``touch -d`` read them (the forms scripts use), and
``touch -t`` stamps. Times are unix seconds of the simulated clock, in UTC.

>>> now = 1704099600.0  # Mon 2024-01-01 09:00:00 UTC
>>> parse_date("30 days ago", now) == now - 30 * 86400
True
>>> parse_date("2023-12-25 10:30", now), parse_date("@0", now)
(1703500200.0, 0.0)
>>> parse_stamp("202312251030.15")
1703500215.0
>>> parse_date("next blue moon", now) is None
True
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

__all__ = ["parse_date", "parse_stamp"]

_UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "day": 86400,
          "week": 7 * 86400, "fortnight": 14 * 86400, "month": 30 * 86400,
          "year": 365 * 86400}
_REL = re.compile(r"([-+]?\d+)?\s*(second|sec|minute|min|hour|day|week|fortnight|month|year)s?"
                  r"(\s+ago)?")
_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y/%m/%d %H:%M:%S",
            "%Y/%m/%d", "%a %b %d %H:%M:%S %Z %Y", "%a %b %d %H:%M:%S %Y",
            "%Y-%m-%dT%H:%M:%S", "%d %b %Y", "%b %d %Y", "%Y%m%d")


def _utc(dt: datetime) -> float:
    return dt.replace(tzinfo=timezone.utc).timestamp()


def parse_date(text: str, now: float) -> float | None:
    """The time ``text`` names (relative to ``now``), or None when it names none."""
    s = " ".join(text.strip().lower().split())
    if s in ("", "now", "today"):
        return now
    if s == "yesterday":
        return now - 86400
    if s == "tomorrow":
        return now + 86400
    if re.fullmatch(r"@-?\d+(\.\d+)?", s):
        return float(s[1:])
    total, pos, matched = 0.0, 0, False
    for m in _REL.finditer(s):
        if s[pos:m.start()].strip():
            break
        n = int(m.group(1)) if m.group(1) else 1
        amount = n * _UNITS[m.group(2)]
        total += -amount if m.group(3) else amount
        pos, matched = m.end(), True
    if matched and not s[pos:].strip():
        return now + total
    raw = " ".join(text.split())
    raw = re.sub(r"\s+(UTC|GMT)$", "", raw) if "%Z" not in raw else raw
    for fmt in _FORMATS:
        for candidate in (raw, " ".join(text.split())):
            try:
                return _utc(datetime.strptime(candidate, fmt))
            except ValueError:
                continue
    return None


def parse_stamp(text: str, year: int = 2024) -> float | None:
    """``touch -t [[CC]YY]MMDDhhmm[.ss]`` (``year`` when the stamp has none)."""
    m = re.fullmatch(r"(\d{8}|\d{10}|\d{12})(\.\d{2})?", text)
    if not m:
        return None
    digits, sec = m.group(1), int(m.group(2)[1:]) if m.group(2) else 0
    if len(digits) == 8:
        digits = str(year) + digits
    elif len(digits) == 10:
        yy = int(digits[:2])
        digits = ("20" if yy < 69 else "19") + digits
    try:
        dt = datetime.strptime(digits, "%Y%m%d%H%M").replace(second=sec)
    except ValueError:
        return None
    return _utc(dt)

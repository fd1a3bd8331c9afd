"""Time zones as Settings shows them: the locations its search finds, names and offsets.

>>> [loc.label for loc in search("utc")]
['Coordinated Universal Time (UTC)']
>>> describe_zone("Europe/Berlin", 1704099600.0)
'CET (Berlin, Germany)'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo

from ..budget import charge

__all__ = ["LOCATIONS", "Location", "describe_zone", "search", "zone_offset"]


@dataclass(frozen=True)
class Location:
    """A place the Time Zone dialog offers: ``label`` and its tz database ``zone``; the
    winter ``hours`` offset and abbreviation serve where the tz database is missing."""

    label: str
    city: str
    zone: str
    hours: float
    abbr: str


LOCATIONS: tuple[Location, ...] = (
    Location("Coordinated Universal Time (UTC)", "Coordinated Universal Time", "Etc/UTC", 0,
             "UTC"),
    Location("London, United Kingdom", "London, United Kingdom", "Europe/London", 0, "GMT"),
    Location("Berlin, Germany", "Berlin, Germany", "Europe/Berlin", 1, "CET"),
    Location("Paris, France", "Paris, France", "Europe/Paris", 1, "CET"),
    Location("New York, United States", "New York, United States", "America/New_York", -5,
             "EST"),
    Location("Chicago, United States", "Chicago, United States", "America/Chicago", -6, "CST"),
    Location("Denver, United States", "Denver, United States", "America/Denver", -7, "MST"),
    Location("Los Angeles, United States", "Los Angeles, United States",
             "America/Los_Angeles", -8, "PST"),
    Location("Shanghai, China", "Shanghai, China", "Asia/Shanghai", 8, "CST"),
    Location("Hong Kong", "Hong Kong", "Asia/Hong_Kong", 8, "HKT"),
    Location("Tokyo, Japan", "Tokyo, Japan", "Asia/Tokyo", 9, "JST"),
    Location("Kolkata, India", "Kolkata, India", "Asia/Kolkata", 5.5, "IST"),
    Location("Sydney, Australia", "Sydney, Australia", "Australia/Sydney", 11, "AEDT"),
)
_BY_ZONE = {loc.zone: loc for loc in LOCATIONS}
_BY_ZONE["UTC"] = _BY_ZONE["Etc/GMT"] = _BY_ZONE["GMT"] = LOCATIONS[0]


def _tz(zone: str) -> tzinfo:
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(zone)
    except (ImportError, ValueError, OSError, KeyError):
        loc = _BY_ZONE.get(zone, LOCATIONS[0])
        return timezone(timedelta(hours=loc.hours), loc.abbr)


def zone_offset(zone: str, when: float) -> timedelta:
    """The UTC offset of ``zone`` at the epoch time ``when``."""
    return datetime.fromtimestamp(when, tz=_tz(zone)).utcoffset() or timedelta(0)


def describe_zone(zone: str, when: float) -> str:
    """The Date & Time panel's text for ``zone``: ``"EST (New York, United States)"``."""
    abbr = datetime.fromtimestamp(when, tz=_tz(zone)).tzname() or zone
    loc = _BY_ZONE.get(zone)
    return f"{abbr} ({loc.city})" if loc is not None else f"{abbr} ({zone})"


def search(text: str, limit: int = 8) -> list[Location]:
    """Locations whose label, city, zone or abbreviation contains ``text`` (any case)."""
    q = text.strip().lower()
    if not q:
        return []
    out = []
    for loc in LOCATIONS:
        charge()
        if any(q in part.lower() for part in (loc.label, loc.zone, loc.abbr)):
            out.append(loc)
    return out[:limit]

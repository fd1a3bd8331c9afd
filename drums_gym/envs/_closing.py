"""What closing leaves behind: one warning, never an exception, when the host is gone."""

from __future__ import annotations

import logging

from ..client import DrumsError

__all__ = ["warn_left_behind"]

logger = logging.getLogger("drums_gym.envs")


def warn_left_behind(closing: object, errors: list[DrumsError], ttl: float | None = None) -> None:
    """One warning for everything a close could not delete (the host is gone or hung)."""
    if not errors:
        return
    lease = f" ({ttl:g} s)" if ttl else ""
    logger.warning(
        "drums-gym: closing %r left %d desktops or saved states undeleted (first: %s: %s); "
        "their leases%s bound them",
        closing, len(errors), type(errors[0]).__name__, errors[0], lease,
    )

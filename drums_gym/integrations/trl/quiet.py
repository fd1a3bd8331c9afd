"""`quiet_unscorable_rows`: TRL's warning about a row whose rewards are all None, in one
line (TRL prints the row's prompt and completion with it: for a desktop, the whole
accessibility tree of every turn)."""

from __future__ import annotations

import logging

__all__ = ["QUIET_ROWS", "TRL_LOG", "quiet_unscorable_rows"]


class _QuietUnscorableRows(logging.Filter):
    """Rewrites TRL's "All reward functions returned None" warning without the row: TRL
    prints the row's prompt and completion (the whole accessibility tree) with it."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        if NONE_ROW in text:
            record.msg = (
                f"{text.split(NONE_ROW)[0]}{NONE_ROW} for a row (drums-gym: an invalid "
                "desktop episode, left out of "
                "the rewards; its prompt and completion are not logged, its reason is in "
                "DrumsEnvironments.results)"
            )
            record.args = ()
        return True


NONE_ROW = "All reward functions returned None"
TRL_LOG = logging.getLogger("trl.trainer.grpo_trainer")
QUIET_ROWS = _QuietUnscorableRows()


def quiet_unscorable_rows() -> None:
    """Make TRL's warning about a row whose rewards are all None one line, without the
    row's prompt and completion (idempotent). :class:`DrumsEnvironments` does it while it
    is a trainer's callback, :class:`DrumsCodeReward` when it first scores."""
    TRL_LOG.addFilter(QUIET_ROWS)

"""``--view``: the live view's address of each desktop a command runs, printed as it starts.

The page is ``GET /v1/slots/{id}/view`` on the host (docs/report.md, "The live view").
Lines go to stderr (stdout stays the report, or ``--json``); the token is never printed:
a host that needs one is watched at ``URL#token=T``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import protocol as P

__all__ = ["ViewLinks", "add_view_arg"]


def add_view_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--view",
        action="store_true",
        help="print the live view's address of each desktop as its episode starts (open it "
        "in a browser to watch; add #token=T when the host needs a token)",
    )


class ViewLinks:
    """Prints ``view  <who>: <url>/v1/slots/<id>/view`` once per desktop (when enabled)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.enabled = bool(getattr(args, "view", False))
        self.token = bool(getattr(args, "token", None) or os.environ.get("DRUMS_TOKEN"))
        self._seen: set[str] = set()
        self._told = False

    def show(self, base_url: str, who: str, slot_id: Any) -> None:
        if not self.enabled or not isinstance(slot_id, str) or not slot_id:
            return
        if slot_id in self._seen:
            return
        self._seen.add(slot_id)
        url = base_url.rstrip("/") + P.slot_view_path(slot_id)
        print(f"view     {who}: {url}", file=sys.stderr, flush=True)
        if self.token and not self._told:
            self._told = True
            print("         (the host needs the token: open the address with #token=T "
                  "appended)", file=sys.stderr, flush=True)

"""``drums-gym tasks``: the tasks a Drums host serves, with their instructions.

    drums-gym tasks            # the embedded local host, or $DRUMS_URL
    drums-gym tasks --json
"""

from __future__ import annotations

import argparse
from typing import Any

from ..client import DrumsError, connect
from ._common import add_connection_args, dump_json, fail, terminal_width
from ._table import format_table, truncate

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "tasks",
        help="list the host's tasks",
        description="List the tasks of the Drums host ($DRUMS_URL, else the embedded local "
        "host): short id (what Drums/<id> and --task take), full id, instruction.",
    )
    add_connection_args(p)
    p.add_argument("--json", action="store_true", help="print the tasks as a JSON list")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        with connect(url=args.url, token=args.token) as client:
            tasks = client.tasks()
    except (DrumsError, ValueError) as exc:
        return fail("tasks", exc, args)
    if args.json:
        dump_json([
            {
                "id": t.id,
                "short_id": t.short_id,
                "env_id": f"Drums/{t.short_id}",
                "domain": t.domain,
                "instruction": t.instruction,
                "screen": None if t.screen is None else t.screen.to_json(),
            }
            for t in tasks
        ])
        return 0
    if not tasks:
        print("the host serves no tasks")
        return 0
    rows = [[t.short_id, t.id, t.domain or "-", t.instruction] for t in tasks]
    # on a terminal, cut instructions to the width left by the other columns
    fixed = sum(max(len(r[c]) for r in rows) + 2 for c in range(3)) + 11
    width = terminal_width(default=0)
    if width:
        for row in rows:
            row[3] = truncate(row[3], max(30, width - fixed))
    print(format_table(["short id", "task id", "domain", "instruction"], rows))
    return 0

"""``drums-gym doctor``: can this machine run the local host's real programs?

    drums-gym doctor           # the programs, what is missing, which tasks it affects
    drums-gym doctor --json

Exit status 0 when the sandbox works and nothing is missing, 1 otherwise.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._common import dump_json

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the sandbox and the programs the local host's desktops need",
        description="Whether a desktop's bubblewrap sandbox works on this machine (and why "
        "not), the programs the bundled tasks and common agent idioms need, which are "
        "missing, and which tasks that affects.",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(run=run)


def report() -> dict[str, Any]:
    """The doctor's findings as plain data."""
    from ..local.sandbox import unavailable_reason
    from ..local.sandbox.userland import PROGRAMS, missing, task_programs

    gone = missing()
    affected = {short: sorted(used & set(gone)) for short, used in task_programs().items()}
    reason = unavailable_reason()
    return {
        "sandbox": {"works": reason is None, "reason": reason},
        "programs": {p: {"package": PROGRAMS[p], "present": p not in gone} for p in PROGRAMS},
        "missing": gone,
        "install": sorted({PROGRAMS[p] for p in gone}),
        "tasks_affected": {t: m for t, m in affected.items() if m},
    }


def run(args: argparse.Namespace) -> int:
    found = report()
    if args.json:
        dump_json(found)
    else:
        box = found["sandbox"]
        print("sandbox: " + ("works" if box["works"] else f"does not work: {box['reason']}"))
        print(f"programs: {len(found['programs']) - len(found['missing'])} of "
              f"{len(found['programs'])} present")
        if found["missing"]:
            print("missing: " + ", ".join(found["missing"]))
            print("install: apt-get install -y " + " ".join(found["install"]))
        for task, progs in found["tasks_affected"].items():
            print(f"task {task} needs missing {', '.join(progs)}")
    return 0 if found["sandbox"]["works"] and not found["missing"] else 1

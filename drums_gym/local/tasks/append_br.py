"""5ced85fc: append ``<br/>`` to each line of "1\\n2\\n3" into ``output.txt``.

OSWorld config: click the centre, ``ctrl+alt+t``, activate the Terminal (which starts in
the home folder). Evaluator: ``eval.sh`` compares ``$(cat /home/user/output.txt)`` (so
trailing newlines are dropped) with ``1<br/>\\n2<br/>\\n3<br/>``.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, open_terminal

__all__ = ["TASK"]

OUTPUT = "/home/user/output.txt"
EXPECTED = b"1<br/>\n2<br/>\n3<br/>"


def setup(desktop: Desktop) -> None:
    open_terminal(desktop)


def check(desktop: Desktop) -> float:
    if not desktop.fs.is_file(OUTPUT):
        return 0.0  # cat fails, $actual is empty
    # bash's $(...) drops NUL bytes and strips every trailing newline
    actual = desktop.fs.read_file(OUTPUT).replace(b"\0", b"").rstrip(b"\n")
    return 1.0 if actual == EXPECTED else 0.0


TASK = Task(
    id="5ced85fc-fa1a-4217-95fd-0fb530545ce2",
    domain="os",
    instruction='Append "<br/>" to the end of each line in "1\\n2\\n3" and save in output.txt',
    setup=setup,
    check=check,
)

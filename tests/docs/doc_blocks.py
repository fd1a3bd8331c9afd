"""The fenced blocks of the docs pages, as the docs test runs them.

A block is ``(page, line, lang, text, mark)``: ``mark`` is the reason of an HTML comment
``<!-- not run: REASON -->`` on the line just before the block (None when unmarked), or
``"output"`` for ``<!-- output -->``: the block is what the runnable block above it prints.
Runnable: ``python`` blocks (exec'd in order, one interpreter per page, so a page's
snippets build on each other) and ``sh``/``bash`` blocks whose commands start with
``drums-gym`` or ``python`` (each such line runs; ``#`` comments are skipped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUNNABLE = ("python", "sh", "bash")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_MARK = re.compile(r"<!--\s*(not run:\s*(.+?)|output)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    text: str
    mark: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUNNABLE and self.mark is None


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _MARK.search(before)
        reason = None if mark is None else (mark.group(2) or "output")
        line = text.count("\n", 0, match.start()) + 1
        out.append(Block(page.name, line, match.group(1), match.group(2), reason))
    return out


def all_blocks() -> list[Block]:
    return [b for page in sorted(DOCS.glob("*.md")) for b in blocks(page)]


def commands(block: Block) -> list[str]:
    """The command lines of a sh block (a trailing ``\\`` joins lines; ``# ...`` dropped)."""
    joined = block.text.replace("\\\n", " ")
    lines = []
    for raw in joined.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            lines.append(line)
    return lines

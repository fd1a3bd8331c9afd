"""Aligned plain-text tables for the terminal.

>>> print(format_table(["group", "valid"], [["1", "8/8"], ["2", "6/8"]], align="rr"))
group  valid
-----  -----
    1    8/8
    2    6/8
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_table", "truncate"]


def truncate(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in ``...`` when cut.

    >>> truncate("rename the folder", 10)
    'rename ...'
    """
    if width < 4 or len(text) <= width:
        return text
    return text[: width - 3] + "..."


def format_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    align: str | None = None,
    gap: int = 2,
) -> str:
    """Rows of cells as aligned columns under a header and a rule.

    Args:
        headers: one title per column.
        rows: cells as strings, one list per row, each as long as ``headers``.
        align: one letter per column, ``l`` (left) or ``r`` (right); default all left.
        gap: spaces between columns.

    The last column is not padded, so lines carry no trailing spaces.
    """
    ncols = len(headers)
    if align is None:
        align = "l" * ncols
    if len(align) != ncols or set(align) - {"l", "r"}:
        raise ValueError(f"align must have one of 'l'/'r' per column ({ncols}), got {align!r}")
    for i, row in enumerate(rows):
        if len(row) != ncols:
            raise ValueError(f"row {i} has {len(row)} cells, expected {ncols}")
    widths = [max([len(h)] + [len(row[c]) for row in rows]) for c, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for c, cell in enumerate(cells):
            last = c == ncols - 1
            if align[c] == "r":
                out.append(cell.rjust(widths[c]))
            else:
                out.append(cell if last else cell.ljust(widths[c]))
        return (" " * gap).join(out).rstrip()

    lines = [line(headers), line(["-" * w for w in widths])]
    lines.extend(line(row) for row in rows)
    return "\n".join(lines)

"""The success-rate chart: inline SVG, one horizontal bar per task and one for the run.

Each bar is the success rate over valid episodes; its error bar the 95% Wilson interval.
Every text is escaped (task ids come from the data).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ._stats import Stats

__all__ = ["success_chart"]

_LABEL_W = 120  # task label column
_PLOT_W = 420  # 0..100%
_NOTE_W = 200  # figures after the bar
_ROW_H = 30
_TOP = 26  # axis labels
_BOTTOM = 8


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def success_chart(rows: Sequence[tuple[str, Stats]]) -> str:
    """SVG of ``(label, stats)`` rows (the last one drawn as the run's total)."""
    width = _LABEL_W + _PLOT_W + _NOTE_W
    height = _TOP + _ROW_H * len(rows) + _BOTTOM
    x0 = _LABEL_W
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg">',
        "<title>Success rate over valid episodes, with 95% Wilson intervals</title>",
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = x0 + tick * _PLOT_W
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{_TOP - 4}" x2="{x:.1f}" '
            f'y2="{height - _BOTTOM}"/>'
            f'<text class="tick" x="{x:.1f}" y="{_TOP - 9}" text-anchor="middle">'
            f"{_pct(tick)}</text>"
        )
    for i, (label, stats) in enumerate(rows):
        y = _TOP + i * _ROW_H
        mid = y + _ROW_H / 2
        total = i == len(rows) - 1
        cls = "bar total" if total else "bar"
        parts.append(
            f'<text class="label{" total" if total else ""}" x="{x0 - 10}" y="{mid + 4:.1f}" '
            f'text-anchor="end">{escape(label)}</text>'
        )
        if stats.success_rate is None:
            parts.append(
                f'<text class="note" x="{x0 + 6}" y="{mid + 4:.1f}">no valid episode'
                f"{' (' + str(stats.invalid_count) + ' invalid)' if stats.invalid_count else ''}"
                "</text>"
            )
            continue
        w = stats.success_rate * _PLOT_W
        title = (
            f"{label}: {_pct(stats.success_rate)} ({stats.success} of {stats.valid} valid)"
        )
        lo, hi = stats.ci95 or (stats.success_rate, stats.success_rate)
        parts.append(
            f'<rect class="{cls}" data-label="{escape(label)}" '
            f'data-rate="{stats.success_rate:.6f}" x="{x0}" y="{y + 7}" width="{w:.1f}" '
            f'height="{_ROW_H - 14}" rx="2"><title>{escape(title)}</title></rect>'
        )
        xl, xh = x0 + lo * _PLOT_W, x0 + hi * _PLOT_W
        parts.append(
            f'<g class="ci" data-lo="{lo:.6f}" data-hi="{hi:.6f}">'
            f'<line x1="{xl:.1f}" y1="{mid:.1f}" x2="{xh:.1f}" y2="{mid:.1f}"/>'
            f'<line x1="{xl:.1f}" y1="{mid - 6:.1f}" x2="{xl:.1f}" y2="{mid + 6:.1f}"/>'
            f'<line x1="{xh:.1f}" y1="{mid - 6:.1f}" x2="{xh:.1f}" y2="{mid + 6:.1f}"/>'
            f"<title>95% interval {_pct(lo)} - {_pct(hi)}</title></g>"
        )
        note = f"{_pct(stats.success_rate)}  ({stats.success}/{stats.valid}; {_pct(lo)}-{_pct(hi)})"
        parts.append(
            f'<text class="note" x="{x0 + _PLOT_W + 10}" y="{mid + 4:.1f}">{escape(note)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)

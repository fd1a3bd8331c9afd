"""What a language model is shown of a desktop: the screenshot as an image, or the
accessibility tree as text (OSWorld's linearized table, for text-only models)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from PIL import Image

__all__ = ["linearize_tree", "screenshot_image"]

#: the header of OSWorld's linearized accessibility tree
HEADER = "tag\tname\ttext\tposition (top-left x&y)\tsize (w&h)"


def _nodes(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield node
    for child in node.get("children") or ():
        if isinstance(child, Mapping):
            yield from _nodes(child)


def _pair(value: Any) -> tuple[Any, Any]:
    items = list(value) if isinstance(value, (list, tuple)) else []
    first, second, *_ = [*items, 0, 0]
    return first, second


def _one_line(value: Any) -> str:
    return " ".join(str(value or "").split())


def linearize_tree(tree: Mapping[str, Any] | None, max_chars: int = 8000) -> str:
    """The accessibility tree as OSWorld's table: one line per node that is showing, with
    its role, name, text, position and size; cut at ``max_chars`` (with a mark).

    >>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0],
    ...         "size": [640, 480], "states": ["showing"], "children": [
    ...             {"role": "icon", "name": "todo", "position": [8, 40], "size": [96, 96],
    ...              "states": ["showing"], "children": []}]}
    >>> for line in linearize_tree(tree).splitlines()[1:]:
    ...     print(line.split(chr(9)))
    ['desktop-frame', 'Desktop', '', '(0, 0)', '(640, 480)']
    ['icon', 'todo', '', '(8, 40)', '(96, 96)']
    """
    if not isinstance(tree, Mapping):
        return "(no accessibility tree)"
    lines = [HEADER]
    for node in _nodes(tree):
        states = node.get("states") or ()
        if states and "showing" not in states:
            continue
        x, y = _pair(node.get("position"))
        w, h = _pair(node.get("size"))
        lines.append(
            f"{_one_line(node.get('role'))}\t{_one_line(node.get('name'))}\t"
            f"{_one_line(node.get('text'))}\t({x}, {y})\t({w}, {h})"
        )
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[:max_chars] + "\n[... cut]"
    return text


def screenshot_image(frame: np.ndarray) -> Image.Image:
    """A ``uint8 (H, W, 3)`` screenshot as a Pillow RGB image (a copy)."""
    return Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8), mode="RGB")

"""Reading an accessibility tree (the dict form the Drums API serves): find nodes, centres.

Solvers locate everything through these helpers, never through host internals.
A lookup that finds nothing raises `LookupError` (a solver then waits a step).

>>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0],
...         "size": [100, 100], "states": [], "children": [
...             {"role": "icon", "name": "a", "position": [10, 10], "size": [20, 20],
...              "states": ["selected"], "children": []}]}
>>> center(find(tree, "icon", "a")), is_selected(find(tree, "icon", "a"))
((20, 20), True)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = [
    "Node",
    "active_frame",
    "center",
    "desktop_icon",
    "dock_button",
    "file_icon",
    "find",
    "find_all",
    "frame",
    "has_state",
    "is_selected",
    "terminal",
    "walk",
    "windows",
]

Node = dict[str, Any]


def walk(node: Node) -> Iterator[Node]:
    """``node`` and all its descendants, depth first."""
    yield node
    for child in node.get("children", ()):
        yield from walk(child)


def find_all(tree: Node, role: str | None = None, name: str | None = None) -> list[Node]:
    return [n for n in walk(tree) if (role is None or n.get("role") == role)
            and (name is None or n.get("name") == name)]


def find(tree: Node, role: str | None = None, name: str | None = None) -> Node:
    """The first node with ``role`` and ``name``; `LookupError` when there is none."""
    for n in walk(tree):
        if (role is None or n.get("role") == role) and (name is None or n.get("name") == name):
            return n
    raise LookupError(f"no {role or 'node'} named {name!r} in the accessibility tree")


def center(node: Node) -> tuple[int, int]:
    (x, y), (w, h) = node["position"], node["size"]
    return int(x + w // 2), int(y + h // 2)


def has_state(node: Node, state: str) -> bool:
    return state in node.get("states", ())


def is_selected(node: Node) -> bool:
    return has_state(node, "selected")


def windows(tree: Node) -> Iterator[Node]:
    """The top-level nodes of every application (windows, popups), or the root's children
    in a tree without an ``application`` level."""
    for child in tree.get("children", ()):
        if child.get("role") == "application":
            yield from child.get("children", ())
        else:
            yield child


def frame(tree: Node, title: str | None = None, active: bool = False) -> Node:
    """A top-level window (``frame``) by title; with ``active``, only the focused one."""
    for n in windows(tree):
        if n.get("role") == "frame" and (title is None or n.get("name") == title) and (
                not active or has_state(n, "active")):
            return n
    raise LookupError(f"no {'active ' if active else ''}window titled {title!r}")


def active_frame(tree: Node) -> Node:
    return frame(tree, active=True)


def desktop_icon(tree: Node, name: str) -> Node:
    """The desktop's icon ``name`` (not a same-named icon in a Files window)."""
    return find(find(tree, "layered-pane", "Desktop Icons"), "icon", name)


def file_icon(tree: Node, name: str, window: str | None = None) -> Node:
    """The icon ``name`` in the Files window titled ``window`` (default: the active one)."""
    win = frame(tree, window) if window is not None else active_frame(tree)
    return find(find(win, "layered-pane", "Files View"), "icon", name)


def dock_button(tree: Node, label: str) -> Node:
    """A launcher of the dock (``"Files"``, ``"Terminal"``, ``"Trash"``, ...)."""
    return find(find(tree, "tool-bar", "Dock"), "push-button", label)


def terminal(tree: Node) -> Node:
    """The terminal widget of the focused window."""
    return find(active_frame(tree), "terminal")

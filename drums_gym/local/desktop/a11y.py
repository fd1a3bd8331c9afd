"""The accessibility tree of a `Desktop`, shaped like OSWorld's (pyatspi) trees.

Every node is ``{"role", "name", "position": [x, y], "size": [w, h], "states",
"children"}`` with screen coordinates; text nodes add ``"text"``. Order: the
desktop frame's children are the shell (top bar, dock), the desktop icons,
windows bottom-to-top, then popups (rename popover, context menu).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import shell
from .actions import DESKTOP_DIR
from .windows import node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["tree"]


def tree(desk: Desktop) -> dict[str, Any]:
    """Build the tree for ``desk`` (call through `Desktop.accessibility`)."""
    root = node("desktop-frame", "Desktop", (0, 0, desk.width, desk.height))
    root["children"].extend(shell.accessibility(desk.width, desk.height, desk.clock_text()))
    icons = node("layered-pane", "Desktop Icons", (0, 0, desk.width, desk.height),
                 ["enabled", "showing", "visible"] + (["focused"] if desk.desktop_focused else []))
    for name in desk.grid.ordered():
        is_dir = desk.fs.is_dir(f"{DESKTOP_DIR}/{name}")
        states = ["enabled", "focusable", "selectable", "sensitive", "showing", "visible"]
        if name in desk.selected:
            states.append("selected")
        icons["children"].append(node("icon", name, desk.grid.hit_box(name), states,
                                      description="Folder" if is_dir else "File"))
    root["children"].append(icons)
    active = desk.active_window()
    for w in desk.windows:
        if not w.minimized:
            root["children"].append(w.accessibility(desk, w is active))
    if desk.rename is not None:
        root["children"].append(desk.rename.accessibility())
    if desk.menu is not None:
        root["children"].append(desk.menu.accessibility())
    return root

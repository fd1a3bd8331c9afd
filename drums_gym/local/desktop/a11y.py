"""The accessibility tree of a `Desktop`, shaped like OSWorld's (pyatspi) trees.

Every node is a dict::

    {"role": "push-button", "name": "Close", "position": [x, y], "size": [w, h],
     "states": ["enabled", "showing", ...], "children": [...]}

with screen coordinates (``position`` is the top-left corner). Optional keys:
``text`` (the text of entries, labels, terminals, the location bar),
``description`` (``"Folder"``/``"File"`` on file icons), ``caret`` and
``selection`` (entries). Roles are AT-SPI role names with spaces as dashes, as
OSWorld's XML tags are; `ROLES` lists those the simulator uses and
``docs/accessibility.md`` describes each. Order: the desktop frame's children
are the shell (top bar, dock), the desktop icons, the windows bottom-to-top,
then popups (rename popover, context menu). Only what is on screen is in the
tree (minimized windows and scrolled-away file icons are left out).

`to_xml` renders a tree as OSWorld's XML form (``<push-button name="Close"
st:showing="true" cp:screencoord="(x, y)" cp:size="(w, h)">``); it lives in the leaf
module `drums_gym.accessibility` (re-exported here, as is `NAMESPACES`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...accessibility import NAMESPACES, to_xml
from ..budget import charge
from . import topbar_dock
from .fs import DESKTOP_DIR
from .windows import node

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["NAMESPACES", "ROLES", "to_xml", "tree"]

#: The roles the simulator's trees use, and what carries each.
ROLES: dict[str, str] = {
    "desktop-frame": "the root: the whole screen",
    "panel": "the top bar; the Activities overview",
    "tool-bar": "the dock; a Files window's location (path) bar",
    "push-button": "buttons: dock launchers, window controls, path-bar crumbs, Back, Restore…",
    "label": "static text: the clock, popover titles and messages",
    "layered-pane": "icon containers: the desktop (Desktop Icons), a Files view (Files View)",
    "icon": "a file or folder: on the desktop or in a Files view",
    "frame": "a top-level window (its name is the title)",
    "list": "the Places sidebar of Files",
    "list-item": "a place in the sidebar (Home, Desktop, Trash, …)",
    "info-bar": "the Trash bar of Files (Restore, Empty…)",
    "entry": "an editable single-line text field (rename popover, typed location)",
    "dialog": "the rename / new-folder popover",
    "menu": "a context menu (or the Empty Trash confirmation)",
    "menu-item": "an item of a menu",
    "separator": "a line between menu items",
    "page-tab-list": "the tabs of the Properties dialog",
    "page-tab": "a tab (Basic, Permissions)",
    "combo-box": "a drop-down (Properties: Owner/Group/Others Access; text: the value)",
    "check-box": "a check box (Properties: Allow executing file as program)",
    "terminal": "the text area of a Terminal window (its text is the screen's text)",
    "toggle-button": "a switch of Settings (checked when on)",
    "slider": "a slider of Settings (Output Volume; value, minimum, maximum)",
    "scroll-pane": "the panel Settings shows (its name is the panel's)",
}


def tree(desk: Desktop) -> dict[str, Any]:
    """Build the tree for ``desk`` (call through `Desktop.accessibility`)."""
    root = node("desktop-frame", "Desktop", (0, 0, desk.width, desk.height))
    root["children"].extend(topbar_dock.accessibility(desk.width, desk.height, desk.clock_text(),
                                                      desk.dock.apps()))
    icons = node("layered-pane", "Desktop Icons", (0, 0, desk.width, desk.height),
                 ["enabled", "showing", "visible"] + (["focused"] if desk.desktop_focused else []))
    for name in desk.grid.ordered():
        charge()
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
    if desk.activities.is_open:
        root["children"].append(desk.activities.accessibility())
    if desk.rename is not None:
        root["children"].append(desk.rename.accessibility())
    if desk.menu is not None:
        root["children"].append(desk.menu.accessibility())
    return root

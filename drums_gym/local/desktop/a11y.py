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
are ``application`` nodes, as at-spi lists them: ``gnome-shell`` (top bar, dock, the
overview, the shell's menus), ``gjs`` (Desktop Icons NG: the icons, their menus and rename
popover), then one per program with windows (`APPLICATIONS`), each holding its windows
bottom-to-top and the popups they opened. Only what is on screen is in the
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

__all__ = ["APPLICATIONS", "DESKTOP_APP", "NAMESPACES", "ROLES", "SHELL_APP", "to_xml", "tree"]

#: The roles the simulator's trees use, and what carries each.
ROLES: dict[str, str] = {
    "desktop-frame": "the root: the whole screen",
    "application": "a program (gnome-shell, gjs, nautilus, gnome-terminal-server, …)",
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
    "toggle-button": "a switch (Settings; Do Not Disturb in the clock's menu): checked when on",
    "slider": "a slider (Settings' Output Volume, the System menu's Volume; value, minimum, "
              "maximum)",
    "scroll-pane": "the panel Settings shows (its name is the panel's)",
}


#: The at-spi application each kind of window belongs to (`Window.app`), as Ubuntu 22.04
#: names them: OSWorld's XPath (``//application[@name="gnome-terminal-server"]/frame``)
#: finds windows under these.
APPLICATIONS: dict[str, str] = {
    "files": "nautilus",
    "terminal": "gnome-terminal-server",
    "settings": "gnome-control-center",
}
SHELL_APP = "gnome-shell"  # the top bar, the dock, the overview, the shell's menus and OSD
DESKTOP_APP = "gjs"  # Desktop Icons NG (a gjs program): the icons, their menus and popover


def _application(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    """An at-spi application node: no geometry, no states (as pyatspi reports one)."""
    return {"role": "application", "name": name, "position": [0, 0], "size": [0, 0],
            "states": [], "children": children}


def tree(desk: Desktop) -> dict[str, Any]:
    """Build the tree for ``desk`` (call through `Desktop.accessibility`)."""
    root = node("desktop-frame", "Desktop", (0, 0, desk.width, desk.height))
    shell = topbar_dock.accessibility(desk.width, desk.height, desk.clock_text(),
                                      desk.dock.apps())
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
    ding: list[dict[str, Any]] = [icons]
    apps: dict[str, list[dict[str, Any]]] = {}
    active = desk.active_window()
    for w in desk.windows:
        if not w.minimized:
            apps.setdefault(APPLICATIONS.get(w.app, w.app), []).append(
                w.accessibility(desk, w is active))
    if desk.activities.is_open:
        shell.append(desk.activities.accessibility())

    def owner_app(owner: Any) -> list[dict[str, Any]]:
        if owner is None:
            return ding
        return apps.setdefault(APPLICATIONS.get(owner.app, owner.app), [])

    if desk.rename is not None:
        owner_app(desk.rename.owner).append(desk.rename.accessibility())
    if desk.menu is not None:
        menu = desk.menu.accessibility()
        (shell if desk.menu.shell else owner_app(desk.menu.owner)).append(menu)
    root["children"] = [_application(SHELL_APP, shell), _application(DESKTOP_APP, ding),
                        *(_application(name, nodes) for name, nodes in apps.items())]
    return root

"""The Ubuntu dock's contents and menus: favourites from ``org.gnome.shell favorite-apps``.

`Dock` is a component of `Desktop` (``desk.dock``). What the dock shows is read from the
settings store on each change of the filesystem (the store lives there): the favourites that
are installed (`topbar_dock.KNOWN_APPS`), in their order, then running applications that
are not favourites, then the Trash. So ``gsettings set org.gnome.shell favorite-apps ...``
changes the dock, and the dock's right-click menu ("Remove from Favorites", "Add to
Favorites") changes the key, as on Ubuntu 22.04 (GNOME 42).

>>> from drums_gym.local.desktop import Desktop
>>> desk = Desktop()
>>> [a.label for a in desk.dock.apps()][:4]
['Firefox Web Browser', 'Thunderbird Mail', 'Files', 'Terminal']
>>> desk.dock.remove_favorite("thunderbird.desktop")
>>> desk.dock.favorites()[:2]
['firefox_firefox.desktop', 'org.gnome.Nautilus.desktop']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import charge
from .popups import SEPARATOR, Menu, MenuItem
from .settings_store import SettingsStore
from .theme import DOCK_W, TOP_BAR_H
from .topbar_dock import ICON, KNOWN_APPS, STEP, TRASH, DockApp

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["FAVORITES", "Dock"]

#: The settings key the dock's favourites live in.
FAVORITES = ("org.gnome.shell", "favorite-apps")
#: The ``.desktop`` id of each app a window can belong to (``Window.app``).
_APP_IDS = {a.key: a.desktop_id for a in KNOWN_APPS.values()}
_APP_IDS["firefox"] = "firefox_firefox.desktop"


class Dock:
    """The dock's launchers (cached per filesystem version) and its context menu."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk
        self._cache: tuple[tuple[int, tuple[str, ...]], tuple[DockApp, ...]] | None = None

    def favorites(self) -> list[str]:
        """The ``.desktop`` ids of ``favorite-apps``, as stored."""
        value = SettingsStore(self.desk.fs).get(*FAVORITES)
        return list(value) if isinstance(value, list) else []

    def apps(self) -> tuple[DockApp, ...]:
        """The launchers top to bottom (without Show Applications): installed favourites,
        running non-favourites, the Trash; as many as fit above Show Applications."""
        desk = self.desk
        running = tuple(sorted({w.app for w in desk.windows}))
        stamp = (desk.fs.version, running)
        if self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        favs = self.favorites()
        charge(len(favs))
        shown: list[DockApp] = []
        for fid in favs:
            app = KNOWN_APPS.get(fid)
            if app is not None and all(a.desktop_id != fid for a in shown):
                shown.append(app)
        keys = {a.key for a in shown}
        for key in running:
            app = KNOWN_APPS.get(_APP_IDS.get(key, ""))
            if app is not None and key not in keys:
                shown.append(app)
                keys.add(key)
        room = max(1, (desk.height - 16 - ICON - TOP_BAR_H - 8) // STEP)
        apps = (*shown[:room - 1], TRASH)
        self._cache = (stamp, apps)
        return apps

    # -- favourites --------------------------------------------------------------
    def remove_favorite(self, desktop_id: str) -> None:
        favs = self.favorites()
        if desktop_id in favs:
            SettingsStore(self.desk.fs).set(*FAVORITES, [f for f in favs if f != desktop_id])

    def add_favorite(self, desktop_id: str) -> None:
        favs = self.favorites()
        if desktop_id and desktop_id not in favs:
            SettingsStore(self.desk.fs).set(*FAVORITES, [*favs, desktop_id])

    # -- the context menu --------------------------------------------------------
    def open_menu(self, app: DockApp, point: tuple[int, int]) -> None:
        """The right-click menu of a launcher (beside the dock, level with ``point``)."""
        desk = self.desk
        if app.key == "trash":
            items: tuple[MenuItem, ...] = (MenuItem("Open", "dock-launch:trash"),
                                           MenuItem("Empty Trash", "dock-empty-trash",
                                                    bool(desk.fs.trash_items())))
        else:
            running = any(w.app == app.key for w in desk.windows)
            fav = app.desktop_id in self.favorites()
            items = (MenuItem("New Window", f"dock-launch:{app.key}"), SEPARATOR,
                     MenuItem("Remove from Favorites", f"dock-unfav:{app.desktop_id}") if fav
                     else MenuItem("Add to Favorites", f"dock-fav:{app.desktop_id}"),
                     MenuItem("Show Details", "dock-details"),
                     *((SEPARATOR, MenuItem("Quit", f"dock-quit:{app.key}")) if running else ()))
        desk.menu = Menu.at(items, (DOCK_W + 8, point[1] - 20), (desk.width, desk.height),
                            name=app.label, shell=True)
        desk.menu_targets = ()

    def run_action(self, action: str) -> bool:
        """Run a dock menu item (``dock-...``); False when ``action`` is not one."""
        desk = self.desk
        kind, _, arg = action.partition(":")
        if kind == "dock-unfav":
            self.remove_favorite(arg)
        elif kind == "dock-fav":
            self.add_favorite(arg)
        elif kind == "dock-launch":
            desk.launch(arg)
        elif kind == "dock-empty-trash":
            desk.fs.empty_trash()
        elif kind == "dock-quit":
            for w in [w for w in desk.windows if w.app == arg]:
                desk.close_window(w)
        elif kind != "dock-details":
            return False
        return True

"""How the desktop starts terminals: ctrl+alt+T, the dock's Terminal, "Open in Terminal".

`TerminalApps` is a mixin of `Desktop` placed before `KeyboardInput` so it sees
key presses first (GNOME's ctrl+alt+T works whatever has focus; ctrl+W goes to
bash, not to the window manager, in a terminal).
"""

from __future__ import annotations

from .actions import DESKTOP_DIR, DesktopActions
from .fs import HOME, FileSystem
from .keys import Modifiers, normalize_key
from .settings_store import SettingsStore
from .terminal import TerminalWindow

__all__ = ["TerminalApps", "profile_size"]

_PROFILE = "org.gnome.Terminal.Legacy.Profile"


def profile_size(fs: FileSystem) -> tuple[int, int]:
    """(columns, rows) a new terminal opens at: the default profile's setting."""
    store = SettingsStore(fs)
    cols, rows = (store.get(_PROFILE, k) for k in ("default-size-columns", "default-size-rows"))
    return (cols if isinstance(cols, int) else 80), (rows if isinstance(rows, int) else 24)


class TerminalApps(DesktopActions):
    """Opening terminals (mixed into `Desktop`)."""

    mods: Modifiers

    def open_terminal(self, cwd: str = HOME) -> TerminalWindow:
        """Open a new Terminal window in ``cwd`` (focused, on top), at the default
        profile's size (80x24 unless ``default-size-columns``/``-rows`` were changed)."""
        x0, y0, x1, y1 = self.work_area()
        w, h = TerminalWindow.default_size(*profile_size(self.fs))
        w, h = min(w, x1 - x0 - 20), min(h, y1 - y0 - 20)
        k = len(self.windows) % 6
        x = max(x0, x0 + (x1 - x0 - w) // 2 + 32 * k - 80)
        y = max(y0, y0 + (y1 - y0 - h) // 2 + 32 * k - 60)
        win = TerminalWindow((x, y, x + w, y + h), self.fs, self.fs.normpath(cwd))
        self.windows.append(win)
        self.desktop_focused = False
        return win

    def launch(self, app: str) -> None:
        """A dock click: Terminal raises the open terminals, or opens one."""
        if app != "terminal":
            super().launch(app)
            return
        mine = [w for w in self.windows if isinstance(w, TerminalWindow)]
        if not mine:
            self.open_terminal()
        for w in mine:
            self.raise_window(w)

    def run_menu_action(self, action: str) -> None:
        """The desktop's "Open in Terminal" (on the background, or on a folder icon)."""
        menu = self.menu
        if action == "terminal" and menu is not None and getattr(menu, "owner", None) is None:
            targets = list(self.menu_targets)
            self.menu, self.menu_targets = None, ()
            path = f"{DESKTOP_DIR}/{targets[0]}" if targets else DESKTOP_DIR
            self.open_terminal(path if self.fs.is_dir(path) else DESKTOP_DIR)
            return
        super().run_menu_action(action)

    def _key_down(self, raw: str) -> None:
        key = normalize_key(raw)
        mods = self.mods
        if len(key) == 1 and mods.ctrl and self.menu is None and self.rename is None:
            if mods.alt and key.lower() == "t":
                self.open_terminal()
                return
            active = self.active_window()
            if isinstance(active, TerminalWindow) and key.lower() == "w" and not mods.shift:
                active.on_key(self, key)  # bash's unix-word-rubout, not "close window"
                return
        super()._key_down(raw)  # type: ignore[misc]

"""How the desktop starts terminals: ctrl+alt+T, the dock's Terminal, "Open in Terminal".

`TerminalLauncher` is a component of `Desktop` (``desk.terminals``). The keyboard asks it
first about every key press (`shortcut`): GNOME's ctrl+alt+T works whatever has focus, and
ctrl+W goes to bash, not to the window manager, in a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fs import HOME, FileSystem
from .keys import normalize_key
from .settings_store import SettingsStore
from .terminal import TerminalWindow
from .terminal_pty import PtyTerminalWindow

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["TerminalLauncher", "profile_size"]

_PROFILE = "org.gnome.Terminal.Legacy.Profile"


def profile_size(fs: FileSystem) -> tuple[int, int]:
    """(columns, rows) a new terminal opens at: the default profile's setting."""
    store = SettingsStore(fs)
    cols, rows = (store.get(_PROFILE, k) for k in ("default-size-columns", "default-size-rows"))
    return (cols if isinstance(cols, int) else 80), (rows if isinstance(rows, int) else 24)


class TerminalLauncher:
    """Opening and raising Terminal windows."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk

    def open(self, cwd: str = HOME) -> TerminalWindow:
        """Open a new Terminal window in ``cwd`` (focused, on top), at the default
        profile's size (80x24 unless ``default-size-columns``/``-rows`` were changed)."""
        desk = self.desk
        x0, y0, x1, y1 = desk.work_area()
        w, h = TerminalWindow.default_size(*profile_size(desk.fs))
        w, h = min(w, x1 - x0 - 20), min(h, y1 - y0 - 20)
        k = len(desk.windows) % 6
        x, y = desk.offset_window(max(x0, x0 + (x1 - x0 - w) // 2 + 32 * k - 80),
                                  max(y0, y0 + (y1 - y0 - h) // 2 + 32 * k - 60), w, h)
        box = (x, y, x + w, y + h)
        win: TerminalWindow
        if desk.sandbox is not None:
            win = PtyTerminalWindow(box, desk.sandbox, desk.fs.normpath(cwd))
        else:
            win = TerminalWindow(box, desk.fs, desk.fs.normpath(cwd))
        desk.windows.append(win)
        desk.desktop_focused = False
        return win

    def settle(self) -> None:
        """After an action: let each real terminal's shell finish (or run on in the
        background past `terminal_pty.SETTLE_CAP_S`); close those whose bash exited."""
        desk = self.desk
        for w in [w for w in desk.windows if isinstance(w, PtyTerminalWindow)]:
            w.settle()
            if w.exited and w in desk.windows:
                w.close()
                desk.close_window(w)

    def close_all(self) -> None:
        """End every real terminal's shell (the desktop is going)."""
        for w in self.desk.windows:
            if isinstance(w, PtyTerminalWindow):
                w.close()

    def launch(self) -> None:
        """The dock's Terminal: raise the open terminals, or open one."""
        desk = self.desk
        mine = [w for w in desk.windows if isinstance(w, TerminalWindow)]
        if not mine:
            self.open()
        for w in mine:
            desk.raise_window(w)

    def shortcut(self, raw: str) -> bool:
        """Handle ctrl+alt+T and a terminal's ctrl+W; True when the key was consumed."""
        desk = self.desk
        key = normalize_key(raw)
        mods = desk.mods
        if len(key) == 1 and mods.ctrl and desk.menu is None and desk.rename is None:
            if mods.alt and key.lower() == "t":
                self.open()
                return True
            active = desk.active_window()
            if isinstance(active, TerminalWindow) and key.lower() == "w" and not mods.shift:
                active.on_key(desk, key)  # bash's unix-word-rubout, not "close window"
                return True
        return False

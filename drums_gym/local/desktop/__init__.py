"""The local host's desktop simulator: an Ubuntu 22.04 GNOME desktop in memory.

- `FileSystem`: an in-memory POSIX-like tree (home ``/home/user``).
- `Desktop`: consumes `drums_gym.actions.events` input events, renders with
  Pillow, exposes an accessibility tree, clones for forks.
- `Window`: base class of application windows (`FolderWindow` is a Files window,
  `TerminalWindow` a GNOME Terminal running a simulated bash, see ``bash/``).

`Desktop` holds the state and the window stack; its components each hold a reference to
it: `mouse` (pointer, clicks, window dragging), `keyboard` (key routing), `drag` (files
and rubber bands), `desktop_menus`, `rename_flow` (the rename popover), `icon_actions`
(open, new folder, trash, clipboard), `terminal_launcher`, `dock` (favourites and the dock's
menu), `overview` (Activities). `topbar_dock` draws the GNOME top bar and dock;
`settings_window` is the Settings application; `render` and `a11y` turn a desktop into
pixels and a tree.
"""

from .desktop import Desktop
from .files_window import FolderWindow
from .fs import HOME, FileSystem, SimClock, StatResult
from .terminal import TerminalWindow
from .windows import Window

__all__ = ["HOME", "Desktop", "FileSystem", "FolderWindow", "SimClock", "StatResult",
           "TerminalWindow", "Window"]

"""The local host's desktop simulator: an Ubuntu 22.04 GNOME desktop in memory.

- `FileSystem`: an in-memory POSIX-like tree (home ``/home/user``).
- `Desktop`: consumes `drums_gym.actions.events` input events, renders with
  Pillow, exposes an accessibility tree, clones for forks.
- `Window`: base class of application windows (`FolderWindow` is a Files window,
  `TerminalWindow` a GNOME Terminal running a simulated bash, see ``bash/``).
"""

from .desktop import Desktop
from .files_window import FolderWindow
from .fs import HOME, FileSystem, SimClock, StatResult
from .terminal import TerminalWindow
from .windows import Window

__all__ = ["HOME", "Desktop", "FileSystem", "FolderWindow", "SimClock", "StatResult",
           "TerminalWindow", "Window"]

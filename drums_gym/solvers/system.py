"""Solvers of the os split's system tasks (settings, time zone, sound, packages) and its
infeasible tasks.

The settings tasks are solved through the terminal (``gsettings``, ``timedatectl``,
``pactl``): the GUI Settings panels and the dock's menu come later. A command needing root
is typed with ``sudo``, then the password when sudo asks for it. An infeasible task is
answered ``FAIL`` at once (OSWorld's rule scores that 1.0).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from . import a11y
from .base import Solver, Step, write
from .terminal import TerminalSolver, shell

__all__ = [
    "INFEASIBLE",
    "PASSWORD",
    "BlankScreenTerminal",
    "DoNotDisturbTerminal",
    "EnlargeTextTerminal",
    "Infeasible",
    "InstallSpotifyTerminal",
    "LockScreenTerminal",
    "MaxVolumeTerminal",
    "RemoveFavoriteTerminal",
    "TerminalSizeTerminal",
    "UtcTimezoneTerminal",
    "infeasible_solvers",
    "sudo",
]

#: The desktop user's password (OSWorld's image: ``password``).
PASSWORD = "password"
_PROFILE = ("org.gnome.Terminal.Legacy.Profile:/org/gnome/terminal/legacy/profiles:/"
            ":b1dcc9dd-5262-4d8d-a863-c897e6d979b9/")


def sudo(line: str) -> list[Step]:
    """Type ``sudo LINE`` in a terminal, then the password sudo asks for."""
    steps = shell(f"sudo {line}")
    return [*steps, write(PASSWORD + "\n", check=a11y.terminal)]


class InstallSpotifyTerminal(TerminalSolver):
    task_id = "94d95f96-9699-4208-98ba-3c3119edf9c2"

    def plan(self) -> Iterable[Step]:
        return sudo("snap install spotify")


class BlankScreenTerminal(TerminalSolver):
    task_id = "bedcedc4-4d72-425e-ad62-21960b11fe0d"
    COMMANDS = ("gsettings set org.gnome.desktop.session idle-delay 0",)


class RemoveFavoriteTerminal(TerminalSolver):
    """OSWorld's checker expects thunderbird and google-chrome to stay (vim goes)."""

    task_id = "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3"
    COMMANDS = ("gsettings set org.gnome.shell favorite-apps "
                "\"['thunderbird.desktop', 'google-chrome.desktop']\"",)


class DoNotDisturbTerminal(TerminalSolver):
    task_id = "f9be0997-4b7c-45c5-b05c-4612b44a6118"
    COMMANDS = ("gsettings set org.gnome.desktop.notifications show-banners false",)


class MaxVolumeTerminal(TerminalSolver):
    task_id = "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2"
    COMMANDS = ("pactl set-sink-volume @DEFAULT_SINK@ 100%",)


class UtcTimezoneTerminal(TerminalSolver):
    task_id = "b6781586-6346-41cd-935a-a6b1487918fc"

    def plan(self) -> Iterable[Step]:
        return sudo("timedatectl set-timezone Etc/UTC")


class EnlargeTextTerminal(TerminalSolver):
    task_id = "3ce045a0-877b-42aa-8d2c-b4a863336ab8"
    COMMANDS = ("gsettings set org.gnome.desktop.interface text-scaling-factor 1.25",)


class LockScreenTerminal(TerminalSolver):
    task_id = "a4d98375-215b-4a4d-aee9-3d4370fccc41"
    COMMANDS = ("gsettings set org.gnome.desktop.screensaver lock-enabled true",)


class TerminalSizeTerminal(TerminalSolver):
    """The default profile's size, which every new terminal opens at."""

    task_id = "13584542-872b-42d8-b299-866967b5c3ef"
    COMMANDS = (f"gsettings set {_PROFILE} default-size-columns 132 && "
                f"gsettings set {_PROFILE} default-size-rows 43",)


class Infeasible(Solver):
    """Answers ``FAIL``: the task cannot be done on this machine."""

    route = "answer"
    task_id: ClassVar[str] = ""

    def plan(self) -> Iterable[Step]:
        return ()

    def __call__(self, observation: Any, instruction: str = "",
                 info: Any = None) -> str:
        return "FAIL"


#: The os split's infeasible tasks: switching to a user that does not exist (a462a795),
#: Bluetooth on a VM without it (b3d4a89c), a battery percentage without a battery
#: (fe41f596), python meaning python3 where python2 is not there (c288e301), a copy
#: between two undefined variables (4783cc41).
INFEASIBLE = ("a462a795-fdc7-4b23-b689-e8b6df786b78", "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa",
              "fe41f596-a71b-4c2f-9b2f-9dcd40b568c3", "c288e301-e626-4b98-a1ab-159dcb162af5",
              "4783cc41-c03c-4e1b-89b4-50658f642bd5")


def infeasible_solvers() -> list[type[Solver]]:
    """One `Infeasible` subclass per task of `INFEASIBLE`."""
    return [type(f"Infeasible_{t[:8]}", (Infeasible,), {"task_id": t, "__module__": __name__})
            for t in INFEASIBLE]

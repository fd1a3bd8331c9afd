"""GUI routes: the Files window, the desktop icons and the dock, mouse and keyboard.

Each plan reads every position it clicks from the accessibility tree at the time
of the click, and holds a step back until the window or item it needs is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from . import a11y
from .a11y import Node
from .base import Check, Locate, Solver, Step, click, hotkey, write

__all__ = [
    "ChmodGui",
    "CopyFileToDirsGui",
    "CopyJpgsGui",
    "MoveTodoGui",
    "RenameFolderGui",
    "RestorePosterGui",
]


# -- locators and checks ------------------------------------------------------------

def desktop_icon(name: str) -> Locate:
    return lambda tree: a11y.desktop_icon(tree, name)


def file_icon(name: str, window: str | None = None) -> Locate:
    return lambda tree: a11y.file_icon(tree, name, window)


def dock(label: str) -> Locate:
    return lambda tree: a11y.dock_button(tree, label)


def place(label: str) -> Locate:
    """A sidebar place of the focused Files window."""
    return lambda tree: a11y.find(a11y.find(a11y.active_frame(tree), "list", "Places"),
                                  "list-item", label)


def window_button(label: str) -> Locate:
    return lambda tree: a11y.find(a11y.active_frame(tree), "push-button", label)


def selected(locate: Locate) -> Check:
    return lambda tree: a11y.is_selected(locate(tree))


def shows(locate: Locate) -> Check:
    return lambda tree: locate(tree) is not None


def active(title: str) -> Check:
    return lambda tree: a11y.frame(tree, title, active=True)


def tab(window: str, label: str) -> Locate:
    return lambda tree: a11y.find(a11y.frame(tree, window), "page-tab", label)


def rename_dialog(tree: Node) -> Node:
    return a11y.find(tree, "dialog")


# -- plans ----------------------------------------------------------------------------

def rename(locate: Locate, new_name: str) -> list[Step]:
    """Select, F2, replace the whole name, Enter."""
    return [click(locate), hotkey("f2", check=selected(locate)),
            write(new_name + "\n", check=rename_dialog)]


def go_to(path: str) -> list[Step]:
    """Type a location into the focused Files window (ctrl+L, the path, Enter)."""
    return [hotkey("ctrl", "l", check=a11y.active_frame),
            write(path + "\n", check=lambda t: a11y.find(a11y.active_frame(t), "entry",
                                                         "Location"))]


def copy_items(names: list[str], window: str) -> list[Step]:
    """Select ``names`` in the Files window ``window`` (click, ctrl+click) and ctrl+C."""
    first, *rest = names
    steps: list[Step] = [click(file_icon(first, window), check=active(window))]
    steps += [click(file_icon(n, window), hold="ctrl") for n in rest]
    steps.append(hotkey("ctrl", "c", check=lambda t: all(
        a11y.is_selected(a11y.file_icon(t, n, window)) for n in names)))
    return steps


class RenameFolderGui(Solver):
    """e0df059f: select the desktop folder, F2, type the new name, Enter."""

    task_id, route = "e0df059f-28a6-4169-924f-b9623e7184cc", "gui"
    steps = 4

    def plan(self) -> Iterable[Step]:
        return rename(desktop_icon("todo_list_Jan_1"), "todo_list_Jan_2")


class MoveTodoGui(Solver):
    """7688b85f: cut todo.txt on the desktop, open done/ in Files, paste."""

    task_id, route = "7688b85f-87a4-4e4a-b2f8-f3d6c3f29b82", "gui"
    steps = 5

    def plan(self) -> Iterable[Step]:
        todo = desktop_icon("todo.txt")
        return [click(todo), hotkey("ctrl", "x", check=selected(todo)),
                click(desktop_icon("done"), clicks=2),
                hotkey("ctrl", "v", check=active("done"))]


class RestorePosterGui(Solver):
    """5ea617a3: Files (dock) → Trash (sidebar) → select the poster → Restore."""

    task_id, route = "5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57", "gui"
    steps = 5

    def plan(self) -> Iterable[Step]:
        poster = file_icon("poster_party_night.webp", "Trash")
        return [click(dock("Files")), click(place("Trash"), check=a11y.active_frame),
                click(poster, check=active("Trash")),
                click(window_button("Restore"), check=selected(poster))]


class CopyFileToDirsGui(Solver):
    """6f56bf42: Files (Home) → copy file1 → into dir1, back, dir2, back, dir3: paste."""

    task_id, route = "6f56bf42-85b8-4fbb-8e06-6c44960184ba", "gui"
    steps = 13

    def plan(self) -> Iterable[Step]:
        steps: list[Step] = [click(dock("Files")), *copy_items(["file1"], "Home")]
        for d in ("dir1", "dir2", "dir3"):
            steps += [click(file_icon(d, "Home"), clicks=2, check=active("Home")),
                      hotkey("ctrl", "v", check=active(d)),
                      hotkey("alt", "left", check=shows(file_icon("file1", d)))]
        return steps


class CopyJpgsGui(Solver):
    """23393935: open photos/, then for each folder holding .jpg files: type its location,
    select the pictures, copy, type ~/Desktop/cpjpg, paste."""

    task_id, route = "23393935-50c7-4a86-aeea-2b78fd089c5c", "gui"
    steps = 24
    SOURCES: ClassVar[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
        ("thailand", "~/Desktop/photos/vacation/thailand",
         ("monk252520thailand252520wat252520arun252520scaled25255B225255D.jpg",)),
        ("hk", "~/Desktop/photos/vacation/hk", ("hk_group_photo.jpg", "hong-kong-china.jpg")),
        ("events", "~/Desktop/photos/events", ("emnlp2023.jpg",)),
    )

    def plan(self) -> Iterable[Step]:
        steps: list[Step] = [click(desktop_icon("photos"), clicks=2)]
        for title, path, names in self.SOURCES:
            steps += [*go_to(path), *copy_items(list(names), title),
                      *go_to("~/Desktop/cpjpg"),
                      hotkey("ctrl", "v", check=active("cpjpg"))]
        return steps


def _set_access(dialog: str, cls: str, value: str) -> list[Step]:
    """In the Properties dialog ``dialog``: set ``cls``'s access combo to ``value``."""
    def combo(tree: Node) -> Node:
        return a11y.find(a11y.frame(tree, dialog), "combo-box", f"{cls} Access")

    def open_combo(tree: Node) -> str | None:
        return "" if combo(tree).get("text") == value else click(combo)(tree)

    def choose(tree: Node) -> str | None:
        if combo(tree).get("text") == value:
            return ""
        item = a11y.find(a11y.find(tree, "menu", f"{cls} Access"), "menu-item", value)
        return click(lambda _: item)(tree)

    return [open_combo, choose]


def _no_execute(dialog: str) -> Step:
    def step(tree: Node) -> str | None:
        box = a11y.find(a11y.frame(tree, dialog), "check-box", "Allow executing file as program")
        return click(lambda _: box)(tree) if a11y.has_state(box, "checked") else ""
    return step


class ChmodGui(Solver):
    """4d117223: for each file under ~/testDir: Files → select → Properties (ctrl+I) →
    Permissions: Owner "Read and write", Group and Others "Read-only", not executable."""

    task_id, route = "4d117223-a354-47fb-8b45-62ab1390a95f", "gui"
    steps = 26
    FILES: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("~/testDir", "testDir", "file1.txt"),
        ("~/testDir/subDir1", "subDir1", "file2.txt"),
        ("~/testDir/subDir2", "subDir2", "file3.txt"),
    )

    def plan(self) -> Iterable[Step]:
        steps: list[Step] = [click(dock("Files"))]
        for path, title, name in self.FILES:
            dialog = f"{name} Properties"
            item = file_icon(name, title)
            steps += [*go_to(path), click(item, check=active(title)),
                      hotkey("ctrl", "i", check=selected(item)),
                      click(tab(dialog, "Permissions"), check=active(dialog))]
            for cls, value in (("Owner", "Read and write"), ("Group", "Read-only"),
                               ("Others", "Read-only")):
                steps += _set_access(dialog, cls, value)
            steps += [_no_execute(dialog), hotkey("esc", check=active(dialog))]
        return steps

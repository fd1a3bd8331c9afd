"""GUI routes: the Files window, the desktop icons and the dock, mouse and keyboard.

Each plan reads every position it clicks from the accessibility tree at the time
of the click, and holds a step back until the window or item it needs is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from . import a11y
from .a11y import Node
from .base import Check, Locate, Solver, Step, click, code, hotkey, when, write

__all__ = [
    "ChmodGui",
    "ChmodGuiLong",
    "CopyFileToDirsGui",
    "CopyJpgsGui",
    "CopyJpgsGuiLong",
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


def _location(path: str) -> str:
    """The keys of typing a location into the focused Files window (ctrl+L, path, Enter)."""
    return f"pyautogui.hotkey('ctrl', 'l')\npyautogui.write({path + chr(10)!r})"


def _only_jpgs(title: str) -> Check:
    """The Files window ``title`` is focused and shows .jpg files only."""
    def check(tree: Node) -> bool:
        view = a11y.find(a11y.frame(tree, title, active=True), "layered-pane", "Files View")
        icons = a11y.find_all(view, "icon")
        return bool(icons) and all(n["name"].endswith(".jpg") for n in icons)
    return check


class CopyJpgsGui(Solver):
    """23393935: open photos/, then for each folder holding .jpg files (nothing else): type
    its location, select all, copy and type ~/Desktop/cpjpg in one go, paste (11 steps).
    `CopyJpgsGuiLong` picks each picture by clicking it."""

    task_id, route = "23393935-50c7-4a86-aeea-2b78fd089c5c", "gui"
    steps = 11
    SOURCES: ClassVar[tuple[tuple[str, str], ...]] = (
        ("thailand", "~/Desktop/photos/vacation/thailand"),
        ("hk", "~/Desktop/photos/vacation/hk"),
        ("events", "~/Desktop/photos/events"),
    )

    def plan(self) -> Iterable[Step]:
        steps: list[Step] = [click(desktop_icon("photos"), clicks=2)]
        for title, path in self.SOURCES:
            steps += [code(_location(path), check=a11y.active_frame),
                      code("pyautogui.hotkey('ctrl', 'a')\npyautogui.hotkey('ctrl', 'c')\n"
                           + _location("~/Desktop/cpjpg"), check=_only_jpgs(title)),
                      hotkey("ctrl", "v", check=active("cpjpg"))]
        return steps


class CopyJpgsGuiLong(Solver):
    """23393935 by the pointer: open photos/, then for each folder holding .jpg files: type
    its location, select the pictures, copy, type ~/Desktop/cpjpg, paste (24 steps: more
    than the default step limit)."""

    task_id, route = "23393935-50c7-4a86-aeea-2b78fd089c5c", "gui-long"
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


_WANTED = (("Owner", "Read and write"), ("Group", "Read-only"), ("Others", "Read-only"))


def _fix_permissions(dialog: str) -> Step:
    """One action towards rw-r--r-- in the Properties dialog ``dialog`` (on its Permissions
    tab), read off the tree: pick the open access menu's wanted choice, then open the next
    combo that is wrong; once none is, untick "Allow executing" if ticked and close the
    dialog (Escape). ``""`` when the dialog is gone (nothing left to do)."""
    def step(tree: Node) -> str | None:
        try:
            win = a11y.frame(tree, dialog)
        except LookupError:
            return ""
        lines: list[str] = []
        chosen = ""
        for cls, value in _WANTED:
            menus = a11y.find_all(tree, "menu", f"{cls} Access")
            if menus:
                item = a11y.find(menus[0], "menu-item", value)
                lines.append("pyautogui.click({}, {})".format(*a11y.center(item)))
                chosen = cls
        for cls, value in _WANTED:
            combo = a11y.find(win, "combo-box", f"{cls} Access")
            if cls != chosen and combo.get("text") != value:
                lines.append("pyautogui.click({}, {})".format(*a11y.center(combo)))
                return "\n".join(lines)
        box = a11y.find(win, "check-box", "Allow executing file as program")
        if a11y.has_state(box, "checked"):
            lines.append("pyautogui.click({}, {})".format(*a11y.center(box)))
        return "\n".join([*lines, "pyautogui.press('esc')"])
    return step


class ChmodGui(Solver):
    """4d117223: for each file under ~/testDir: Files → type its folder → click it, ctrl+I
    (Properties), ctrl+Page Down (Permissions) in one action → set what is not
    rw-r--r-- yet (Owner "Read and write", Group and Others "Read-only", not executable) and
    close (12 steps with the setup's files). `ChmodGuiLong` does each control by itself."""

    task_id, route = "4d117223-a354-47fb-8b45-62ab1390a95f", "gui"
    steps = 12
    FILES: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("~/testDir", "testDir", "file1.txt"),
        ("~/testDir/subDir1", "subDir1", "file2.txt"),
        ("~/testDir/subDir2", "subDir2", "file3.txt"),
    )

    def plan(self) -> Iterable[Step]:
        steps: list[Step] = []
        for i, (path, title, name) in enumerate(self.FILES):
            dialog = f"{name} Properties"
            item = file_icon(name, title)

            def open_properties(tree: Node, item: Locate = item) -> str:
                x, y = a11y.center(item(tree))
                return (f"pyautogui.click({x}, {y})\npyautogui.hotkey('ctrl', 'i')\n"
                        "pyautogui.hotkey('ctrl', 'pagedown')")

            if i == 0:  # open Files from the dock and type the folder in one action
                def launch(tree: Node, path: str = path) -> str:
                    x, y = a11y.center(a11y.dock_button(tree, "Files"))
                    return f"pyautogui.click({x}, {y})\n{_location(path)}"
                steps.append(launch)
            else:
                steps.append(code(_location(path), check=a11y.active_frame))
            steps += [when(active(title), open_properties),
                      when(selected(tab(dialog, "Permissions")), _fix_permissions(dialog)),
                      _fix_permissions(dialog), _fix_permissions(dialog)]
        return steps


class ChmodGuiLong(Solver):
    """4d117223, one control per action: for each file under ~/testDir: Files → select →
    Properties (ctrl+I) → Permissions: Owner "Read and write", Group and Others
    "Read-only", not executable (26 steps: more than the default step limit)."""

    task_id, route = "4d117223-a354-47fb-8b45-62ab1390a95f", "gui-long"
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

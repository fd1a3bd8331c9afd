"""The rename popover from opening to commit (desktop icons, Files items, Files' New Folder).

`RenameFlow` is a component of `Desktop` (``desk.rename_flow``): it opens the popover
(``desk.rename``), validates the typed name as Nautilus does, handles the popover's keys and
clicks, and renames (or creates) when it is committed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .fs import DESKTOP_DIR, split_ext
from .popups import RenamePopover, rename_problem
from .textfield import TextField

if TYPE_CHECKING:
    from .desktop import Desktop
    from .windows import Window

__all__ = ["RenameFlow"]


class RenameFlow:
    """Renaming through the popover (the popover itself is ``desk.rename``)."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk

    def start(self, name: str) -> None:
        """Open the rename popover for desktop entry ``name`` (stem selected for files)."""
        desk = self.desk
        path = f"{DESKTOP_DIR}/{name}"
        if not desk.fs.exists(path) or name not in desk.grid.slots:
            return
        self.start_path(path, desk.grid.hit_box(name))
        desk.selected = {name}

    def start_path(self, path: str, anchor: tuple[int, int, int, int],
                   owner: Window | None = None, creating: bool = False,
                   name: str = "") -> None:
        """The rename popover for any ``path`` under ``anchor`` (a screen box); with
        ``creating``, Files' New Folder popover creating ``name`` in the folder ``path``."""
        desk = self.desk
        is_dir = creating or desk.fs.is_dir(path)
        text = name if creating else path.rsplit("/", 1)[1]
        end = len(text) if is_dir else len(split_ext(text)[0])
        desk.menu = None
        desk.rename = RenamePopover(path, is_dir, anchor, (desk.width, desk.height),
                                    TextField(text, end, 0), creating=creating, owner=owner)
        self.validate()

    def validate(self) -> None:
        """Check the typed name (the popover shows why it cannot be used)."""
        desk = self.desk
        pop = desk.rename
        if pop is None:
            return
        fs = desk.fs
        siblings = set(fs.listdir(pop.parent)) if fs.is_dir(pop.parent) else set()
        pop.ok, pop.message = rename_problem(pop.field.text, pop.old_name, siblings, pop.is_dir)

    def commit(self, cancel_if_invalid: bool = False) -> bool:
        """Rename to the field's text. Invalid names keep the popover open with an error
        (or close it, with ``cancel_if_invalid``, as a click elsewhere does)."""
        desk = self.desk
        pop = desk.rename
        if pop is None:
            return False
        new = pop.field.text
        if new == pop.old_name and not pop.creating:
            desk.rename = None
            return True
        self.validate()
        if not pop.ok:
            if cancel_if_invalid:
                desk.rename = None
            elif not pop.message:
                pop.message = "The name cannot be empty."
            return False
        parent = pop.parent
        new_path = f"{parent.rstrip('/')}/{new}"
        desk.rename = None
        if pop.creating:
            desk.fs.mkdir(new_path)
            if pop.owner is not None:
                pop.owner.path_created(new_path)
            return True
        desk.fs.rename(pop.path, new_path)
        if parent == DESKTOP_DIR:
            desk.grid.rename(pop.old_name, new)
            if pop.old_name in desk.selected:
                desk.selected = (desk.selected - {pop.old_name}) | {new}
        for w in desk.windows:
            w.path_moved(pop.path, new_path)
        return True

    # -- input on the popover -------------------------------------------------
    def key(self, key: str) -> None:
        """A key press while the popover is open (Enter commits, Escape cancels)."""
        desk = self.desk
        pop = desk.rename
        if pop is None:
            return
        mods = desk.mods
        if key == "enter":
            self.commit()
            return
        if key == "escape":
            desk.rename = None
            return
        if mods.ctrl and key.lower() in ("c", "x") and pop.field.selected_text():
            desk.text_clipboard = pop.field.selected_text()
            if key.lower() == "x":
                pop.field.insert("")
        elif mods.ctrl and key.lower() == "v":
            pop.field.insert(desk.text_clipboard.replace("\n", " "))
        elif mods.alt or mods.super or not pop.field.key(key, shift=mods.shift, ctrl=mods.ctrl):
            return
        self.validate()

    def press(self, x: int, y: int) -> None:
        """A press inside the popover: its button commits; in the entry it moves the caret."""
        desk = self.desk
        pop = desk.rename
        if pop is None:
            return
        bx0, by0, bx1, by1 = pop.button_rect()
        if bx0 <= x < bx1 and by0 <= y < by1:
            self.commit()
            return
        ex0, ey0, ex1, ey1 = pop.entry_rect()
        if ex0 <= x < ex1 and ey0 <= y < ey1:
            pop.field.set_cursor(pop.index_at(x), extend=desk.mods.shift)

"""File operations the desktop and Files share: paste (copy/move), trash, restore.

They act on a `FileSystem` and absolute paths only, so the desktop (DING) and
every Files window behave alike and a clipboard filled in one place pastes in
any other.

>>> from .fs import FileSystem
>>> fs = FileSystem()
>>> fs.write_file("~/a.txt", "x")
>>> paste(fs, ("copy", ("/home/user/a.txt",)), "/home/user")
['a (copy).txt']
>>> paste(fs, ("cut", ("/home/user/a.txt",)), "/home/user/Documents")
['a.txt']
"""

from __future__ import annotations

import re

from ..budget import charge
from .fs import FileSystem, split_ext

__all__ = ["Clipboard", "free_copy_name", "paste", "restore", "sort_key", "trash"]

#: ``("copy" | "cut", absolute paths)``
Clipboard = tuple[str, tuple[str, ...]]


def free_copy_name(fs: FileSystem, directory: str, name: str) -> str:
    """``name`` if free in ``directory``, else Files' ``"stem (copy).ext"``, ``(copy 2)``..."""
    if not fs.exists(f"{directory}/{name}"):
        return name
    stem, ext = split_ext(name)
    candidate, n = f"{stem} (copy){ext}", 2
    while fs.exists(f"{directory}/{candidate}"):
        charge()
        candidate, n = f"{stem} (copy {n}){ext}", n + 1
    return candidate


def paste(fs: FileSystem, clipboard: Clipboard | None, directory: str) -> list[str]:
    """Copy or move the clipboard's paths into ``directory``; returns the new names.

    A cut whose source already sits in ``directory`` stays put; clashes get
    ``(copy)`` names; a folder is never pasted into itself; vanished sources are skipped.
    """
    if clipboard is None or not fs.is_dir(directory):
        return []
    directory = fs.normpath(directory)
    op, paths = clipboard
    pasted: list[str] = []
    for src in paths:
        charge()
        if not fs.exists(src):
            continue
        name = src.rsplit("/", 1)[1]
        if fs.is_dir(src) and (directory + "/").startswith(src.rstrip("/") + "/"):
            continue  # into itself
        if op == "cut":
            if src.rsplit("/", 1)[0] != directory:
                name = free_copy_name(fs, directory, name)
                fs.rename(src, f"{directory}/{name}")
        else:
            name = free_copy_name(fs, directory, name)
            fs.copy(src, f"{directory}/{name}")
        pasted.append(name)
    return pasted


def trash(fs: FileSystem, paths: list[str]) -> list[str]:
    """Move ``paths`` to the Trash (skipping vanished ones); returns their trash names."""
    out = []
    for p in paths:
        charge()
        if fs.exists(p):
            out.append(fs.trash(p))
    return out


def restore(fs: FileSystem, names: list[str]) -> list[str]:
    """Restore trashed entries to their original paths; clashes stay in the Trash.

    Returns the restored paths.
    """
    out = []
    for name in names:
        try:
            out.append(fs.restore(name))
        except FileExistsError:
            continue  # Files asks the user here; the simulator keeps the item trashed
        except FileNotFoundError:
            continue
    return out


def sort_key(name: str, is_dir: bool = False) -> tuple[object, ...]:
    """Files' order: folders first, then a case-insensitive natural sort (``a2`` < ``a10``)."""
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                  for p in re.split(r"(\d+)", name.casefold()) if p)
    return (not is_dir, parts, name)

"""An in-memory POSIX-like filesystem for simulated desktops.

Paths are absolute (``/home/user/Desktop``), home-relative (``~/Desktop``) or
relative to the home directory (``Desktop``); ``.``, ``..`` and repeated
slashes are normalised. Errors are the builtin ``OSError`` subclasses
(``FileNotFoundError``, ``FileExistsError``, ``NotADirectoryError``,
``IsADirectoryError``) carrying the offending path, as ``os`` raises them.
Times come from a `SimClock`, never from the wall clock, so two desktops fed
the same events hold byte-identical trees.

Every traversal (`walk`, `copy`, copying the whole filesystem with ``copy.deepcopy``)
is iterative, so trees as deep as Linux's PATH_MAX (4096 bytes, about 2,000 levels) allows
work, and deeper ones too; walks, listings and copies charge the work budget in force
(`drums_gym.local.budget`) for each entry.

>>> fs = FileSystem()
>>> fs.mkdir("~/Desktop/notes")
>>> fs.write_file("~/Desktop/notes/a.txt", "hi")
>>> fs.listdir("~/Desktop/notes")
['a.txt']
>>> fs.read_file("/home/user/Desktop/notes/a.txt")
b'hi'
"""

from __future__ import annotations

import copy as copy_mod
import errno
import os
import stat as stat_mod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote, unquote

from ..budget import charge

__all__ = ["DESKTOP_DIR", "HOME", "TRASH", "FileSystem", "SimClock", "StatResult", "TrashItem",
           "split_ext"]

HOME = "/home/user"
DESKTOP_DIR = HOME + "/Desktop"  # the folder the desktop shows as icons
TRASH = HOME + "/.local/share/Trash"
DEFAULT_EPOCH = 1704099600.0  # 2024-01-01 09:00:00 UTC


@dataclass
class SimClock:
    """Simulated time: ``epoch`` (unix seconds) plus ``seconds`` elapsed."""

    epoch: float = DEFAULT_EPOCH
    seconds: float = 0.0

    def now(self) -> float:
        """The current simulated unix time."""
        return self.epoch + self.seconds


@dataclass(frozen=True)
class StatResult:
    """What `FileSystem.stat` returns (a subset of ``os.stat_result``)."""

    st_mode: int
    st_size: int
    st_mtime: float

    @property
    def is_dir(self) -> bool:
        return stat_mod.S_ISDIR(self.st_mode)


@dataclass
class _File:
    data: bytes
    mode: int
    mtime: float
    owner: str | None = None  # None: who owns the path by default (`FileSystem.owner`)


@dataclass
class _Dir:
    mode: int
    mtime: float
    entries: dict[str, _File | _Dir] = field(default_factory=dict)
    owner: str | None = None


_Node = _File | _Dir


@dataclass(frozen=True)
class TrashItem:
    """An entry of the Trash: its name in ``Trash/files``, where it came from, when."""

    name: str
    original: str
    deleted: str  # ISO-like DeletionDate, as the .trashinfo file holds it

    @property
    def display_name(self) -> str:
        """The name Files shows (the original base name)."""
        return self.original.rsplit("/", 1)[1] or self.name


def _err(cls: type[OSError], code: int, path: str) -> OSError:
    return cls(code, os.strerror(code), path)


class FileSystem:
    """An in-memory tree rooted at ``/`` with the user's home at ``/home/user``.

    Deep-copyable (``copy.deepcopy``, iteratively, whatever the depth): a copy shares
    nothing with the original except an explicitly shared `SimClock` when both are copied
    together. `version` counts changes, so callers can cache what they derive from the tree.
    """

    DIR_MODE = 0o775
    FILE_MODE = 0o664

    def __init__(self, clock: SimClock | None = None) -> None:
        self.clock = clock if clock is not None else SimClock()
        #: who owns what is created now (None: the path's default owner); ``sudo`` sets
        #: ``"root"`` while its command runs
        self.creator: str | None = None
        now = self.clock.now()
        self._root = _Dir(0o755, now)
        self._version = 0
        for d in ("/home", HOME, HOME + "/Desktop", HOME + "/Documents", HOME + "/Downloads",
                  HOME + "/Music", HOME + "/Pictures", HOME + "/Videos"):
            self.mkdir(d, parents=True)
        self.mkdir("/tmp", mode=0o1777)  # Ubuntu's shared temporary folder

    # -- paths -------------------------------------------------------------
    @staticmethod
    def normpath(path: str) -> str:
        """Absolute, normalised form of ``path`` (``~`` and relative paths are from home)."""
        if not isinstance(path, str):
            raise TypeError(f"path must be a str, got {path!r}")
        if path == "~" or path.startswith("~/"):
            path = HOME + path[1:]
        elif not path.startswith("/"):
            path = HOME + "/" + path
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    @staticmethod
    def _split(path: str) -> tuple[str, str]:
        parent, _, name = path.rpartition("/")
        return (parent or "/"), name

    def _lookup(self, path: str) -> _Node:
        node: _Node = self._root
        for part in path.split("/")[1:]:
            if not part:
                continue
            if not isinstance(node, _Dir):
                raise _err(NotADirectoryError, errno.ENOTDIR, path)
            if part not in node.entries:
                raise _err(FileNotFoundError, errno.ENOENT, path)
            node = node.entries[part]
        return node

    def _parent_dir(self, path: str) -> tuple[_Dir, str]:
        parent, name = self._split(path)
        node = self._lookup(parent)
        if not isinstance(node, _Dir):
            raise _err(NotADirectoryError, errno.ENOTDIR, parent)
        if not name:
            raise _err(PermissionError, errno.EPERM, path)
        return node, name

    def _touch(self, d: _Dir) -> None:
        d.mtime = self.clock.now()

    def _changed(self) -> None:
        self._version += 1

    @property
    def version(self) -> int:
        """A counter that grows with every change to the tree (names, contents, modes)."""
        return self._version

    # -- queries -----------------------------------------------------------
    def exists(self, path: str) -> bool:
        try:
            self._lookup(self.normpath(path))
        except OSError:
            return False
        return True

    def is_dir(self, path: str) -> bool:
        try:
            return isinstance(self._lookup(self.normpath(path)), _Dir)
        except OSError:
            return False

    def is_file(self, path: str) -> bool:
        try:
            return isinstance(self._lookup(self.normpath(path)), _File)
        except OSError:
            return False

    def listdir(self, path: str = "~") -> list[str]:
        """Sorted entry names of the directory ``path``."""
        p = self.normpath(path)
        node = self._lookup(p)
        if not isinstance(node, _Dir):
            raise _err(NotADirectoryError, errno.ENOTDIR, p)
        charge(1 + len(node.entries))
        return sorted(node.entries)

    def read_file(self, path: str) -> bytes:
        p = self.normpath(path)
        node = self._lookup(p)
        if isinstance(node, _Dir):
            raise _err(IsADirectoryError, errno.EISDIR, p)
        return node.data

    def stat(self, path: str) -> StatResult:
        p = self.normpath(path)
        node = self._lookup(p)
        if isinstance(node, _Dir):
            return StatResult(stat_mod.S_IFDIR | node.mode, 4096, node.mtime)
        return StatResult(stat_mod.S_IFREG | node.mode, len(node.data), node.mtime)

    # -- mutations ---------------------------------------------------------
    def mkdir(self, path: str, parents: bool = False, mode: int | None = None) -> None:
        """Create a directory; with ``parents`` create missing parents and accept existing."""
        p = self.normpath(path)
        mode = self.DIR_MODE if mode is None else mode
        if parents:
            node: _Node = self._root
            parts = p.split("/")
            for i, part in enumerate(parts[1:], start=1):
                if not part:
                    continue
                if not isinstance(node, _Dir):
                    raise _err(NotADirectoryError, errno.ENOTDIR, "/".join(parts[: i + 1]))
                if part not in node.entries:
                    node.entries[part] = _Dir(mode, self.clock.now(), owner=self.creator)
                    self._touch(node)
                    self._changed()
                node = node.entries[part]
            if not isinstance(node, _Dir):
                raise _err(FileExistsError, errno.EEXIST, p)
            return
        parent, name = self._parent_dir(p)
        if name in parent.entries:
            raise _err(FileExistsError, errno.EEXIST, p)
        parent.entries[name] = _Dir(mode, self.clock.now(), owner=self.creator)
        self._touch(parent)
        self._changed()

    def write_file(self, path: str, data: bytes | str, mode: int | None = None) -> None:
        """Create or overwrite a regular file (str data is UTF-8 encoded)."""
        p = self.normpath(path)
        raw = data.encode() if isinstance(data, str) else bytes(data)
        parent, name = self._parent_dir(p)
        old = parent.entries.get(name)
        if isinstance(old, _Dir):
            raise _err(IsADirectoryError, errno.EISDIR, p)
        if old is None:
            parent.entries[name] = _File(raw, self.FILE_MODE if mode is None else mode,
                                         self.clock.now(), self.creator)
            self._touch(parent)
        else:
            old.data, old.mtime = raw, self.clock.now()
            if mode is not None:
                old.mode = mode
        self._changed()

    def owner(self, path: str) -> str | None:
        """Who owns ``path`` when it was created by someone else than the path's default
        owner (``sudo`` in the home folder, ``chown``); None: the default."""
        return self._lookup(self.normpath(path)).owner

    def chown(self, path: str, owner: str | None) -> None:
        """Give ``path`` to ``owner`` (None: back to the path's default owner)."""
        self._lookup(self.normpath(path)).owner = owner

    def set_mtime(self, path: str, mtime: float) -> None:
        """Set the modification time of ``path`` (``touch -d``)."""
        self._lookup(self.normpath(path)).mtime = float(mtime)

    def chmod(self, path: str, mode: int) -> None:
        self._lookup(self.normpath(path)).mode = mode & 0o7777
        self._changed()

    def remove(self, path: str, recursive: bool = True) -> None:
        """Remove a file, or a directory (non-empty ones only when ``recursive``)."""
        p = self.normpath(path)
        parent, name = self._parent_dir(p)
        node = self._lookup(p)
        if isinstance(node, _Dir) and node.entries and not recursive:
            raise _err(OSError, errno.ENOTEMPTY, p)
        del parent.entries[name]  # the subtree goes with its last reference: no traversal
        self._touch(parent)
        self._changed()

    def rename(self, src: str, dst: str) -> None:
        """POSIX ``rename``: ``dst`` is the exact new path.

        An existing file at ``dst`` is replaced by a file; an existing empty
        directory by a directory; anything else raises.
        """
        s, d = self.normpath(src), self.normpath(dst)
        node = self._lookup(s)
        if s == d:
            return
        if isinstance(node, _Dir) and (d + "/").startswith(s + "/"):
            raise _err(OSError, errno.EINVAL, d)
        sparent, sname = self._parent_dir(s)
        dparent, dname = self._parent_dir(d)
        old = dparent.entries.get(dname)
        if old is not None:
            if isinstance(node, _Dir) and not isinstance(old, _Dir):
                raise _err(NotADirectoryError, errno.ENOTDIR, d)
            if isinstance(node, _File) and isinstance(old, _Dir):
                raise _err(IsADirectoryError, errno.EISDIR, d)
            if isinstance(old, _Dir) and old.entries:
                raise _err(FileExistsError, errno.ENOTEMPTY, d)
        del sparent.entries[sname]
        dparent.entries[dname] = node
        self._touch(sparent)
        self._touch(dparent)
        self._changed()

    def _target(self, src: str, dst: str) -> tuple[str, str]:
        s, d = self.normpath(src), self.normpath(dst)
        if self.is_dir(d):
            d = d.rstrip("/") + "/" + self._split(s)[1]
        return s, d

    def move(self, src: str, dst: str) -> str:
        """``mv`` semantics: into ``dst`` when it is a directory. Returns the new path."""
        s, d = self._target(src, dst)
        self.rename(s, d)
        return d

    def copy(self, src: str, dst: str) -> str:
        """``cp -r`` semantics: into ``dst`` when it is a directory. Returns the new path."""
        s, d = self._target(src, dst)
        node = self._lookup(s)
        if isinstance(node, _Dir) and (d + "/").startswith(s + "/"):
            raise _err(OSError, errno.EINVAL, d)
        parent, name = self._parent_dir(d)
        old = parent.entries.get(name)
        if isinstance(old, _Dir):
            raise _err(FileExistsError if isinstance(node, _Dir) else IsADirectoryError,
                       errno.EEXIST if isinstance(node, _Dir) else errno.EISDIR, d)
        if isinstance(node, _Dir) and old is not None:
            raise _err(NotADirectoryError, errno.ENOTDIR, d)
        parent.entries[name] = self._clone(node)  # built whole before it is attached
        self._touch(parent)
        self._changed()
        return d

    def _clone(self, node: _Node) -> _Node:
        """A copy of the subtree ``node`` stamped now (``cp -r``), built without recursion."""
        now = self.clock.now()
        creator = self.creator  # cp makes the copy its own: owned by who runs it
        return _copy_tree(node, lambda n: now, charge, owner=lambda n: creator)

    def __deepcopy__(self, memo: dict[int, Any]) -> FileSystem:
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            if k == "_root":
                new.__dict__[k] = _copy_tree(v, lambda n: n.mtime, None, memo)
            else:
                new.__dict__[k] = copy_mod.deepcopy(v, memo)
        return new

    def unique_name(self, directory: str, name: str, pattern: str = "{stem} {n}") -> str:
        """``name`` if free in ``directory``, else ``pattern`` with n = 2, 3, ..."""
        base = self.normpath(directory)
        if not self.exists(base + "/" + name):
            return name
        stem, ext = split_ext(name)
        n = 2
        while True:
            charge()
            candidate = pattern.format(stem=stem, n=n) + ext
            if not self.exists(base + "/" + candidate):
                return candidate
            n += 1

    def trash(self, path: str) -> str:
        """Move ``path`` to ``~/.local/share/Trash`` (freedesktop spec); returns its trash name."""
        p = self.normpath(path)
        self._lookup(p)
        self.mkdir(TRASH + "/files", parents=True)
        self.mkdir(TRASH + "/info", parents=True)
        name = self.unique_name(TRASH + "/files", self._split(p)[1], "{stem}.{n}")
        self.rename(p, f"{TRASH}/files/{name}")
        when = datetime.fromtimestamp(self.clock.now(), tz=timezone.utc)
        info = (f"[Trash Info]\nPath={quote(p)}\n"
                f"DeletionDate={when.strftime('%Y-%m-%dT%H:%M:%S')}\n")
        self.write_file(f"{TRASH}/info/{name}.trashinfo", info)
        return name

    # -- the Trash (freedesktop.org trash spec) -----------------------------
    def trash_items(self) -> list[TrashItem]:
        """What ``~/.local/share/Trash/files`` holds, with the original paths from ``info/``."""
        if not self.is_dir(TRASH + "/files"):
            return []
        out = []
        for name in self.listdir(TRASH + "/files"):
            charge()
            original, deleted = HOME + "/" + name, ""
            info = f"{TRASH}/info/{name}.trashinfo"
            if self.is_file(info):
                for line in self.read_file(info).decode(errors="replace").splitlines():
                    key, _, value = line.partition("=")
                    if key == "Path":
                        original = self.normpath(unquote(value))
                    elif key == "DeletionDate":
                        deleted = value
            out.append(TrashItem(name, original, deleted))
        return out

    def restore(self, name: str) -> str:
        """Put trashed ``name`` back where its .trashinfo says it was; returns that path.

        Missing parent folders are recreated (as Files does); a clash with an existing
        entry raises ``FileExistsError`` (Files asks the user then).
        """
        item = next((t for t in self.trash_items() if t.name == name), None)
        if item is None:
            raise _err(FileNotFoundError, errno.ENOENT, f"{TRASH}/files/{name}")
        if self.exists(item.original):
            raise _err(FileExistsError, errno.EEXIST, item.original)
        self.mkdir(self._split(item.original)[0], parents=True)
        self.rename(f"{TRASH}/files/{name}", item.original)
        if self.exists(f"{TRASH}/info/{name}.trashinfo"):
            self.remove(f"{TRASH}/info/{name}.trashinfo")
        return item.original

    def delete_from_trash(self, name: str) -> None:
        """Delete a trashed entry for good (its .trashinfo too)."""
        self.remove(f"{TRASH}/files/{name}")
        if self.exists(f"{TRASH}/info/{name}.trashinfo"):
            self.remove(f"{TRASH}/info/{name}.trashinfo")

    def empty_trash(self) -> None:
        for item in self.trash_items():
            self.delete_from_trash(item.name)

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        """``os.walk`` (top-down): ``(dirpath, dirnames, filenames)`` for ``top`` and below.

        As with ``os.walk``, removing names from ``dirnames`` prunes the walk; a directory
        removed or renamed before the walk reaches it is skipped. Iterative at any depth."""
        base = self.normpath(top)
        try:
            start = self._lookup(base)
        except OSError:
            return
        if not isinstance(start, _Dir):
            return
        stack: list[tuple[str, _Dir, _Dir | None, str]] = [(base, start, None, "")]
        while stack:
            path, node, parent, name = stack.pop()
            if parent is not None and parent.entries.get(name) is not node:
                continue  # moved or removed while the walk was under way
            charge(1 + len(node.entries))
            names = sorted(node.entries)
            dirs = [n for n in names if isinstance(node.entries[n], _Dir)]
            files = [n for n in names if not isinstance(node.entries[n], _Dir)]
            yield path, dirs, files
            prefix = path.rstrip("/")
            for d in reversed(dirs):
                child = node.entries.get(d)
                if isinstance(child, _Dir):
                    stack.append((f"{prefix}/{d}", child, node, d))


def _copy_tree(root: _Node, mtime: Callable[[_Node], float],
               charge_step: Callable[[int], None] | None,
               memo: dict[int, Any] | None = None,
               owner: Callable[[_Node], str | None] | None = None) -> _Node:
    """Copy the tree under ``root`` with an explicit stack (no recursion limit): each node
    gets ``mtime(original)`` and ``owner(original)`` (default: the original's owner);
    ``charge_step`` is charged once per node; ``memo`` (deepcopy's) maps every original
    node to its copy."""

    def one(node: _Node) -> _Node:
        if charge_step is not None:
            charge_step(1)
        who = node.owner if owner is None else owner(node)
        dup: _Node = (_File(node.data, node.mode, mtime(node), who) if isinstance(node, _File)
                      else _Dir(node.mode, mtime(node), owner=who))
        if memo is not None:
            memo[id(node)] = dup
        return dup

    top = one(root)
    stack: list[tuple[_Node, _Node]] = [(root, top)]
    while stack:
        src, dst = stack.pop()
        if isinstance(src, _Dir) and isinstance(dst, _Dir):
            for name, child in src.entries.items():
                dup = one(child)
                dst.entries[name] = dup
                if isinstance(child, _Dir):
                    stack.append((child, dup))
    return top


def split_ext(name: str) -> tuple[str, str]:
    """Split a file name into stem and extension the way GNOME selects it for renaming.

    >>> split_ext("report.txt"), split_ext("a.tar.gz"), split_ext(".bashrc")
    (('report', '.txt'), ('a', '.tar.gz'), ('.bashrc', ''))
    """
    for double in (".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"):
        if name.endswith(double) and len(name) > len(double):
            return name[: -len(double)], double
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]

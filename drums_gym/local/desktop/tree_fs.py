"""`TreeFileSystem`: the `FileSystem` API over a desktop's real tree (the sandbox backend).

The desktop's Files window, its task's setup and getters and its terminal's real bash all
see the same files: the directory tree the sandbox binds as ``/``
(`drums_gym.local.sandbox.tree`). The machine's read-only system folders (``/usr`` and the
links beside it) are readable as in the sandbox; nothing else of the machine.

Paths are resolved as the sandbox sees them: a symlink in the tree is followed inside the
sandbox's view (``/etc/shadow`` means the desktop's own), never to the machine's file of
that name. Owners are the tree's real uids, named from the desktop's own /etc/passwd; what
this API creates belongs to the path's default owner (the user in their home and /tmp, root
elsewhere) or to root while ``creator`` is ``"root"``, as `FileSystem` does.

Programs change the tree behind this object's back: `touched` (called after each command
and when a terminal prints) bumps `version`, so what the desktop derives is recomputed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat as stat_mod
import weakref
from collections.abc import Iterator
from typing import Any

from ..budget import charge
from ..sandbox.tree import RUNTIME_DIR, remove_tree
from .fs import HOME, FileSystem, SimClock, StatResult

__all__ = ["TreeFileSystem"]

_SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")  # the machine's, read-only
_VIRTUAL = ("proc", "dev", "run", "sys")  # the sandbox's own mounts: nothing to read here
_MAX_LINKS = 40


def _runtime(p: str, ancestors: bool = False) -> bool:
    """Whether sandbox path ``p`` is in the user's runtime folder, which is in the tree
    (or, with ``ancestors``, one of the folders on the way to it: ``/run``, ``/run/user``)."""
    return (p == RUNTIME_DIR or p.startswith(RUNTIME_DIR + "/")
            or (ancestors and RUNTIME_DIR.startswith(p + "/")))
_UID = {"root": 0, "user": 1000}


def _err(cls: type[OSError], code: int, path: str) -> OSError:
    return cls(code, os.strerror(code), path)


def _default_owner(path: str) -> str:
    for base in (HOME, "/tmp"):
        if path == base or path.startswith(base + "/"):
            return "user"
    return "root"


class TreeFileSystem(FileSystem):
    """A desktop's files on the machine, at ``root`` (the tree's folder); removed with
    `close` or when the object is collected."""

    def __init__(self, root: str, clock: SimClock | None = None) -> None:
        self.clock = clock if clock is not None else SimClock()
        self.creator: str | None = None
        self.root = root
        self._version = 0
        self._names: tuple[float, dict[int, str], dict[str, int]] | None = None
        self._finalizer = weakref.finalize(self, remove_tree, root)

    def close(self) -> None:
        """Delete the tree (idempotent)."""
        self._finalizer()

    def touched(self) -> None:
        """Programs may have changed the tree: bump `version`."""
        self._version += 1

    # -- resolution --------------------------------------------------------
    def _host(self, p: str) -> str:
        """The machine path of sandbox path ``p`` (normalised, symlink-free prefix): the
        machine's read-only system folders as themselves, the rest in the tree."""
        top = p.split("/", 2)[1] if p != "/" else ""
        if top in _SYSTEM and not os.path.islink(self.root + "/" + top):
            return p
        if top in _VIRTUAL and not _runtime(p, ancestors=True):
            raise _err(FileNotFoundError, errno.ENOENT, p)
        return self.root + p

    def _resolve(self, path: str, follow: bool = True) -> str:
        """Sandbox path ``path`` with every symlink resolved inside the sandbox's view
        (the last component only when ``follow``)."""
        todo = [c for c in self.normpath(path).split("/") if c]
        done: list[str] = []
        hops = 0
        while todo:
            part = todo.pop(0)
            if part == "..":
                if done:
                    done.pop()
                continue
            if part == ".":
                continue
            cand = "/" + "/".join([*done, part])
            if not todo and not follow:
                done.append(part)
                break
            try:
                st = os.lstat(self._host(cand))
            except FileNotFoundError:
                done.append(part)
                done += [c for c in todo if c]
                break
            if stat_mod.S_ISLNK(st.st_mode):
                hops += 1
                if hops > _MAX_LINKS:
                    raise _err(OSError, errno.ELOOP, path)
                target = os.readlink(self._host(cand))
                if target.startswith("/"):
                    done = []
                todo = [c for c in target.split("/") if c] + todo
                continue
            done.append(part)
        return "/" + "/".join(done)

    def _real(self, path: str, follow: bool = True) -> str:
        return self._host(self._resolve(path, follow))

    def _writable(self, path: str, follow: bool = True) -> str:
        p = self._resolve(path, follow)
        top = p.split("/", 2)[1] if p != "/" else ""
        if p == "/" or top in _SYSTEM or (top in _VIRTUAL and not _runtime(p)):
            raise _err(PermissionError, errno.EROFS, p)
        return self.root + p

    def _lookup(self, path: str) -> Any:
        return os.lstat(self._real(path))

    # -- owners ------------------------------------------------------------
    def _accounts(self) -> tuple[dict[int, str], dict[str, int]]:
        passwd = self.root + "/etc/passwd"
        try:
            mtime = os.stat(passwd).st_mtime
        except OSError:
            return {v: k for k, v in _UID.items()}, dict(_UID)
        if self._names is None or self._names[0] != mtime:
            by_uid: dict[int, str] = {}
            by_name: dict[str, int] = {}
            with open(passwd, encoding="utf-8", errors="replace") as f:
                for line in f:
                    parts = line.split(":")
                    if len(parts) > 3 and parts[2].isdigit():
                        by_uid.setdefault(int(parts[2]), parts[0])
                        by_name.setdefault(parts[0], int(parts[2]))
            self._names = (mtime, by_uid, by_name)
        return self._names[1], self._names[2]

    def _ids(self, name: str) -> tuple[int, int]:
        _, by_name = self._accounts()
        uid = by_name.get(name, _UID.get(name, 0))
        return uid, uid

    def _own(self, host: str, sandbox_path: str) -> None:
        uid, gid = self._ids(self.creator or _default_owner(sandbox_path))
        os.lchown(host, uid, gid)

    def owner(self, path: str) -> str | None:
        p = self._resolve(path)
        st = os.lstat(self._host(p))
        by_uid, _ = self._accounts()
        name = by_uid.get(st.st_uid, str(st.st_uid))
        return None if name == _default_owner(p) else name

    def chown(self, path: str, owner: str | None) -> None:
        p = self._resolve(path)
        uid, gid = self._ids(owner if owner is not None else _default_owner(p))
        os.chown(self._writable(p), uid, gid)
        self._changed()

    # -- queries -----------------------------------------------------------
    def exists(self, path: str) -> bool:
        try:
            os.stat(self._real(path))
        except (OSError, ValueError):
            return False
        return True

    def is_dir(self, path: str) -> bool:
        try:
            return stat_mod.S_ISDIR(os.stat(self._real(path)).st_mode)
        except (OSError, ValueError):
            return False

    def is_file(self, path: str) -> bool:
        try:
            return stat_mod.S_ISREG(os.stat(self._real(path)).st_mode)
        except (OSError, ValueError):
            return False

    def listdir(self, path: str = "~") -> list[str]:
        p = self._resolve(path)
        names = os.listdir(self._host(p))
        charge(1 + len(names))
        return sorted(names)

    def read_file(self, path: str) -> bytes:
        real = self._real(path)
        if os.path.isdir(real):
            raise _err(IsADirectoryError, errno.EISDIR, self.normpath(path))
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            if not stat_mod.S_ISREG(os.fstat(fd).st_mode):
                raise _err(OSError, errno.EINVAL, self.normpath(path))
            with os.fdopen(fd, "rb", closefd=False) as f:
                return f.read()
        finally:
            os.close(fd)

    def stat(self, path: str) -> StatResult:
        st = os.stat(self._real(path))
        size = 4096 if stat_mod.S_ISDIR(st.st_mode) else st.st_size
        return StatResult(st.st_mode, size, st.st_mtime)

    # -- mutations ---------------------------------------------------------
    def mkdir(self, path: str, parents: bool = False, mode: int | None = None) -> None:
        p = self._resolve(path)
        mode = self.DIR_MODE if mode is None else mode
        if parents:
            parts = [c for c in p.split("/") if c]
            for i in range(1, len(parts) + 1):
                sub = "/" + "/".join(parts[:i])
                if self.is_dir(sub):
                    continue
                if self.exists(sub) or os.path.lexists(self._host(self._resolve(sub))):
                    raise _err(FileExistsError if i == len(parts) else NotADirectoryError,
                               errno.EEXIST if i == len(parts) else errno.ENOTDIR, sub)
                self.mkdir(sub, mode=mode)
            return
        real = self._writable(p)
        os.mkdir(real)
        os.chmod(real, mode)
        self._own(real, p)
        self._changed()

    def write_file(self, path: str, data: bytes | str, mode: int | None = None) -> None:
        p = self._resolve(path)
        raw = data.encode() if isinstance(data, str) else bytes(data)
        real = self._writable(p)
        if os.path.isdir(real):
            raise _err(IsADirectoryError, errno.EISDIR, p)
        new = not os.path.lexists(real)
        fd = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                     self.FILE_MODE if mode is None else mode)
        try:
            with os.fdopen(fd, "wb", closefd=False) as f:
                f.write(raw)
            if new:
                os.fchmod(fd, self.FILE_MODE if mode is None else mode)
                uid, gid = self._ids(self.creator or _default_owner(p))
                os.fchown(fd, uid, gid)
            elif mode is not None:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        self._changed()

    def set_mtime(self, path: str, mtime: float) -> None:
        os.utime(self._writable(path), (float(mtime), float(mtime)))
        self._changed()

    def chmod(self, path: str, mode: int) -> None:
        os.chmod(self._writable(path), mode & 0o7777)
        self._changed()

    def remove(self, path: str, recursive: bool = True) -> None:
        real = self._writable(path, follow=False)
        p = self.normpath(path)
        if os.path.isdir(real) and not os.path.islink(real):
            if not recursive and os.listdir(real):
                raise _err(OSError, errno.ENOTEMPTY, p)
            remove_tree(real, strict=True)
        else:
            os.unlink(real)
        self._changed()

    def rename(self, src: str, dst: str) -> None:
        s = self._writable(src, follow=False)
        d = self._writable(dst, follow=False)
        if s == d:
            os.lstat(s)
            return
        if os.path.isdir(s) and (d + "/").startswith(s + "/"):
            raise _err(OSError, errno.EINVAL, self.normpath(dst))
        os.rename(s, d)
        self._changed()

    def copy(self, src: str, dst: str) -> str:
        s, d = self._target(src, dst)
        rs, rd = self._real(s), self._writable(d)
        if os.path.isdir(rs) and (rd + "/").startswith(rs + "/"):
            raise _err(OSError, errno.EINVAL, d)
        if os.path.isdir(rd):
            raise _err(FileExistsError if os.path.isdir(rs) else IsADirectoryError,
                       errno.EEXIST if os.path.isdir(rs) else errno.EISDIR, d)
        if os.path.isdir(rs):
            if os.path.lexists(rd):
                raise _err(NotADirectoryError, errno.ENOTDIR, d)
            shutil.copytree(rs, rd, symlinks=True, copy_function=shutil.copy)
            for dirpath, dirs, files in os.walk(rd):
                charge(1 + len(dirs) + len(files))
                for name in [*dirs, *files]:
                    full = os.path.join(dirpath, name)
                    self._own(full, d + full[len(rd):])
            self._own(rd, d)
        else:
            shutil.copy(rs, rd)
            self._own(rd, d)
        self._changed()
        return d

    def __deepcopy__(self, memo: dict[int, Any]) -> TreeFileSystem:
        import copy as copy_mod

        from ..sandbox.tree import new_tree
        new = TreeFileSystem(new_tree(self.root), copy_mod.deepcopy(self.clock, memo))
        new.creator = self.creator
        new._version = self._version
        memo[id(self)] = new
        return new

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        base = self.normpath(top)
        if not self.is_dir(base):
            return
        stack = [base]
        while stack:
            path = stack.pop()
            try:
                names = self.listdir(path)
            except OSError:
                continue
            dirs: list[str] = []
            files: list[str] = []
            for n in names:
                full = f"{path.rstrip('/')}/{n}"
                with contextlib.suppress(OSError):
                    st = os.lstat(self._host(self._resolve(full, follow=False)))
                    (dirs if stat_mod.S_ISDIR(st.st_mode) else files).append(n)
            yield path, dirs, files
            prefix = path.rstrip("/")
            stack.extend(f"{prefix}/{d}" for d in reversed(dirs))

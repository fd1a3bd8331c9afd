"""A desktop's private root on the machine, the sandbox's ``/``: ``home``, ``etc``, ``tmp``,
``root``, ``var``, ``snap`` (where the desktop's store installs programs)..., with empty
mount points for what the sandbox mounts over it (the machine's ``/usr``, ``/proc``...).

Each tree is a directory under this process's base folder (`base_dir`): on the machine's
tmpfs (``/dev/shm``) when there is one, so the pages the desktop's programs write there are
charged to the desktop's memory cgroup (the memory limit caps the tree's size as well);
the base folder is mode 0700 and owned by the host, so no other user of the machine can
reach a desktop's files. Owners are real: the user's files belong to uid 1000, /etc and
/root to root (the host is root and chowns directly).

A tree is made by copying a template (`new_tree`), built once by the first process that needs
it (and removed when that process exits through Python) and used by the processes it forks:
the host's zygote builds it while it warms up (`template`), so a desktop worker copies it
rather than building one of its own (about 20 ms of its creation); a fork copies the
parent's tree with ``cp -a`` (owners, modes, times, symlinks kept: `copy_tree`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import uuid

from .etc import USER_GID, USER_UID, set_timezone, write_etc

__all__ = ["HOME_DIRS", "MOUNTED", "ROOTS", "RUNTIME_DIR", "base_dir", "copy_tree", "new_tree",
           "remove_scratch_tree", "remove_tree", "scratch_tree", "tree_base"]

#: the top-level folders of a new tree (the tree is the sandbox's ``/``, read-write)
ROOTS: tuple[str, ...] = ("home", "etc", "tmp", "root", "var", "snap", "mnt", "opt", "srv",
                          "media")
#: what the sandbox mounts over the tree (the machine's /usr read-only, its own /proc...)
MOUNTED: tuple[str, ...] = ("usr", "proc", "dev", "run")
#: the user's runtime folder (XDG_RUNTIME_DIR): in the tree, bound at this path over the
#: sandbox's private /run, so the session's request files (``xdg-open``'s) are the
#: desktop's own
RUNTIME_DIR = "/run/user/1000"
HOME_DIRS: tuple[str, ...] = ("Desktop", "Documents", "Downloads", "Music", "Pictures",
                              "Videos", "Public", "Templates")
_lock = threading.Lock()
_template: list[str] = []  # the template's path, once built (inherited by fork children)


def tree_base(pid: int) -> str:
    """The folder of trees of process ``pid`` (its `base_dir`; not created here): a host
    removes a killed desktop worker's with it."""
    root = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) \
        else tempfile.gettempdir()
    return os.path.join(root, f"drums-desktops-{pid}")


def base_dir() -> str:
    """This process's folder of trees (created mode 0700 on first use)."""
    path = tree_base(os.getpid())
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def _mkdir(path: str, mode: int, uid: int = 0, gid: int = 0) -> None:
    os.makedirs(path, exist_ok=True)
    os.chmod(path, mode)
    os.chown(path, uid, gid)


def _build_template(path: str) -> None:
    for name in ROOTS:
        _mkdir(os.path.join(path, name), 0o755)
    _mkdir(os.path.join(path, "snap", "bin"), 0o755)
    for name in MOUNTED:  # mount points of the sandbox (bwrap mounts over them)
        _mkdir(os.path.join(path, name), 0o755)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = "/" + name
        if os.path.islink(host):
            os.symlink(os.readlink(host), os.path.join(path, name))
        elif os.path.isdir(host):
            _mkdir(os.path.join(path, name), 0o755)
    _mkdir(os.path.join(path, "run", "user"), 0o755)
    _mkdir(path + RUNTIME_DIR, 0o700, USER_UID, USER_GID)
    os.chmod(os.path.join(path, "root"), 0o700)
    os.chmod(os.path.join(path, "tmp"), 0o1777)
    write_etc(os.path.join(path, "etc"))
    home = os.path.join(path, "home", "user")
    _mkdir(home, 0o750, USER_UID, USER_GID)
    for name in HOME_DIRS:
        _mkdir(os.path.join(home, name), 0o755, USER_UID, USER_GID)
    skel = os.path.join(path, "etc", "skel")
    for name in (".bashrc", ".profile", ".bash_logout"):
        src = os.path.join(skel, name)
        if os.path.isfile(src):
            shutil.copy2(src, os.path.join(home, name))
            os.chown(os.path.join(home, name), USER_UID, USER_GID)
    for src in (".bashrc", ".profile"):
        if os.path.isfile(os.path.join(skel, src)):
            shutil.copy2(os.path.join(skel, src), os.path.join(path, "root", src))
    var = os.path.join(path, "var")
    for sub, mode in (("tmp", 0o1777), ("log", 0o755), ("mail", 0o2775), ("lib", 0o755),
                      ("cache", 0o755), ("spool", 0o755), ("spool/cron", 0o755),
                      ("spool/cron/crontabs", 0o1730), ("backups", 0o755), ("opt", 0o755),
                      ("local", 0o755), ("www", 0o755)):
        _mkdir(os.path.join(var, sub), mode)


def template() -> str:
    """The template tree: built on first use in this process's base folder, or the one a
    parent process built before forking this one, while it exists."""
    with _lock:
        if _template and os.path.isdir(_template[0]):
            return _template[0]
        path = os.path.join(base_dir(), "template")
        if os.path.isdir(path):
            shutil.rmtree(path)
        staging = path + ".new"
        if os.path.isdir(staging):
            shutil.rmtree(staging)
        os.makedirs(staging)
        _build_template(staging)
        os.rename(staging, path)
        _template[:] = [path]
        # removed at this process's exit (a process with in-process desktops), and only by
        # it: a fork child that exits through Python leaves its parent's template alone
        atexit.register(_remove_template, path, os.getpid())
        return path


def _remove_template(path: str, builder: int) -> None:
    if os.getpid() == builder:
        remove_scratch_tree(path)  # and the folder of trees, if nothing else is in it


def copy_tree(src: str, dst: str) -> None:
    """Copy a tree with owners, modes, times and symlinks (``cp -a``)."""
    subprocess.run(["cp", "-a", "--", src, dst], check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def new_tree(src: str | None = None, timezone: str | None = None) -> str:
    """A new tree: a copy of ``src`` (a fork), or of the template (with ``timezone`` as
    its system time zone when given)."""
    dst = os.path.join(base_dir(), uuid.uuid4().hex)
    copy_tree(src if src is not None else template(), dst)
    os.chmod(dst, 0o755)  # its top is only reachable through the 0700 base folder
    if timezone is not None:
        set_timezone(os.path.join(dst, "etc"), timezone)
    return dst


def scratch_tree() -> str:
    """A tree built in place rather than copied from the template, which stays unbuilt: the
    sandbox probe's (`detect.probe`), so that a process which only asks whether sandboxes
    work keeps nothing on the machine once it has removed it (`remove_scratch_tree`)."""
    dst = os.path.join(base_dir(), "scratch-" + uuid.uuid4().hex)
    os.makedirs(dst)
    _build_template(dst)
    os.chmod(dst, 0o755)
    return dst


def remove_scratch_tree(path: str) -> None:
    """Remove a `scratch_tree`, and this process's folder of trees if that leaves it empty."""
    remove_tree(path)
    with contextlib.suppress(OSError):  # not empty: the process's desktops are in it
        os.rmdir(os.path.dirname(path))


def remove_tree(path: str, strict: bool = False) -> None:
    """Delete a tree of any depth (nothing if it is already gone) with ``rm -rf``: an agent
    nests folders deeper than `shutil.rmtree`'s recursion (and PATH_MAX) reaches, e.g.
    ``mkdir -p a/a/a/...`` 2,000 levels down. ``strict`` raises OSError with rm's message
    when something could not be removed; otherwise what is left stays."""
    done = subprocess.run(["rm", "-rf", "--one-file-system", "--", path],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    if strict and done.returncode:
        raise OSError(done.stderr.decode(errors="replace").strip() or f"rm -rf {path} failed")

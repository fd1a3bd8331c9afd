"""`tree.copy_tree`: a desktop's tree copied for a new desktop or a fork child.

What a fork child's files are is what the parent's were: owners, modes (set-id bits
included), times, symlinks (with their own owners and times), hard links within the tree,
a fifo; and the copy is independent of the source.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from drums_gym.local.sandbox.tree import copy_tree

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="owners other than ours need root")

USER = 1000
T = 1_600_000_000_123_456_789  # a time to the nanosecond, unlike now


def listing(root: Path) -> dict[str, tuple[object, ...]]:
    """Every entry below ``root``: kind, mode, owner, mtime, and what it holds."""
    out: dict[str, tuple[object, ...]] = {}
    for here, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(here) / name
            st = path.lstat()
            kind = stat.S_IFMT(st.st_mode)
            held: object = None
            if kind == stat.S_IFLNK:
                held = os.readlink(path)
            elif kind == stat.S_IFREG:
                held = path.read_bytes()
            out[str(path.relative_to(root))] = (
                kind, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_mtime_ns, held)
    return out


def linked_together(root: Path) -> list[set[str]]:
    """The sets of paths below ``root`` that are one inode (hard links), largest first."""
    by_inode: dict[int, set[str]] = {}
    for here, _, files in os.walk(root):
        for name in files:
            path = Path(here) / name
            by_inode.setdefault(path.lstat().st_ino, set()).add(str(path.relative_to(root)))
    return sorted((g for g in by_inode.values() if len(g) > 1), key=sorted)


def build(src: Path) -> None:
    home = src / "home" / "user"
    home.mkdir(parents=True)
    (src / "tmp").mkdir()
    (home / "notes.txt").write_text("todo\n")
    (home / "empty").touch()
    (home / "secret").write_bytes(b"\x00\x01" * 40_000)
    (home / "secret").chmod(0o600)
    (home / "tool").write_text("#!/bin/sh\n")
    (src / "bin").mkdir()
    (src / "bin" / "root-tool").write_text("#!/bin/sh\n")
    os.chown(home / "tool", USER, USER)
    os.chmod(home / "tool", 0o4755)  # set-uid: kept, though chown clears it
    os.link(home / "notes.txt", home / "notes-link.txt")
    (home / "to-notes").symlink_to("notes.txt")
    os.chown(home / "to-notes", USER, USER, follow_symlinks=False)
    os.link(home / "to-notes", home / "to-notes-2", follow_symlinks=False)
    (home / "dangling").symlink_to("/nowhere/at/all")
    for path in (home / "to-notes", home / "dangling"):
        os.utime(path, ns=(T, T + 1), follow_symlinks=False)
    for path in (home / "notes.txt", home / "tool", home / "secret"):
        os.utime(path, ns=(T, T + 2))
    os.chmod(src / "tmp", 0o1777)
    os.chown(home, USER, USER)
    os.chmod(home, 0o750)
    for path in (home, src / "tmp", src / "home"):  # last: their entries changed them
        os.utime(path, ns=(T, T + 3))


def test_a_copy_is_the_source_as_cp_a_would_make_it_and_independent(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    build(src)
    copy_tree(str(src), str(dst))
    assert listing(dst) == listing(src)
    assert linked_together(dst) == linked_together(src) == [
        {"home/user/notes-link.txt", "home/user/notes.txt"},
        {"home/user/to-notes", "home/user/to-notes-2"},
    ]
    assert (dst / "home/user/tool").stat().st_mode & stat.S_ISUID
    copied, source = (root / "home/user/notes.txt" for root in (dst, src))
    assert copied.stat().st_ino != source.stat().st_ino
    (dst / "home/user/notes.txt").write_text("changed in the copy\n")
    os.chown(dst / "home/user/to-notes", 0, 0, follow_symlinks=False)
    assert (src / "home/user/notes.txt").read_text() == "todo\n"
    assert (src / "home/user/to-notes").lstat().st_uid == USER
    assert (dst / "home/user/notes-link.txt").read_text() == "changed in the copy\n"


def test_a_tree_holding_a_fifo_is_copied_whole(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    build(src)
    os.mkfifo(src / "home/user/pipe")
    os.chown(src / "home/user/pipe", USER, USER)
    os.utime(src / "home/user", ns=(T, T + 3))
    copy_tree(str(src), str(dst))
    assert listing(dst) == listing(src)
    assert stat.S_ISFIFO((dst / "home/user/pipe").lstat().st_mode)
    assert linked_together(dst) == linked_together(src)


TEMPLATE_SCRIPT = """
import os, sys
from drums_gym.local.sandbox.tree import template
path = template()
pid = os.fork()
if pid == 0:  # a fork child that exits through Python (atexit runs) leaves it alone
    sys.exit(0)
os.waitpid(pid, 0)
print(path, os.path.isdir(path), flush=True)
"""


def test_a_process_that_built_the_template_removes_it_as_it_exits() -> None:
    done = subprocess.run([sys.executable, "-c", TEMPLATE_SCRIPT], capture_output=True,
                          text=True, timeout=60, check=True)
    path, there = done.stdout.split()
    assert there == "True", "a fork child removed its parent's template"
    assert not os.path.exists(path), "the template outlived the process that built it"
    assert not os.path.exists(os.path.dirname(path)), "and its folder of trees"

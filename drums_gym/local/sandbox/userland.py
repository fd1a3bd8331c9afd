"""The programs a desktop's sandbox needs from the machine (`PROGRAMS`), which are missing
(`missing`), and which bundled tasks use them (`task_programs`): what ``drums-gym doctor``
reports and ``.ci/run`` installs."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["PACKAGES", "PROGRAMS", "missing", "task_programs"]

#: program -> the Debian/Ubuntu package that has it (the bundled tasks' commands and the
#: idioms agents type: archives, text tools, editors, processes, python3, openssl)
PROGRAMS: dict[str, str] = {
    "bash": "bash", "ls": "coreutils", "cp": "coreutils", "mv": "coreutils",
    "chmod": "coreutils", "stat": "coreutils", "md5sum": "coreutils", "timeout": "coreutils",
    "cut": "coreutils", "sort": "coreutils", "wc": "coreutils", "getent": "libc-bin",
    "find": "findutils", "xargs": "findutils", "grep": "grep", "sed": "sed", "gawk": "gawk",
    "tar": "tar", "gzip": "gzip", "zip": "zip", "unzip": "unzip", "rsync": "rsync",
    "cpio": "cpio", "python3": "python3", "openssl": "openssl", "ps": "procps",
    "top": "procps", "nano": "nano", "vim": "vim-tiny", "less": "less", "bc": "bc",
    "file": "file", "diff": "diffutils", "setpriv": "util-linux", "useradd": "passwd",
    "chpasswd": "passwd", "passwd": "passwd", "crontab": "cron", "bwrap": "bubblewrap",
}
PACKAGES: tuple[str, ...] = tuple(sorted(set(PROGRAMS.values())))
_TASKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "tasks", "data", "os")


def missing() -> list[str]:
    """The programs of `PROGRAMS` this machine does not have."""
    return [p for p in PROGRAMS if shutil.which(p) is None
            and not (p == "vim" and shutil.which("vi"))]


def _commands(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "command":
                if isinstance(value, str):
                    yield value
                elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                    yield " ".join(value)
            else:
                yield from _commands(value)
    elif isinstance(node, list):
        for item in node:
            yield from _commands(item)


def _scripts(node: Any) -> Iterator[str]:
    """The paths of the shell scripts a task file downloads (setup or postconfig)."""
    if isinstance(node, Mapping):
        path = node.get("path")
        if isinstance(path, str) and path.endswith(".sh") and "url" in node:
            yield path
        for value in node.values():
            yield from _scripts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _scripts(item)


def task_programs(folder: str = _TASKS) -> dict[str, set[str]]:
    """Bundled task (short id) -> the programs of `PROGRAMS` it runs: the commands of its
    ``command`` lines and of the scripts it downloads, as bash parses them."""
    from ..tasks import downloads
    from ..tasks.shell import command_names

    out: dict[str, set[str]] = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            raw = json.load(f)
        task_id = str(raw.get("id", name[:-5]))
        lines = list(_commands(raw))
        for path in _scripts(raw):
            if downloads.supports(task_id, path):
                lines.append(downloads.generate(task_id, path).decode(errors="replace"))
        used = {"bash"}
        for line in lines:
            used.update(n for n in command_names(line) if n in PROGRAMS)
        out[task_id[:8]] = used
    return out

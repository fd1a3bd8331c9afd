"""Local stand-ins for the files OSWorld configs download (no network).

A ``download`` step names a URL and a path; the file is made here with the same name and
kind: pictures drawn by `media` (a ``.jpg`` is a real JPEG, a ``.webp`` a real WebP), and
scripts from ``data/scripts/<task id8>/<name>`` (reconstructions of setup and eval scripts
that could not be had: ``docs/tasks.md`` lists them). Lookup order: the task's own script,
then the file name (`BY_NAME`), then the kind of picture its extension names.

>>> generate("5ea617a3", "/home/user/Desktop/poster_party_night.webp")[:4]
b'RIFF'
>>> generate("6f56bf42-85b8-4fbb-8e06-6c44960184ba", "setup.sh").startswith(b"#!/bin/bash")
True
>>> supports("0b35aee5-6f2a-4c71-b2da-aed0105fdbde", "/home/user/Desktop/submission.cpp")
False
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from functools import partial
from importlib import resources

from .media import jpeg, png, poster_webp, webp

__all__ = ["BY_KIND", "BY_NAME", "generate", "script", "supports"]

MONK = "monk252520thailand252520wat252520arun252520scaled25255B225255D.jpg"

#: Generators by file name (what 23393935 and 5ea617a3 download).
BY_NAME: dict[str, Callable[[], bytes]] = {
    "poster_party_night.webp": poster_webp,
    MONK: partial(jpeg, "wat arun"),
    "hong-kong-china.jpg": partial(jpeg, "hong kong"),
    "hk_group_photo.jpg": partial(jpeg, "hk group photo"),
    "us_3.png": partial(png, "us 3"),
    "emnlp2023.jpg": partial(jpeg, "emnlp 2023"),
}

#: Generators by extension, for pictures no task names above (labelled with the file's stem).
BY_KIND: dict[str, Callable[[str], bytes]] = {
    ".jpg": jpeg, ".jpeg": jpeg, ".png": png, ".webp": webp,
}


#: a script's folder (a task's short id) and its file name: plain names, never a path
_FOLDER = re.compile(r"[a-z0-9_-][a-z0-9._-]{7}")
_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def script(task_id: str, name: str) -> bytes | None:
    """The reconstructed script ``name`` of task ``task_id``, if drums-gym has one: only
    a file of the package's ``data/scripts/<id8>/`` (names that are not plain file names,
    and anything that resolves outside that folder, are none)."""
    short = task_id[:8].lower()
    if not _FOLDER.fullmatch(short) or not _NAME.fullmatch(name or ""):
        return None
    root = resources.files(__package__) / "data" / "scripts"
    with resources.as_file(root) as base:
        entry = (base / short / name).resolve()
        if entry.parent != (base / short).resolve() or not entry.is_relative_to(base.resolve()):
            return None
        return entry.read_bytes() if entry.is_file() else None


def _generator(task_id: str, path: str) -> Callable[[], bytes] | None:
    name = posixpath.basename(path)
    text = script(task_id, name)
    if text is not None:
        return partial(bytes, text)
    if name in BY_NAME:
        return BY_NAME[name]
    stem, ext = posixpath.splitext(name)
    kind = BY_KIND.get(ext.lower())
    return partial(kind, stem) if kind is not None else None


def supports(task_id: str, path: str) -> bool:
    """Whether a local stand-in exists for the file task ``task_id`` downloads to ``path``."""
    return _generator(task_id, path) is not None


def generate(task_id: str, path: str) -> bytes:
    """The bytes of the stand-in for ``path`` (KeyError when `supports` says no)."""
    fn = _generator(task_id, path)
    if fn is None:
        raise KeyError(f"no local stand-in for the download {path!r} of task {task_id}")
    return fn()

"""Task files name no real path (issue 19, item 5): ids are plain names, scripts come only
from the package's data, a folder's links out of it are refused, and sizes and nesting are
capped, each a clean `TaskFileError` naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drums_gym.local.tasks import TaskFileError, build_catalog, downloads, load_task_file
from drums_gym.local.tasks.loader import MAX_FILE_BYTES, MAX_NESTING

#: a small task the loader accepts (its config is replaced below)
BASE = {"instruction": "Make ~/x", "config": [],
        "evaluator": {"func": "exact_match",
                      "result": {"type": "vm_command_line", "command": "ls ~", "shell": True},
                      "expected": {"type": "rule", "rules": {"expected": "x\n"}}}}


def write(folder: Path, name: str, data: object) -> Path:
    path = folder / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def downloading(task_id: str, path: str) -> dict:
    """A task that downloads ``path`` under the id ``task_id``."""
    data = json.loads(json.dumps(BASE))
    data["id"] = task_id
    data["config"] = [{"type": "download", "parameters": {"files": [
        {"url": "https://example.invalid/x", "path": path}]}}]
    return data


@pytest.mark.parametrize("task_id", ["/etc////x", "/etc/passwd-00", "../../../etc",
                                     "..//..//..//etc", "has a space", "tab\there00",
                                     "short", "x" * 129, "e0df059f/../../x"])
def test_an_id_that_is_not_a_plain_name_is_refused(tmp_path, task_id):
    path = write(tmp_path, "hostile.json", downloading(task_id, "passwd"))
    with pytest.raises(TaskFileError, match=r"hostile\.json: id must be 8 to 128 letters"):
        load_task_file(path)


def test_a_script_is_never_read_from_outside_the_packages_data(tmp_path):
    assert downloads.script("/etc////", "passwd") is None
    assert downloads.script("../../..", "passwd") is None
    assert downloads.script("6f56bf42", "../../../../../../etc/passwd") is None
    assert downloads.script("6f56bf42", "/etc/passwd") is None
    assert downloads.script("6f56bf42", "..") is None
    assert downloads.script("6f56bf42", "setup.sh").startswith(b"#!/bin/bash")
    assert not downloads.supports("/etc////x", "passwd")


def test_a_task_whose_download_names_a_real_file_is_refused_at_load(tmp_path):
    path = write(tmp_path, "reach.json", downloading("abcdef12-reach", "/etc/passwd"))
    with pytest.raises(TaskFileError, match=r"reach\.json"):
        load_task_file(path)


def test_the_hostile_id_of_issue_19_puts_nothing_real_on_the_desktop(tmp_path):
    """The reproduction: an id beginning ``/etc////`` made ``download`` read /etc/passwd.
    Now the file is refused; and a plain id downloading a file called passwd gets no
    stand-in either (none exists), so the task is refused rather than fed the real one."""
    with pytest.raises(TaskFileError):
        load_task_file(write(tmp_path, "etc.json", downloading("/etc////passwd", "passwd")))
    with pytest.raises(TaskFileError, match="passwd"):
        load_task_file(write(tmp_path, "plain.json", downloading("abcdef12-plain", "passwd")))


def test_a_link_out_of_the_folder_is_refused(tmp_path):
    mine, elsewhere = tmp_path / "mine", tmp_path / "elsewhere"
    mine.mkdir()
    elsewhere.mkdir()
    target = write(elsewhere, "task.json", downloading("abcdef12-away", "photo.jpg"))
    (mine / "linked.json").symlink_to(target)
    with pytest.raises(TaskFileError, match=r"linked\.json: a link out of its folder"):
        build_catalog([mine])
    inside = write(mine, "real.json", downloading("abcdef12-home", "photo.jpg"))
    (mine / "linked.json").unlink()
    (mine / "alias.json").symlink_to(inside)  # a link within the folder is fine
    with pytest.raises(TaskFileError, match="the id"):  # both load: the same id, twice
        build_catalog([mine])


def test_deep_nesting_is_a_clean_task_file_error_not_a_recursion_error(tmp_path):
    deep = '{"id": "abcdef12-deep", "instruction": "x", "config": ' + "[" * 100_000
    deep += "]" * 100_000 + "}"
    path = write(tmp_path, "deep.json", deep)
    with pytest.raises(TaskFileError, match=rf"deep\.json: nested deeper than {MAX_NESTING}"):
        load_task_file(path)
    brackets_in_strings = downloading("abcdef12-str", "photo.jpg")
    brackets_in_strings["instruction"] = "[" * 1000 + '\\"{'  # text, not nesting
    load_task_file(write(tmp_path, "fine.json", brackets_in_strings))


def test_a_file_past_the_size_cap_is_refused(tmp_path):
    big = downloading("abcdef12-big", "photo.jpg")
    big["instruction"] = "x" * (MAX_FILE_BYTES + 1)
    with pytest.raises(TaskFileError, match=rf"big\.json: larger than {MAX_FILE_BYTES} bytes"):
        load_task_file(write(tmp_path, "big.json", big))

"""The OSWorld os-domain tasks of the catalog: ids, instructions, setups, checker semantics."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import CATALOG, Task, get_task

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
HOME = "/home/user"

#: OSWorld's evaluation_examples/examples/os/<id>.json: id -> instruction
OSWORLD = {
    "e0df059f-28a6-4169-924f-b9623e7184cc":
        'I have a directory named "todo_list_Jan_1". Can you help me change its name into '
        '"todo_list_Jan_2"?',
    "7688b85f-87a4-4e4a-b2f8-f3d6c3f29b82":
        "Can you move the file 'todo.txt' on the Desktop to the directory 'done/' on the "
        "Desktop?",
    "5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57":
        "I am currently using an Ubuntu system, and I have wrongly deleted a poster of party "
        "night. Could you help me recover it from the Trash?",
    "6f56bf42-85b8-4fbb-8e06-6c44960184ba":
        "Copies file 'file1' to each of directories 'dir1', 'dir2', 'dir3'.",
    "23393935-50c7-4a86-aeea-2b78fd089c5c":
        "Recursively go through the folders of the 'photos' directory and copy any .jpg files "
        "found into another directory named 'cpjpg'.",
    "4d117223-a354-47fb-8b45-62ab1390a95f":
        "Change the permission of all regular files under current directory tree to 644",
    "5ced85fc-fa1a-4217-95fd-0fb530545ce2":
        'Append "<br/>" to the end of each line in "1\\n2\\n3" and save in output.txt',
}
JPGS = ["emnlp2023.jpg", "hk_group_photo.jpg", "hong-kong-china.jpg",
        "monk252520thailand252520wat252520arun252520scaled25255B225255D.jpg"]


def fresh(short: str, seed: int = 0) -> tuple[Task, Desktop]:
    task = get_task(short)
    desk = task.create_desktop(seed=seed)
    task.setup(desk)
    return task, desk


def test_catalog_mirrors_osworld_ids_and_instructions() -> None:
    # the rest of the os split is pinned in test_os_split.py
    assert OSWORLD.items() <= dict((t.id, t.instruction) for t in CATALOG.values()).items()
    assert next(iter(CATALOG)) == "e0df059f-28a6-4169-924f-b9623e7184cc"
    for task in CATALOG.values():
        assert task.domain == "os" and task.screen == (1920, 1080)
        assert get_task(task.short_id) is task


@pytest.mark.parametrize("task_id", list(OSWORLD))
def test_setup_scores_zero_and_is_deterministic(task_id: str, artifacts: Path) -> None:
    task, desk = fresh(task_id[:8])
    assert task.check(desk) == 0.0
    _, twin = fresh(task_id[:8])
    assert desk.render().tobytes() == twin.render().tobytes()
    desk.render().save(artifacts / f"task_{task.short_id}_start.png")


def test_e0df059f_needs_the_new_directory() -> None:
    task, d = fresh("e0df059f")
    d.fs.mkdir("~/Desktop/todo_list_Jan_3")
    assert task.check(d) == 0.0
    d.fs.write_file("~/Desktop/todo_list_Jan_2", "")
    assert task.check(d) == 0.0
    d.fs.remove("~/Desktop/todo_list_Jan_2")
    d.fs.rename("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
    assert task.check(d) == 1.0


def test_7688b85f_setup_and_checker() -> None:
    task, d = fresh("7688b85f")
    assert d.fs.stat("~/Desktop/todo.txt").st_mode & 0o777 == 0o777
    assert d.fs.stat("~/Desktop/done").is_dir and d.fs.listdir("~/Desktop/done") == []
    d.fs.mkdir("~/Desktop/done/todo.txt")  # a directory is not "-f"
    assert task.check(d) == 0.0
    d.fs.remove("~/Desktop/done/todo.txt")
    d.fs.copy("~/Desktop/todo.txt", "~/Desktop/done/")  # a copy counts: only -f is tested
    assert task.check(d) == 1.0


def test_5ea617a3_poster_is_a_trashed_webp() -> None:
    task, d = fresh("5ea617a3")
    (item,) = d.fs.trash_items()
    assert item.original == f"{HOME}/Desktop/poster_party_night.webp"
    data = d.fs.read_file(f"{HOME}/.local/share/Trash/files/{item.name}")
    with Image.open(io.BytesIO(data)) as img:
        assert img.format == "WEBP"
    assert d.desktop_entries() == []
    d.fs.write_file("~/Desktop/poster_party_night.png", data)  # another name: no
    assert task.check(d) == 0.0
    d.fs.restore(item.name)
    assert task.check(d) == 1.0


def test_6f56bf42_needs_all_three_copies() -> None:
    task, d = fresh("6f56bf42")
    assert d.fs.is_file("~/file1") and d.fs.is_file("~/setup.sh")
    assert all(d.fs.listdir(f"~/dir{i}") == [] for i in (1, 2, 3))
    for i in (1, 2):
        d.fs.copy("~/file1", f"~/dir{i}")
    assert task.check(d) == 0.0
    d.fs.copy("~/file1", "~/dir3/file1")
    assert task.check(d) == 1.0


def test_23393935_layout_and_exact_set_of_names() -> None:
    task, d = fresh("23393935")
    found = sorted(n for top, _, files in d.fs.walk("~/Desktop/photos") for n in files)
    assert found == sorted([*JPGS, "us_3.png"])
    for top, _, files in d.fs.walk("~/Desktop/photos"):
        for n in files:
            with Image.open(io.BytesIO(d.fs.read_file(f"{top}/{n}"))) as img:
                assert img.format == ("PNG" if n.endswith(".png") else "JPEG")
    assert d.fs.listdir("~/Desktop/cpjpg") == []
    paths = {n: f"{top}/{n}" for top, _, files in d.fs.walk("~/Desktop/photos") for n in files}
    for n in JPGS[:3]:
        d.fs.copy(paths[n], "~/Desktop/cpjpg")
    assert task.check(d) == 0.0  # one missing
    d.fs.copy(paths[JPGS[3]], "~/Desktop/cpjpg")
    assert task.check(d) == 1.0
    d.fs.copy(paths["us_3.png"], "~/Desktop/cpjpg")
    assert task.check(d) == 0.0  # one too many
    d.fs.remove("~/Desktop/cpjpg")
    assert task.check(d) == 0.0


def test_4d117223_modes_and_checker() -> None:
    task, d = fresh("4d117223")
    modes = {f"{top}/{n}": d.fs.stat(f"{top}/{n}").st_mode & 0o7777
             for top, _, files in d.fs.walk("~/testDir") for n in files}
    assert modes == {f"{HOME}/testDir/file1.txt": 0o755,
                     f"{HOME}/testDir/subDir1/file2.txt": 0o644,
                     f"{HOME}/testDir/subDir2/file3.txt": 0o777}
    d.fs.chmod("~/testDir/file1.txt", 0o644)
    assert task.check(d) == 0.0  # file3.txt still 777
    d.fs.chmod("~/testDir/subDir2/file3.txt", 0o4644)  # setuid shows as -rwSr--r--
    assert task.check(d) == 0.0
    d.fs.chmod("~/testDir/subDir2/file3.txt", 0o644)
    assert task.check(d) == 1.0
    d.fs.chmod("~/testDir/subDir1", 0o700)  # directories are not looked at
    assert task.check(d) == 1.0


def test_5ced85fc_compares_like_bash() -> None:
    task, d = fresh("5ced85fc")
    for content, score in [(b"1<br/>\n2<br/>\n3<br/>\n", 1.0), (b"1<br/>\n2<br/>\n3<br/>", 1.0),
                           (b"1<br/>\n2<br/>\n3<br/>\n\n\n", 1.0),
                           (b"1\n2\n3\n", 0.0), (b"1<br/> \n2<br/>\n3<br/>", 0.0),
                           (b"1<br/>2<br/>3<br/>", 0.0)]:
        d.fs.write_file("~/output.txt", content)
        assert task.check(d) == score, content
    d.fs.remove("~/output.txt")
    d.fs.write_file("~/Desktop/output.txt", b"1<br/>\n2<br/>\n3<br/>\n")
    assert task.check(d) == 0.0  # the evaluator reads /home/user/output.txt

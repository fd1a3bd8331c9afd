"""The local task catalog: lookup, public JSON, setup and checker of e0df059f."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from drums_gym.actions.events import KeyDown, MouseDown, MouseMove, MouseUp
from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import CATALOG, DEFAULT_GATES, Task, UnknownTask, get_task
from drums_gym.protocol import encode

FULL = "e0df059f-28a6-4169-924f-b9623e7184cc"
INSTRUCTION = ('I have a directory named "todo_list_Jan_1". Can you help me change its name '
               'into "todo_list_Jan_2"?')


def test_lookup_by_full_and_short_id() -> None:
    task = get_task(FULL)
    assert get_task("e0df059f") is task and get_task(" E0DF059F ") is task
    assert task.id == FULL and task.short_id == "e0df059f"
    assert task.domain == "os" and task.instruction == INSTRUCTION
    assert task.screen == (1920, 1080) and task.gates == DEFAULT_GATES
    assert CATALOG[FULL] is task


def test_unknown_task_names_the_id_and_lists_known_ids() -> None:
    with pytest.raises(UnknownTask) as info:
        get_task("deadbeef")
    assert isinstance(info.value, KeyError)
    assert info.value.task_id == "deadbeef"
    assert "deadbeef" in str(info.value) and "e0df059f" in str(info.value)
    with pytest.raises(KeyError):
        get_task("e0df059")


def test_public_is_json() -> None:
    data = json.loads(json.dumps(encode(get_task("e0df059f").public())))
    assert data == {"id": FULL, "short_id": "e0df059f", "domain": "os",
                    "instruction": INSTRUCTION, "screen": {"width": 1920, "height": 1080}}


def test_task_is_frozen_and_picklable() -> None:
    task = get_task("e0df059f")
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.id = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(task)) == task
    assert isinstance(task, Task)


def test_setup_creates_the_folder_and_clicks_the_centre() -> None:
    task = get_task("e0df059f")
    desktop = task.create_desktop(seed=4)
    assert isinstance(desktop, Desktop) and desktop.render().size == (1920, 1080)
    task.setup(desktop)
    assert desktop.fs.is_dir("~/Desktop/todo_list_Jan_1")
    assert desktop.pointer == (960, 540)
    assert desktop.selected == set() and desktop.windows == []
    small = task.create_desktop(screen=(1280, 800))
    assert small.render().size == (1280, 800)


def test_checker_mirrors_the_osworld_evaluator() -> None:
    task = get_task("e0df059f")
    d = task.create_desktop()
    task.setup(d)
    assert task.check(d) == 0.0
    d.fs.write_file("~/Desktop/todo_list_Jan_2", b"")  # a file is not a directory
    assert task.check(d) == 0.0
    d.fs.remove("~/Desktop/todo_list_Jan_2")
    d.fs.copy("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
    assert task.check(d) == 1.0  # OSWorld only checks that the new directory exists


def test_gui_solve_scores_one() -> None:
    task = get_task("e0df059f")
    d = task.create_desktop()
    task.setup(d)
    x, y = d.icon_center("todo_list_Jan_1")
    d.apply([MouseMove(x, y), MouseDown("left"), MouseUp("left"), KeyDown("f2")])
    d.apply([KeyDown(c) for c in "todo_list_Jan_2"] + [KeyDown("enter")])
    assert task.check(d) == 1.0
    assert isinstance(task.check(d), float)

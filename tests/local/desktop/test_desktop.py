"""The desktop simulator, driven by input events only (as the host drives it)."""

from __future__ import annotations

import copy
import errno
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drums_gym.actions.events import (
    Event,
    KeyDown,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Scroll,
    Sleep,
)
from drums_gym.local.desktop import Desktop, FileSystem, FolderWindow
from drums_gym.local.desktop.textfield import TextField
from drums_gym.local.tasks import get_task

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
TASK = get_task("e0df059f")
OLD, NEW = "~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2"


# -- event helpers (what the action parser will produce) -------------------------

def click(x: int, y: int, button: str = "left", clicks: int = 1) -> list[Event]:
    out: list[Event] = [MouseMove(x, y)]
    for _ in range(clicks):
        out += [MouseDown(button), MouseUp(button)]  # type: ignore[arg-type]
    return out


def press(*keys: str) -> list[Event]:
    """A hotkey: press keys in order, release in reverse."""
    return [KeyDown(k) for k in keys] + [KeyUp(k) for k in reversed(keys)]


def write(text: str) -> list[Event]:
    return [e for ch in text for e in (KeyDown(ch), KeyUp(ch))]


def find(node: dict[str, Any], role: str, name: str | None = None) -> list[dict[str, Any]]:
    """All a11y nodes with ``role`` (and ``name``) in the tree."""
    hits = [node] if node["role"] == role and (name is None or node["name"] == name) else []
    for child in node["children"]:
        hits += find(child, role, name)
    return hits


def center(n: dict[str, Any]) -> tuple[int, int]:
    return n["position"][0] + n["size"][0] // 2, n["position"][1] + n["size"][1] // 2


@pytest.fixture
def desk() -> Desktop:
    d = TASK.create_desktop(seed=0)
    TASK.setup(d)
    return d


def icon_xy(d: Desktop, name: str = "todo_list_Jan_1") -> tuple[int, int]:
    (node,) = find(d.accessibility(), "icon", name)
    return center(node)


def save(d: Desktop, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    d.render().save(ARTIFACTS / name)


# -- solving e0df059f ------------------------------------------------------------

def test_solve_with_click_f2_type_enter(desk: Desktop) -> None:
    assert TASK.check(desk) == 0.0
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("todo_list_Jan_2") + press("enter"))
    assert desk.fs.is_dir(NEW) and not desk.fs.exists(OLD)
    assert desk.rename is None
    assert TASK.check(desk) == 1.0


def test_solve_with_context_menu_rename(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk), button="right"))
    (item,) = find(desk.accessibility(), "menu-item", "Rename…")
    desk.apply(click(*center(item)))
    assert desk.menu is None and desk.rename is not None
    assert desk.rename.field.selected_text() == "todo_list_Jan_1"  # folders: whole name
    desk.apply(write("todo_list_Jan_2") + press("enter"))
    assert TASK.check(desk) == 1.0


def test_no_op_and_wrong_name_score_zero(desk: Desktop) -> None:
    desk.apply([MouseMove(100, 900), Sleep(1.0)])
    assert TASK.check(desk) == 0.0
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("todo_list_Jan_3") + press("enter"))
    assert desk.fs.is_dir("~/Desktop/todo_list_Jan_3")
    assert TASK.check(desk) == 0.0


def test_escape_cancels_rename(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("whatever") + press("escape"))
    assert desk.rename is None
    assert desk.fs.listdir("~/Desktop") == ["todo_list_Jan_1"]


def test_field_editing_keys(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk)) + press("f2"))
    field = desk.rename.field  # type: ignore[union-attr]
    desk.apply(press("end"))
    assert field.selection() == (15, 15)
    desk.apply(press("backspace") + write("9"))
    assert field.text == "todo_list_Jan_9"
    desk.apply(press("home") + press("delete") + write("T"))
    assert field.text == "Todo_list_Jan_9"
    desk.apply(press("end") + press("shift", "left") + press("shift", "left"))
    assert field.selected_text() == "_9"
    desk.apply(write("_2"))
    assert field.text == "Todo_list_Jan_2"
    desk.apply(press("ctrl", "a") + press("backspace"))
    assert field.text == ""
    desk.apply(write("todo") + press("shiftleft", "home") + press("right") + write("_list_Jan_2"))
    assert field.text == "todo_list_Jan_2"
    desk.apply(press("ctrlleft", "a") + press("ctrl", "c") + press("end") + press("ctrl", "v"))
    assert field.text == "todo_list_Jan_2todo_list_Jan_2"
    desk.apply(press("ctrl", "backspace"))  # deletes the previous word ("2"; "_" separates)
    assert field.text == "todo_list_Jan_2todo_list_Jan_"
    desk.apply(press("shift", "home") + write("todo_list_Jan_2") + press("enter"))
    assert TASK.check(desk) == 1.0


def test_shift_types_upper_case_and_symbols(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk)) + press("f2"))
    desk.apply(press("shift", "a") + press("shift", "9") + write("B"))
    assert desk.rename is not None and desk.rename.field.text == "A(B"


def test_rename_to_existing_name_is_refused(desk: Desktop) -> None:
    desk.fs.mkdir("~/Desktop/other")
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("other") + press("enter"))
    assert desk.rename is not None and not desk.rename.ok
    assert "already exists" in desk.rename.message
    assert desk.fs.is_dir(OLD)
    (button,) = find(desk.accessibility(), "push-button", "Rename")
    assert "enabled" not in button["states"]
    desk.apply(press("backspace") + write("r2") + press("enter"))
    assert desk.rename is None and desk.fs.is_dir("~/Desktop/other2")


@pytest.mark.parametrize("typed", ["a/b", "", ".."])
def test_invalid_names_keep_the_field_open(desk: Desktop, typed: str) -> None:
    desk.apply(click(*icon_xy(desk)) + press("f2") + press("backspace") + write(typed)
               + press("enter"))
    assert desk.rename is not None and desk.rename.message
    assert desk.fs.listdir("~/Desktop") == ["todo_list_Jan_1"]


def test_file_rename_selects_the_stem() -> None:
    d = Desktop()
    d.fs.write_file("~/Desktop/report.final.txt", "x")
    d.apply(click(*icon_xy(d, "report.final.txt")) + press("f2"))
    assert d.rename is not None and d.rename.field.selected_text() == "report.final"
    d.apply(write("notes") + press("enter"))
    assert d.fs.listdir("~/Desktop") == ["notes.txt"]


def test_click_elsewhere_commits_and_rename_button_works(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("todo_list_Jan_2"))
    desk.apply(click(1500, 700))
    assert desk.rename is None and TASK.check(desk) == 1.0
    desk.apply(click(*icon_xy(desk, "todo_list_Jan_2")) + press("f2") + write("x"))
    (button,) = find(desk.accessibility(), "push-button", "Rename")
    desk.apply(click(*center(button)))
    assert desk.fs.listdir("~/Desktop") == ["x"]


def test_icon_keeps_its_slot_across_renames(desk: Desktop) -> None:
    before = icon_xy(desk)
    desk.apply(click(*before) + press("f2") + write("zzz") + press("enter"))
    assert icon_xy(desk, "zzz") == before


# -- selection, menus ------------------------------------------------------------

def test_selection_click_ctrl_click_and_empty_click(desk: Desktop) -> None:
    desk.fs.mkdir("~/Desktop/b")
    a, b = icon_xy(desk), icon_xy(desk, "b")
    desk.apply(click(*a))
    assert desk.selected == {"todo_list_Jan_1"}
    desk.apply([KeyDown("ctrl"), *click(*b), KeyUp("ctrl")])
    assert desk.selected == {"todo_list_Jan_1", "b"}
    desk.apply([KeyDown("ctrlright"), *click(*a), KeyUp("ctrlright")])
    assert desk.selected == {"b"}
    desk.apply(click(1000, 600))
    assert desk.selected == set()


def test_a11y_icon_positions_select_the_icon() -> None:
    d = Desktop()
    for name in ["alpha", "beta"]:
        d.fs.mkdir(f"~/Desktop/{name}")
    for name in ["gamma.txt", "a rather long name for an icon label.pdf"]:
        d.fs.write_file(f"~/Desktop/{name}", b"")
    icons = find(d.accessibility(), "icon")
    assert sorted(n["name"] for n in icons) == sorted(d.fs.listdir("~/Desktop"))
    for node in icons:
        d.apply(click(*center(node)))
        assert d.selected == {node["name"]}
        (again,) = [n for n in find(d.accessibility(), "icon") if n["name"] == node["name"]]
        assert "selected" in again["states"]


def test_menus_close_with_escape_and_outside_click(desk: Desktop) -> None:
    desk.apply(click(1200, 500, button="right"))
    assert desk.menu is not None
    desk.apply(press("escape"))
    assert desk.menu is None
    desk.apply(click(*icon_xy(desk), button="right"))
    assert desk.menu is not None and desk.selected == {"todo_list_Jan_1"}
    desk.apply(click(1500, 900))
    assert desk.menu is None
    assert desk.fs.listdir("~/Desktop") == ["todo_list_Jan_1"]


def test_new_folder_from_the_desktop_menu(desk: Desktop) -> None:
    for expected, at in [("New Folder", (1200, 500)), ("New Folder 2", (1600, 800))]:
        desk.apply(click(*at, button="right"))
        (item,) = find(desk.accessibility(), "menu-item", "New Folder")
        desk.apply(click(*center(item)))
        assert desk.fs.is_dir(f"~/Desktop/{expected}")
        assert desk.rename is not None and desk.rename.field.selected_text() == expected
        x, y = icon_xy(desk, expected)
        assert abs(x - at[0]) < 130 and abs(y - at[1]) < 130  # placed where the menu opened
        desk.apply(press("escape"))


def test_move_to_trash_and_open_from_menu(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk), button="right"))
    (item,) = find(desk.accessibility(), "menu-item", "Open")
    desk.apply(click(*center(item)))
    assert [w.title for w in desk.windows] == ["todo_list_Jan_1"]
    desk.apply(press("alt", "f4"))
    assert desk.windows == []
    desk.apply(click(*icon_xy(desk), button="right"))
    (item,) = find(desk.accessibility(), "menu-item", "Move to Trash")
    desk.apply(click(*center(item)))
    assert desk.fs.listdir("~/Desktop") == []
    assert desk.fs.listdir("~/.local/share/Trash/files") == ["todo_list_Jan_1"]
    assert find(desk.accessibility(), "icon") == []


# -- windows ---------------------------------------------------------------------

def test_double_click_opens_folder_window_alt_f4_closes_it(desk: Desktop) -> None:
    desk.fs.write_file(OLD + "/notes.txt", "todo")
    desk.apply(click(*icon_xy(desk), clicks=2))
    (win,) = desk.windows
    assert isinstance(win, FolderWindow) and win.title == "todo_list_Jan_1"
    assert desk.active_window() is win
    (frame,) = find(desk.accessibility(), "frame", "todo_list_Jan_1")
    assert "active" in frame["states"] and find(frame, "icon", "notes.txt")
    assert desk.take_incidents() == []
    desk.apply(press("alt", "f4"))
    assert desk.windows == []
    assert desk.take_incidents() == [("window_closed", "todo_list_Jan_1")]
    assert desk.take_incidents() == []


def test_close_button_closes_window(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk), clicks=2))
    (button,) = find(desk.accessibility(), "push-button", "Close")
    desk.apply(click(*center(button)))
    assert desk.windows == []
    assert desk.take_incidents() == [("window_closed", "todo_list_Jan_1")]


def test_dock_files_and_window_controls(desk: Desktop) -> None:
    (files,) = find(desk.accessibility(), "push-button", "Files")
    desk.apply(click(*center(files)))
    (win,) = desk.windows
    assert win.title == "Home" and desk.active_window() is win
    (maximize,) = find(desk.accessibility(), "push-button", "Maximize")
    desk.apply(click(*center(maximize)))
    assert win.rect == (72, 28, 1920, 1080)
    (minimize,) = find(desk.accessibility(), "push-button", "Minimize")
    desk.apply(click(*center(minimize)))
    assert win.minimized and desk.active_window() is None
    assert find(desk.accessibility(), "frame") == []
    desk.apply(click(*center(files)))
    assert not win.minimized and desk.active_window() is win
    (desktop_place,) = find(desk.accessibility(), "list-item", "Desktop")
    desk.apply(click(*center(desktop_place)))
    assert win.title == "Desktop"
    (item,) = find(desk.accessibility(), "icon", "todo_list_Jan_1")[-1:]
    desk.apply(click(*center(item), clicks=2))
    assert win.title == "todo_list_Jan_1"
    desk.apply(press("alt", "left"))
    assert win.title == "Desktop"
    desk.apply(press("ctrl", "w"))
    assert desk.windows == [] and desk.take_incidents() == [("window_closed", "Desktop")]


def test_close_press_released_elsewhere_does_not_close(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk), clicks=2))
    (button,) = find(desk.accessibility(), "push-button", "Close")
    desk.apply([MouseMove(*center(button)), MouseDown("left"), MouseMove(900, 600),
                MouseUp("left")])
    assert len(desk.windows) == 1 and desk.take_incidents() == []


def test_slow_clicks_are_not_a_double_click(desk: Desktop) -> None:
    x, y = icon_xy(desk)
    desk.apply([*click(x, y), Sleep(0.6), *click(x, y)])
    assert desk.windows == []
    desk.apply([*click(x, y), Sleep(0.3), *click(x + 3, y + 2)])
    assert len(desk.windows) == 1


def test_window_follows_renamed_folder_and_can_be_dragged(desk: Desktop) -> None:
    desk.apply(click(*icon_xy(desk), clicks=2))
    (win,) = desk.windows
    x0, y0 = win.x, win.y
    grab = (win.x + win.w - 180, win.y + 20)
    assert win.part_at(*grab) == "header"
    desk.apply([MouseMove(*grab), MouseDown("left"), MouseMove(grab[0] + 200, grab[1] + 100),
                MouseUp("left")])
    assert (win.x, win.y) == (x0 + 200, y0 + 100)
    desk.apply(click(*icon_xy(desk)) + press("f2") + write("todo_list_Jan_2") + press("enter"))
    assert [w.title for w in desk.windows] == ["todo_list_Jan_2"]
    assert TASK.check(desk) == 1.0


# -- frame counter, rendering, determinism, clones -------------------------------

def test_frame_changes_only_on_visible_change(desk: Desktop) -> None:
    f0 = desk.frame
    desk.apply([KeyUp("a"), Sleep(0.2), MouseMove(*desk.pointer), Scroll(dy=3)])
    assert desk.frame == f0
    assert desk.render() is desk.render()
    desk.apply([MouseMove(desk.pointer[0] + 5, desk.pointer[1])])
    assert desk.frame == f0 + 1
    desk.apply(click(*icon_xy(desk)))
    f1 = desk.frame
    assert f1 > f0 + 1
    desk.apply([Sleep(1.0), *click(*icon_xy(desk))])  # already selected: nothing to show
    assert desk.frame == f1
    desk.fs.mkdir("~/Desktop/new")  # direct fs edits are noticed too
    assert desk.frame == f1 + 1
    desk.apply([Sleep(3600)])  # the top bar clock changes
    assert desk.frame == f1 + 2


def test_render_size_mode_and_array(desk: Desktop) -> None:
    img = desk.render()
    assert img.size == (1920, 1080) and img.mode == "RGB"
    arr = np.asarray(img)
    assert arr.shape == (1080, 1920, 3) and arr.dtype == np.uint8
    small = Desktop(1280, 720)
    assert small.render().size == (1280, 720)
    with pytest.raises(ValueError, match="width=10"):
        Desktop(10, 10)


def test_identical_events_give_identical_screens() -> None:
    events = click(300, 300) + click(1200, 500, button="right") + press("escape")

    def run(seed: int) -> bytes:
        d = TASK.create_desktop(seed=seed)
        TASK.setup(d)
        d.apply(events + click(*icon_xy(d)) + press("f2") + write("todo_l"))
        return d.render().tobytes()

    assert run(3) == run(3)
    assert run(0) == run(0)


def test_clone_is_independent(desk: Desktop) -> None:
    before, frame = desk.render().tobytes(), desk.frame
    child = desk.clone()
    assert child.frame == frame and child.render().tobytes() == before
    child.apply(click(*icon_xy(child)) + press("f2") + write("todo_list_Jan_2") + press("enter"))
    assert TASK.check(child) == 1.0 and TASK.check(desk) == 0.0
    assert desk.frame == frame and desk.render().tobytes() == before
    assert child.fs.clock is not desk.fs.clock
    child.apply([Sleep(5)])
    assert desk.clock == 0.0 and child.clock == 5.0


def test_pointer_clamps_to_screen(desk: Desktop) -> None:
    desk.apply([MouseMove(-50, 5000)])
    assert desk.pointer == (0, 1079)
    desk.apply([MouseMove(99999, -1)])
    assert desk.pointer == (1919, 0)


def test_apply_rejects_non_events(desk: Desktop) -> None:
    with pytest.raises(TypeError, match="events"):
        desk.apply(["click"])  # type: ignore[list-item]


_keys = st.sampled_from(["a", "Z", " ", "enter", "escape", "f2", "backspace", "delete", "left",
                         "shift", "ctrl", "alt", "f4", "tab", "home", "end", "menu"])
_events = st.one_of(
    st.builds(MouseMove, st.integers(-10, 2000), st.integers(-10, 1100)),
    st.builds(MouseDown, st.sampled_from(["left", "right"])),
    st.builds(MouseUp, st.sampled_from(["left", "right"])),
    st.builds(KeyDown, _keys), st.builds(KeyUp, _keys),
    st.builds(Sleep, st.sampled_from([0.0, 0.1, 1.0])),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_events, max_size=40))
def test_random_events_never_break_the_desktop(events: list[Event]) -> None:
    d = Desktop(seed=1)
    d.fs.mkdir("~/Desktop/todo_list_Jan_1")
    d.fs.write_file("~/Desktop/a.txt", "x")
    twin = d.clone()
    d.apply(events)
    twin.apply(events)
    assert d.render().tobytes() == twin.render().tobytes()
    assert d.frame == twin.frame
    assert d.render().size == (1920, 1080)
    find(d.accessibility(), "icon")


# -- screenshots to look at ------------------------------------------------------

def test_screenshots(desk: Desktop) -> None:
    desk.fs.mkdir("~/Desktop/Projects")
    desk.fs.write_file("~/Desktop/meeting notes.txt", "x")
    desk.fs.write_file(OLD + "/groceries.txt", "milk")
    desk.fs.mkdir(OLD + "/archive")
    desk.apply(click(*icon_xy(desk)) + press("f2") + press("end") + press("backspace")
               + write("2") + press("shift", "left"))
    save(desk, "desktop_mid_rename.png")
    desk.apply(press("escape") + click(*icon_xy(desk), button="right"))
    (item,) = find(desk.accessibility(), "menu-item", "Rename…")
    desk.apply([MouseMove(*center(item))])
    save(desk, "desktop_context_menu.png")
    desk.apply(press("escape") + click(1300, 600, button="right"))
    save(desk, "desktop_background_menu.png")
    desk.apply(press("escape") + click(*icon_xy(desk), clicks=2))
    desk.apply(click(*center(find(desk.accessibility(), "icon", "groceries.txt")[0])))
    save(desk, "desktop_folder_window.png")
    for name in ["desktop_mid_rename.png", "desktop_context_menu.png",
                 "desktop_folder_window.png"]:
        assert (ARTIFACTS / name).stat().st_size > 10_000


# -- the filesystem --------------------------------------------------------------

def test_fs_paths_and_basic_ops() -> None:
    fs = FileSystem()
    assert fs.normpath("~") == "/home/user"
    assert fs.normpath("~/a/./b/../c//d/") == "/home/user/a/c/d"
    assert fs.normpath("Desktop") == "/home/user/Desktop"
    assert fs.normpath("/../..") == "/"
    fs.mkdir("~/x/y/z", parents=True)
    fs.mkdir("~/x/y/z", parents=True)  # like mkdir -p
    fs.write_file("~/x/y/z/f.txt", "hello")
    assert fs.read_file("/home/user/x/y/../y/z/f.txt") == b"hello"
    assert fs.listdir("~/x/y/z") == ["f.txt"]
    assert fs.is_dir("~/x") and fs.is_file("~/x/y/z/f.txt") and not fs.exists("~/nope")
    fs.chmod("~/x/y/z/f.txt", 0o600)
    st_ = fs.stat("~/x/y/z/f.txt")
    assert st_.st_mode & 0o7777 == 0o600 and st_.st_size == 5 and not st_.is_dir


def test_fs_errors_carry_the_path() -> None:
    fs = FileSystem()
    fs.write_file("~/f", b"1")
    cases = [
        (lambda: fs.read_file("~/missing"), FileNotFoundError, "/home/user/missing"),
        (lambda: fs.mkdir("~/f"), FileExistsError, "/home/user/f"),
        (lambda: fs.mkdir("~/a/b"), FileNotFoundError, "/home/user/a"),
        (lambda: fs.listdir("~/f"), NotADirectoryError, "/home/user/f"),
        (lambda: fs.read_file("~/Desktop"), IsADirectoryError, "/home/user/Desktop"),
        (lambda: fs.write_file("~/f/x", b""), NotADirectoryError, "/home/user/f"),
    ]
    for fn, exc, path in cases:
        with pytest.raises(exc) as info:
            fn()
        assert info.value.filename == path
    fs.mkdir("~/Desktop/d")
    fs.write_file("~/Desktop/d/x", b"")
    with pytest.raises(OSError) as info:
        fs.remove("~/Desktop/d", recursive=False)
    assert info.value.errno == errno.ENOTEMPTY


def test_fs_copy_move_rename_remove() -> None:
    fs = FileSystem()
    fs.mkdir("~/src/sub", parents=True)
    fs.write_file("~/src/sub/a", "A")
    assert fs.copy("~/src", "~/dst") == "/home/user/dst"
    fs.write_file("~/src/sub/a", "changed")
    assert fs.read_file("~/dst/sub/a") == b"A"
    assert fs.move("~/dst", "~/Documents") == "/home/user/Documents/dst"
    assert fs.listdir("~/Documents") == ["dst"]
    fs.rename("~/Documents/dst/sub/a", "~/Documents/dst/b")
    assert fs.listdir("~/Documents/dst") == ["b", "sub"]
    with pytest.raises(OSError):
        fs.move("~/src", "~/src/sub")
    fs.remove("~/src")
    assert not fs.exists("~/src")


def test_fs_times_come_from_the_simulated_clock_and_deepcopy_is_independent() -> None:
    fs = FileSystem()
    fs.write_file("~/a", "1")
    t0 = fs.stat("~/a").st_mtime
    fs.clock.seconds += 30
    fs.write_file("~/a", "2")
    assert fs.stat("~/a").st_mtime == t0 + 30
    twin = copy.deepcopy(fs)
    twin.write_file("~/a", "3")
    assert fs.read_file("~/a") == b"2"


def test_fs_trash_follows_freedesktop_layout() -> None:
    fs = FileSystem()
    fs.mkdir("~/Desktop/x")
    assert fs.trash("~/Desktop/x") == "x"
    fs.mkdir("~/Desktop/x")
    assert fs.trash("~/Desktop/x") == "x.2"
    info = fs.read_file("~/.local/share/Trash/info/x.trashinfo").decode()
    assert "Path=/home/user/Desktop/x" in info and "DeletionDate=2024-01-01T" in info


def test_text_field_model() -> None:
    f = TextField("abc def", cursor=7, anchor=7)
    f.key("left", ctrl=True)
    assert f.cursor == 4
    f.key("left", shift=True, ctrl=True)
    assert f.selected_text() == "abc "
    f.key("x")
    assert f.text == "xdef"

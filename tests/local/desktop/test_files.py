"""The Files window, driven through pyautogui strings only; checked on the filesystem and
the accessibility tree."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pyauto import at, names, node, run, states

from drums_gym.local.desktop import Desktop
from drums_gym.local.desktop.a11y import NAMESPACES, ROLES, to_xml
from drums_gym.solvers.a11y import walk, windows

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
DOCS = "/home/user/Documents"
VIEW = ("layered-pane", "Files View")
DESKTOP = ("layered-pane", "Desktop Icons")


@pytest.fixture
def desk() -> Desktop:
    d = Desktop(seed=0)
    for n in ("alpha", "beta", "gamma2", "Gamma10"):
        d.fs.mkdir(f"{DOCS}/{n}")
    for n in ("a.txt", "b.txt", "c.txt", "notes.txt"):
        d.fs.write_file(f"{DOCS}/{n}", n)
    d.fs.write_file(f"{DOCS}/alpha/inner.txt", "in")
    d.fs.mkdir("~/Desktop/project")
    return d


def files_at(desk: Desktop, place: str) -> None:
    """Dock → Files, then a sidebar place."""
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Files', ('tool-bar', 'Dock')))})")
    run(desk, f"pyautogui.click({at(node(desk, 'list-item', place))})")


def icon(desk: Desktop, name: str, window: str | None = None) -> str:
    win = node(desk, "frame", window) if window else desk.accessibility()
    return at(node(win, "icon", name, VIEW))


def click_icon(desk: Desktop, name: str, window: str | None = None, hold: str = "",
               button: str = "left", clicks: int = 1) -> None:
    call = {1: "click", 2: "doubleClick"}[clicks] if button == "left" else "rightClick"
    code = f"pyautogui.{call}({icon(desk, name, window)})"
    if hold:
        code = f"pyautogui.keyDown('{hold}')\n{code}\npyautogui.keyUp('{hold}')"
    run(desk, code)


def menu(desk: Desktop, label: str) -> None:
    run(desk, f"pyautogui.click({at(node(desk, 'menu-item', label))})")


def selected(desk: Desktop) -> set[str]:
    return {n["name"] for n in walk(node(desk, *VIEW)) if "selected" in n["states"]}


def frames(desk: Desktop) -> list[str]:
    return [n["name"] for n in windows(desk.accessibility()) if n["role"] == "frame"]


def save(desk: Desktop, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    desk.render().save(ARTIFACTS / name)
    return ARTIFACTS / name


# -- opening, navigating ------------------------------------------------------------

def test_dock_opens_home_and_places_navigate(desk: Desktop) -> None:
    files_at(desk, "Documents")
    assert frames(desk) == ["Documents"]
    assert names(desk, "icon", VIEW) == ["alpha", "beta", "gamma2", "Gamma10", "a.txt",
                                         "b.txt", "c.txt", "notes.txt"]  # folders first
    assert node(desk, "tool-bar", "Location")["text"] == DOCS
    assert names(desk, "push-button", ("tool-bar", "Location")) == ["Home", "Documents"]
    assert "selected" in states(desk, "list-item", "Documents")
    click_icon(desk, "alpha", clicks=2)
    assert frames(desk) == ["alpha"] and names(desk, "icon", VIEW) == ["inner.txt"]
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Back'))})")
    assert frames(desk) == ["Documents"]
    assert "enabled" in states(desk, "push-button", "Forward")
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Forward'))})")
    assert frames(desk) == ["alpha"]
    run(desk, "pyautogui.hotkey('alt', 'up')")
    assert frames(desk) == ["Documents"] and selected(desk) == {"alpha"}
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Home', ('tool-bar', 'Location')))})")
    assert frames(desk) == ["Home"]


def test_desktop_folder_opens_and_enter_opens_the_selection(desk: Desktop) -> None:
    desk.fs.mkdir("~/Desktop/project/src")
    run(desk, f"pyautogui.doubleClick({at(node(desk, 'icon', 'project'))})")
    assert frames(desk) == ["project"]
    assert "active" in states(desk, "frame", "project")
    run(desk, "pyautogui.press('right')", "pyautogui.press('enter')")
    assert frames(desk) == ["src"]


def test_typed_location(desk: Desktop) -> None:
    files_at(desk, "Home")
    run(desk, "pyautogui.hotkey('ctrl', 'l')")
    entry = node(desk, "entry", "Location")
    assert entry["text"] == "/home/user" and "focused" in entry["states"]
    run(desk, "pyautogui.write('~/Documents/alpha\\n')")
    assert frames(desk) == ["alpha"]
    run(desk, "pyautogui.hotkey('ctrl', 'l')", "pyautogui.write('~/Documents/b.txt\\n')")
    assert frames(desk) == ["Documents"] and selected(desk) == {"b.txt"}
    run(desk, "pyautogui.hotkey('ctrl', 'l')", "pyautogui.write('/nowhere')",
        "pyautogui.press('esc')")
    assert frames(desk) == ["Documents"]


# -- selection --------------------------------------------------------------------

def test_click_ctrl_click_shift_click_ctrl_a(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "a.txt")
    assert selected(desk) == {"a.txt"}
    click_icon(desk, "c.txt", hold="shift")
    assert selected(desk) == {"a.txt", "b.txt", "c.txt"}
    click_icon(desk, "b.txt", hold="ctrl")
    click_icon(desk, "alpha", hold="ctrl")
    assert selected(desk) == {"a.txt", "c.txt", "alpha"}
    path = save(desk, "files_multi_selection.png")
    assert path.stat().st_size > 10_000
    run(desk, "pyautogui.hotkey('ctrl', 'a')")
    assert len(selected(desk)) == 8
    run(desk, "pyautogui.press('esc')")
    assert selected(desk) == set()
    run(desk, "pyautogui.press('right')", "pyautogui.hotkey('shift', 'right')",
        "pyautogui.hotkey('shift', 'right')")
    assert selected(desk) == {"alpha", "beta", "gamma2"}


# -- rename, new folder -----------------------------------------------------------

def test_rename_with_f2_and_with_the_menu(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "notes.txt")
    run(desk, "pyautogui.press('f2')")
    entry = node(desk, "entry", "File name")
    assert entry["text"] == "notes.txt" and entry["selection"] == [0, 5]  # the stem
    run(desk, "pyautogui.write('todo')", "pyautogui.press('enter')")
    assert desk.fs.is_file(f"{DOCS}/todo.txt") and not desk.fs.exists(f"{DOCS}/notes.txt")
    assert selected(desk) == {"todo.txt"}
    click_icon(desk, "beta", button="right")
    menu(desk, "Rename…")
    run(desk, "pyautogui.write('alpha\\n')")  # taken: the popover stays with an error
    assert "already exists" in node(desk, "dialog", "Rename beta")["children"][-1]["name"]
    run(desk, "pyautogui.hotkey('ctrl', 'a')", "pyautogui.write('delta\\n')")
    assert desk.fs.is_dir(f"{DOCS}/delta") and not desk.fs.exists(f"{DOCS}/beta")


def test_new_folder_from_menu_and_shortcut(desk: Desktop) -> None:
    files_at(desk, "Documents")
    vx, vy = node(desk, *VIEW)["position"]
    run(desk, f"pyautogui.rightClick({vx + 600}, {vy + 400})")
    menu(desk, "New Folder…")
    dialog = node(desk, "dialog", "New Folder")
    assert node(dialog, "entry", "Folder name")["text"] == "Untitled Folder"
    assert "enabled" in node(dialog, "push-button", "Create")["states"]
    run(desk, "pyautogui.write('reports')", "pyautogui.press('enter')")
    assert desk.fs.is_dir(f"{DOCS}/reports") and selected(desk) == {"reports"}
    run(desk, "pyautogui.hotkey('ctrl', 'shift', 'n')", "pyautogui.press('enter')")
    assert desk.fs.is_dir(f"{DOCS}/Untitled Folder")
    run(desk, "pyautogui.hotkey('ctrl', 'shift', 'n')", "pyautogui.press('esc')")
    assert not desk.fs.exists(f"{DOCS}/Untitled Folder 2")


# -- clipboard --------------------------------------------------------------------

def test_copy_paste_in_the_same_folder_makes_a_copy(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "a.txt")
    run(desk, "pyautogui.hotkey('ctrl', 'c')", "pyautogui.hotkey('ctrl', 'v')")
    assert desk.fs.read_file(f"{DOCS}/a (copy).txt") == b"a.txt"
    assert selected(desk) == {"a (copy).txt"}


def test_cut_and_paste_between_windows(desk: Desktop) -> None:
    files_at(desk, "Documents")
    run(desk, f"pyautogui.doubleClick({at(node(desk, 'icon', 'project', DESKTOP))})")
    assert frames(desk) == ["Documents", "project"]
    x, y = node(desk, "frame", "Documents")["position"]
    run(desk, f"pyautogui.click({x + 300}, {y + 12})")  # its header peeks out: raise it
    assert frames(desk)[-1] == "Documents"
    click_icon(desk, "b.txt", "Documents")
    click_icon(desk, "c.txt", "Documents", hold="ctrl")
    run(desk, "pyautogui.hotkey('ctrl', 'x')")
    proj = node(desk, "frame", "project")
    (x, y), (w, h) = proj["position"], proj["size"]
    run(desk, f"pyautogui.click({x + w - 20}, {y + h - 20})")  # its uncovered corner
    assert "active" in states(desk, "frame", "project")
    run(desk, "pyautogui.hotkey('ctrl', 'v')")
    assert desk.fs.listdir("~/Desktop/project") == ["b.txt", "c.txt"]
    assert not desk.fs.exists(f"{DOCS}/b.txt") and not desk.fs.exists(f"{DOCS}/c.txt")
    assert names(desk, "icon", ("frame", "project")) == ["b.txt", "c.txt"]


def test_copy_from_desktop_to_files_and_back(desk: Desktop) -> None:
    desk.fs.write_file("~/Desktop/memo.txt", "m")
    run(desk, f"pyautogui.click({at(node(desk, 'icon', 'memo.txt', DESKTOP))})",
        "pyautogui.hotkey('ctrl', 'c')")
    files_at(desk, "Documents")
    run(desk, "pyautogui.hotkey('ctrl', 'v')")
    assert desk.fs.read_file(f"{DOCS}/memo.txt") == b"m"
    click_icon(desk, "alpha", button="right")
    menu(desk, "Copy")
    run(desk, f"pyautogui.click({desk.width - 300}, {desk.height - 200})",  # the desktop
        f"pyautogui.rightClick({desk.width - 300}, {desk.height - 200})")
    menu(desk, "Paste")
    assert desk.fs.read_file("~/Desktop/alpha/inner.txt") == b"in"
    assert desk.fs.is_dir(f"{DOCS}/alpha")


def test_paste_menu_item_is_disabled_with_an_empty_clipboard(desk: Desktop) -> None:
    files_at(desk, "Documents")
    vx, vy = node(desk, *VIEW)["position"]
    run(desk, f"pyautogui.rightClick({vx + 600}, {vy + 400})")
    assert "enabled" not in states(desk, "menu-item", "Paste")
    run(desk, "pyautogui.press('esc')")


# -- Trash ------------------------------------------------------------------------

def test_delete_moves_to_trash_and_restore_puts_it_back(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "a.txt")
    click_icon(desk, "alpha", hold="ctrl")
    run(desk, "pyautogui.press('delete')")
    assert not desk.fs.exists(f"{DOCS}/a.txt") and not desk.fs.exists(f"{DOCS}/alpha")
    run(desk, f"pyautogui.click({at(node(desk, 'list-item', 'Trash'))})")
    assert frames(desk) == ["Trash"] and names(desk, "icon", VIEW) == ["alpha", "a.txt"]
    assert "enabled" not in states(desk, "push-button", "Restore")
    click_icon(desk, "a.txt")
    save(desk, "files_trash.png")
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Restore'))})")
    assert desk.fs.read_file(f"{DOCS}/a.txt") == b"a.txt"
    assert names(desk, "icon", VIEW) == ["alpha"]
    assert desk.fs.listdir("~/.local/share/Trash/info") == ["alpha.trashinfo"]
    click_icon(desk, "alpha", button="right")
    menu(desk, "Restore From Trash")
    assert desk.fs.read_file(f"{DOCS}/alpha/inner.txt") == b"in"
    assert names(desk, "icon", VIEW) == []


def test_restore_recreates_the_parent_and_keeps_clashes_in_the_trash(desk: Desktop) -> None:
    desk.fs.mkdir("~/Desktop/old/deep", parents=True)
    desk.fs.write_file("~/Desktop/old/deep/x.txt", "1")
    desk.fs.trash("~/Desktop/old/deep/x.txt")
    desk.fs.remove("~/Desktop/old")
    desk.fs.write_file(f"{DOCS}/y.txt", "new")
    desk.fs.trash(f"{DOCS}/y.txt")
    desk.fs.write_file(f"{DOCS}/y.txt", "newer")
    files_at(desk, "Trash")
    run(desk, "pyautogui.hotkey('ctrl', 'a')")
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Restore'))})")
    assert desk.fs.read_file("~/Desktop/old/deep/x.txt") == b"1"
    assert desk.fs.read_file(f"{DOCS}/y.txt") == b"newer"
    assert names(desk, "icon", VIEW) == ["y.txt"]


def test_delete_permanently_and_empty_trash(desk: Desktop) -> None:
    for n in ("a.txt", "b.txt", "c.txt"):
        desk.fs.trash(f"{DOCS}/{n}")
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Trash', ('tool-bar', 'Dock')))})")
    assert frames(desk) == ["Trash"]
    click_icon(desk, "a.txt", button="right")
    menu(desk, "Delete Permanently")
    assert names(desk, "icon", VIEW) == ["b.txt", "c.txt"]
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Empty…'))})")
    assert node(desk, "menu", "Empty Trash?")
    menu(desk, "Cancel")
    assert names(desk, "icon", VIEW) == ["b.txt", "c.txt"]
    run(desk, f"pyautogui.click({at(node(desk, 'push-button', 'Empty…'))})")
    menu(desk, "Empty All Items")
    assert names(desk, "icon", VIEW) == [] and desk.fs.trash_items() == []


def test_open_in_terminal_from_files(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "alpha", button="right")
    menu(desk, "Open in Terminal")
    assert frames(desk)[-1].endswith("~/Documents/alpha")
    assert node(desk, "terminal", frames(desk)[-1])


# -- drag and drop ------------------------------------------------------------------

def drag(desk: Desktop, src: str, dst: str, hold: str = "") -> None:
    code = f"pyautogui.moveTo({src})\npyautogui.dragTo({dst}, button='left')"
    if hold:
        code = (f"pyautogui.moveTo({src})\npyautogui.mouseDown()\npyautogui.moveTo({dst})\n"
                f"pyautogui.keyDown('{hold}')\npyautogui.mouseUp()\npyautogui.keyUp('{hold}')")
    run(desk, code)


def test_drag_files_onto_a_folder_moves_them_ctrl_copies(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "a.txt")
    click_icon(desk, "b.txt", hold="ctrl")
    drag(desk, icon(desk, "a.txt"), icon(desk, "alpha"))  # the whole selection goes
    assert desk.fs.listdir(f"{DOCS}/alpha") == ["a.txt", "b.txt", "inner.txt"]
    assert "a.txt" not in names(desk, "icon", VIEW)
    drag(desk, icon(desk, "c.txt"), icon(desk, "beta"), hold="ctrl")
    assert desk.fs.is_file(f"{DOCS}/beta/c.txt") and desk.fs.is_file(f"{DOCS}/c.txt")
    drag(desk, icon(desk, "c.txt"), at(node(desk, "list-item", "Trash")))
    assert [t.original for t in desk.fs.trash_items()] == [f"{DOCS}/c.txt"]


def test_drag_between_the_desktop_and_files(desk: Desktop) -> None:
    desk.fs.write_file("~/Desktop/todo.txt", "t")
    desk.fs.mkdir("~/Desktop/done")
    drag(desk, at(node(desk, "icon", "todo.txt", DESKTOP)), at(node(desk, "icon", "done", DESKTOP)))
    assert desk.fs.listdir("~/Desktop/done") == ["todo.txt"]
    files_at(desk, "Documents")
    free = (desk.width - 200, desk.height - 150)
    drag(desk, icon(desk, "notes.txt"), f"{free[0]}, {free[1]}")
    assert desk.fs.is_file("~/Desktop/notes.txt") and not desk.fs.exists(f"{DOCS}/notes.txt")
    x, y = (int(v) for v in at(node(desk, "icon", "notes.txt", DESKTOP)).split(", "))
    assert abs(x - free[0]) < 130 and abs(y - free[1]) < 130  # dropped where it was let go
    vx, vy = node(desk, *VIEW)["position"]
    drag(desk, at(node(desk, "icon", "project", DESKTOP)), f"{vx + 500}, {vy + 350}")
    assert desk.fs.is_dir(f"{DOCS}/project") and not desk.fs.exists("~/Desktop/project")
    trash = at(node(desk, "push-button", "Trash", ("tool-bar", "Dock")))
    drag(desk, at(node(desk, "icon", "notes.txt", DESKTOP)), trash)
    assert not desk.fs.exists("~/Desktop/notes.txt") and len(desk.fs.trash_items()) == 1


def test_drag_a_desktop_icon_to_a_free_spot_and_rubber_bands(desk: Desktop) -> None:
    spot = (desk.width - 400, desk.height - 300)
    drag(desk, at(node(desk, "icon", "project", DESKTOP)), f"{spot[0]}, {spot[1]}")
    x, y = (int(v) for v in at(node(desk, "icon", "project", DESKTOP)).split(", "))
    assert abs(x - spot[0]) < 130 and abs(y - spot[1]) < 130
    run(desk, f"pyautogui.moveTo({spot[0] - 150}, {spot[1] - 150})",
        f"pyautogui.dragTo({spot[0] + 150}, {spot[1] + 150})")
    assert "selected" in states(desk, "icon", "project", DESKTOP)
    files_at(desk, "Documents")
    vx, vy = node(desk, *VIEW)["position"]
    ax, ay = node(desk, "icon", "alpha", VIEW)["position"]
    bx, by = node(desk, "icon", "beta", VIEW)["position"]
    run(desk, f"pyautogui.moveTo({ax + 20}, {vy + 4})", "pyautogui.mouseDown()",
        f"pyautogui.moveTo({bx + 30}, {by + 40})")
    save(desk, "files_rubber_band.png")
    run(desk, "pyautogui.mouseUp()")
    assert selected(desk) == {"alpha", "beta"}
    run(desk, f"pyautogui.moveTo({icon(desk, 'a.txt')})", "pyautogui.mouseDown()",
        f"pyautogui.moveTo({icon(desk, 'gamma2')})")
    save(desk, "files_dragging.png")
    run(desk, "pyautogui.mouseUp()")
    assert desk.fs.is_file(f"{DOCS}/gamma2/a.txt")


# -- Properties -------------------------------------------------------------------

def test_properties_permissions_change_modes_at_once(desk: Desktop) -> None:
    desk.fs.chmod(f"{DOCS}/a.txt", 0o777)
    files_at(desk, "Documents")
    click_icon(desk, "a.txt", button="right")
    menu(desk, "Properties")
    dialog = ("frame", "a.txt Properties")
    assert "active" in states(desk, *dialog)
    assert node(desk, "label", "Size")  # the Basic tab first
    run(desk, f"pyautogui.click({at(node(desk, 'page-tab', 'Permissions', dialog))})")
    assert node(desk, "combo-box", "Group Access", dialog)["text"] == "Read and write"
    for cls in ("Group", "Others"):
        run(desk, f"pyautogui.click({at(node(desk, 'combo-box', f'{cls} Access', dialog))})")
        assert names(desk, "menu-item", ("menu", f"{cls} Access")) == [
            "None", "Read-only", "Read and write"]
        run(desk, f"pyautogui.click({at(node(desk, 'menu-item', 'Read-only'))})")
    assert desk.fs.stat(f"{DOCS}/a.txt").st_mode & 0o777 == 0o755
    box = node(desk, "check-box", "Allow executing file as program", dialog)
    assert "checked" in box["states"]
    run(desk, f"pyautogui.click({at(box)})")
    assert desk.fs.stat(f"{DOCS}/a.txt").st_mode & 0o777 == 0o644
    assert "checked" not in states(desk, "check-box", "Allow executing file as program")
    save(desk, "files_properties.png")
    run(desk, "pyautogui.press('esc')")
    assert frames(desk) == ["Documents"]


def test_folder_properties_from_the_desktop_and_ctrl_i(desk: Desktop) -> None:
    run(desk, f"pyautogui.rightClick({at(node(desk, 'icon', 'project', DESKTOP))})")
    menu(desk, "Properties")
    dialog = ("frame", "project Properties")
    run(desk, f"pyautogui.click({at(node(desk, 'page-tab', 'Permissions', dialog))})")
    assert node(desk, "combo-box", "Others Access", dialog)["text"] == "Access files"
    run(desk, f"pyautogui.click({at(node(desk, 'combo-box', 'Others Access', dialog))})")
    run(desk, f"pyautogui.click({at(node(desk, 'menu-item', 'None'))})")
    assert desk.fs.stat("~/Desktop/project").st_mode & 0o777 == 0o770
    close = node(node(desk, *dialog), "push-button", "Close")
    run(desk, f"pyautogui.click({at(close)})")
    files_at(desk, "Documents")
    click_icon(desk, "c.txt")
    run(desk, "pyautogui.hotkey('ctrl', 'i')")
    assert frames(desk)[-1] == "c.txt Properties"
    assert node(desk, "label", "Parent Folder")  # the Basic tab
    assert node(desk, "label", DOCS)["text"] == DOCS


# -- windows, scrolling, accessibility, fidelity ------------------------------------

def test_windows_stack_take_focus_and_close(desk: Desktop) -> None:
    files_at(desk, "Documents")
    run(desk, f"pyautogui.doubleClick({at(node(desk, 'icon', 'project', DESKTOP))})")
    assert frames(desk) == ["Documents", "project"]
    assert "active" in states(desk, "frame", "project")
    x, y = node(desk, "frame", "Documents")["position"]
    run(desk, f"pyautogui.click({x + 300}, {y + 12})")
    assert frames(desk) == ["project", "Documents"]
    assert "active" not in states(desk, "frame", "project")
    close = node(node(desk, "frame", "Documents"), "push-button", "Close")
    run(desk, f"pyautogui.click({at(close)})")
    assert frames(desk) == ["project"]


def test_scrolling_reveals_more_items(desk: Desktop) -> None:
    for i in range(60):
        desk.fs.write_file(f"~/Music/track{i:02d}.txt", "")
    files_at(desk, "Music")
    shown = names(desk, "icon", VIEW)
    assert shown[0] == "track00" + ".txt" and "track59.txt" not in shown
    run(desk, f"pyautogui.scroll(-30, {at(node(desk, *VIEW))})")
    shown = names(desk, "icon", VIEW)
    assert "track59.txt" in shown and "track00.txt" not in shown
    click_icon(desk, "track59.txt")
    run(desk, "pyautogui.press('home')")
    assert "track00.txt" in names(desk, "icon", VIEW) and selected(desk) == {"track00.txt"}


def test_roles_are_documented_and_xml_is_osworld_like(desk: Desktop) -> None:
    files_at(desk, "Documents")
    click_icon(desk, "a.txt", button="right")
    tree = desk.accessibility()
    used = {n["role"] for n in walk(tree)}
    assert used <= set(ROLES), used - set(ROLES)
    for n in walk(tree):
        assert set(n) >= {"role", "name", "position", "size", "states", "children"}
    xml = to_xml(tree)
    root = ET.fromstring(xml)
    assert root.tag == "desktop-frame"
    st, cp = NAMESPACES["st"], NAMESPACES["cp"]
    items = [e for e in root.iter("icon") if e.get("name") == "a.txt"]
    assert items[0].get(f"{{{st}}}selected") == "true"
    x, y = node(desk, "icon", "a.txt", VIEW)["position"]
    assert items[0].get(f"{{{cp}}}screencoord") == f"({x}, {y})"
    assert [e.get("name") for e in root.iter("menu-item")][:2] == ["Open", "Open in New Window"]
    assert root.find(".//tool-bar[@name='Location']").text == DOCS  # type: ignore[union-attr]


def test_identical_actions_give_identical_screens() -> None:
    def run_once() -> bytes:
        d = Desktop(seed=5)
        d.fs.write_file(f"{DOCS}/x.txt", "x")
        files_at(d, "Documents")
        click_icon(d, "x.txt", button="right")
        menu(d, "Copy")
        run(d, "pyautogui.hotkey('ctrl', 'v')", "pyautogui.press('f2')", "pyautogui.write('y')")
        return d.render().tobytes()

    assert run_once() == run_once()

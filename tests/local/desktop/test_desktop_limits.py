"""Desktop work is bounded: per-event cost does not grow with the files on the Desktop, every
event and every entry walked is charged to the work budget, and a budget cut mid-event
leaves the desktop consistent.

Issue 11 measured one action of 5,000 events on a desktop with 10,000 files at 18.6 s,
holding the slot's lock. Work is counted here (Python function calls, budget steps), never
timed; ``benchmarks/desktop_scale.py`` prints the timings.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drums_gym.actions import expand, parse
from drums_gym.actions.events import Event, KeyDown, KeyUp, MouseDown, MouseMove, MouseUp, Scroll
from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop import Desktop, FolderWindow
from drums_gym.solvers.a11y import windows

DESKTOP = "/home/user/Desktop"


def desktop_with(files: int, folder_window: bool = True) -> Desktop:
    desk = Desktop()
    for i in range(files):
        desk.fs.write_file(f"~/Desktop/file-{i:05d}.txt", str(i))
    if folder_window:
        win = desk.open_folder("~/Desktop")
        win.move_to(900, 300)
    desk.render()
    return desk


def everyday_events(n: int) -> list[Event]:
    """Pointer moves over the icons and the Files window, clicks, arrow keys, wheel clicks."""
    out: list[Event] = []
    i = 0
    while len(out) < n:
        out.append(MouseMove(120 + (i * 37) % 700, 60 + (i * 53) % 900))
        if i % 5 == 0:
            out += [MouseDown("left"), MouseUp("left")]
        if i % 7 == 0:
            out.append(KeyDown("down"))
        if i % 11 == 0:
            out += [MouseMove(1300, 600), Scroll(0, -1), MouseDown("left"), MouseUp("left"),
                    KeyDown("right")]
        i += 1
    return out[:n]


def calls_during(fn: Callable[[], Any]) -> int:
    """Python and C function calls made while ``fn`` runs (the interpreter's own count)."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def test_per_event_work_does_not_grow_with_the_files_on_the_desktop() -> None:
    small, large = desktop_with(100), desktop_with(10_000)
    events = everyday_events(300)
    few = calls_during(lambda: small.apply(events))
    many = calls_during(lambda: large.apply(events))
    assert many <= few * 1.15 + 1000, (
        f"300 events cost {few} calls with 100 files but {many} with 10,000")
    assert small.pointer == large.pointer and large.selected, "the events did something"
    assert len(large.grid.slots) == 10_000, "every file has its icon (most of them off screen)"


def test_every_change_to_the_filesystem_moves_its_version() -> None:
    """The desktop's caches key on ``fs.version``: each public way of changing the tree
    must move it (a change that did not would leave a stale icon or listing)."""
    from drums_gym.local.desktop import FileSystem

    fs = FileSystem()
    fs.write_file("~/a.txt", "1")
    changes: list[tuple[str, Callable[[], Any]]] = [
        ("mkdir", lambda: fs.mkdir("~/d")),
        ("mkdir -p", lambda: fs.mkdir("~/d/e/f", parents=True)),
        ("write (new)", lambda: fs.write_file("~/d/x", "x")),
        ("write (overwrite)", lambda: fs.write_file("~/d/x", "y")),
        ("chmod", lambda: fs.chmod("~/d/x", 0o600)),
        ("rename", lambda: fs.rename("~/d/x", "~/d/z")),
        ("move", lambda: fs.move("~/d/z", "~/Documents")),
        ("copy", lambda: fs.copy("~/d", "~/Music")),
        ("remove", lambda: fs.remove("~/Music/d")),
        ("trash", lambda: fs.trash("~/a.txt")),
        ("restore", lambda: fs.restore("a.txt")),
        ("trash again", lambda: fs.trash("~/a.txt")),
        ("delete from trash", lambda: fs.delete_from_trash("a.txt")),
        ("trash more", lambda: fs.trash("~/d")),
        ("empty trash", lambda: fs.empty_trash()),
    ]
    for what, change in changes:
        before = fs.version
        change()
        assert fs.version > before, f"{what} did not move fs.version"
    before = fs.version
    fs.listdir("~"), fs.stat("~/Documents/z"), list(fs.walk("~")), fs.exists("~/nope")
    assert fs.version == before, "reading does not"


def test_every_event_is_charged_and_the_action_stops_at_the_limit() -> None:
    desk = desktop_with(10, folder_window=False)
    moves = [MouseMove(100 + i % 800, 100 + i % 600) for i in range(5000)]
    with running(Budget(Limits(steps=1000))), pytest.raises(BudgetExceeded) as cut:
        desk.apply(moves)
    assert cut.value.kind == "steps"
    assert desk.pointer in {(e.x, e.y) for e in moves[:1000]}, "it stopped near event 1000"
    desk.apply(moves[-1:])  # and goes on afterwards, outside any budget
    assert desk.pointer == (moves[-1].x, moves[-1].y)


def test_a_pathological_desktop_is_bounded_by_items_walked() -> None:
    """ctrl+A on 10,000 icons walks all of them: 5,000 of those cost far more than 5,000
    steps and stop at the budget instead of running for minutes."""
    desk = desktop_with(10_000, folder_window=False)
    desk.apply([MouseMove(1900, 1000), MouseDown("left"), MouseUp("left")])  # desktop focus
    events: list[Event] = [KeyDown("ctrl")]
    for _ in range(2500):
        events += [KeyDown("a"), KeyDown("escape")]
    applied = 0

    def counted() -> Iterator[Event]:
        nonlocal applied
        for ev in events:
            applied += 1
            yield ev

    with running(Budget(Limits(steps=1_000_000))), pytest.raises(BudgetExceeded):
        desk.apply(counted())
    assert applied < len(events) // 10, f"{applied} of {len(events)} events ran"
    desk.apply([KeyUp("ctrl")])
    assert desk.render().size == (1920, 1080)


# -- a cut mid-event leaves the desktop consistent ---------------------------------------------

def busy_desktop() -> tuple[Desktop, list[Event]]:
    """400 files and a folder tree on the Desktop, a Files window on ~/Documents, and an
    action that copies, pastes, drags, band-selects, selects all and trashes."""
    desk = Desktop()
    for i in range(400):
        desk.fs.write_file(f"~/Desktop/f{i:04d}.txt", "x" * (i % 7))
    for i in range(60):
        desk.fs.mkdir(f"~/Desktop/big/d{i % 6}/e{i}", parents=True)
        desk.fs.write_file(f"~/Desktop/big/d{i % 6}/e{i}/leaf.txt", str(i))
    win = desk.open_folder("~/Documents")
    win.move_to(1000, 400)
    desk.render()
    bx, by = desk.icon_center("big")
    fx, fy = desk.icon_center("f0003.txt")
    gap = (desk.grid.hit_box("f0000.txt")[0] - 3, desk.grid.hit_box("f0000.txt")[1] + 40)
    code = "\n".join([
        f"pyautogui.click({bx}, {by})", "pyautogui.hotkey('ctrl', 'c')",
        "pyautogui.click(1500, 800)", "pyautogui.hotkey('ctrl', 'v')",
        f"pyautogui.click({fx}, {fy})",
        f"pyautogui.moveTo({fx}, {fy})", "pyautogui.mouseDown()",
        "pyautogui.moveTo(1300, 700, duration=0.2)", "pyautogui.mouseUp()",
        f"pyautogui.moveTo({gap[0]}, {gap[1]})", "pyautogui.mouseDown()",
        "pyautogui.moveTo(700, 900, duration=0.3)", "pyautogui.mouseUp()",
        "pyautogui.press('delete')",
        "pyautogui.click(1500, 800)", "pyautogui.hotkey('ctrl', 'a')",
        "pyautogui.hotkey('ctrl', 'x')",
        f"pyautogui.click({gap[0]}, {gap[1]})", "pyautogui.hotkey('ctrl', 'v')",
        "pyautogui.hotkey('ctrl', 'a')", "pyautogui.press('delete')",
    ])
    return desk, list(expand(parse(code), pointer=desk.pointer))


def tree_of(desk: Desktop, top: str) -> list[tuple[str, list[str], list[str]]]:
    return [(p[len(top):], d, f) for p, d, f in desk.fs.walk(top)]


def check_consistent(desk: Desktop, original_big: list[Any], draw: bool = False) -> None:
    entries = {n for n in desk.fs.listdir("~/Desktop") if not n.startswith(".")}
    tree = desk.accessibility()
    pane = next(n for n in windows(tree) if n["name"] == "Desktop Icons")
    assert {n["name"] for n in pane["children"]} == entries
    slots = list(desk.grid.slots.values())
    assert len(slots) == len(set(slots)), "two icons in one slot"
    assert desk.selected <= entries
    for name in list(desk.grid.slots)[:200]:
        x0, y0, x1, y1 = desk.grid.hit_box(name)
        if x1 < desk.width:
            assert desk.grid.at((x0 + x1) // 2, (y0 + y1) // 2) == name
    for w in desk.windows:
        if isinstance(w, FolderWindow):
            assert desk.fs.is_dir(w.path)
            assert w.selected <= set(w.entries(desk))
    for top in ("/home/user/Documents", "/home/user/Documents/big",
                "/home/user/.local/share/Trash/files"):
        for name in desk.fs.listdir(top) if desk.fs.is_dir(top) else []:
            if name.startswith("big"):
                copied = tree_of(desk, f"{top}/{name}")
                assert copied == original_big, f"{top}/{name} is a partial copy"
    state = desk.dnd.state
    assert state is None or not state.active or state.band or state.paths
    if draw:
        assert desk.render().size == (desk.width, desk.height)


def test_a_budget_cut_anywhere_leaves_the_desktop_consistent() -> None:
    desk, events = busy_desktop()
    original_big = tree_of(desk, f"{DESKTOP}/big")
    whole = Budget(Limits(steps=10**9, seconds=10**6))
    with running(whole):
        desk.clone().apply(events)
    total = whole.limits.steps - whole._steps_left
    assert total > 5_000, f"the action charged only {total} steps"
    limits = sorted({int(total * k / 31) for k in range(1, 31)} | {5, 50, 500})
    for steps in limits:
        twin = desk.clone()
        with running(Budget(Limits(steps=steps, seconds=10**6))), \
                pytest.raises(BudgetExceeded):
            twin.apply(events)
        check_consistent(twin, original_big)
        twin.apply(events[-40:])  # the desktop goes on
        check_consistent(twin, original_big, draw=steps in limits[::6])


def steps_of(desk: Desktop, events: list[Event]) -> int:
    budget = Budget(Limits(steps=10**9, seconds=10**6))
    with running(budget):
        desk.apply(events)
    return budget.limits.steps - budget._steps_left


def test_a_cut_as_a_drag_starts_leaves_no_drag_without_files() -> None:
    """The budget runs out while the drag collects its 400 files: no half-started drag
    (active, nothing to show or drop) is left behind, and the next frame draws."""
    desk = desktop_with(400, folder_window=False)
    x, y = desk.icon_center("file-00003.txt")
    select = [MouseMove(1900, 1070), MouseDown("left"), MouseUp("left"), KeyDown("ctrl"),
              KeyDown("a"), KeyUp("ctrl"), MouseMove(x, y), MouseDown("left")]
    before = steps_of(desk.clone(), select)
    drag = [MouseMove(x + 30, y + 30)]
    assert steps_of(desk.clone(), select + drag) - before > 400, "collecting is charged"
    with running(Budget(Limits(steps=before + 3, seconds=10**6))), \
            pytest.raises(BudgetExceeded):
        desk.apply(select + drag)
    state = desk.dnd.state
    assert state is None or not state.active or state.paths
    assert desk.render().size == (1920, 1080)
    desk.apply([MouseMove(x + 60, y + 60), MouseMove(1300, 500), MouseUp("left")])
    assert desk.render().size == (1920, 1080)

"""Take the docs' screenshots from the simulator itself: desktop, Files, Terminal,
Settings, the dock's menu, the clock's menu (Do Not Disturb), the System menu (volume
slider) and the volume OSD.

Every frame is a task's starting desktop driven by pyautogui strings (parsed and expanded
as the local host does), with positions read from the accessibility tree.

    python scripts/screenshots.py [OUT_DIR]      # default: docs/
"""

from __future__ import annotations

import sys
from pathlib import Path

from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import get_task


def node(tree: dict, name: str) -> dict:
    stack = [tree]
    while stack:
        current = stack.pop()
        if current.get("name") == name:
            return current
        stack.extend(current.get("children", ()))
    raise LookupError(f"no node named {name!r} on screen")


def center(tree: dict, name: str) -> str:
    found = node(tree, name)
    (x, y), (w, h) = found["position"], found["size"]
    return f"{x + w // 2}, {y + h // 2}"


def desktop_of(task: str) -> Desktop:
    desk = Desktop()
    get_task(task).setup(desk)
    return desk


def act(desk: Desktop, code: str) -> None:
    desk.advance(1.0)  # separate actions, as separate requests are on the host
    desk.apply(expand(parse(code), pointer=desk.pointer))


def main(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    shots = []

    desk = desktop_of("e0df059f")  # the rename task, mid-rename
    act(desk, f"pyautogui.click({center(desk.accessibility(), 'todo_list_Jan_1')})")
    act(desk, "pyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')")
    act(desk, "pyautogui.write('todo_list_Jan_')")
    shots.append((desk, "desktop.png"))

    desk = desktop_of("23393935")  # Files, with a multi-selection of photos
    act(desk, f"pyautogui.doubleClick({center(desk.accessibility(), 'photos')})")
    act(desk, "pyautogui.hotkey('ctrl', 'l')\npyautogui.write('~/Desktop/photos/vacation/hk\\n')")
    tree = desk.accessibility()
    names = [n["name"] for n in _walk(tree) if n.get("role") == "icon" and "." in n["name"]]
    act(desk, f"pyautogui.click({center(tree, names[0])})")
    if len(names) > 1:
        act(desk, f"pyautogui.keyDown('ctrl')\npyautogui.click({center(tree, names[1])})\n"
                  "pyautogui.keyUp('ctrl')")
    shots.append((desk, "files.png"))

    desk = desktop_of("6f56bf42")  # copy file1 into dir1..dir3 in the Terminal the task opens
    act(desk, "pyautogui.write('ls -l\\n')")
    act(desk, "pyautogui.write('for d in dir1 dir2 dir3; do cp file1 $d; done\\n')")
    act(desk, "pyautogui.write('ls dir1 dir2 dir3\\n')")
    shots.append((desk, "terminal.png"))

    desk = desktop_of("bedcedc4")  # Settings → Power, the Screen Blank drop-down open
    act(desk, f"pyautogui.click({center(desk.accessibility(), 'System')})")
    system_menu = _named(desk.accessibility(), "menu", "System Menu")
    act(desk, f"pyautogui.click({center(system_menu, 'Settings')})")
    act(desk, f"pyautogui.click({center(desk.accessibility(), 'Power')})")
    act(desk, f"pyautogui.click({center(desk.accessibility(), 'Screen Blank')})")
    tree = desk.accessibility()
    act(desk, f"pyautogui.moveTo({center(_named(tree, 'menu', 'Screen Blank'), 'Never')})")
    shots.append((desk, "settings.png"))

    desk = desktop_of("ec4e3f68")  # the dock's right-click menu on a favourite
    act(desk, f"pyautogui.rightClick({center(desk.accessibility(), 'Vim')})")
    tree = desk.accessibility()
    act(desk, f"pyautogui.moveTo({center(_named(tree, 'menu', 'Vim'), 'Remove from Favorites')})")
    shots.append((desk, "dock-menu.png"))

    desk = desktop_of("f9be0997")  # the clock's menu, Do Not Disturb switched on
    bar = _named(desk.accessibility(), "panel", "Top Bar")
    act(desk, f"pyautogui.click({center(bar, desk.clock_text())})")
    menu = _named(desk.accessibility(), "menu", "Date Menu")
    act(desk, f"pyautogui.click({center(menu, 'Do Not Disturb')})")
    shots.append((desk, "date-menu.png"))

    desk = desktop_of("28cc3b7e")  # the System menu, its volume slider dragged to 70%
    act(desk, f"pyautogui.click({center(desk.accessibility(), 'System')})")
    slider = _named(desk.accessibility(), "slider", "Volume")
    (x, y), (w, h) = slider["position"], slider["size"]
    act(desk, f"pyautogui.click({x + w * 7 // 10}, {y + h // 2})")
    menu = _named(desk.accessibility(), "menu", "System Menu")
    act(desk, f"pyautogui.moveTo({center(menu, 'Settings')})")
    shots.append((desk, "system-menu.png"))

    desk = desktop_of("28cc3b7e")  # the media keys: the volume OSD
    act(desk, "pyautogui.press('volumeup', presses=4)")
    shots.append((desk, "volume-osd.png"))

    written = []
    for desk, name in shots:
        path = out / name
        desk.render().save(path, optimize=True)
        written.append(path)
    return written


def _named(tree: dict, role: str, name: str) -> dict:
    for n in _walk(tree):
        if n.get("role") == role and n.get("name") == name:
            return n
    raise LookupError(f"no {role} named {name!r} on screen")


def _walk(tree: dict):
    yield tree
    for child in tree.get("children", ()):
        yield from _walk(child)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "docs"
    for path in main(target):
        print(path)

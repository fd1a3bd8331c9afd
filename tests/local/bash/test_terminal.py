"""The Terminal window: opening, focus, editing keys, scrollback, closing, rendering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from terminal_driver import Term, center

from drums_gym.actions.events import KeyDown, KeyUp
from drums_gym.local.desktop import Desktop, terminal
from drums_gym.local.desktop.render import compose_scene, pointer_overlay
from drums_gym.local.desktop.terminal import TerminalWindow
from drums_gym.local.desktop.terminal_screen import MAX_LINES
from drums_gym.local.desktop.topbar_dock import DOCK_APPS, dock_rect

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"


def rows(t: Term) -> list[str]:
    return t.text().split("\n")


def test_ctrl_alt_t_opens_a_focused_terminal() -> None:
    t = Term(maximize=False)
    node = t.node()
    assert node["role"] == "terminal" and node["name"] == "user@ubuntu: ~"
    assert "focused" in node["states"]
    assert node["text"] == "user@ubuntu:~$"
    assert "active" in t.frame()["states"]
    win = t.d.windows[-1]
    assert isinstance(win, TerminalWindow) and win.grid() == (80, 24)
    t.hotkey("ctrl", "alt", "t")  # a second window, on top, focused
    assert len(t.nodes("terminal")) == 2
    assert ["focused" in n["states"] for n in t.nodes("terminal")] == [False, True]


def test_dock_icon_opens_then_raises() -> None:
    d = Desktop()
    t = Term(d, maximize=False)
    t.hotkey("ctrl", "alt", "t")
    first = d.windows[-2]
    x, y = center({"position": dock_rect(3, d.height)[:2], "size": [48, 48]})
    assert DOCK_APPS[3].key == "terminal"
    d.windows.clear()
    d.desktop_focused = True
    t.act(f"pyautogui.click({x}, {y})")
    assert len(d.windows) == 1 and isinstance(d.windows[0], TerminalWindow)
    d.windows.insert(0, first)
    t.act(f"pyautogui.click({x}, {y})")  # running: raises its windows, opens none
    assert len(d.windows) == 2


def test_line_editing_keys() -> None:
    t = Term()
    t.write("echo wrld")
    t.press("left", 3)
    t.write("o")
    t.press("home")
    t.press("delete", 4)
    t.write("printf")
    t.press("end")
    t.write("!")
    assert rows(t)[-1] == "user@ubuntu:~$ printf world!"
    t.press("backspace")
    t.hotkey("ctrl", "a")
    t.write("X")
    t.press("backspace")
    t.hotkey("ctrl", "e")
    t.write("'\\n'\n")  # printf world'\n'
    assert rows(t)[-2:] == ["world", "user@ubuntu:~$"]
    t.write("echo one two three")
    t.hotkey("ctrl", "w")  # deletes a word; does not close the window
    assert rows(t)[-1] == "user@ubuntu:~$ echo one two"
    t.hotkey("ctrl", "u")
    assert rows(t)[-1] == "user@ubuntu:~$"
    t.write("abc")
    t.press("left")
    t.hotkey("ctrl", "k")
    assert rows(t)[-1] == "user@ubuntu:~$ ab"


def test_history_up_down() -> None:
    t = Term()
    for line in ("echo first", "echo second"):
        t.write(line + "\n")
    t.write("draft")
    t.press("up")
    assert rows(t)[-1] == "user@ubuntu:~$ echo second"
    t.press("up", 5)
    assert rows(t)[-1] == "user@ubuntu:~$ echo first"
    t.press("down", 2)
    assert rows(t)[-1] == "user@ubuntu:~$ draft"
    t.hotkey("ctrl", "u")
    t.press("up")
    t.press("enter")
    assert rows(t)[-2:] == ["second", "user@ubuntu:~$"]


def test_ctrl_c_and_ctrl_l() -> None:
    t = Term()
    t.write("echo never")
    t.hotkey("ctrl", "c")
    assert rows(t) == ["user@ubuntu:~$ echo never^C", "user@ubuntu:~$"]
    t.write("for x in a\n")
    t.hotkey("ctrl", "c")  # cancels the continuation too
    assert rows(t)[-2:] == ["> ^C", "user@ubuntu:~$"]
    t.write("echo ok\n")
    t.write("partial")
    t.hotkey("ctrl", "l")
    assert rows(t) == ["user@ubuntu:~$ partial"]
    t.hotkey("ctrl", "u")
    t.write("clear\n")
    assert rows(t) == ["user@ubuntu:~$"]


def test_tab_completion_and_paste() -> None:
    t = Term()
    t.fs.mkdir("~/Desktop/project")
    t.write("cd Des")
    t.press("tab")
    t.write("pro")
    t.press("tab")
    assert rows(t)[-1] == "user@ubuntu:~$ cd Desktop/project/"
    t.press("enter")
    t.d.text_clipboard = "touch pasted.txt\necho done"
    t.hotkey("ctrl", "shift", "v")
    t.press("enter")
    assert t.fs.is_file("~/Desktop/project/pasted.txt")
    assert rows(t)[-2:] == ["done", "user@ubuntu:~/Desktop/project$"]


def test_exit_closes_the_window_with_an_incident() -> None:
    t = Term()
    t.write("cd Documents\n")
    t.d.take_incidents()
    t.write("exit\n")
    assert t.d.windows == []
    assert t.d.take_incidents() == [("window_closed", "user@ubuntu: ~/Documents")]
    assert t.nodes("terminal") == []


@pytest.mark.parametrize("how", ["alt+f4", "ctrl+shift+w", "button", "ctrl+d"])
def test_other_ways_to_close(how: str) -> None:
    t = Term(maximize=False)
    if how == "button":
        close = next(n for n in t.frame()["children"] if n["name"] == "Close")
        t.act(f"pyautogui.click{center(close)}")
    elif how == "ctrl+d":
        t.hotkey("ctrl", "d")
    else:
        t.hotkey(*how.split("+"))
    assert t.d.windows == []
    assert t.d.take_incidents() == [("window_closed", "user@ubuntu: ~")]


def test_windows_stack_and_focus() -> None:
    t = Term(maximize=False)
    back = t.d.windows[-1]
    t.hotkey("ctrl", "alt", "t")
    front = t.d.windows[-1]
    t.write("echo front\n")
    bx, by = back.content_rect()[:2]
    t.act(f"pyautogui.click({bx + 5}, {by + 5})")  # the part of the back window still visible
    assert t.d.windows[-1] is back and t.d.active_window() is back
    t.write("echo back\n")
    assert rows(t)[-2] == "back"  # typing went to the raised window
    assert "front" in front.text() and "back" not in front.text()


def test_scrollback_is_bounded_and_scrolls() -> None:
    t = Term(maximize=False)
    t.write("seq 2500\n")
    win = t.d.windows[-1]
    assert isinstance(win, TerminalWindow)
    assert len(win.screen.lines) == MAX_LINES
    visible = rows(t)
    assert len(visible) == 24 and visible[-2:] == ["2500", "user@ubuntu:~$"]
    t.hotkey("shift", "pageup")
    assert rows(t)[-1] == "2478" and rows(t)[0] == "2455"  # one page up
    x, y = center(t.node())
    t.act(f"pyautogui.scroll(10000, x={x}, y={y})")  # to the oldest kept line
    assert rows(t)[0] == str(2500 - MAX_LINES + 1)
    t.write("x")  # typing snaps back to the bottom
    assert rows(t)[-1] == "user@ubuntu:~$ x"


def test_long_lines_wrap_at_the_window_width() -> None:
    t = Term(maximize=False)
    t.write("echo " + "a" * 100 + "\n")
    visible = rows(t)
    assert visible[0] == "user@ubuntu:~$ echo " + "a" * 60
    assert visible[1] == "a" * 40
    assert visible[2:4] == ["a" * 80, "a" * 20]


def test_frame_counts_visible_changes_only() -> None:
    t = Term()
    d = t.d
    f0 = d.frame
    d.apply([KeyDown("a"), KeyUp("a")])
    assert d.frame == f0 + 1
    d.apply([KeyDown("shift"), KeyUp("shift"), KeyDown("end"), KeyUp("end")])
    assert d.frame == f0 + 1  # nothing moved
    t.press("backspace")
    t.write("sudo true\n")
    f1 = d.frame
    t.write("passw")  # a password is not echoed: nothing to redraw
    assert d.frame == f1
    t.write("ord\n")
    assert d.frame == f1 + 1


def _events_session(d: Desktop) -> None:
    t = Term(d)
    for line in ("mkdir -p a/b && touch a/b/f.txt", "ls -la a", "cd a; ls -l b", "foo"):
        t.write(line + "\n")
    t.write("echo partial")


def test_identical_events_give_identical_screenshots() -> None:
    a, b = Desktop(), Desktop()
    _events_session(a)
    a.render()
    _events_session(b)
    for ch in "xyz":  # b renders after each key (incremental path); a only at the end
        for d in (a, b):
            d.apply([KeyDown(ch), KeyUp(ch)])
        b.render()
    img_a, img_b = np.asarray(a.render()), np.asarray(b.render())
    assert (img_a == img_b).all()
    fresh = np.asarray(pointer_overlay(compose_scene(b), b.pointer))
    assert (img_b == fresh).all()  # the patched frame equals a full redraw


def test_clone_keeps_terminals_independent() -> None:
    t = Term()
    t.write("mkdir one\nsudo mkdir /two\n")
    twin = t.d.clone()
    t.write("password\n")
    assert t.fs.is_dir("/two") and not twin.fs.is_dir("/two")
    twin_term = twin.windows[-1]
    assert isinstance(twin_term, TerminalWindow)
    twin.apply([e for c in "password" for e in (KeyDown(c), KeyUp(c))] + [KeyDown("enter")])
    assert twin.fs.is_dir("/two")
    assert twin.render().size == (1920, 1080)


def test_screenshot_looks_like_gnome_terminal() -> None:
    t = Term(maximize=False)
    for line in ("mkdir -p projects/demo && cd projects", "touch demo/notes.txt run.sh",
                 "chmod +x run.sh", "ls -l", "cat missing.txt", "sudo apt update"):
        t.write(line + "\n")
    t.write("password\n")
    t.write("echo $HOME")
    img = t.d.render()
    ARTIFACTS.mkdir(exist_ok=True)
    img.save(ARTIFACTS / "terminal.png")
    win = t.d.windows[-1]
    cx0, cy0, cx1, cy1 = win.content_rect()
    px = img.getpixel((cx1 - 10, cy1 - 10))
    assert px == terminal.BG  # the aubergine background
    assert img.getpixel((win.x + 200, win.y + 8)) == terminal.HEADER  # the dark header bar
    assert rows(t)[-1] == "user@ubuntu:~/projects$ echo $HOME"
    assert "bash: apt: command not found" not in t.text()


def test_font_fallback_without_dejavu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal, "_MONO_DIR", "/nonexistent")
    terminal.mono_font.cache_clear()
    terminal._metrics.cache_clear()
    try:
        t = Term(maximize=False)
        t.write("echo fallback\n")
        assert t.d.render().size == (1920, 1080)
        assert rows(t)[-2] == "fallback"
    finally:
        terminal.mono_font.cache_clear()
        terminal._metrics.cache_clear()


def test_open_in_terminal_from_the_desktop_menu() -> None:
    d = Desktop()
    d.fs.mkdir("~/Desktop/work")
    t = Term(d, maximize=False)
    d.windows.clear()
    d.desktop_focused = True
    x, y = d.icon_center("work")
    t.act(f"pyautogui.rightClick({x}, {y})")
    item = next(n for n in t.nodes("menu-item") if n["name"] == "Open in Terminal")
    t.act(f"pyautogui.click{center(item)}")
    assert t.node()["name"] == "user@ubuntu: ~/Desktop/work"

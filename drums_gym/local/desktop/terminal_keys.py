"""Keyboard handling of the Terminal: readline-style line editing over `TerminalWindow`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import BudgetExceeded, charge
from .bash.globbing import collate_key

if TYPE_CHECKING:
    from .desktop import Desktop
    from .terminal import TerminalWindow

__all__ = ["complete", "handle_key"]

_WORD_BREAKS = " \t\n\"'<>;|&()"


def _insert(t: TerminalWindow, text: str) -> None:
    t.input = t.input[: t.cursor] + text + t.input[t.cursor:]
    t.cursor += len(text)


def submit(t: TerminalWindow, host: Desktop) -> None:
    """Enter: echo the line into the scrollback and run it."""
    line = t.input
    echo = t.session.echo
    t.screen.write(t.session.prompt())
    t.screen.write((line if echo else "") + "\n")
    t.input, t.cursor, t.scroll, t.history_pos, t.saved_input = "", 0, 0, None, ""
    cols, rows = t.grid()
    t.session.state.rows = rows
    try:
        reply = t.session.submit(line, cols)
    except BudgetExceeded as exc:
        stopped(t, exc)
        raise
    t.screen.write(reply.output)
    if reply.exited and t in host.windows:
        host.close_window(t)


def stopped(t: TerminalWindow, exc: BudgetExceeded) -> None:
    """A line ran out of its work budget: show what it printed, then ``^C`` and why, as
    after Ctrl+C; the shell is back at its prompt (the caller re-raises ``exc``)."""
    t.screen.write(t.session.stopped_output)
    t.session.stopped_output = ""
    t.screen.write(f"^C\ndrums: command stopped: {exc}\n")


def interrupt(t: TerminalWindow) -> None:
    """Ctrl+C: show ``^C``, drop the line (and a pending continuation or sudo)."""
    t.screen.write(t.session.prompt())
    t.screen.write((t.input if t.session.echo else "") + "^C\n")
    t.input, t.cursor, t.scroll, t.history_pos = "", 0, 0, None
    t.session.interrupt()


def _history(t: TerminalWindow, step: int) -> None:
    hist = t.session.history
    if not hist or not t.session.echo:
        return
    pos = len(hist) if t.history_pos is None else t.history_pos
    new = max(0, min(len(hist), pos + step))
    if new == pos:
        return
    if t.history_pos is None:
        t.saved_input = t.input
    t.history_pos = None if new == len(hist) else new
    t.input = t.saved_input if new == len(hist) else hist[new]
    t.cursor = len(t.input)


def complete(t: TerminalWindow) -> None:
    """Tab: complete the word before the cursor against file names (unique prefix)."""
    head = t.input[: t.cursor]
    start = max(head.rfind(c) for c in _WORD_BREAKS) + 1
    word = head[start:]
    fs = t.session.state.fs
    cwd = t.session.state.cwd
    folder, _, stem = word.rpartition("/")
    if word.startswith("~/"):
        base = fs.normpath("~/" + folder[2:]) if folder != "~" else fs.normpath("~")
    elif word.startswith("/"):
        base = fs.normpath(folder or "/")
    else:
        base = fs.normpath(f"{cwd}/{folder}" if folder else cwd)
    if not fs.is_dir(base):
        return
    entries = fs.listdir(base)
    charge(1 + len(entries))
    names = sorted((n for n in entries if n.startswith(stem)
                    and (stem.startswith(".") or not n.startswith("."))), key=collate_key)
    if not names:
        return
    common = names[0]
    for n in names[1:]:
        k = 0
        while k < min(len(common), len(n)) and common[k] == n[k]:
            k += 1
        common = common[:k]
    addition = common[len(stem):].replace(" ", "\\ ")
    if len(names) == 1:
        addition += "/" if fs.is_dir(f"{base.rstrip('/')}/{names[0]}") else " "
    _insert(t, addition)


def paste(t: TerminalWindow, host: Desktop, text: str) -> None:
    """Paste: each newline in the text acts as Enter, like typing it."""
    lines = text.replace("\r\n", "\n").split("\n")
    for k, line in enumerate(lines):
        _insert(t, line)
        if k < len(lines) - 1:
            submit(t, host)
            if t not in host.windows:
                return


def handle_key(t: TerminalWindow, host: Desktop, key: str) -> bool:
    """Apply one key press to the terminal; True when it was handled."""
    mods = host.mods
    k = key.lower() if len(key) == 1 else key
    if mods.ctrl and mods.shift:
        if k == "v":
            paste(t, host, host.text_clipboard)
        elif k == "c":
            pass  # copy needs a selection; the simulator has none
        else:
            return False
        t.scroll = 0
        return True
    if mods.shift and key in ("pageup", "pagedown"):
        _, rows = t.grid()
        t.scroll_by(rows - 1 if key == "pageup" else 1 - rows)
        return True
    if mods.ctrl and not mods.alt:
        return _ctrl_key(t, host, k)
    if mods.alt or mods.super:
        return False
    t.scroll = 0
    if len(key) == 1 and key.isprintable():
        _insert(t, key)
    elif key == "enter":
        submit(t, host)
    elif key == "backspace":
        if t.cursor > 0:
            t.input = t.input[: t.cursor - 1] + t.input[t.cursor:]
            t.cursor -= 1
    elif key == "delete":
        t.input = t.input[: t.cursor] + t.input[t.cursor + 1:]
    elif key in ("left", "right"):
        t.cursor = max(0, min(len(t.input), t.cursor + (1 if key == "right" else -1)))
    elif key == "home":
        t.cursor = 0
    elif key == "end":
        t.cursor = len(t.input)
    elif key in ("up", "down"):
        _history(t, -1 if key == "up" else 1)
    elif key == "tab":
        if t.session.echo:
            complete(t)
    else:
        return False
    return True


def _ctrl_key(t: TerminalWindow, host: Desktop, k: str) -> bool:
    t.scroll = 0
    if k == "c":
        interrupt(t)
    elif k == "l":
        t.screen.clear()
    elif k == "d":
        if not t.input and t.session.mode == "command":
            t.screen.write(t.session.prompt() + "\n")
            host.close_window(t)
        else:
            t.input = t.input[: t.cursor] + t.input[t.cursor + 1:]
    elif k == "a":
        t.cursor = 0
    elif k == "e":
        t.cursor = len(t.input)
    elif k == "u":
        t.input, t.cursor = t.input[t.cursor:], 0
    elif k == "k":
        t.input = t.input[: t.cursor]
    elif k == "w":
        i = t.cursor
        while i > 0 and t.input[i - 1] == " ":
            i -= 1
        while i > 0 and t.input[i - 1] != " ":
            i -= 1
        t.input, t.cursor = t.input[:i] + t.input[t.cursor:], i
    elif k in ("b", "f"):
        t.cursor = max(0, min(len(t.input), t.cursor + (1 if k == "f" else -1)))
    elif k in ("p", "n"):
        _history(t, -1 if k == "p" else 1)
    else:
        return False
    return True

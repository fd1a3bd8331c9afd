"""The Terminal under the work budget and its output caps (issue 11, items 1 and 7).

A line that runs out of budget leaves the terminal as Ctrl+C would (``^C``, a message, a
fresh prompt) and the `BudgetExceeded` goes on to the host; the scrollback is bounded in
lines and characters, so the work of a frame does not grow with what was printed before.
"""

from __future__ import annotations

from typing import Any

import pytest
from terminal_driver import Term

from drums_gym.local import budget
from drums_gym.local.budget import Budget, BudgetExceeded, Limits, running
from drums_gym.local.desktop import terminal, terminal_screen
from drums_gym.local.desktop.terminal import TerminalWindow
from drums_gym.local.desktop.terminal_screen import (
    MAX_CHARS,
    MAX_LINE_CHARS,
    MAX_LINES,
    Screen,
    plain,
)

MB = 1 << 20


def window(t: Term) -> TerminalWindow:
    return next(w for w in t.d.windows if isinstance(w, TerminalWindow))


def test_a_line_out_of_budget_stops_like_ctrl_c_and_re_raises() -> None:
    t = Term()
    with running(Budget(Limits(steps=5_000))), pytest.raises(BudgetExceeded) as info:
        t.write("echo before; while true; do :; done\n")
    assert info.value.kind == "steps"
    lines = t.text().split("\n")
    assert lines[-4:] == ["before", "^C", "drums: command stopped: more than 5000 steps of work",
                          "user@ubuntu:~$"]
    win = window(t)
    assert win.session.mode == "command" and win.input == ""
    assert t.run("echo $?; echo next") == "130\nnext"


def test_a_paste_stops_at_the_line_that_ran_out() -> None:
    t = Term()
    t.d.text_clipboard = "touch one\nwhile :; do :; done\ntouch two\n"
    with running(Budget(Limits(steps=5_000))), pytest.raises(BudgetExceeded):
        t.hotkey("ctrl", "shift", "v")
    assert t.fs.exists("~/one") and not t.fs.exists("~/two")
    assert "drums: command stopped: more than 5000 steps of work" in t.text()


def test_output_cut_by_the_budget_keeps_what_was_printed() -> None:
    t = Term()
    with running(Budget(Limits(output_bytes=64 * 1024))), pytest.raises(BudgetExceeded):
        t.write("seq 1 1000000\n")
    rows = t.text().split("\n")
    assert rows[-3:] == ["^C", "drums: command stopped: more than 65536 bytes of output",
                         "user@ubuntu:~$"]
    assert rows[-4].isdigit()


class _WrapCounter:
    """Counts the characters the terminal wraps into rows (the work of drawing a frame)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.chars = 0
        real = terminal_screen.wrap

        def counting(line: Any, cols: int) -> Any:
            self.chars += len(plain(line))
            return real(line, cols)

        monkeypatch.setattr(terminal_screen, "wrap", counting)
        monkeypatch.setattr(terminal, "wrap", counting)

    def frame(self, t: Term, key: str = "x") -> int:
        self.chars = 0
        t.write(key)
        t.d.render()
        t.text()
        return self.chars


def _assert_bounded(screen: Screen) -> None:
    assert len(screen.lines) <= MAX_LINES
    assert screen.chars == sum(len(plain(line)) for line in screen.lines) <= MAX_CHARS
    assert all(len(plain(line)) <= MAX_LINE_CHARS for line in [*screen.lines, screen.partial])


def test_a_ten_million_character_line_does_not_slow_later_frames(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = Term()
    counter = _WrapCounter(monkeypatch)
    baseline = counter.frame(t)
    t.press("backspace")
    with running(Budget(Limits(output_bytes=64 * MB))):
        t.write("printf '%10000000s\\n' x\n")
    screen = window(t).screen
    _assert_bounded(screen)
    assert max(len(plain(line)) for line in screen.lines) == MAX_LINE_CHARS
    assert counter.frame(t) <= baseline + 3 * MAX_LINE_CHARS


def test_megabytes_of_output_keep_keystroke_frames_small(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Term()
    counter = _WrapCounter(monkeypatch)
    baseline = counter.frame(t)
    t.press("backspace")
    with running(Budget(Limits(output_bytes=64 * MB))):
        t.write("seq 1 300000; seq 1 300000 | cat; printf '%2000000s\\n' y\n")
    _assert_bounded(window(t).screen)
    for key in "abc":
        assert counter.frame(t, key) <= baseline + 3 * MAX_LINE_CHARS


def test_scrollback_is_capped_in_characters_not_only_lines() -> None:
    s = Screen()
    s.write(("y" * 1000 + "\n") * 1000)
    _assert_bounded(s)
    assert len(s.lines) == MAX_CHARS // 1000
    assert plain(s.lines[-1]) == "y" * 1000


def test_a_huge_write_keeps_its_colours_and_clears() -> None:
    s = Screen()
    s.write("old line\n")
    s.write("\x1b[01;34m" + "x\n" * 50_000 + "blue")
    assert s.partial == (("blue", (4, -1, True)),)
    assert plain(s.lines[0]) == "x" and len(s.lines) == MAX_LINES
    s.write("\x1b[0m\x1b[2J" + "z\n" * 10 + "plain")
    assert s.partial == (("plain", (-1, -1, False)),)
    assert s.top == len(s.lines) - 10


def test_long_lines_keep_their_beginning() -> None:
    s = Screen()
    s.write("a" * (MAX_LINE_CHARS + 10) + "b\nnext\n")
    assert plain(s.lines[0]) == "a" * MAX_LINE_CHARS
    assert plain(s.lines[1]) == "next"
    s.write("c" * 10)
    s.write("d" * (3 * MAX_LINE_CHARS))
    assert plain(s.partial) == "c" * 10 + "d" * (MAX_LINE_CHARS - 10)


def test_budget_module_is_what_the_terminal_uses() -> None:
    """The terminal raises the host's own exception type (contract 1), not a copy."""
    assert terminal_screen.__name__.endswith("terminal_screen")
    assert BudgetExceeded is budget.BudgetExceeded

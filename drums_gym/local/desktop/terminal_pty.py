"""`PtyTerminalWindow`: the Terminal of the sandbox backend, a real bash on a pty.

bash runs inside the desktop's sandbox (`drums_gym.local.sandbox`) as the user, on a pty
the host holds the master of; its output goes through a terminal emulator (``pyte``), so
prompts, colours, ``clear``, Tab completion, Ctrl+C, ``nano``/``vim``/``less``/``top``
behave as in GNOME Terminal. The window keeps `TerminalWindow`'s look (header bar,
aubergine, Tango palette, block cursor); only what it shows comes from the emulator.

Keys are written to the pty as a terminal sends them. After an action's keystrokes the
desktop calls `settle`: it waits until the shell is idle or until `SETTLE_CAP_S` of real
time; a longer command goes on in the background, and later screenshots show its output
(`sync` reads what the pty printed, without waiting). Idle means the terminal waits for
keys, after its output went quiet: either the pty's foreground process group is bash's own
and bash has drawn a prompt for each Enter typed at its prompt, or a program bash started
sleeps reading the tty (sudo's password prompt, ``cat``, ``python3``, ``nano``:
`tty_reader.waits_for_keys`). A prompt is recognised by the window-title sequence that
Ubuntu's ``.bashrc`` puts in ``PS1`` (`PROMPT_MARK`, the title GNOME Terminal shows); the
foreground group alone cannot tell, since bash runs ``$(…)``, pipelines of builtins and the
moment before a fork in its own group. A shell whose prompt has no title (a changed
``PS1``) is judged by the foreground group and the quiet time alone.

A forked desktop's terminal (``copy.deepcopy``) keeps the screen and the scrollback and
starts a fresh bash in the copied tree, in the directory the original's title names
(``user@ubuntu: ~/dir``, as Ubuntu's .bashrc sets it); the new prompt is drawn over the
copied one. Variables, history and jobs of the original shell are not copied.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
import select
import struct
import termios
import time
from typing import TYPE_CHECKING, Any, ClassVar

import pyte

from ..budget import current
from .fs import HOME
from .terminal import TerminalWindow
from .terminal_screen import Line, Style, plain
from .tty_reader import waits_for_keys
from .windows import Box, Window

if TYPE_CHECKING:
    from ..sandbox import Process, Sandbox
    from .desktop import Desktop

__all__ = ["PROMPT_MARK", "QUIET_S", "SETTLE_CAP_S", "PtyTerminalWindow", "key_bytes"]

QUIET_S = 0.015  # no output this long after some (bash in the foreground): the shell is idle
PROMPT_QUIET_S = 0.001  # ... or this long once every awaited prompt is drawn (its title seen)
SILENT_S = 0.25  # ... or this long when the keys brought no output at all (no echo)
SETTLE_CAP_S = 2.0  # the longest an action waits for a command (it then runs on)
BASH, KEYS, BUSY = "bash", "keys", "busy"  # who has the terminal (`_foreground`)
PROMPT_MARK = b"\x1b]0;"  # the title sequence Ubuntu's PS1 starts each prompt with
HISTORY = 2000  # scrollback lines
_MAX_READ = 1 << 20  # bytes of output taken from the pty per read pass
_COLORS = {"black": 0, "red": 1, "green": 2, "brown": 3, "yellow": 3, "blue": 4,
           "magenta": 5, "cyan": 6, "white": 7}
_KEYS = {"enter": b"\r", "backspace": b"\x7f", "tab": b"\t", "esc": b"\x1b",
         "escape": b"\x1b", "delete": b"\x1b[3~", "del": b"\x1b[3~", "insert": b"\x1b[2~",
         "pageup": b"\x1b[5~", "pagedown": b"\x1b[6~", "pgup": b"\x1b[5~", "pgdn": b"\x1b[6~",
         "home": b"\x1b[H", "end": b"\x1b[F", "space": b" ", "return": b"\r",
         "f1": b"\x1bOP", "f2": b"\x1bOQ", "f3": b"\x1bOR", "f4": b"\x1bOS",
         "f5": b"\x1b[15~", "f6": b"\x1b[17~", "f7": b"\x1b[18~", "f8": b"\x1b[19~",
         "f9": b"\x1b[20~", "f10": b"\x1b[21~", "f11": b"\x1b[23~", "f12": b"\x1b[24~"}
_DECCKM = 1 << 5  # pyte keeps private modes shifted by 5
_ARROWS = {"up": "A", "down": "B", "right": "C", "left": "D"}


def _index(color: str, bright: bool) -> int:
    if color == "default":
        return -1
    name = color[6:] if color.startswith("bright") else color
    base = _COLORS.get(name)
    if base is None:
        return -1  # 256-colour and true-colour cells keep the profile's colour
    return base + 8 if (bright or color.startswith("bright")) else base


def key_bytes(key: str, ctrl: bool = False, alt: bool = False, shift: bool = False,
              app_cursor: bool = False) -> bytes | None:
    """What a terminal sends for ``key`` with those modifiers (None: nothing).

    >>> key_bytes("c", ctrl=True), key_bytes("up"), key_bytes("up", app_cursor=True)
    (b'\\x03', b'\\x1b[A', b'\\x1bOA')
    """
    if key in _ARROWS:
        if ctrl or alt or shift:
            mod = 1 + (1 if shift else 0) + (2 if alt else 0) + (4 if ctrl else 0)
            return f"\x1b[1;{mod}{_ARROWS[key]}".encode()
        return ("\x1bO" if app_cursor else "\x1b[").encode() + _ARROWS[key].encode()
    if len(key) == 1:
        if ctrl:
            c = key.lower()
            if "a" <= c <= "z" or c in "@[\\]^_":
                out = bytes([ord(c.upper()) & 0x1F])
            elif c == " ":
                out = b"\x00"
            else:
                out = key.encode()
        else:
            out = key.encode()
        return b"\x1b" + out if alt else out
    seq = _KEYS.get(key)
    if seq is None:
        return None
    if shift and key == "tab":
        return b"\x1b[Z"
    return b"\x1b" + seq if alt else seq


class PtyTerminalWindow(TerminalWindow):
    """A GNOME Terminal window running a real bash in the desktop's sandbox."""

    app: ClassVar[str] = "terminal"

    def __init__(self, box: Box, sandbox: Sandbox, cwd: str = HOME) -> None:
        Window.__init__(self, box)
        self.sandbox = sandbox
        self.cwd = cwd
        self.scroll = 0
        cols, rows = self.grid()
        self.emu = pyte.HistoryScreen(cols, rows, history=HISTORY, ratio=0.5)
        self._stream = pyte.ByteStream(self.emu)
        self._master = -1
        self._proc: Process | None = None
        self._idle_pgrp = -1
        self._version = 0
        self.exited = False
        self._answered = True  # no keys unanswered by output
        self._prompts = 0  # prompts bash has drawn (PROMPT_MARK seen)
        self._expect = 1  # prompts that settle waits for: the first, then one per Enter
        self._tail = b""  # the end of the last read, for a mark split across reads
        self._untitled = False  # bash printed but never a PROMPT_MARK: PS1 has no title
        self._unsettled = True  # keys were written since the last settle (or none yet ran)
        self._from_copy = False
        from .terminal import _RenderCache
        self._cache = _RenderCache()

    # -- the shell -----------------------------------------------------------
    def _ensure(self) -> None:
        if self._master >= 0 or self.exited:
            return
        cols, rows = self.grid()
        self._proc, master = self.sandbox.spawn_pty(["/bin/bash"], (rows, cols), cwd=self.cwd,
                                                    env=_env())
        os.set_blocking(master, False)
        self._master = master
        if self._from_copy:  # the new prompt overwrites the copied one
            self.emu.cursor.x = 0
            self.emu.erase_in_line(0)
        self.settle()  # the first prompt, before anything typed reaches the pty

    def _close_pty(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc = None
        if self._master >= 0:
            with contextlib.suppress(OSError):
                os.close(self._master)
            self._master = -1

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._close_pty()

    def close(self) -> None:
        """End the shell (the window was closed or the desktop is going)."""
        self._close_pty()
        self.exited = True

    def write(self, data: bytes) -> None:
        """Send bytes to bash as typed."""
        self._ensure()
        if self._master < 0:
            return
        enters = data.count(b"\r")
        if enters and self._foreground() == BASH:  # typed at bash's prompt: a prompt per
            # line is awaited
            self._expect = max(self._expect, self._prompts) + enters
        self._unsettled = True
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._master, data)
            self._answered = False  # the keys' echo (or the command's output) is awaited

    def pump(self) -> bool:
        """Feed what the pty printed to the emulator (no waiting); True when there was some."""
        if self._master < 0:
            return False
        got = False
        total = 0
        while total < _MAX_READ:
            try:
                chunk = os.read(self._master, 65536)
            except BlockingIOError:
                break
            except OSError:  # EIO: bash and everything on the pty are gone
                self.exited = True
                break
            if not chunk:
                self.exited = True
                break
            self._count_prompts(chunk)
            self._stream.feed(chunk)
            total += len(chunk)
            got = True
        if got:
            self._version += 1
            self._answered = True
            self.scroll = 0
            if self._idle_pgrp < 0:  # bash's first output: it has set up its job control
                with contextlib.suppress(OSError):
                    self._idle_pgrp = os.tcgetpgrp(self._master)
        if self._proc is not None and self._proc.poll() is not None:
            self.exited = True
        return got

    def _count_prompts(self, chunk: bytes) -> None:
        data = self._tail + chunk
        self._prompts += data.count(PROMPT_MARK)
        self._tail = data[-(len(PROMPT_MARK) - 1):]

    def _prompted(self) -> bool:
        """Has bash drawn every prompt awaited? (Always, for a prompt without a title.)"""
        return self._prompts >= self._expect or self._untitled

    def _foreground(self) -> str:
        """Who has the terminal: `BASH` (bash's own process group: at its prompt, or running
        builtins, ``$(…)`` and the like itself), `KEYS` (a program bash started sleeps
        reading the tty: sudo's password prompt, ``cat``, ``python3``, ``nano``) or `BUSY`
        (a program runs; also before bash's first output, when its group is not known)."""
        if self._idle_pgrp < 0:
            return BUSY
        try:
            pgrp = os.tcgetpgrp(self._master)
        except OSError:
            return BASH
        if pgrp == self._idle_pgrp:
            return BASH
        return KEYS if waits_for_keys(pgrp) else BUSY

    def _quiet_needed(self, who: str) -> float:
        """How long the terminal must stay quiet before the action's part is done: briefly
        once every awaited prompt is drawn, longer after other output, longest after keys
        that brought no output at all (no echo: a password prompt)."""
        if not self._answered:
            return SILENT_S
        if who == BASH and self._prompts >= self._expect:
            return PROMPT_QUIET_S
        return QUIET_S

    def _waiting_for_keys(self, who: str) -> bool:
        """Is the terminal waiting for the next keys: bash at the prompt every Enter asked
        for, bash reading the tty otherwise (a secondary prompt, ``read``), or a program
        reading the tty?"""
        if who == BASH:
            return self._prompted() or waits_for_keys(self._idle_pgrp)
        return who == KEYS

    def settle(self, cap: float = SETTLE_CAP_S) -> bool:
        """Wait until the terminal waits for keys (`_waiting_for_keys`, after its output
        went quiet) or ``cap`` seconds passed, reading its output; True in the first case.
        Nothing to wait for (no keys since the last settle, the terminal waiting for keys,
        no output pending) returns at once: an action that never touched the terminal
        costs no wait."""
        self._ensure()
        if self._master < 0:
            return False
        if (not self._unsettled and self._waiting_for_keys(self._foreground())
                and not self.pump() and not self.exited):
            return True
        self._unsettled = False
        budget = current()
        end = time.monotonic() + cap
        quiet_since = time.monotonic()
        while not self.exited:
            if budget is not None:
                budget.check()
            now = time.monotonic()
            if now >= end:
                break
            who = self._foreground()
            if who == BUSY:
                self._answered = False  # a program runs: its output or the prompt is awaited
            need = self._quiet_needed(who)
            quiet = now - quiet_since
            if (who != BUSY and quiet >= need and self._version > 0
                    and self._waiting_for_keys(who)):
                self.pump()
                return True
            wait = QUIET_S if who == BUSY else min(max(need - quiet, 0.001), QUIET_S)
            ready, _, _ = select.select([self._master], [], [], min(wait, end - now))
            if ready and self.pump():
                quiet_since = time.monotonic()
        if time.monotonic() >= end and self._prompts == 0 and self._version > 0:
            self._untitled = True  # output but no title in a whole cap: judge without it
        self.pump()
        return False

    def sync(self, host: Desktop) -> None:
        self.pump()

    # -- what it shows ---------------------------------------------------------
    @property
    def title(self) -> str:
        return self.emu.title or "user@ubuntu: ~"

    def shell_cwd(self) -> str:
        """The working directory bash's title names (home when unknown)."""
        title = self.emu.title or ""
        _, sep, where = title.partition(": ")
        if not sep or not where:
            return self.cwd
        return HOME + where[1:] if where.startswith("~") else where

    def _row(self, line: Any) -> Line:
        cols = self.emu.columns
        out: list[tuple[str, Style]] = []
        for x in range(cols):
            ch = line[x]
            style = (_index(ch.fg, ch.bold), _index(ch.bg, False), bool(ch.bold))
            if ch.reverse:
                style = (style[1] if style[1] >= 0 else 0, style[0] if style[0] >= 0 else 7,
                         style[2])
            text = ch.data or " "
            if out and out[-1][1] == style:
                out[-1] = (out[-1][0] + text, style)
            else:
                out.append((text, style))
        while out and out[-1][1][1] < 0 and not out[-1][0].strip():
            out.pop()
        if out and out[-1][1][1] < 0:
            out[-1] = (out[-1][0].rstrip(), out[-1][1])
        return tuple(out)

    def _all_rows(self) -> list[Line]:
        history = [self._row(line) for line in self.emu.history.top]
        screen = [self._row(self.emu.buffer[y]) for y in range(self.emu.lines)]
        return history + screen

    def view(self) -> tuple[list[Line], tuple[int, int] | None]:
        self._fit()
        _, nrows = self.grid()
        screen = [self._row(self.emu.buffer[y]) for y in range(self.emu.lines)]
        cursor: tuple[int, int] | None = (self.emu.cursor.y, self.emu.cursor.x)
        if self.emu.cursor.hidden:
            cursor = None
        if self.scroll:
            history = [self._row(line) for line in self.emu.history.top]
            rows = history + screen
            end = len(rows) - min(self.scroll, len(history))
            return rows[max(0, end - nrows):end], None
        return screen[:nrows], cursor

    def text(self) -> str:
        rows, _ = self.view()
        return "\n".join(plain(r).rstrip() for r in rows).rstrip("\n")

    def scrollback_text(self) -> str:
        """Everything the terminal holds (scrollback and screen): what
        ``vm_terminal_output`` reads."""
        return "\n".join(plain(r).rstrip() for r in self._all_rows()).strip("\n")

    def _fit(self) -> None:
        cols, rows = self.grid()
        if (cols, rows) != (self.emu.columns, self.emu.lines):
            self.emu.resize(rows, cols)
            if self._master >= 0:
                with contextlib.suppress(OSError):
                    fcntl.ioctl(self._master, termios.TIOCSWINSZ,
                                struct.pack("HHHH", rows, cols, 0, 0))

    def render_key(self, host: Desktop) -> tuple[Any, ...]:
        return (*Window.render_key(self, host), self._version, self.emu.cursor.x,
                self.emu.cursor.y, self.emu.cursor.hidden, self.scroll)

    # -- input -------------------------------------------------------------------
    def on_key(self, host: Desktop, key: str) -> bool:
        mods = host.mods
        k = key.lower() if len(key) == 1 else key
        if mods.ctrl and mods.shift:
            if k == "v":
                self.write(host.text_clipboard.replace("\r\n", "\n").replace("\n", "\r")
                           .encode())
                return True
            return k == "c"
        if mods.shift and key in ("pageup", "pagedown"):
            _, rows = self.grid()
            self.scroll_by(rows - 1 if key == "pageup" else 1 - rows)
            return True
        if mods.super:
            return False
        app_cursor = _DECCKM in self.emu.mode
        data = key_bytes(key if len(key) == 1 else k, ctrl=mods.ctrl, alt=mods.alt,
                         shift=mods.shift, app_cursor=app_cursor)
        if data is None:
            return False
        self.scroll = 0
        self.write(data)
        return True

    def scroll_by(self, rows: int) -> None:
        most = len(self.emu.history.top)
        self.scroll = max(0, min(most, self.scroll + rows))

    def __deepcopy__(self, memo: dict[int, Any]) -> PtyTerminalWindow:
        new = object.__new__(type(self))
        memo[id(self)] = new
        skip = {"_master", "_proc", "_idle_pgrp", "_stream", "_cache", "emu"}
        for k, v in self.__dict__.items():
            if k not in skip:
                new.__dict__[k] = copy.deepcopy(v, memo)
        from .terminal import _RenderCache
        new.emu = copy.deepcopy(self.emu, memo)
        new._stream = pyte.ByteStream(new.emu)
        new._master, new._proc, new._idle_pgrp = -1, None, -1
        new._cache = _RenderCache()
        new.cwd = self.shell_cwd()
        new._from_copy = True
        new._expect = new._prompts + 1  # the fresh bash's first prompt
        new._unsettled = True
        new._tail = b""
        return new


def _env() -> dict[str, str]:
    from ..sandbox.bwrap import ENV

    return {**ENV, "TERM": "xterm-256color", "COLORTERM": "truecolor"}

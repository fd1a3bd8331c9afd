"""The desktop's GNOME settings (dconf/GSettings): schemas, typed keys, Ubuntu 22.04 defaults.

A key has a GVariant type (``b`` boolean, ``u`` uint32, ``i`` int32, ``d`` double, ``s``
string, ``as`` array of strings), a schema default and optionally a range or a list of
choices. What the user changed lives in the user database, a file of the simulated
filesystem (``~/.config/dconf/user``, written as ``dconf dump /`` prints it), so it is part of
the desktop's state: a cloned or forked desktop copies it with its filesystem, and nothing
is held elsewhere. Values are parsed from GVariant text (never evaluated) and printed as
``gsettings`` prints them:

>>> from drums_gym.local.desktop.fs import FileSystem
>>> store = SettingsStore(FileSystem())
>>> store.get_text("org.gnome.desktop.session", "idle-delay")
'uint32 300'
>>> store.set_text("org.gnome.desktop.session", "idle-delay", "0")
>>> store.get_text("org.gnome.desktop.session", "idle-delay")
'uint32 0'
>>> store.set_text("org.gnome.shell", "favorite-apps", "['a.desktop', \\"b's.desktop\\"]")
>>> store.get_text("org.gnome.shell", "favorite-apps")
'[\\'a.desktop\\', "b\\'s.desktop"]'
>>> store.set_text("org.gnome.desktop.interface", "text-scaling-factor", "true")
Traceback (most recent call last):
...
drums_gym.local.desktop.settings_store.SettingsError: 0-4:can not parse as value of type 'd'

The desktop starts as OSWorld's Ubuntu 22.04 image was left (`IMAGE_STATE`: its screen lock
is off); ``gsettings reset`` goes back to the schema's default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Union

from ..budget import charge
from .fs import HOME, FileSystem

__all__ = [
    "DB_PATH",
    "IMAGE_STATE",
    "ROOT_WARNING",
    "SCHEMAS",
    "Key",
    "SettingsError",
    "SettingsStore",
    "Value",
    "format_value",
    "parse_value",
]

#: What ``sudo gsettings set`` prints on Ubuntu (the change is lost: root has no session bus).
ROOT_WARNING = ("(process:4242): dconf-WARNING **: 09:00:00.000: failed to commit changes to "
                "dconf: Failed to execute child process “dbus-launch” (No such file or "
                "directory)")

#: Where the user database lives (the real one is binary GVDB; this one is its text dump).
DB_PATH = HOME + "/.config/dconf/user"

Value = Union[bool, int, float, str, list[str]]  # noqa: UP007 - runtime alias

_UBUNTU_FAVORITES = ("['firefox_firefox.desktop', 'thunderbird.desktop', "
                     "'org.gnome.Nautilus.desktop', 'rhythmbox.desktop', "
                     "'libreoffice-writer.desktop', 'snap-store_ubuntu-software.desktop', "
                     "'yelp.desktop']")


class SettingsError(ValueError):
    """A bad schema, key or value; ``str()`` is what ``gsettings`` prints (no prefix)."""


@dataclass(frozen=True)
class Key:
    """One key of a schema: GVariant ``type``, ``default`` (GVariant text), the allowed
    range (``lo``, ``hi``) or ``choices`` (an enum's nicks)."""

    type: str
    default: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()


def _k(type_: str, default: str, lo: float | None = None, hi: float | None = None,
       choices: tuple[str, ...] = ()) -> Key:
    return Key(type_, default, lo, hi, choices)


#: The schemas of Ubuntu 22.04's GNOME that the desktop knows (defaults as shipped,
#: Ubuntu's vendor overrides included), by id.
SCHEMAS: Mapping[str, Mapping[str, Key]] = MappingProxyType({
    "org.gnome.desktop.session": {
        "idle-delay": _k("u", "uint32 300"),
        "session-name": _k("s", "'gnome'"),
    },
    "org.gnome.desktop.notifications": {
        "show-banners": _k("b", "true"),
        "show-in-lock-screen": _k("b", "true"),
        "application-children": _k("as", "@as []"),
    },
    "org.gnome.desktop.screensaver": {
        "lock-enabled": _k("b", "true"),
        "lock-delay": _k("u", "uint32 0"),
        "idle-activation-enabled": _k("b", "true"),
        "ubuntu-lock-on-suspend": _k("b", "true"),
        "user-switch-enabled": _k("b", "true"),
        "logout-enabled": _k("b", "false"),
        "picture-uri": _k("s", "'file:///usr/share/backgrounds/warty-final-ubuntu.png'"),
    },
    "org.gnome.desktop.interface": {
        "text-scaling-factor": _k("d", "1.0", 0.5, 3.0),
        "cursor-size": _k("i", "24", 0, 128),
        "clock-show-seconds": _k("b", "false"),
        "clock-show-weekday": _k("b", "false"),
        "clock-show-date": _k("b", "true"),
        "clock-format": _k("s", "'24h'", choices=("24h", "12h")),
        "show-battery-percentage": _k("b", "false"),
        "enable-animations": _k("b", "true"),
        "enable-hot-corners": _k("b", "false"),
        "color-scheme": _k("s", "'default'",
                           choices=("default", "prefer-dark", "prefer-light")),
        "gtk-theme": _k("s", "'Yaru'"),
        "icon-theme": _k("s", "'Yaru'"),
        "cursor-theme": _k("s", "'Yaru'"),
        "font-name": _k("s", "'Ubuntu 11'"),
        "monospace-font-name": _k("s", "'Ubuntu Mono 13'"),
    },
    "org.gnome.desktop.a11y.interface": {
        "high-contrast": _k("b", "false"),
    },
    "org.gnome.desktop.a11y.applications": {
        "screen-magnifier-enabled": _k("b", "false"),
        "screen-keyboard-enabled": _k("b", "false"),
        "screen-reader-enabled": _k("b", "false"),
    },
    "org.gnome.settings-daemon.plugins.power": {
        "idle-dim": _k("b", "true"),
        "ambient-enabled": _k("b", "true"),
        "sleep-inactive-ac-type": _k("s", "'suspend'", choices=(
            "blank", "suspend", "shutdown", "hibernate", "interactive", "nothing", "logout")),
        "sleep-inactive-ac-timeout": _k("i", "1200"),
        "sleep-inactive-battery-timeout": _k("i", "1200"),
        "power-button-action": _k("s", "'suspend'", choices=(
            "nothing", "suspend", "hibernate", "interactive")),
    },
    "org.gnome.settings-daemon.plugins.media-keys": {
        "volume-step": _k("i", "6", 1, 20),
    },
    "org.gnome.settings-daemon.plugins.color": {
        "night-light-enabled": _k("b", "false"),
        "night-light-temperature": _k("u", "uint32 2700", 1700, 4700),
    },
    "org.gnome.shell": {
        "favorite-apps": _k("as", _UBUNTU_FAVORITES),
        "enabled-extensions": _k("as", "@as []"),
    },
    "org.gnome.shell.extensions.dash-to-dock": {
        "dock-position": _k("s", "'LEFT'", choices=("LEFT", "RIGHT", "TOP", "BOTTOM")),
        "dash-max-icon-size": _k("i", "48"),
        "autohide": _k("b", "true"),
        "dock-fixed": _k("b", "true"),
        "show-trash": _k("b", "true"),
        "show-mounts": _k("b", "true"),
    },
    "org.gnome.desktop.wm.preferences": {
        "button-layout": _k("s", "'appmenu:minimize,maximize,close'"),
        "focus-mode": _k("s", "'click'", choices=("click", "sloppy", "mouse")),
    },
    "org.gnome.desktop.privacy": {
        "remember-recent-files": _k("b", "true"),
        "remove-old-trash-files": _k("b", "false"),
        "old-files-age": _k("u", "uint32 30"),
    },
    "org.gnome.desktop.sound": {
        "event-sounds": _k("b", "true"),
        "allow-volume-above-100-percent": _k("b", "false"),
    },
    "org.gnome.system.location": {
        "enabled": _k("b", "false"),
    },
    "org.gnome.desktop.datetime": {
        "automatic-timezone": _k("b", "false"),
    },
    "org.gnome.Terminal.Legacy.Profile": {  # the default profile's keys (gsettings path)
        "default-size-columns": _k("i", "80", 16, 511),
        "default-size-rows": _k("i", "24", 4, 511),
        "use-system-font": _k("b", "true"),
        "audible-bell": _k("b", "true"),
    },
})

#: How OSWorld's VM image was left, set in the user database of a fresh desktop: its screen
#: lock is switched off (a4d98375, which asks to turn it on, starts from off); its dock has
#: Terminal where Ubuntu has Rhythmbox (the simulated dock as it has always looked).
IMAGE_STATE: Mapping[tuple[str, str], str] = MappingProxyType({
    ("org.gnome.desktop.screensaver", "lock-enabled"): "false",
    ("org.gnome.shell", "favorite-apps"): _UBUNTU_FAVORITES.replace(
        "'rhythmbox.desktop'", "'org.gnome.Terminal.desktop'"),
})

_UINT32 = (0, 2**32 - 1)
_INT32 = (-(2**31), 2**31 - 1)


# -- GVariant text ------------------------------------------------------------------------

def _quote(s: str) -> str:
    """A GVariant string literal, as ``g_variant_print`` writes it."""
    q = '"' if "'" in s and '"' not in s else "'"
    out = [q]
    for c in s:
        if c == q or c == "\\":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    out.append(q)
    return "".join(out)


def format_value(type_: str, value: Value) -> str:
    """``value`` as ``gsettings get`` prints a key of type ``type_``.

    >>> format_value("d", 1.25), format_value("d", 2.0), format_value("as", [])
    ('1.25', '2.0', '@as []')
    """
    if type_ == "b":
        return "true" if value else "false"
    if type_ == "u":
        return f"uint32 {value}"
    if type_ == "i":
        return str(value)
    if type_ == "d":
        if isinstance(value, list):
            raise SettingsError(f"a '{type_}' key takes a number, not a list")
        text = f"{float(value):.17g}"  # g_ascii_dtostr: 1.1 prints 1.1000000000000001
        if not any(c in text for c in ".eninf"):
            text += ".0"
        return text
    if type_ == "s":
        return _quote(str(value))
    if type_ == "as":
        items = value if isinstance(value, list) else [str(value)]
        return "[" + ", ".join(_quote(v) for v in items) + "]" if items else "@as []"
    raise SettingsError(f"unsupported type '{type_}'")


class _Text:
    """A cursor over GVariant text (positions in errors as GLib gives them: ``start-end``)."""

    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\n\r":
            self.i += 1

    def fail(self, start: int, message: str) -> SettingsError:
        return SettingsError(f"{start}-{max(self.i, start + 1)}:{message}")

    def string(self) -> str:
        quote, start = self.s[self.i], self.i
        self.i += 1
        out: list[str] = []
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"',
                   "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
        while self.i < len(self.s) and self.s[self.i] != quote:
            charge()
            c = self.s[self.i]
            if c == "\\" and self.i + 1 < len(self.s):
                nxt = self.s[self.i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", self.s[self.i + 2:self.i + 6]):
                    out.append(chr(int(self.s[self.i + 2:self.i + 6], 16)))
                    self.i += 6
                    continue
                out.append(escapes.get(nxt, nxt))
                self.i += 2
                continue
            out.append(c)
            self.i += 1
        if self.i >= len(self.s):
            self.i = len(self.s)
            raise self.fail(start, "unterminated string constant")
        self.i += 1
        return "".join(out)

    def word(self) -> str:
        m = re.compile(r"[A-Za-z0-9_.+\-@]+").match(self.s, self.i)
        if not m:
            return ""
        self.i = m.end()
        return m.group()


def parse_value(type_: str, text: str) -> Value:
    """Parse GVariant ``text`` as a value of type ``type_`` (``gsettings set``'s argument),
    raising `SettingsError` with GLib's message. A parser: nothing is evaluated.

    >>> parse_value("u", "uint32 7"), parse_value("b", " false "), parse_value("as", "[]")
    (7, False, [])
    """
    t = _Text(text)
    t.ws()
    value = _parse_one(t, type_)
    t.ws()
    if t.i < len(t.s):
        start = t.i
        t.i = len(t.s)
        raise t.fail(start, "expected end of input")
    return value


def _parse_one(t: _Text, type_: str) -> Value:
    start = t.i
    if type_ == "as":
        if t.s.startswith("@as", t.i):
            t.i += 3
            t.ws()
        if t.i >= len(t.s) or t.s[t.i] != "[":
            t.word()
            raise t.fail(start, "can not parse as value of type 'as'")
        t.i += 1
        items: list[str] = []
        t.ws()
        if t.i < len(t.s) and t.s[t.i] == "]":
            t.i += 1
            return items
        while True:
            charge()
            t.ws()
            if t.i >= len(t.s) or t.s[t.i] not in "'\"":
                at = t.i
                t.word()
                raise t.fail(at, "expected value" if t.i == at else
                             "can not parse as value of type 's'")
            items.append(t.string())
            t.ws()
            if t.i < len(t.s) and t.s[t.i] == ",":
                t.i += 1
                continue
            if t.i < len(t.s) and t.s[t.i] == "]":
                t.i += 1
                return items
            raise t.fail(t.i, "expected ',' or ']' to follow array element")
    if type_ == "s":
        if t.i < len(t.s) and t.s[t.i] in "'\"":
            return t.string()
        t.word()
        raise t.fail(start, "can not parse as value of type 's'")
    word = t.word()
    if type_ == "b":
        if word in ("true", "false"):
            return word == "true"
        raise t.fail(start, "unknown keyword" if word.isalpha() else
                     "can not parse as value of type 'b'")
    if type_ in ("u", "i"):
        if (type_ == "u" and word == "uint32") or (type_ == "i" and word == "int32"):
            t.ws()
            start, word = t.i, t.word()
        if not re.fullmatch(r"[-+]?[0-9]+", word):
            raise t.fail(start, f"can not parse as value of type '{type_}'")
        number = int(word)
        lo, hi = _UINT32 if type_ == "u" else _INT32
        if not lo <= number <= hi:
            raise t.fail(start, f"number out of range for type '{type_}'")
        return number
    if type_ == "d":
        if not re.fullmatch(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", word):
            raise t.fail(start, "can not parse as value of type 'd'")
        value = float(word)
        if math.isinf(value):
            raise t.fail(start, "number out of range for type 'd'")
        return value
    raise SettingsError(f"unsupported type '{type_}'")


# -- the store ----------------------------------------------------------------------------

def _dir_of(schema: str) -> str:
    return schema.replace(".", "/")


class SettingsStore:
    """GSettings over the user database in ``fs`` (read and written on each call: the
    filesystem is the only state)."""

    def __init__(self, fs: FileSystem, root: bool = False) -> None:
        self.fs = fs
        #: root's database (``sudo gsettings``) is not the user's, and cannot be written
        #: (no session bus for root); it reads as the schema defaults
        self.root = root

    # -- schema lookups -------------------------------------------------------------
    @staticmethod
    def schema(schema: str) -> Mapping[str, Key]:
        """The keys of ``schema`` (`SettingsError` naming it when there is none)."""
        keys = SCHEMAS.get(schema.split(":", 1)[0])
        if keys is None:
            raise SettingsError(f"No such schema “{schema}”")
        return keys

    def key(self, schema: str, key: str) -> Key:
        found = self.schema(schema).get(key)
        if found is None:
            raise SettingsError(f"No such key “{key}”")
        return found

    # -- the user database ------------------------------------------------------------
    def _load(self) -> dict[tuple[str, str], str]:
        if self.root:
            return {}
        if not self.fs.is_file(DB_PATH):
            return dict(IMAGE_STATE)
        db: dict[tuple[str, str], str] = {}
        section = ""
        for line in self.fs.read_file(DB_PATH).decode(errors="replace").splitlines():
            charge()
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1].strip("/").replace("/", ".")
            elif "=" in line and section:
                name, _, value = line.partition("=")
                db[(section, name.strip())] = value.strip()
        return db

    def _save(self, db: Mapping[tuple[str, str], str]) -> None:
        if self.root:
            raise SettingsError(ROOT_WARNING)
        by_dir: dict[str, list[str]] = {}
        for (schema, name), value in sorted(db.items()):
            by_dir.setdefault(_dir_of(schema), []).append(f"{name}={value}")
        text = "".join(f"[{d}]\n" + "\n".join(lines) + "\n\n" for d, lines in by_dir.items())
        parent = DB_PATH.rsplit("/", 1)[0]
        if not self.fs.is_dir(parent):
            self.fs.mkdir(parent, parents=True)
        self.fs.write_file(DB_PATH, text)

    # -- gsettings --------------------------------------------------------------------
    def get(self, schema: str, key: str) -> Value:
        """The value of ``key`` (the user's, else the schema default)."""
        k = self.key(schema, key)
        text = self._load().get((schema.split(":", 1)[0], key))
        if text is not None:
            try:
                return parse_value(k.type, text)
            except SettingsError:
                pass  # a damaged entry reads as the default, as dconf ignores bad data
        return parse_value(k.type, k.default)

    def get_text(self, schema: str, key: str) -> str:
        """``gsettings get SCHEMA KEY``'s output (without the newline)."""
        return format_value(self.key(schema, key).type, self.get(schema, key))

    def is_default(self, schema: str, key: str) -> bool:
        self.key(schema, key)
        return (schema.split(":", 1)[0], key) not in self._load()

    def set_text(self, schema: str, key: str, text: str) -> None:
        """``gsettings set SCHEMA KEY VALUE``: parse, check the range, store."""
        k = self.key(schema, key)
        try:
            value = parse_value(k.type, text)
        except SettingsError:
            if k.type != "s":
                raise
            value = text  # gsettings: "the user just forgot to quote it"
        self.set(schema, key, value)

    def set(self, schema: str, key: str, value: Value) -> None:
        """Store a typed ``value`` (`SettingsError` when it is out of range)."""
        k = self.key(schema, key)
        if k.choices and value not in k.choices:
            raise SettingsError("The provided value is outside of the valid range")
        if k.lo is not None and isinstance(value, (int, float)) and not (
                k.lo <= value <= (k.hi if k.hi is not None else value)):
            raise SettingsError("The provided value is outside of the valid range")
        db = self._load()
        db[(schema.split(":", 1)[0], key)] = format_value(k.type, value)
        self._save(db)

    def reset(self, schema: str, key: str) -> None:
        """``gsettings reset``: back to the schema default."""
        self.key(schema, key)
        db = self._load()
        db.pop((schema.split(":", 1)[0], key), None)
        self._save(db)

    def reset_schema(self, schema: str) -> None:
        keys = self.schema(schema)
        db = {k: v for k, v in self._load().items()
              if not (k[0] == schema.split(":", 1)[0] and k[1] in keys)}
        self._save(db)

    def range_text(self, schema: str, key: str) -> str:
        """``gsettings range``'s output."""
        k = self.key(schema, key)
        if k.choices:
            return "enum\n" + "".join(f"'{c}'\n" for c in k.choices)
        if k.lo is not None and k.hi is not None:
            lo, hi = ((float(k.lo), float(k.hi)) if k.type == "d" else (int(k.lo), int(k.hi)))
            return f"range {k.type} {format_value(k.type, lo)} {format_value(k.type, hi)}\n"
        return f"type {k.type}\n"

    # -- dconf paths --------------------------------------------------------------------
    def by_path(self, path: str) -> tuple[str, str]:
        """The (schema, key) of a dconf key path (``/org/gnome/desktop/session/idle-delay``)."""
        if not path.startswith("/") or path.endswith("/"):
            raise SettingsError(f"error: '{path}' is not a valid key path")
        head, _, key = path.rpartition("/")
        schema = head.strip("/").replace("/", ".")
        if schema.startswith("org.gnome.terminal.legacy.profiles:"):
            schema = "org.gnome.Terminal.Legacy.Profile"
        if schema not in SCHEMAS or key not in SCHEMAS[schema]:
            raise SettingsError(f"no key at '{path}'")
        return schema, key

    def user_text(self, schema: str, key: str) -> str | None:
        """The user's value (GVariant text), None when the key is at its default."""
        return self._load().get((schema, key))

"""The panels of the Settings window (GNOME Control Center 42): their rows and what they set.

A panel is a list of `Row`: a switch, a drop-down (``combo``), a slider, a link (opens a
page or a dialog) or a plain value (``info``). Each row reads its value from where Ubuntu
keeps it and writes it back there: GSettings keys through the `SettingsStore` (the same
user database ``gsettings`` reads), the time zone in ``/etc/timezone`` and the output
volume in PulseAudio's sink file (where ``timedatectl`` and ``pactl`` read them).

>>> from drums_gym.local.desktop.fs import FileSystem
>>> fs = FileSystem()
>>> [r.label for r in rows(fs, "Power") if r.kind != "heading"][:2]
['Dim Screen', 'Screen Blank']
>>> set_value(fs, "screen-blank", "Never")
>>> SettingsStore(fs).get_text("org.gnome.desktop.session", "idle-delay")
'uint32 0'
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from ..budget import charge
from .bash.cmd_system import SINK_FILE, TIMEZONE_FILE, sink_volume, timezone_name
from .fs import FileSystem
from .settings_store import SettingsStore
from .timezones import describe_zone, zone_offset

__all__ = [
    "BLANK_DELAYS",
    "PANELS",
    "PRIVACY_PAGES",
    "Row",
    "rows",
    "set_sink",
    "set_timezone",
    "set_value",
    "set_volume",
]

#: The sidebar, top to bottom (Ubuntu 22.04's Settings in a VM without Wi-Fi or battery).
PANELS: tuple[str, ...] = (
    "Network", "Bluetooth", "Background", "Appearance", "Notifications", "Search",
    "Multitasking", "Applications", "Privacy", "Online Accounts", "Sharing", "Sound", "Power",
    "Displays", "Mouse & Touchpad", "Keyboard", "Printers", "Removable Media", "Color",
    "Region & Language", "Accessibility", "Users", "Default Applications", "Date & Time",
    "About",
)
#: The pages of Privacy (the sidebar shows them when Privacy is chosen).
PRIVACY_PAGES: tuple[str, ...] = ("Connectivity", "Location Services", "Thunderbolt",
                                  "File History & Trash", "Screen", "Diagnostics")
#: Words a search matches a panel by (besides its name).
KEYWORDS: dict[str, tuple[str, ...]] = {
    "Power": ("blank", "suspend", "dim", "idle", "battery"),
    "Notifications": ("disturb", "banner", "dnd"),
    "Privacy": ("lock", "screen", "location", "trash"),
    "Accessibility": ("large text", "text size", "zoom", "high contrast", "universal access",
                      "a11y", "screen reader"),
    "Date & Time": ("clock", "timezone", "time zone"),
    "Sound": ("volume", "speaker", "audio", "output"),
    "Displays": ("monitor", "resolution"),
}

#: Screen Blank / Blank Screen Delay: label -> ``idle-delay`` seconds.
BLANK_DELAYS: dict[str, int] = {"1 minute": 60, "2 minutes": 120, "3 minutes": 180,
                                "4 minutes": 240, "5 minutes": 300, "8 minutes": 480,
                                "10 minutes": 600, "12 minutes": 720, "15 minutes": 900,
                                "Never": 0}
_BLANK_ORDER = ("Never", "1 minute", "2 minutes", "3 minutes", "4 minutes", "5 minutes",
                "8 minutes", "10 minutes", "12 minutes", "15 minutes")
_LOCK_DELAYS = {"Screen Turns Off": 0, "30 seconds": 30, "1 minute": 60, "2 minutes": 120,
                "3 minutes": 180, "5 minutes": 300, "30 minutes": 1800, "1 hour": 3600}
_POWER_BUTTON = {"Suspend": "suspend", "Power Off": "interactive", "Hibernate": "hibernate",
                 "Nothing": "nothing"}
_CLOCK = {"24-hour": "24h", "AM / PM": "12h"}

_SESSION, _SAVER = "org.gnome.desktop.session", "org.gnome.desktop.screensaver"
_NOTIFY, _IFACE = "org.gnome.desktop.notifications", "org.gnome.desktop.interface"
_POWER = "org.gnome.settings-daemon.plugins.power"
_A11Y, _APPS = "org.gnome.desktop.a11y.interface", "org.gnome.desktop.a11y.applications"
LARGE_TEXT = 1.25  # GNOME's Large Text factor

_FULL = 65536  # PulseAudio's 100%


@dataclass(frozen=True)
class Row:
    """One row of a panel. ``kind``: ``switch`` (``value`` a bool), ``combo`` (``value`` the
    shown choice, ``choices``), ``slider`` (``value`` 0..``maximum``), ``link`` (``value`` the
    text at its right; it opens ``key``), ``info``, or ``heading`` (a group's title).
    ``key`` names the row for `set_value`; ``enabled`` False greys it out."""

    kind: str
    label: str
    key: str = ""
    value: object = None
    choices: tuple[str, ...] = ()
    maximum: int = 100
    subtitle: str = ""
    enabled: bool = True


def _h(label: str) -> Row:
    return Row("heading", label)


def _label_of(table: dict[str, object], value: object, default: str) -> str:
    return next((k for k, v in table.items() if v == value), default)


def _minutes(seconds: int) -> str:
    if seconds == 0:
        return "Never"
    found = _label_of(dict(BLANK_DELAYS), seconds, "")
    return found or f"{seconds // 60} minutes"


def volume_percent(fs: FileSystem) -> int:
    """The output volume in percent (what the Sound panel's slider shows)."""
    return round(sink_volume(fs)[0] * 100 / _FULL)


def rows(fs: FileSystem, page: str) -> list[Row]:
    """The rows of ``page`` (a panel of `PANELS` or a page of `PRIVACY_PAGES`) now."""
    charge()
    s = SettingsStore(fs)
    if page == "Power":
        return [
            _h("Power Saving Options"),
            Row("switch", "Dim Screen", "dim-screen", s.get(_POWER, "idle-dim"),
                subtitle="Reduces the screen brightness when the computer is inactive."),
            Row("combo", "Screen Blank", "screen-blank",
                _minutes(int(s.get(_SESSION, "idle-delay"))), _BLANK_ORDER,  # type: ignore[arg-type]
                subtitle="Turns the screen off after a period of inactivity."),
            Row("info", "Automatic Suspend", "", "Off" if s.get(
                _POWER, "sleep-inactive-ac-type") == "nothing" else "On",
                subtitle="Pauses the computer after a period of inactivity."),
            _h("Suspend & Power Button"),
            Row("combo", "Power Button Behavior", "power-button",
                _label_of(dict(_POWER_BUTTON), s.get(_POWER, "power-button-action"), "Suspend"),
                tuple(_POWER_BUTTON)),
        ]
    if page == "Notifications":
        return [
            Row("switch", "Do Not Disturb", "dnd", not s.get(_NOTIFY, "show-banners")),
            Row("switch", "Lock Screen Notifications", "lock-notifications",
                s.get(_NOTIFY, "show-in-lock-screen")),
            _h("Applications"),
            *(Row("link", app, "", "") for app in (
                "Files", "Firefox Web Browser", "Settings", "Terminal", "Thunderbird Mail",
                "Ubuntu Software")),
        ]
    if page == "Screen":
        return [
            _h("Screen"),
            Row("combo", "Blank Screen Delay", "screen-blank",
                _minutes(int(s.get(_SESSION, "idle-delay"))), _BLANK_ORDER,  # type: ignore[arg-type]
                subtitle="Period of inactivity after which the screen will go blank."),
            Row("switch", "Automatic Screen Lock", "auto-lock", s.get(_SAVER, "lock-enabled"),
                subtitle="Locks the screen after it goes blank."),
            Row("combo", "Automatic Screen Lock Delay", "lock-delay",
                _label_of(dict(_LOCK_DELAYS), s.get(_SAVER, "lock-delay"), "Screen Turns Off"),
                tuple(_LOCK_DELAYS), enabled=bool(s.get(_SAVER, "lock-enabled"))),
            Row("switch", "Lock Screen on Suspend", "lock-suspend",
                s.get(_SAVER, "ubuntu-lock-on-suspend")),
            Row("switch", "Show Notifications on Lock Screen", "lock-notifications",
                s.get(_NOTIFY, "show-in-lock-screen")),
        ]
    if page == "Accessibility":
        scale = s.get(_IFACE, "text-scaling-factor")
        return [
            _h("Seeing"),
            Row("switch", "High Contrast", "high-contrast", s.get(_A11Y, "high-contrast")),
            Row("switch", "Large Text", "large-text",
                isinstance(scale, float) and scale > 1.0),
            Row("info", "Cursor Size", "", "Default" if s.get(_IFACE, "cursor-size") == 24
                else "Custom"),
            Row("info", "Zoom", "", "On" if s.get(_APPS, "screen-magnifier-enabled") else "Off"),
            Row("switch", "Screen Reader", "screen-reader", s.get(_APPS, "screen-reader-enabled")),
            Row("info", "Sound Keys", "", "Off"),
            _h("Hearing"),
            Row("info", "Visual Alerts", "", "Off"),
            _h("Typing"),
            Row("switch", "Screen Keyboard", "screen-keyboard",
                s.get(_APPS, "screen-keyboard-enabled")),
            Row("info", "Repeat Keys", "", "On"),
            Row("info", "Cursor Blinking", "", "On"),
        ]
    if page == "Date & Time":
        auto = bool(s.get("org.gnome.desktop.datetime", "automatic-timezone"))
        name = timezone_name(fs)
        now = datetime.fromtimestamp(fs.clock.now(), tz=timezone.utc) + zone_offset(
            name, fs.clock.now())
        clock = s.get(_IFACE, "clock-format")
        shown = f"{now:%d %B %Y, }" + (f"{now:%H:%M}" if clock == "24h" else
                                       f"{now:%I:%M %p}".lstrip("0"))
        return [
            Row("switch", "Automatic Time Zone", "auto-timezone", auto,
                subtitle="Requires internet access and location services to be enabled."),
            Row("info", "Date & Time", "", shown),
            Row("link", "Time Zone", "timezone", describe_zone(name, fs.clock.now()),
                enabled=not auto),
            Row("combo", "Time Format", "clock-format", _label_of(dict(_CLOCK), clock,
                                                                 "24-hour"), tuple(_CLOCK)),
        ]
    if page == "Sound":
        over = bool(s.get("org.gnome.desktop.sound", "allow-volume-above-100-percent"))
        return [
            _h("Output"),
            Row("info", "Output Device", "", "Speakers - Built-in Audio"),
            Row("slider", "Output Volume", "volume", volume_percent(fs),
                maximum=150 if over else 100),
            Row("info", "Balance", "", "Centred"),
            _h("Input"),
            Row("info", "Input Device", "", "Microphone - Built-in Audio"),
            _h("Sounds"),
            Row("switch", "Over-Amplification", "over-amplification", over,
                subtitle="Allows raising the volume above 100%."),
            Row("info", "Alert Sound", "", "Default"),
        ]
    if page == "About":
        return [Row("info", "Device Name", "", "ubuntu"),
                Row("info", "OS Name", "", "Ubuntu 22.04.3 LTS"),
                Row("info", "OS Type", "", "64-bit"),
                Row("info", "GNOME Version", "", "42.9"),
                Row("info", "Windowing System", "", "X11")]
    if page == "Privacy":
        return [Row("link", p, f"page:{p}", "") for p in PRIVACY_PAGES]
    return []


# -- writing -----------------------------------------------------------------------------

def set_sink(fs: FileSystem, volume: int, muted: bool) -> None:
    """Set the default sink's ``volume`` (PulseAudio units, 65536 is 100%) and mute, in the
    sink file ``pactl`` reads."""
    parent = SINK_FILE.rsplit("/", 1)[0]
    if not fs.is_dir(parent):
        fs.mkdir(parent, parents=True)
    fs.write_file(SINK_FILE, f"{max(0, int(volume))} {'yes' if muted else 'no'}\n")


def set_volume(fs: FileSystem, percent: int) -> None:
    """Set the default sink's volume in percent (its mute unchanged)."""
    set_sink(fs, round(max(0, percent) * _FULL / 100), sink_volume(fs)[1])


def set_timezone(fs: FileSystem, zone: str) -> None:
    """Set the system time zone (what timedated writes, and ``timedatectl`` reads)."""
    if not fs.is_dir("/etc"):
        fs.mkdir("/etc", mode=0o755)
    fs.write_file(TIMEZONE_FILE, zone + "\n", mode=0o644)


def set_value(fs: FileSystem, key: str, value: object) -> None:
    """Apply a row's new ``value`` (a bool for a switch, a choice, a percent). Raises
    ValueError naming the row for an unknown ``key`` or a value it does not take."""
    s = SettingsStore(fs)
    switches = {"dim-screen": (_POWER, "idle-dim"), "lock-notifications": (
        _NOTIFY, "show-in-lock-screen"), "auto-lock": (_SAVER, "lock-enabled"),
        "lock-suspend": (_SAVER, "ubuntu-lock-on-suspend"),
        "high-contrast": (_A11Y, "high-contrast"),
        "screen-reader": (_APPS, "screen-reader-enabled"),
        "screen-keyboard": (_APPS, "screen-keyboard-enabled"),
        "auto-timezone": ("org.gnome.desktop.datetime", "automatic-timezone"),
        "over-amplification": ("org.gnome.desktop.sound", "allow-volume-above-100-percent")}
    combos: dict[str, tuple[str, str, dict[str, object]]] = {
        "screen-blank": (_SESSION, "idle-delay", dict(BLANK_DELAYS)),
        "lock-delay": (_SAVER, "lock-delay", dict(_LOCK_DELAYS)),
        "power-button": (_POWER, "power-button-action", dict(_POWER_BUTTON)),
        "clock-format": (_IFACE, "clock-format", dict(_CLOCK)),
    }
    if key in switches:
        s.set(*switches[key], bool(value))
    elif key == "dnd":
        s.set(_NOTIFY, "show-banners", not value)
    elif key == "large-text":
        if value:
            s.set(_IFACE, "text-scaling-factor", LARGE_TEXT)
        else:
            s.reset(_IFACE, "text-scaling-factor")
    elif key in combos:
        schema, name, table = combos[key]
        if value not in table:
            raise ValueError(f"{key}: {value!r} is not one of {', '.join(table)}")
        s.set(schema, name, table[str(value)])  # type: ignore[arg-type]
    elif key == "volume":
        set_volume(fs, int(value))  # type: ignore[call-overload]
    else:
        raise ValueError(f"no settings row {key!r}")
